//! TFLite models (FlatBuffers, file identifier `TFL3`): subgraph 0's tensors and
//! operators in their stored execution order, and every subgraph that an `IF`,
//! `WHILE` or `CALL_ONCE` calls, each as a nested arena.
//!
//! A tensor with a non-empty buffer is a weight; so is every output of an op whose
//! inputs are all constant (fp16 `DEQUANTIZE`, `DENSIFY`), which is folded away.
//! Ops are named `KIND#step`; custom ops are `CUSTOM:<custom code>`. Field indices
//! follow TFLite's `schema.fbs`.
//!
//! Shapes are the stored static ones unless the options change an input: an input
//! dimension that `shape_signature` marks dynamic (-1) is a free dimension
//! `INPUT:AXIS` (`--dim`), and `--input-shape` sets a whole input. From a changed
//! input, shapes are propagated in execution order by the rules of [`shapes`]; an
//! op without a rule that a changed shape reaches is an error. A called subgraph
//! takes the shapes of its caller's inputs.

mod build;
mod control;
mod infer;
mod inputs;
mod ops;
mod options;
mod shapes;
mod tables;

use super::flatbuf::{Bytes, Table, Vector};
use super::source::Source;
use super::ReadOptions;
use memplan::error::Error;
use memplan::graph::Graph;
use options::Opts;
use std::borrow::Cow;
use tables::op_codes;

const FORMAT: &str = "tflite";
/// Deepest nesting of subgraph calls (`IF` in a `WHILE` body in ...).
const MAX_DEPTH: usize = 24;
/// `TensorType`s whose values memplan reads and computes.
const INT32: i8 = 2;
const INT64: i8 = 4;

/// True when bytes 4..8 hold the file identifier `TFL3`.
pub fn is_tflite(data: &[u8]) -> bool {
    data.get(4..8) == Some(b"TFL3".as_slice())
}

/// Reads subgraph 0 and the subgraphs it calls; `opts` sets input shapes and
/// free dimensions.
pub fn read(data: &[u8], name: &str, opts: &ReadOptions) -> Result<Graph, Error> {
    read_bytes(&Bytes::Slice(data), name, opts)
}

/// [`read`] on a file read by ranges: the weights' buffers are never read, only
/// the few small constants shapes are computed from.
pub fn read_source(src: &dyn Source, name: &str, opts: &ReadOptions) -> Result<Graph, Error> {
    read_bytes(&Bytes::paged(src)?, name, opts)
}

fn read_bytes(data: &Bytes, name: &str, opts: &ReadOptions) -> Result<Graph, Error> {
    if let Some((value, _)) = opts.value_shapes.first() {
        return Err(Error::usage(format!(
            "a shape is given for value `{value}`: TFLite models take input shapes and free dims, not value shapes"
        )));
    }
    if opts.no_declared {
        return Err(Error::usage(
            "ignoring declared shapes applies to ONNX models: a TFLite model's shapes are stored, or propagated from the inputs you give",
        ));
    }
    let model = Table::root(data)?;
    let read = |from_inputs: bool| -> Result<Graph, Error> {
        // every byte the reader keeps is paid for by bytes of the file, so a corrupt
        // file sharing one long vector or string among many tables cannot make it
        // slow or large
        let mut budget = Budget(2 * data.len() + (64 << 10));
        let codes = op_codes(&model, &mut budget)?;
        let buffers = model.vector(4, 4)?;
        let Some(subgraphs) = model.vector(2, 4)?.filter(|s| !s.is_empty()) else {
            return Err(err(None, "the model has no subgraph"));
        };
        let mut reader = Reader {
            data,
            codes,
            buffers,
            subgraphs,
            budget,
            stack: Vec::new(),
        };
        let given = Given::Options(opts, from_inputs);
        Ok(reader.subgraph(0, Some(name.to_string()), given)?.graph)
    };
    // shapes propagated from the dynamic inputs, else (an op without a rule on
    // the way) the stored ones, placeholders and all, with a note
    match read(true) {
        Ok(graph) => Ok(graph),
        Err(e) => {
            let mut graph = read(false)?;
            graph.notes.push(format!(
                "the shapes stored in the file are used where the dynamic inputs reach: \
                 propagating them fails ({e}), and TFLite's converter stores placeholders \
                 (1 for each dynamic dimension) that may understate some tensors"
            ));
            Ok(graph)
        }
    }
}

