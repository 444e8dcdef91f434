//! One error type for every phase. Messages are lowercase and name the offending item.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A file that does not follow its format.
    Parse {
        format: &'static str,
        at: Option<String>,
        message: String,
    },
    /// A well-formed file describing an impossible graph.
    Invalid(String),
    /// A value beyond what memplan accepts.
    Limit {
        what: String,
        value: u64,
        limit: u64,
    },
    /// A value whose size depends on the input data: the user must bound it.
    NeedsShape {
        format: &'static str,
        at: Option<String>,
        value: String,
        message: String,
    },
    /// A dependency cycle; the names along it, first name repeated at the end.
    Cycle(Vec<String>),
    /// An unknown strategy, format or option value.
    Usage(String),
}

impl Error {
    pub fn parse(format: &'static str, at: Option<String>, message: impl Into<String>) -> Error {
        Error {
            kind: Kind::Parse {
                format,
                at,
                message: message.into(),
            },
        }
    }

    /// Value `value` of a model has a size that depends on the input data, so the
    /// reader needs an upper bound for its shape (`--value-shape NAME=DIMS`).
    pub fn needs_shape(
        format: &'static str,
        at: Option<String>,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> Error {
        Error {
            kind: Kind::NeedsShape {
                format,
                at,
                value: value.into(),
                message: message.into(),
            },
        }
    }

    pub fn invalid(message: impl Into<String>) -> Error {
        Error {
            kind: Kind::Invalid(message.into()),
        }
    }

    pub fn limit(what: impl Into<String>, value: u64, limit: u64) -> Error {
        Error {
            kind: Kind::Limit {
                what: what.into(),
                value,
                limit,
            },
        }
    }

    pub fn cycle(path: Vec<String>) -> Error {
        Error {
            kind: Kind::Cycle(path),
        }
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error {
            kind: Kind::Usage(message.into()),
        }
    }

    /// What went wrong, in one word, for callers that act on it (the page):
    /// `parse`, `needs-shape`, `invalid`, `limit`, `cycle` or `usage`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Parse { .. } => "parse",
            Kind::NeedsShape { .. } => "needs-shape",
            Kind::Invalid(_) => "invalid",
            Kind::Limit { .. } => "limit",
            Kind::Cycle(_) => "cycle",
            Kind::Usage(_) => "usage",
        }
    }

    /// The value whose shape the reader needs bounded, for a `needs-shape` error.
    pub fn value_needing_shape(&self) -> Option<&str> {
        match &self.kind {
            Kind::NeedsShape { value, .. } => Some(value),
            _ => None,
        }
    }

    /// True for a dependency cycle.
    pub fn is_cycle(&self) -> bool {
        matches!(self.kind, Kind::Cycle(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Parse {
                format,
                at: Some(at),
                message,
            }
            | Kind::NeedsShape {
                format,
                at: Some(at),
                message,
                ..
            } => write!(f, "{format}: {at}: {message}"),
            Kind::Parse {
                format,
                at: None,
                message,
            }
            | Kind::NeedsShape {
                format,
                at: None,
                message,
                ..
            } => write!(f, "{format}: {message}"),
            Kind::Invalid(m) | Kind::Usage(m) => f.write_str(m),
            Kind::Limit { what, value, limit } => {
                write!(f, "{what} is {value}, above the limit of {limit}")
            }
            Kind::Cycle(path) => {
                let shown: Vec<String> = path.iter().map(|n| format!("`{n}`")).collect();
                write!(f, "the graph has a cycle: {}", shown.join(" -> "))
            }
        }
    }
}

impl std::error::Error for Error {}
