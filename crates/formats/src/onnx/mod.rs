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

mod dtype;
mod eval;
mod ops;
mod proto;
mod shape;
mod slim;

use super::import::{self, Node, Value};
use super::source::{self as input, Cursor, Field};
use memplan::error::Error;
use memplan::graph::{FreeDim, Graph, Subgraph};
use ops::{Bodies, Ctx, Handler};
use shape::{Data, Info, Out};
use std::collections::{BinaryHeap, HashMap, HashSet};

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

/// Op types whose outputs are never folded (each run differs).
const RANDOM: &[&str] = &[
    "RandomUniformLike",
    "RandomNormalLike",
    "Bernoulli",
    "Multinomial",
    "RandomUniform",
    "RandomNormal",
];

impl<'m> Walker<'m> {
    fn new(model: &'m proto::Model, opts: &'m Options<'m>) -> Walker<'m> {
        let mut opsets = HashMap::new();
        for (d, v) in &model.opsets {
            let d = if d == "ai.onnx" { "" } else { d.as_str() };
            let e = opsets.entry(d).or_insert(*v);
            *e = (*e).max(*v);
        }
        opsets.entry("").or_insert(model.opset);
        Walker {
            frames: Vec::new(),
            opsets,
            opts,
            declared: HashMap::new(),
            notes: Vec::new(),
            data_used: 0,
            pending: Vec::new(),
        }
    }

    /// Records the declared types of `g` and of its bodies.
    fn declare(&mut self, g: &'m proto::Graph) {
        for v in g.value_info.iter().chain(&g.outputs) {
            self.declared.entry(v.name.as_str()).or_insert(v);
        }
        for n in &g.nodes {
            for a in &n.attributes {
                for b in a.g.iter().chain(&a.graphs) {
                    self.declare(b);
                }
            }
        }
    }

    fn top(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn define(&mut self, name: &str, mut info: Info, source: Source) -> Result<usize, Error> {
        // contents that do not fill the shape (a corrupt tensor) are not trusted
        let count = info
            .shape
            .iter()
            .try_fold(1usize, |p, &d| p.checked_mul(usize::try_from(d).ok()?));
        if info.data.as_ref().is_some_and(|d| Some(d.len()) != count) {
            info.data = None;
        }
        let f = self.top();
        if f.index.contains_key(name) {
            return Err(Error::invalid(format!("value `{name}` is defined twice")));
        }
        let bits = dtype::bits(info.dtype)
            .ok_or_else(|| Error::parse(F, None, format!("unknown element type {}", info.dtype)))?;
        let bytes = match &info.seq {
            None => import::tensor_bytes(F, name, &info.shape, bits)?,
            Some(elems) => elems.iter().try_fold(0u64, |sum, s| {
                let b = import::tensor_bytes(F, name, s, bits)?;
                sum.checked_add(b).ok_or_else(|| {
                    Error::limit(format!("the size of sequence `{name}`"), u64::MAX, u64::MAX)
                })
            })?,
        };
        Ok(f.push(name, bytes, info, source))
    }

    /// The id of `name` in the innermost frame; a name found in an enclosing frame
    /// is captured by every frame in between.
    fn lookup(&mut self, name: &str) -> Option<usize> {
        let top = self.frames.len() - 1;
        let level = (0..=top)
            .rev()
            .find(|&k| self.frames[k].index.contains_key(name))?;
        for k in level + 1..=top {
            let outer = self.frames[k - 1].index[name];
            let info = self.frames[k - 1].infos[outer].clone();
            let bytes = self.frames[k - 1].values[outer].bytes;
            let f = &mut self.frames[k];
            let id = f.push(name, bytes, info, Source::Inferred);
            f.inputs.push(id);
            f.captured.push(name.to_string());
        }
        Some(self.frames[top].index[name])
    }

    fn walk_nodes(&mut self, g: &proto::Graph, main: bool) -> Result<(), Error> {
        let order = topological(g);
        if order.iter().enumerate().any(|(i, &k)| i != k) {
            let place = if main { "the model" } else { "a subgraph" };
            self.notes.push(format!(
                "the node list of {place} `{}` is not topologically sorted; memplan ordered it",
                g.name
            ));
        }
        for k in order {
            self.node(&g.nodes[k], k)?;
        }
        Ok(())
    }

    /// Imports one node: resolves its inputs, infers, folds and defines its outputs.
    fn node(&mut self, node: &proto::Node, k: usize) -> Result<(), Error> {
        let label = if node.name.is_empty() {
            format!("#{k}")
        } else {
            node.name.clone()
        };
        let domain = if node.domain.is_empty() {
            "ai.onnx"
        } else {
            node.domain.as_str()
        };
        let at = || Some(format!("op `{label}` ({}, domain {domain})", node.op_type));
        let mut ids = Vec::with_capacity(node.inputs.len());
        for name in &node.inputs {
            if name.is_empty() {
                ids.push(None);
                continue;
            }
            let id = self.lookup(name).ok_or_else(|| {
                Error::parse(F, at(), format!("input `{name}` is not defined by an earlier op, a graph input or an initializer"))
            })?;
            ids.push(Some(id));
        }
        let infos: Vec<Option<Info>> = {
            let f = self.top();
            ids.iter().map(|i| i.map(|i| f.infos[i].clone())).collect()
        };
        let refs: Vec<Option<&Info>> = infos.iter().map(Option::as_ref).collect();
        let opset = self.opsets.get(node.domain.as_str()).copied().unwrap_or(1);
        let ctx = Ctx {
            node,
            inputs: &refs,
            opset,
        };
        let to_infos = |out: Out| out.into_iter().map(|(d, s)| Info::new(d, s)).collect();
        let inferred: Result<Vec<Info>, String> = match ops::lookup(&node.domain, &node.op_type) {
            Some(Handler::Plain(f)) => f(&ctx).map(to_infos),
            Some(Handler::Bodies(f)) => f(&ctx, self).map(to_infos),
            Some(Handler::Values(f)) => f(&ctx),
            None => Err(format!(
                "no shape inference for op type `{}` of domain {domain} (memplan uses the file's value_info where it has none: run onnx.shape_inference on the model, or give --value-shape NAME=DIMS)",
                node.op_type
            )),
        };
        let inferred = inferred.map_err(|why| {
            match ops::unknown_input(&why).and_then(|i| ids.get(i).copied().flatten()) {
                Some(id) => format!("{why}{}", self.provenance(id)),
                None => why,
            }
        });
        let inferred = inferred.and_then(|out| {
            for i in &out {
                shape::valid(&i.shape)?;
                i.seq.iter().flatten().try_for_each(|s| shape::valid(s))?;
            }
            Ok(out)
        });
        // bodies read values of this graph: they become inputs of the node
        let mut bodies = std::mem::take(&mut self.pending);
        let mut extra = Vec::new();
        for (_, _, captured) in &bodies {
            for name in captured {
                let id = self.lookup(name).expect("a captured name resolves outside");
                if !extra.contains(&id) && !ids.contains(&Some(id)) {
                    extra.push(id);
                }
            }
        }
        let subs = bodies.drain(..).map(|(attribute, graph, _)| Subgraph {
            op: label.clone(),
            attribute,
            graph,
        });
        self.top().subgraphs.extend(subs);
        let mut all_inputs: Vec<usize> = ids.iter().flatten().copied().collect();
        all_inputs.extend(&extra);
        let folded = {
            let f = self.top();
            node.op_type == "Constant"
                || node.op_type == "Shape"
                || (!all_inputs.is_empty()
                    && all_inputs.iter().all(|&i| f.infos[i].konst)
                    && !RANDOM.contains(&node.op_type.as_str()))
        };
        let mut outs = Vec::with_capacity(node.outputs.len());
        for (j, name) in node.outputs.iter().enumerate() {
            let ty = self
                .output_type(name, j, &inferred)
                .map_err(|why| Error::parse(F, at(), why))?;
            outs.push(ty);
        }
        let out_types: Out = outs.iter().map(|(i, _)| i.ty()).collect();
        let evaluate = (folded || node.op_type == "Size") && self.data_used < DATA_BUDGET;
        let data = if evaluate {
            eval::eval(node, &refs, &out_types)
        } else {
            vec![None; outs.len()]
        };
        let mut outputs = Vec::with_capacity(outs.len());
        for ((name, (mut info, mut source)), data) in node.outputs.iter().zip(outs).zip(data) {
            if name.is_empty() {
                continue; // an omitted optional output
            }
            if info.data.is_none() {
                info.data = data;
            }
            self.data_used += info.data.as_ref().map_or(0, Data::len);
            if self.data_used > DATA_BUDGET {
                info.data = None;
            }
            if info.data.is_some() && source == Source::Inferred {
                source = Source::Evaluated;
            }
            info.konst = folded;
            let id = self
                .define(name, info, source)
                .map_err(|e| Error::parse(F, at(), e.to_string()))?;
            outputs.push(id);
        }
        let kind = if node.domain.is_empty() {
            node.op_type.clone()
        } else {
            format!("{}.{}", node.domain, node.op_type)
        };
        self.top().nodes.push(Node {
            name: Some(node.name.clone()),
            kind,
            inputs: all_inputs,
            outputs,
            folded,
        });
        Ok(())
    }

    /// Which inputs of the graph being walked the value of `id` is computed from,
    /// as words for an error (empty when `id` is such an input itself).
    fn provenance(&mut self, id: usize) -> String {
        let f = self.top();
        let mut producer: HashMap<usize, usize> = HashMap::new();
        for (k, n) in f.nodes.iter().enumerate() {
            for &o in &n.outputs {
                producer.insert(o, k);
            }
        }
        let (mut stack, mut seen, mut roots) = (vec![id], HashSet::new(), Vec::new());
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || f.infos[v].data.is_some() {
                continue;
            }
            match producer.get(&v) {
                Some(&k) => stack.extend(&f.nodes[k].inputs),
                None if f.inputs.contains(&v) && v != id => roots.push(f.values[v].name.clone()),
                None => {}
            }
        }
        if roots.is_empty() {
            return String::new();
        }
        roots.sort();
        let names: Vec<String> = roots.iter().map(|r| format!("`{r}`")).collect();
        format!(
            " (it is computed from the value of input {})",
            names.join(", ")
        )
    }

    /// What is known of output `j` named `name`: the user's shape, else
    /// inference, else the declared type.
    fn output_type(
        &mut self,
        name: &str,
        j: usize,
        inferred: &Result<Vec<Info>, String>,
    ) -> Result<(Info, Source), String> {
        let from_infer = inferred.as_ref().ok().and_then(|o| o.get(j).cloned());
        let declared = self.declared.get(name).copied();
        let from_decl = declared.and_then(static_shape);
        if let Some((_, dims)) = self.opts.value_shapes.iter().find(|(n, _)| n == name) {
            let dt = from_infer
                .as_ref()
                .map(|t| t.dtype)
                .or(declared.map(|d| d.elem_type))
                .filter(|&d| d != 0)
                .unwrap_or(dtype::FLOAT);
            let dims = dims
                .iter()
                .map(|&d| {
                    i64::try_from(d).map_err(|_| format!("dimension {d} of `{name}` is too large"))
                })
                .collect::<Result<_, _>>()?;
            return Ok((Info::new(dt, dims), Source::User));
        }
        match (from_infer, from_decl) {
            (Some(i), Some(d)) => {
                if i.seq.is_none() && (d.1 != i.shape || (d.0 != 0 && d.0 != i.dtype)) {
                    self.notes.push(format!(
                        "`{name}`: the file declares {} {:?}, memplan infers {} {:?} (used)",
                        dtype::name(d.0),
                        d.1,
                        dtype::name(i.dtype),
                        i.shape
                    ));
                }
                Ok((i, Source::Inferred))
            }
            (Some(i), None) => Ok((i, Source::Inferred)),
            (None, Some(d)) if d.0 != 0 => Ok((Info::new(d.0, d.1), Source::Declared)),
            _ if name.is_empty() => Ok((Info::new(dtype::FLOAT, vec![]), Source::Inferred)),
            _ => {
                let why = inferred
                    .as_ref()
                    .err()
                    .cloned()
                    .unwrap_or_else(|| format!("output {j} cannot be inferred"));
                if let Some(rest) = why.strip_prefix(ops::DATA_DEPENDENT) {
                    Err(format!(
                        "the size of `{name}` depends on the input values{rest}; give an upper bound with --value-shape {name}=DIMS"
                    ))
                } else {
                    let why = why.replace("NAME=DIMS", &format!("{name}=DIMS"));
                    Err(format!("cannot infer the shape of `{name}`: {why}"))
                }
            }
        }
    }
}

impl Bodies for Walker<'_> {
    fn walk(
        &mut self,
        attr: &str,
        body: &proto::Graph,
        inputs: Vec<Info>,
    ) -> Result<Vec<Info>, String> {
        let pending = std::mem::take(&mut self.pending);
        self.frames.push(Frame::default());
        let result = self.walk_body(body, inputs);
        let frame = self.frames.pop().expect("the body's frame");
        self.pending = pending;
        let outputs = result.map_err(|e| format!("in its `{attr}`: {e}"))?;
        let out_ids: Vec<usize> = body.outputs.iter().map(|v| frame.index[&v.name]).collect();
        let graph = import::build(
            body.name.clone(),
            frame.values,
            &frame.nodes,
            &frame.inputs,
            &out_ids,
        )
        .map(|mut g| {
            g.subgraphs = frame.subgraphs;
            g
        })
        .map_err(|e| format!("in its `{attr}`: {e}"))?;
        self.pending.push((attr.to_string(), graph, frame.captured));
        Ok(outputs)
    }

