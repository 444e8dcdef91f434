//! Readers from file contents to a [`Graph`]: leaves around the core.
//!
//! | format | detected by |
//! |---|---|
//! | `native` (our JSON) | a JSON object whose `tensors` carry `size` |
//! | `corpus` (reference graph JSON) | a JSON object whose `tensors` carry `bytes` and `kind` |
//! | `minimalloc` (CSV) | a header `id,lower,upper,size` |

pub mod contest;
mod corpus;
mod minimalloc;
mod native;
pub mod npu;
mod size;

pub use size::{format_size, parse_size};

use crate::error::Error;
use crate::graph::Graph;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Native,
    Corpus,
    MiniMalloc,
}

/// Largest input accepted: 256 MiB.
pub const MAX_INPUT_BYTES: usize = 256 << 20;

impl Format {
    pub const ALL: [Format; 3] = [Format::Native, Format::Corpus, Format::MiniMalloc];

    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Corpus => "corpus",
            Format::MiniMalloc => "minimalloc",
        }
    }

    pub fn from_name(name: &str) -> Result<Format, Error> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown format `{name}` (expected native, corpus or minimalloc)"
                ))
            })
    }

    /// Guesses the format from the content; `name` (a file name) breaks no ties but
    /// names the graph.
    pub fn detect(data: &[u8]) -> Result<Format, Error> {
        let text = std::str::from_utf8(&data[..data.len().min(4096)]).unwrap_or("");
        let head = text.trim_start_matches('\u{feff}').trim_start();
        if head.starts_with('{') {
            let value: serde_json::Value = serde_json::from_slice(data).map_err(|e| {
                Error::parse("json", Some(format!("line {}", e.line())), e.to_string())
            })?;
            return detect_json(&value);
        }
        let first = head.lines().next().unwrap_or("").trim();
        if first
            .replace(' ', "")
            .eq_ignore_ascii_case("id,lower,upper,size")
        {
            return Ok(Format::MiniMalloc);
        }
        Err(Error::usage(
            "unrecognised input: expected a JSON graph (native or corpus) or a MiniMalloc CSV with the header `id,lower,upper,size`",
        ))
    }
}

/// True for an NPU scheduling case in contest JSON (`Nodes` and `Edges`), which
/// `memplan npu` reads rather than the arena planner.
pub fn is_npu_case(data: &[u8]) -> bool {
    let head = std::str::from_utf8(&data[..data.len().min(4096)]).unwrap_or("");
    head.trim_start().starts_with('{')
        && serde_json::from_slice::<serde_json::Value>(data).is_ok_and(|v| is_npu_json(&v))
}

fn is_npu_json(value: &serde_json::Value) -> bool {
    value.get("Nodes").is_some() && value.get("Edges").is_some()
}

fn detect_json(value: &serde_json::Value) -> Result<Format, Error> {
    if is_npu_json(value) {
        return Err(Error::usage(
            "this is an NPU scheduling case (`Nodes`/`Edges`): use `memplan npu`",
        ));
    }
    let first = value
        .get("tensors")
        .and_then(|t| t.as_array())
        .and_then(|a| a.first());
    match first {
        Some(t) if t.get("bytes").is_some() && t.get("kind").is_some() => Ok(Format::Corpus),
        Some(_) | None if value.get("ops").is_some() || value.get("tensors").is_some() => {
            Ok(Format::Native)
        }
        _ => Err(Error::usage(
            "unrecognised JSON: expected an object with `tensors` and `ops`",
        )),
    }
}

/// Reads a graph; `format` forces a format, else it is detected. `name` is used
/// when the file does not name the graph.
pub fn read(data: &[u8], format: Option<Format>, name: &str) -> Result<Graph, Error> {
    if data.len() > MAX_INPUT_BYTES {
        return Err(Error::limit(
            "the input size in bytes",
            data.len() as u64,
            MAX_INPUT_BYTES as u64,
        ));
    }
    let format = match format {
        Some(f) => f,
        None => Format::detect(data)?,
    };
    match format {
        Format::Native => native::read(data, name),
        Format::Corpus => corpus::read(data, name),
        Format::MiniMalloc => minimalloc::read(data, name),
    }
}

fn json_error(format: &'static str, e: serde_json::Error) -> Error {
    Error::parse(
        format,
        Some(format!("line {} column {}", e.line(), e.column())),
        e.to_string(),
    )
}