fn err(at: Option<String>, message: impl Into<String>) -> Error {
    Error::parse(FORMAT, at, message)
}

/// Where an error is: `operator 3 (ADD)`, or `subgraph 2 operator 3 (ADD)`.
fn op_at(sub: usize, k: usize, kind: &str) -> Option<String> {
    Some(if sub == 0 {
        format!("operator {k} ({kind})")
    } else {
        format!("subgraph {sub} operator {k} ({kind})")
    })
}

/// Bytes the reader may still keep.
struct Budget(usize);

impl Budget {
    fn spend(&mut self, n: usize) -> Result<(), Error> {
        self.0 = self.0.checked_sub(n).ok_or_else(|| {
            err(
                None,
                "the model's tables share more data than a valid model of its size can (a corrupt file?)",
            )
        })?;
        Ok(())
    }
}

/// What the shapes are taken from: the read options (subgraph 0), the shapes
/// of the caller's inputs, or the stored shapes.
enum Given<'o> {
    /// With `true`, the shapes propagate from every input with a dynamic
    /// dimension, even at its stored placeholder: the converter stores
    /// placeholders for the tensors that such a dimension reaches too (a
    /// reshape's `-1` stored as 1, where it holds a whole image's pixels).
    Options(&'o ReadOptions, bool),
    Dims(Vec<Vec<i64>>),
    Stored,
}

/// A subgraph built as a graph, with the dimensions of its outputs.
struct Built {
    graph: Graph,
    outputs: Vec<Vec<i64>>,
}

struct TensorInfo {
    name: String,
    /// The stored `shape`.
    dims: Vec<i64>,
    /// `shape_signature`: -1 where a dimension is dynamic.
    signature: Option<Vec<i64>>,
    kind: i8,
    bits: u64,
    buffer: usize,
    konst: bool,
}

struct OpInfo<'a> {
    kind: String,
    /// Tensor indices by position; `None` for an absent optional tensor (-1).
    inputs: Vec<Option<usize>>,
    outputs: Vec<Option<usize>>,
    opts_type: u8,
    opts: Opts<'a>,
    custom: Option<Cow<'a, [u8]>>,
}

/// The shapes of one subgraph's tensors while they are propagated.
struct State {
    dims: Vec<Vec<i64>>,
    /// Differs from the stored shape (or holds a value computed from one that does).
    changed: Vec<bool>,
    /// Known values of small integer tensors.
    values: Vec<Option<Vec<i64>>>,
    /// The value of a constant was looked for.
    loaded: Vec<bool>,
    /// Stored with a dynamic dimension, so its stored shape is a placeholder:
    /// an op that writes it passes its shape on as changed (only where the
    /// shapes propagate from the dynamic inputs, see `Given::Options`).
    dynamic: Vec<bool>,
}

impl State {
    fn new(tensors: &[TensorInfo]) -> State {
        let n = tensors.len();
        State {
            dims: tensors.iter().map(|t| t.dims.clone()).collect(),
            changed: vec![false; n],
            values: vec![None; n],
            loaded: vec![false; n],
            dynamic: vec![false; n],
        }
    }

    fn set(&mut self, t: usize, dims: Vec<i64>, stored: &[i64]) {
        self.changed[t] = dims != stored;
        self.dims[t] = dims;
    }
}

struct Reader<'a> {
    data: &'a Bytes<'a>,
    codes: Vec<String>,
    buffers: Option<Vector<'a>>,
    subgraphs: Vector<'a>,
    budget: Budget,
    /// The subgraphs being built, outermost first.
    stack: Vec<usize>,
}
