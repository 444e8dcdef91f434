//! Readers from file contents to a [`Graph`]: leaves around the core. Also the
//! writers of the contest's result files (`contest`) and of the packed plan report
//! the page's worker hands over (`packed`).
//!
//! | format | detected by |
//! |---|---|
//! | `native` (our JSON) | a JSON object whose `tensors` carry `size` |
//! | `corpus` (reference graph JSON) | a JSON object whose `tensors` carry `bytes` and `kind` |
//! | `minimalloc` (CSV) | a header with `id`, `lower`, `upper`, `size` (MiniMalloc's spellings) |
//! | `tflite` (FlatBuffers) | the file identifier `TFL3` at bytes 4..8 |
//! | `onnx` (protobuf) | a `ModelProto` with a graph and an IR version or opset |
//! | `snapshot` (PyTorch CUDA memory snapshot) | a pickle (`0x80` and protocol 2 to 5), or gzip |
//! | `text` (memplan text) | UTF-8 whose first statement is `graph NAME`, a tensor declaration or an op line (with `:`) |

// Without the `models` feature the importers' code is still compiled (format
// detection uses it) but never called, so the linker leaves it out.
#![cfg_attr(
    not(feature = "models"),
    allow(dead_code, unused_imports, unused_variables)
)]

pub mod contest;
mod corpus;
mod flatbuf;
mod import;
mod minimalloc;
mod native;
pub use native::write as write_native;
pub mod npu;
mod onnx;
pub mod packed;
#[cfg(feature = "snapshots")]
pub mod pickle;
mod protobuf;
#[cfg(feature = "snapshots")]
pub mod snapshot;
mod sniff;
pub mod source;
mod text;
mod tflite;

pub use memplan::units::{format_size, parse_size};
pub use minimalloc::write as write_minimalloc;
pub use text::write_text;

use memplan::error::Error;
use memplan::graph::Graph;
use source::Source;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Native,
    Corpus,
    MiniMalloc,
    Tflite,
    Onnx,
    Text,
    Snapshot,
}

/// Largest input accepted: 256 MiB.
pub const MAX_INPUT_BYTES: usize = 256 << 20;

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Native,
        Format::Corpus,
        Format::MiniMalloc,
        Format::Tflite,
        Format::Onnx,
        Format::Text,
        Format::Snapshot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Corpus => "corpus",
            Format::MiniMalloc => "minimalloc",
            Format::Tflite => "tflite",
            Format::Onnx => "onnx",
            Format::Text => "text",
            Format::Snapshot => "snapshot",
        }
    }

    pub fn from_name(name: &str) -> Result<Format, Error> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown format `{name}` (expected native, corpus, minimalloc, tflite, onnx, text or snapshot)"
                ))
            })
    }

    /// Guesses the format from the content; `name` (a file name) breaks no ties but
    /// names the graph.
    pub fn detect(data: &[u8]) -> Result<Format, Error> {
        if tflite::is_tflite(data) {
            return Ok(Format::Tflite);
        }
        if onnx::is_onnx(data) {
            return Ok(Format::Onnx);
        }
        if is_snapshot(data) {
            return Ok(Format::Snapshot);
        }
        let text = std::str::from_utf8(&data[..data.len().min(4096)]).unwrap_or("");
        let head = text.trim_start_matches('\u{feff}').trim_start();
        if head.starts_with('{') {
            let keys: sniff::Keys = serde_json::from_slice(data).map_err(|e| {
                Error::parse("json", Some(format!("line {}", e.line())), e.to_string())
            })?;
            return detect_json(&keys);
        }
        if minimalloc::is_header(head.lines().next().unwrap_or("")) {
            return Ok(Format::MiniMalloc);
        }
        if text::is_text(data) {
            return Ok(Format::Text);
        }
        Err(Error::usage(
            "unrecognised input: expected a JSON graph (native or corpus), a MiniMalloc CSV (a header with `id`, `lower`, `upper` and `size` columns), memplan text (tensor lines `NAME SIZE`, op lines `NAME: INPUTS -> OUTPUTS`), a TFLite or an ONNX model, or a PyTorch memory snapshot (pickle)",
        ))
    }
}

/// True for an NPU scheduling case in contest JSON (`Nodes` and `Edges`), which
/// `memplan npu` reads rather than the arena planner.
pub fn is_npu_case(data: &[u8]) -> bool {
    opens_json_object(data) && serde_json::from_slice::<sniff::Keys>(data).is_ok_and(|k| k.is_npu())
}

/// [`is_npu_case`] of an input read by ranges: only one within [`MAX_INPUT_BYTES`]
/// whose first bytes open a JSON object is read whole, so a model of any size is
/// not read to find out that it is no case.
pub fn is_npu_case_source(src: &dyn Source) -> Result<bool, Error> {
    if src.size() > MAX_INPUT_BYTES as u64 {
        return Ok(false);
    }
    let mut head = vec![0; src.size().min(4096) as usize];
    src.read_at(0, &mut head)?;
    Ok(opens_json_object(&head) && is_npu_case(&whole(src)?))
}

