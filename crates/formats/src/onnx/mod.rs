//! ONNX models (protobuf `ModelProto`): the main graph and the bodies of its
//! control-flow ops, each as a graph to plan.
//!
//! The importer walks a graph's nodes in a topological order (the file's order
//! when it is one). For every node it looks up the op's handler ([`ops`]) by
//! domain and op type, which gives the outputs' element types and shapes from
//! what is known of the inputs. Where a handler has nothing, the file's declared
//! types (`value_info`, graph outputs) are used; where both exist and disagree,
//! inference wins and a note names the value. A node whose inputs are all
//! constant (or a `Shape`) is folded: its outputs are constants, and small ones
//! are evaluated ([`eval`]) so that shapes computed at run time resolve.
//!
//! A body (`If` branch, `Loop`/`Scan` body) is walked in its own scope; a name it
//! reads from an enclosing graph becomes an input of the node that owns the body
//! there, so the value lives until that node has run. Each body is also built as
//! a graph of its own, planned as a nested arena.

mod body;
mod dtype;
mod eval;
mod inputs;
mod ops;
mod proto;
mod shape;
mod slim;
mod values;
mod walk;

use super::import::{self, Node, Value};
use super::source::{self as input, Cursor, Field};
use inputs::{free_dims, graph_input, weight};
use memplan::error::Error;
use memplan::graph::{Graph, Subgraph};
use shape::Info;
use std::collections::HashMap;

const F: &str = "onnx";

/// True when `data` reads as an ONNX `ModelProto`.
pub fn is_onnx(data: &[u8]) -> bool {
    is_onnx_source(&data)
}

/// True when `src` reads as an ONNX `ModelProto`: every top-level field is well
/// formed, the graph is present and so is the IR version or an opset. Only the
/// top-level fields are read.
pub fn is_onnx_source(src: &dyn input::Source) -> bool {
    let mut c = Cursor::new(src, 0, src.size(), F);
    let (mut graph, mut version) = (false, false);
    loop {
        match c.next_field() {
            Ok(None) => return graph && version,
            Ok(Some((7, Field::Bytes { .. }))) => graph = true,
            Ok(Some((1, Field::Varint(_)) | (8, Field::Bytes { .. }))) => version = true,
            Ok(Some((2..=6 | 14 | 20 | 25 | 30, _))) => {}
            _ => return false,
        }
    }
}

/// What the caller tells the importer.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// Shapes of named graph inputs.
    pub input_shapes: &'a [(String, Vec<u64>)],
    /// Shapes of named values (upper bounds of data-dependent sizes).
    pub value_shapes: &'a [(String, Vec<u64>)],
    /// Ignore `value_info` and the declared types of graph outputs.
    pub no_declared: bool,
    /// Values of free input dimensions by name.
    pub dims: &'a [(String, u64)],
}

/// Where a value's shape came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The file declares it (a graph input, `value_info`, a graph output).
    Declared,
    /// A handler inferred it.
    Inferred,
    /// Inferred, and the value's contents were computed too.
    Evaluated,
    /// The user gave it (`--input-shape`, `--value-shape`).
    User,
    /// A weight (initializer).
    Weight,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Declared => "declared",
            Source::Inferred => "inferred",
            Source::Evaluated => "evaluated",
            Source::User => "user",
            Source::Weight => "initializer",
        }
    }
}

/// One value of the main graph, as `memplan shapes` lists it.
#[derive(Clone, Debug)]
pub struct ValueShape {
    pub name: String,
    pub dims: Vec<i64>,
    pub dtype: String,
    pub bytes: u64,
    pub source: Source,
    /// A graph input or output (not a weight).
    pub input: bool,
    pub output: bool,
}

/// A model's main graph (with its bodies) and every value's shape.
pub struct Imported {
    pub graph: Graph,
    pub values: Vec<ValueShape>,
}

/// The op types that have shape inference, as `(domain, op type)` (the default
/// domain as `ai.onnx`), sorted.
pub fn covered_ops() -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<_> = ops::registry()
        .covered()
        .into_iter()
        .map(|(d, o)| (if d.is_empty() { "ai.onnx" } else { d }, o))
        .collect();
    v.sort_unstable();
    v
}