    fn note(&mut self, text: String) {
        self.notes.push(text);
    }
}

impl Walker<'_> {
    fn walk_body(&mut self, body: &proto::Graph, inputs: Vec<Info>) -> Result<Vec<Info>, Error> {
        for t in &body.initializers {
            self.define(&t.name, weight(t), Source::Weight)?;
        }
        for (i, v) in body.inputs.iter().enumerate() {
            let info = match inputs.get(i) {
                Some(info) => info.clone(),
                None => graph_input(v, &[], &[])?.0,
            };
            let id = self.define(&v.name, info, Source::Inferred)?;
            self.top().inputs.push(id);
        }
        self.walk_nodes(body, false)?;
        body.outputs
            .iter()
            .map(|v| {
                let id = self.lookup(&v.name).ok_or_else(|| {
                    Error::invalid(format!("subgraph output `{}` is never produced", v.name))
                })?;
                Ok(self.top().infos[id].clone())
            })
            .collect()
    }
}

/// The file's node order if it is topological, else a stable topological order
/// (the lowest index first among the ready nodes); nodes on a cycle or reading
/// undefined names follow in file order, where their import fails with a name.
fn topological(g: &proto::Graph) -> Vec<usize> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (k, n) in g.nodes.iter().enumerate() {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            producer.entry(o.as_str()).or_insert(k);
        }
    }
    let mut reads: Vec<HashSet<&str>> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let mut r: HashSet<&str> = n.inputs.iter().map(String::as_str).collect();
        for a in &n.attributes {
            for b in a.g.iter().chain(&a.graphs) {
                free_names(b, &mut r);
            }
        }
        reads.push(r);
    }
    let n = g.nodes.len();
    let mut indegree = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, r) in reads.iter().enumerate() {
        for name in r {
            if let Some(&p) = producer.get(name) {
                if p != k {
                    indegree[k] += 1;
                    users[p].push(k);
                }
            }
        }
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&k| indegree[k] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(k)) = ready.pop() {
        order.push(k);
        for &u in &users[k] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(std::cmp::Reverse(u));
            }
        }
    }
    if order.len() < n {
        let placed: HashSet<usize> = order.iter().copied().collect();
        order.extend((0..n).filter(|k| !placed.contains(k)));
    }
    order
}