/// True when the first bytes of `data` that are not blank (or a byte order mark)
/// open a JSON object.
fn opens_json_object(data: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&data[..data.len().min(4096)]);
    head.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

fn detect_json(keys: &sniff::Keys) -> Result<Format, Error> {
    if keys.is_npu() {
        return Err(Error::usage(
            "this is an NPU scheduling case (`Nodes`/`Edges`): use `memplan npu`",
        ));
    }
    match &keys.tensors {
        Some(first) if first.has("bytes") && first.has("kind") => Ok(Format::Corpus),
        Some(_) => Ok(Format::Native),
        None if keys.ops.is_some() => Ok(Format::Native),
        None => Err(Error::usage(
            "unrecognised JSON: expected an object with `tensors` and `ops`",
        )),
    }
}

/// Options for reading models.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Shapes of named ONNX graph inputs, replacing their declared or symbolic
    /// dimensions (which otherwise default to 1).
    pub input_shapes: Vec<(String, Vec<u64>)>,
    /// Shapes of named ONNX values: upper bounds for sizes that depend on input
    /// values (`NonZero`, a `Loop` without a constant trip count ...).
    pub value_shapes: Vec<(String, Vec<u64>)>,
    /// Ignore the ONNX file's `value_info` and declared output types, so that
    /// every shape is memplan's own inference.
    pub no_declared: bool,
    /// Values of named free input dimensions (`batch=4`, or `x:2=48` for an
    /// unnamed one), wherever they occur.
    pub dims: Vec<(String, u64)>,
    /// The device whose trace a PyTorch snapshot is read for (default: the one
    /// with the most entries).
    pub device: Option<u32>,
    /// Only these entries of a PyTorch snapshot's trace (`--entries A..B`).
    #[cfg(feature = "snapshots")]
    pub entries: Option<snapshot::Entries>,
}

/// Parses `NAME=VALUE` of `--dim`: `seq=128`.
pub fn parse_dim(text: &str) -> Result<(String, u64), Error> {
    let bad = || Error::usage(format!("`{text}` is not NAME=VALUE (e.g. seq=128)"));
    let (name, v) = text.rsplit_once('=').ok_or_else(bad)?;
    let v = v.trim().parse::<u64>().map_err(|_| bad())?;
    if name.is_empty() {
        return Err(bad());
    }
    Ok((name.to_string(), v))
}

pub use onnx::{covered_ops as onnx_ops, Source as ShapeSource, ValueShape};

/// Every value of an ONNX model's main graph with its shape, element type, bytes
/// and where the shape came from (`memplan shapes`), and the graph.
pub fn onnx_shapes(
    data: &[u8],
    name: &str,
    opts: &ReadOptions,
) -> Result<(Graph, Vec<ValueShape>), Error> {
    check_size(data)?;
    onnx_shapes_source(&data, name, opts)
}

/// [`onnx_shapes`] on an input read by ranges: a model of any size, read without
/// its weights.
pub fn onnx_shapes_source(
    src: &dyn Source,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Graph, Vec<ValueShape>), Error> {
    let o = onnx::Options {
        input_shapes: &opts.input_shapes,
        value_shapes: &opts.value_shapes,
        no_declared: opts.no_declared,
        dims: &opts.dims,
    };
    let imported = onnx::import(src, name, &o)?;
    Ok((imported.graph, imported.values))
}

/// Parses `NAME=DIMS` with dimensions separated by `x` or `,`: `data=1x3x224x224`;
/// `NAME=` or `NAME=scalar` gives a rank-0 shape.
pub fn parse_input_shape(text: &str) -> Result<(String, Vec<u64>), Error> {
    let bad = || {
        Error::usage(format!(
            "`{text}` is not NAME=DIMS (e.g. data=1x3x224x224, or n=scalar)"
        ))
    };
    let (name, dims) = text.rsplit_once('=').ok_or_else(bad)?;
    let dims = if dims.trim().is_empty() || dims.trim() == "scalar" {
        Vec::new()
    } else {
        dims.split(['x', 'X', ','])
            .map(|d| d.trim().parse::<u64>().map_err(|_| bad()))
            .collect::<Result<Vec<_>, _>>()?
    };
    if name.is_empty() {
        return Err(bad());
    }
    Ok((name.to_string(), dims))
}

/// Reads a graph; `format` forces a format, else it is detected. `name` is used
/// when the file does not name the graph (models always take it).
pub fn read(data: &[u8], format: Option<Format>, name: &str) -> Result<Graph, Error> {
    read_with(data, format, name, &ReadOptions::default())
}