/// Reads a model with every option; only the graph is read, not the weights.
pub fn import(src: &dyn input::Source, name: &str, opts: &Options) -> Result<Imported, Error> {
    let model = proto::model(&slim::slim(src)?)?;
    let g = &model.graph;
    for (missing, _) in opts.input_shapes {
        if !g.inputs.iter().any(|v| &v.name == missing) {
            let names: Vec<&str> = g.inputs.iter().map(|v| v.name.as_str()).collect();
            return Err(Error::usage(format!(
                "--input-shape names `{missing}`, which is not an input of the model (inputs: {})",
                names.join(", ")
            )));
        }
    }
    let mut w = Walker::new(&model, opts);
    if !opts.no_declared {
        w.declare(g);
    }
    w.frames.push(Frame::default());
    for t in &g.initializers {
        w.define(&t.name, weight(t), Source::Weight)
            .map_err(|e| at_value(&t.name, e))?;
    }
    let initialised: Vec<&str> = g.initializers.iter().map(|t| t.name.as_str()).collect();
    let free = free_dims(
        g.inputs
            .iter()
            .filter(|v| !initialised.contains(&v.name.as_str())),
        opts,
    )?;
    let mut inputs = Vec::new();
    for v in &g.inputs {
        if w.top().index.contains_key(&v.name) {
            continue; // an initializer listed as an input (IR version 3)
        }
        let (info, source) = graph_input(v, opts.input_shapes, &free)?;
        let id = w
            .define(&v.name, info, source)
            .map_err(|e| at_value(&v.name, e))?;
        w.top().inputs.push(id);
        inputs.push(id);
    }
    w.walk_nodes(g, true)?;
    let mut outputs = Vec::new();
    for v in &g.outputs {
        let id = w.top().index.get(&v.name).copied().ok_or_else(|| {
            Error::invalid(format!("graph output `{}` is never produced", v.name))
        })?;
        outputs.push(id);
    }
    let frame = w.frames.pop().expect("the main frame");
    let values = frame
        .values
        .iter()
        .zip(&frame.infos)
        .zip(&frame.sources)
        .enumerate()
        .map(|(id, ((v, i), &source))| ValueShape {
            name: v.name.clone(),
            dims: i.shape.clone(),
            dtype: dtype::name(i.dtype),
            bytes: v.bytes,
            source,
            input: inputs.contains(&id),
            output: outputs.contains(&id),
        })
        .collect();
    let mut graph = import::build(
        name.to_string(),
        frame.values,
        &frame.nodes,
        &inputs,
        &outputs,
    )?;
    graph.subgraphs = frame.subgraphs;
    graph.notes = w.notes;
    graph.free_dims = free;
    Ok(Imported { graph, values })
}

fn at_value(name: &str, e: Error) -> Error {
    Error::parse(F, Some(format!("value `{name}`")), e.to_string())
}

/// The values of one graph being walked.
#[derive(Default)]
struct Frame {
    index: HashMap<String, usize>,
    values: Vec<Value>,
    infos: Vec<Info>,
    sources: Vec<Source>,
    nodes: Vec<Node>,
    /// Body inputs and the values read from enclosing graphs: outside its arena.
    inputs: Vec<usize>,
    /// Names read from enclosing graphs, in first-read order.
    captured: Vec<String>,
    subgraphs: Vec<Subgraph>,
}

impl Frame {
    /// Defines `name` in this frame; returns its id.
    fn push(&mut self, name: &str, bytes: u64, info: Info, source: Source) -> usize {
        let id = self.values.len();
        self.values.push(Value {
            name: name.to_string(),
            bytes,
            konst: info.konst,
        });
        self.infos.push(info);
        self.sources.push(source);
        self.index.insert(name.to_string(), id);
        id
    }
}

struct Walker<'m> {
    frames: Vec<Frame>,
    opsets: HashMap<&'m str, i64>,
    opts: &'m Options<'m>,
    /// Declared types by value name (every graph's `value_info` and outputs).
    declared: HashMap<&'m str, &'m proto::ValueInfo>,
    notes: Vec<String>,
    /// Elements that evaluated constants hold together, against [`DATA_BUDGET`].
    data_used: usize,
    /// Bodies walked for the node being imported, and what they read from outside.
    pending: Vec<(String, Graph, Vec<String>)>,
}

/// Most elements all evaluated constants may hold together: real models need a
/// few thousand; a crafted file cannot make evaluation slow or large.
const DATA_BUDGET: usize = 1 << 21;