/// Names a body reads that it does not define itself.
fn free_names<'a>(g: &'a proto::Graph, out: &mut HashSet<&'a str>) {
    let mut defined: HashSet<&str> = g.inputs.iter().map(|v| v.name.as_str()).collect();
    defined.extend(g.initializers.iter().map(|t| t.name.as_str()));
    for n in &g.nodes {
        defined.extend(n.outputs.iter().map(String::as_str));
    }
    let mut read = HashSet::new();
    for n in &g.nodes {
        read.extend(n.inputs.iter().map(String::as_str));
        for a in &n.attributes {
            for b in a.g.iter().chain(&a.graphs) {
                free_names(b, &mut read);
            }
        }
    }
    read.extend(g.outputs.iter().map(|v| v.name.as_str()));
    out.extend(
        read.into_iter()
            .filter(|r| !r.is_empty() && !defined.contains(r)),
    );
}

fn weight(t: &proto::Tensor) -> Info {
    Info {
        dtype: t.data_type,
        shape: t.dims.clone(),
        seq: None,
        data: t
            .ints
            .clone()
            .map(Data::Int)
            .or_else(|| t.floats.clone().map(Data::Float)),
        konst: true,
    }
}

/// A declared type whose shape is fully known.
fn static_shape(v: &proto::ValueInfo) -> Option<(i32, Vec<i64>)> {
    if v.kind != Some(proto::TypeKind::Tensor) {
        return None;
    }
    let dims = v.shape.as_ref()?;
    let shape = dims
        .iter()
        .map(|d| d.filter(|&d| d >= 0))
        .collect::<Option<Vec<_>>>()?;
    Some((v.elem_type, shape))
}

