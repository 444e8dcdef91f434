//! One error type for every phase. Messages are lowercase and name the offending item.

use crate::dims::FreeDim;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    /// A model's free input dimensions, when values other than those used might
    /// have let it import (see [`Error::with_free_dims`]).
    free_dims: Vec<FreeDim>,
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
    fn of(kind: Kind) -> Error {
        Error {
            kind,
            free_dims: Vec::new(),
        }
    }

    /// This error of importing a model whose free input dimensions were `dims`:
    /// the page asks for them, and where some were defaulted the message adds
    /// that other values may import.
    pub fn with_free_dims(mut self, dims: Vec<FreeDim>) -> Error {
        self.free_dims = dims;
        self
    }

    /// The free input dimensions of a model that did not import (see
    /// [`Error::with_free_dims`]); empty for every other error.
    pub fn free_dims(&self) -> &[FreeDim] {
        &self.free_dims
    }

    pub fn parse(format: &'static str, at: Option<String>, message: impl Into<String>) -> Error {
        Error::of(Kind::Parse {
            format,
            at,
            message: message.into(),
        })
    }

    /// Value `value` of a model has a size that depends on the input data (or a
    /// shape nothing gives), so the reader needs an upper bound for its shape.
    /// The message names no flag or control: the CLI and the page each add how.
    pub fn needs_shape(
        format: &'static str,
        at: Option<String>,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> Error {
        Error::of(Kind::NeedsShape {
            format,
            at,
            value: value.into(),
            message: message.into(),
        })
    }

    pub fn invalid(message: impl Into<String>) -> Error {
        Error::of(Kind::Invalid(message.into()))
    }

    pub fn limit(what: impl Into<String>, value: u64, limit: u64) -> Error {
        Error::of(Kind::Limit {
            what: what.into(),
            value,
            limit,
        })
    }

    pub fn cycle(path: Vec<String>) -> Error {
        Error::of(Kind::Cycle(path))
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::of(Kind::Usage(message.into()))
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
        self.kind.fmt(f)?;
        let defaulted: Vec<String> = (self.free_dims.iter())
            .filter(|d| !d.given)
            .map(|d| format!("{}={}", d.name, d.value))
            .collect();
        if !defaulted.is_empty() {
            write!(
                f,
                " (free input dims {} defaulted; other values may import)",
                defaulted.join(", ")
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
