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
mod monotone;
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
use memplan::graph::{Bound, FreeDim, Graph, Subgraph};
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
    /// The user gave it (an input's shape, a bound of a value).
    User,
    /// Inferred at its worst case: a size that depends on the input data,
    /// planned at the largest the input shapes allow.
    WorstCase,
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
            Source::WorstCase => "worst-case",
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
    /// `If` branches that cannot run at these input shapes, left out.
    branches_left_out: usize,
}

impl Imported {
    /// No `If` branch was left out for want of running at these input shapes.
    fn every_branch_runs(&self) -> bool {
        self.branches_left_out == 0
    }
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
///
/// Free input dimensions default to 1, where some models cannot run: a
/// convolution whose window is wider than an input of 1 sample, pools that
/// shrink a 1-pixel image to nothing. When the model does not import so, the
/// defaulted dimensions are raised (see [`raise`]); when nothing imports (or the
/// dimensions were all given), the error carries the free dimensions so that the
/// caller can ask for others.
pub fn import(src: &dyn input::Source, name: &str, opts: &Options) -> Result<Imported, Error> {
    let model = proto::model(&slim::slim(src)?)?;
    let g = &model.graph;
    for (missing, _) in opts.input_shapes {
        if !g.inputs.iter().any(|v| &v.name == missing) {
            let names: Vec<&str> = g.inputs.iter().map(|v| v.name.as_str()).collect();
            return Err(Error::usage(format!(
                "a shape is given for input `{missing}`, which is not an input of the model (inputs: {})",
                names.join(", ")
            )));
        }
    }
    match walk_model(&model, name, opts) {
        Err(e) if matches!(e.kind_name(), "parse" | "invalid") => {
            let free = free_dims(graph_inputs(g), opts)?;
            if free.iter().all(|d| d.given) {
                return Err(e.with_free_dims(free));
            }
            raise(&model, name, opts, &free, &e).ok_or_else(|| e.with_free_dims(free))
        }
        walked => walked,
    }
}

/// Values tried for a defaulted free dimension, in order: powers of two.
const RAISED: [u64; 12] = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// Most imports [`raise`] tries: 48, fewer for a large graph so that a model
/// that does not import fails within about [`RAISE_NODES`] nodes walked (a
/// dozen tries at least).
const RAISE_TRIES: usize = 48;
const RAISE_NODES: usize = 2_000_000;

/// The model imported with some defaulted free dimensions above 1, found by
/// trying [`RAISED`]'s values in increasing order: first each dimension alone
/// (axis 0, most often a batch, last), the others left at 1, unless at the
/// largest value the import fails exactly as before (that dimension does not
/// reach the failing op); then all of them but those at axis 0 together, then
/// all together. The least value with which the model imports and every `If`
/// branch runs is kept (else the least with which it imports), and a note says
/// why.
/// None when nothing tried imports (at most [`RAISE_TRIES`] imports).
fn raise(
    model: &proto::Model,
    name: &str,
    opts: &Options,
    free: &[FreeDim],
    failed: &Error,
) -> Option<Imported> {
    let defaulted: Vec<&FreeDim> = free.iter().filter(|d| !d.given).collect();
    // only at axis 0: most often a batch, tried last
    let batch = |d: &FreeDim| d.at.iter().all(|at| at.ends_with("[0]"));
    let mut alone = defaulted.clone();
    alone.sort_by_key(|d| batch(d));
    let mut sets: Vec<Vec<&str>> = alone.iter().map(|d| vec![d.name.as_str()]).collect();
    let unbatched: Vec<&str> = (alone.iter())
        .filter(|d| !batch(d))
        .map(|d| d.name.as_str())
        .collect();
    if unbatched.len() > 1 {
        sets.push(unbatched.clone());
    }
    if defaulted.len() > 1 && defaulted.len() > unbatched.len() {
        sets.push(defaulted.iter().map(|d| d.name.as_str()).collect());
    }
    let before = failed.to_string();
    let most_tries = (RAISE_NODES / model.graph.nodes.len().max(1)).clamp(12, RAISE_TRIES);
    let mut tries = 0;
    let mut attempt = |set: &[&str], value: u64| {
        tries += 1;
        let mut dims = opts.dims.to_vec();
        dims.extend(set.iter().map(|n| (n.to_string(), value)));
        let raised = Options {
            dims: &dims,
            ..opts.clone()
        };
        (tries <= most_tries).then(|| walk_model(model, name, &raised))
    };
    let whole = |found: &Option<(Imported, u64)>| {
        (found.as_ref()).is_some_and(|(imported, _)| imported.every_branch_runs())
    };
    for set in &sets {
        let mut values = &RAISED[..];
        let mut largest = None;
        if let [single] = set[..] {
            // the largest first: a dimension that leaves the failure as it was
            // there does not reach it
            let (&most, below) = RAISED.split_last().expect("values");
            match attempt(&[single], most)? {
                Ok(imported) => largest = Some((imported, most)),
                Err(e) if e.to_string() == before => continue,
                Err(_) => {}
            }
            values = below;
        }
        // the least value where every `If` branch runs, else the least that imports
        let mut found: Option<(Imported, u64)> = None;
        for &value in values {
            let Some(result) = attempt(set, value) else {
                break;
            };
            if let Ok(imported) = result {
                let runs = imported.every_branch_runs();
                if found.is_none() || runs {
                    found = Some((imported, value));
                }
                if runs {
                    break;
                }
            }
        }
        if found.is_none() || !whole(&found) && whole(&largest) {
            found = largest;
        }
        if let Some((mut imported, value)) = found {
            let g = &mut imported.graph;
            for d in (g.free_dims.iter_mut()).filter(|d| set.contains(&d.name.as_str())) {
                d.given = false;
                d.raised = true;
            }
            g.notes.push(format!(
                "free dims {} set to {value}: the model does not import with 1 ({before})",
                set.join(", ")
            ));
            return Some(imported);
        }
    }
    None
}

/// The graph inputs that are not weights (an initializer may be listed as an
/// input too).
fn graph_inputs(g: &proto::Graph) -> impl Iterator<Item = &proto::ValueInfo> {
    let initialised: Vec<&str> = g.initializers.iter().map(|t| t.name.as_str()).collect();
    g.inputs
        .iter()
        .filter(move |v| !initialised.contains(&v.name.as_str()))
}

/// [`import`] of a parsed model with these options, no dimension raised.
fn walk_model(model: &proto::Model, name: &str, opts: &Options) -> Result<Imported, Error> {
    let g = &model.graph;
    let mut w = Walker::new(model, opts);
    if !opts.no_declared {
        w.declare(g);
    }
    w.frames.push(Frame::default());
    for t in &g.initializers {
        w.define(&t.name, weight(t), Source::Weight)
            .map_err(|e| at_value(&t.name, e))?;
    }
    let free = free_dims(graph_inputs(g), opts)?;
    let mut inputs = Vec::new();
    for v in &g.inputs {
        if w.top().index.contains_key(&v.name) {
            continue; // an initializer listed as an input (IR version 3)
        }
        let (info, source) = graph_input(v, opts, &free)?;
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
    graph.bounds = w.bounds;
    Ok(Imported {
        graph,
        values,
        branches_left_out: w.branches_left_out,
    })
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
    /// Values sized at a bound: their worst case, or the user's.
    bounds: Vec<Bound>,
    /// `If` branches that cannot run at these shapes, left out of the plan.
    branches_left_out: usize,
    /// Elements that evaluated constants hold together, against [`DATA_BUDGET`].
    data_used: usize,
    /// Bodies walked for the node being imported, and what they read from outside.
    pending: Vec<(String, Graph, Vec<String>)>,
}

/// Most elements all evaluated constants may hold together: real models need a
/// few thousand; a crafted file cannot make evaluation slow or large.
const DATA_BUDGET: usize = 1 << 21;