/// The name of a free dimension: its `dim_param`, or `INPUT:AXIS` when unnamed.
fn dim_name(v: &proto::ValueInfo, axis: usize) -> String {
    match v.params.get(axis) {
        Some(p) if !p.is_empty() => p.clone(),
        _ => format!("{}:{axis}", v.name),
    }
}

/// The free dimensions of the graph inputs, with the values `--dim` gives (else
/// 1); a `--dim` name that none of them has is an error listing those it has.
fn free_dims<'a>(
    inputs: impl Iterator<Item = &'a proto::ValueInfo>,
    opts: &Options,
) -> Result<Vec<FreeDim>, Error> {
    let mut free: Vec<FreeDim> = Vec::new();
    for v in inputs {
        let whole = opts.input_shapes.iter().any(|(n, _)| n == &v.name);
        for (axis, d) in v.shape.iter().flatten().enumerate() {
            if d.is_some_and(|d| d >= 0) || whole {
                continue;
            }
            let name = dim_name(v, axis);
            let at = format!("{}[{axis}]", v.name);
            match free.iter_mut().find(|f| f.name == name) {
                Some(f) => f.at.push(at),
                None => {
                    let given = opts.dims.iter().find(|(n, _)| n == &name).map(|d| d.1);
                    free.push(FreeDim {
                        name,
                        value: given.unwrap_or(1),
                        given: given.is_some(),
                        at: vec![at],
                    });
                }
            }
        }
    }
    if let Some((unknown, _)) = opts
        .dims
        .iter()
        .find(|(n, _)| !free.iter().any(|f| &f.name == n))
    {
        return Err(import::unknown_dim(unknown, &free));
    }
    Ok(free)
}