/// [`read`] with options for the model importers.
pub fn read_with(
    data: &[u8],
    format: Option<Format>,
    name: &str,
    opts: &ReadOptions,
) -> Result<Graph, Error> {
    check_size(data)?;
    let format = match format {
        Some(f) => f,
        None => Format::detect(data)?,
    };
    match format {
        Format::Native => native::read(data, name),
        Format::Corpus => corpus::read(data, name),
        Format::MiniMalloc => minimalloc::read(data, name),
        #[cfg(feature = "models")]
        Format::Tflite => tflite::read(data, name, opts),
        #[cfg(feature = "models")]
        Format::Onnx => onnx_shapes(data, name, opts).map(|(g, _)| g),
        #[cfg(not(feature = "models"))]
        Format::Tflite | Format::Onnx => Err(without_models(format)),
        Format::Text => text::read(data, name),
        #[cfg(feature = "snapshots")]
        Format::Snapshot => snapshot::read_stream(data, opts.device)?
            .within(opts.entries)?
            .graph(name),
        #[cfg(not(feature = "snapshots"))]
        Format::Snapshot => Err(without_snapshots()),
    }
}

/// Reads a graph from an input read by ranges: an ONNX or TFLite model of any size
/// is read without its weights, a snapshot as a stream; other formats are read
/// whole, within [`MAX_INPUT_BYTES`].
pub fn read_source(
    src: &dyn Source,
    format: Option<Format>,
    name: &str,
    opts: &ReadOptions,
) -> Result<Graph, Error> {
    let format = match format {
        Some(f) => f,
        None => {
            let mut head = vec![0; src.size().min(4096) as usize];
            src.read_at(0, &mut head)?;
            if tflite::is_tflite(&head) {
                Format::Tflite
            } else if is_snapshot(&head) {
                Format::Snapshot
            } else if onnx::is_onnx_source(src) {
                Format::Onnx
            } else {
                Format::detect(&whole(src)?)?
            }
        }
    };
    match format {
        #[cfg(feature = "models")]
        Format::Onnx => onnx_shapes_source(src, name, opts).map(|(g, _)| g),
        #[cfg(feature = "models")]
        Format::Tflite => tflite::read_source(src, name, opts),
        #[cfg(not(feature = "models"))]
        Format::Tflite | Format::Onnx => Err(without_models(format)),
        #[cfg(feature = "snapshots")]
        Format::Snapshot => snapshot::read_source(src, opts.device)?
            .within(opts.entries)?
            .graph(name),
        #[cfg(not(feature = "snapshots"))]
        Format::Snapshot => Err(without_snapshots()),
        other => read_with(&whole(src)?, Some(other), name, opts),
    }
}

/// True when `data` starts like a PyTorch memory snapshot: a pickle of protocol 2
/// or later, or gzip (whose content is checked when read). Only a build with the
/// `snapshots` feature reads one.
pub fn is_snapshot(data: &[u8]) -> bool {
    matches!(data, [0x80, 2..=5, ..] | [0x1f, 0x8b, ..])
}

/// The error of a build without the snapshot reader given a snapshot.
#[cfg(not(feature = "snapshots"))]
fn without_snapshots() -> Error {
    Error::usage("this build of memplan reads no PyTorch snapshots (it was built without the `snapshots` feature)")
}

/// True when `data` is a model (ONNX or TFLite), which only a build with the
/// `models` feature reads.
pub fn is_model(data: &[u8]) -> bool {
    tflite::is_tflite(data) || onnx::is_onnx(data)
}

/// The error of a build without the importers given a model.
#[cfg(not(feature = "models"))]
fn without_models(format: Format) -> Error {
    Error::usage(format!(
        "this build of memplan reads no {} models (it was built without the `models` feature)",
        format.name()
    ))
}

/// All of `src`, within [`MAX_INPUT_BYTES`].
fn whole(src: &dyn Source) -> Result<Vec<u8>, Error> {
    let limit = MAX_INPUT_BYTES as u64;
    if src.size() > limit {
        return Err(Error::limit(
            "the input size in bytes (only ONNX and TFLite models and snapshots may be larger)",
            src.size(),
            limit,
        ));
    }
    let mut data = vec![0; src.size() as usize];
    src.read_at(0, &mut data)?;
    Ok(data)
}

fn check_size(data: &[u8]) -> Result<(), Error> {
    if data.len() > MAX_INPUT_BYTES {
        return Err(Error::limit(
            "the input size in bytes",
            data.len() as u64,
            MAX_INPUT_BYTES as u64,
        ));
    }
    Ok(())
}

fn json_error(format: &'static str, e: serde_json::Error) -> Error {
    Error::parse(
        format,
        Some(format!("line {} column {}", e.line(), e.column())),
        e.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_npu_case_is_told_from_the_bytes_or_read_by_ranges() {
        let case: &[u8] = b"\n {\"Nodes\": [], \"Edges\": []}";
        let graph: &[u8] = br#"{"tensors": [], "ops": [], "Nodes": []}"#;
        let not_json: &[u8] = b"id,lower,upper,size\n";
        assert!(is_npu_case(case) && is_npu_case_source(&case).unwrap());
        for other in [graph, not_json, b"", b"{\"Nodes\": [], \"Edges\": "] {
            assert!(!is_npu_case(other));
            assert!(!is_npu_case_source(&other).unwrap());
        }
    }
}