fn graph_input(
    v: &proto::ValueInfo,
    input_shapes: &[(String, Vec<u64>)],
    free: &[FreeDim],
) -> Result<(Info, Source), Error> {
    let given = input_shapes.iter().find(|(n, _)| n == &v.name);
    let (shape, source) = match (given, &v.shape) {
        (Some((_, dims)), _) => (
            dims.iter()
                .map(|&d| {
                    i64::try_from(d).map_err(|_| {
                        Error::usage(format!("dimension {d} of input `{}` is too large", v.name))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
            Source::User,
        ),
        (None, Some(dims)) => {
            let mut shape = Vec::with_capacity(dims.len());
            for (axis, d) in dims.iter().enumerate() {
                let value = match d.filter(|&d| d >= 0) {
                    Some(d) => d,
                    None => {
                        let name = dim_name(v, axis);
                        let f = free.iter().find(|f| f.name == name).map_or(1, |f| f.value);
                        i64::try_from(f).map_err(|_| {
                            Error::usage(format!("dimension `{name}` = {f} is too large"))
                        })?
                    }
                };
                shape.push(value);
            }
            (shape, Source::Declared)
        }
        (None, None) => {
            return Err(Error::parse(
                F,
                Some(format!("input `{}`", v.name)),
                format!(
                    "the model gives no shape; use --input-shape {}=DIMS",
                    v.name
                ),
            ))
        }
    };
    Ok((Info::new(v.elem_type, shape), source))
}
