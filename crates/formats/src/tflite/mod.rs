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

mod ops;
mod options;
mod shapes;

use super::flatbuf::{Bytes, Table, Vector};
use super::import::{self, Node, Value};
use super::source::Source;
use super::ReadOptions;
use memplan::error::Error;
use memplan::graph::{FreeDim, Graph, Subgraph};
use options::Opts;
use shapes::{show, In, MAX_RANK, MAX_VALUE};
use std::borrow::Cow;
use std::collections::HashMap;

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
            "--value-shape {value}=...: TFLite models take input shapes (--input-shape, --dim), not value shapes"
        )));
    }
    if opts.no_declared {
        return Err(Error::usage(
            "--no-declared applies to ONNX models: a TFLite model's shapes are stored, or propagated from the inputs you give",
        ));
    }
    let model = Table::root(data)?;
    // every byte the reader keeps is paid for by bytes of the file, so a corrupt
    // file sharing one long vector or string among many tables cannot make it slow
    // or large
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
    let built = reader.subgraph(0, Some(name.to_string()), Given::Options(opts))?;
    Ok(built.graph)
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

/// The kind of each operator code: builtin name or `CUSTOM:<code>`.
fn op_codes(model: &Table, budget: &mut Budget) -> Result<Vec<String>, Error> {
    let Some(list) = model.vector(1, 4)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for i in 0..list.len() {
        let code = list.table(i)?;
        // builtin_code (field 3) supersedes the one-byte deprecated_builtin_code
        // (field 0), which saturates at 127 for newer ops
        let builtin = i32::from(code.i8(0, 0)?).max(code.i32(3, 0)?);
        let kind = match code.string(1)? {
            Some(custom) if builtin == 32 => format!("CUSTOM:{custom}"),
            _ => ops::builtin_name(builtin),
        };
        budget.spend(kind.len())?;
        out.push(kind);
    }
    Ok(out)
}

/// Bits per element of a `TensorType`; strings, resources and variants count 0.
fn element_bits(kind: i8) -> Option<u64> {
    Some(match kind {
        0 | 2 | 15 => 32,      // FLOAT32, INT32, UINT32
        1 | 7 | 16 | 18 => 16, // FLOAT16, INT16, UINT16, BFLOAT16
        3 | 6 | 9 => 8,        // UINT8, BOOL, INT8
        4 | 8 | 10 | 12 => 64, // INT64, COMPLEX64, FLOAT64, UINT64
        11 => 128,             // COMPLEX128
        17 => 4,               // INT4
        5 | 13 | 14 => 0,      // STRING, RESOURCE, VARIANT
        _ => return None,
    })
}

/// What the shapes are taken from: the read options (subgraph 0), the shapes
/// of the caller's inputs, or the stored shapes.
enum Given<'o> {
    Options(&'o ReadOptions),
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
}

impl State {
    fn new(tensors: &[TensorInfo]) -> State {
        let n = tensors.len();
        State {
            dims: tensors.iter().map(|t| t.dims.clone()).collect(),
            changed: vec![false; n],
            values: vec![None; n],
            loaded: vec![false; n],
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

impl<'a> Reader<'a> {
    /// Builds subgraph `index` (named `name`, else by the file), refusing a
    /// subgraph that calls itself.
    fn subgraph(
        &mut self,
        index: usize,
        name: Option<String>,
        given: Given,
    ) -> Result<Built, Error> {
        if let Some(first) = self.stack.iter().position(|&s| s == index) {
            let path: Vec<String> = self.stack[first..]
                .iter()
                .chain([&index])
                .map(|s| s.to_string())
                .collect();
            return Err(err(
                None,
                format!(
                    "subgraph {index} calls itself (subgraph {})",
                    path.join(" -> ")
                ),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(err(
                None,
                format!("subgraph calls nest more than {MAX_DEPTH} deep"),
            ));
        }
        self.stack.push(index);
        let built = self.build(index, name, given);
        self.stack.pop();
        built
    }

    fn build(&mut self, s: usize, name: Option<String>, given: Given) -> Result<Built, Error> {
        // every build is paid for, so that subgraphs called many times over
        // cannot make the reader slow
        self.budget.spend(64)?;
        if s >= self.subgraphs.len() {
            return Err(err(
                None,
                format!(
                    "subgraph {s} does not exist (the model has {})",
                    self.subgraphs.len()
                ),
            ));
        }
        let sub = self.subgraphs.table(s)?;
        let list = sub
            .vector(0, 4)?
            .ok_or_else(|| err(None, format!("subgraph {s} has no tensors")))?;
        let mut tensors = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            tensors.push(self.tensor(&list.table(i)?, i)?);
        }
        let n = tensors.len();
        let mut ops = Vec::new();
        if let Some(list) = sub.vector(3, 4)? {
            ops.reserve(list.len());
            for k in 0..list.len() {
                ops.push(self.operator(&list, k, s, n)?);
            }
        }
        let inputs = self.indices(sub.vector(1, 4)?, s, n, "graph input")?;
        let outputs = self.indices(sub.vector(2, 4)?, s, n, "graph output")?;
        let name = match name {
            Some(name) => name,
            None => sub
                .string(4)?
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("subgraph{s}")),
        };
        self.budget.spend(name.len())?;

        let mut st = State::new(&tensors);
        let free = match given {
            Given::Options(opts) => {
                let (free, set) = main_inputs(&tensors, &inputs, opts, &mut self.budget)?;
                for (t, dims) in set {
                    st.set(t, dims, &tensors[t].dims);
                }
                free
            }
            Given::Dims(dims) => {
                if dims.len() != inputs.len() {
                    return Err(err(
                        None,
                        format!(
                            "subgraph {s} has {} inputs, but its caller passes {}",
                            inputs.len(),
                            dims.len()
                        ),
                    ));
                }
                for (&t, d) in inputs.iter().zip(dims) {
                    st.set(t, d, &tensors[t].dims);
                }
                Vec::new()
            }
            Given::Stored => Vec::new(),
        };
        let mut calls: Vec<(usize, &'static str, Graph)> = Vec::new();
        let mut notes = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            let visit = op.inputs.iter().flatten().any(|&t| st.changed[t]);
            if control(&op.kind).is_some() {
                notes.extend(self.call(s, k, op, &tensors, &mut st, visit, &mut calls)?);
            } else if visit {
                self.infer(s, k, op, &tensors, &mut st)?;
            }
        }

        let mut values = Vec::with_capacity(n);
        for (t, dims) in tensors.iter().zip(&st.dims) {
            values.push(Value {
                bytes: import::tensor_bytes(FORMAT, &t.name, dims, t.bits)?,
                name: t.name.clone(),
                konst: t.konst,
            });
        }
        let mut nodes: Vec<Node> = ops
            .iter()
            .map(|op| Node {
                name: None,
                kind: op.kind.clone(),
                inputs: op.inputs.iter().flatten().copied().collect(),
                outputs: op.outputs.iter().flatten().copied().collect(),
                folded: false,
            })
            .collect();
        // a control op never folds, even with constant inputs: its subgraphs run
        for run in nodes.split_mut(|n| control(&n.kind).is_some()) {
            import::fold(&mut values, run);
        }
        let out_dims = outputs.iter().map(|&o| st.dims[o].clone()).collect();
        let mut graph = import::build(name, values, &nodes, &inputs, &outputs)?;
        // the graph keeps the ops that are not folded, in order
        let mut step = vec![None; nodes.len()];
        let mut kept = 0;
        for (k, node) in nodes.iter().enumerate() {
            if !node.folded {
                step[k] = Some(kept);
                kept += 1;
            }
        }
        for (k, attribute, body) in calls {
            let op = step[k]
                .and_then(|j| graph.ops.get(j))
                .map_or_else(|| ops[k].kind.clone(), |o| o.name.clone());
            graph.subgraphs.push(Subgraph {
                op,
                attribute: attribute.to_string(),
                graph: body,
            });
        }
        graph.free_dims = free;
        graph.notes = notes;
        Ok(Built {
            graph,
            outputs: out_dims,
        })
    }

    fn tensor(&mut self, t: &Table, index: usize) -> Result<TensorInfo, Error> {
        self.budget.spend(16)?;
        let name = t.string(3)?.unwrap_or_else(|| format!("tensor{index}"));
        self.budget.spend(name.len())?;
        let at = || Some(format!("tensor `{name}`"));
        let dims = self.ints(t.vector(0, 4)?)?.unwrap_or_default();
        let signature = self.ints(t.vector(7, 4)?)?;
        let kind = t.i8(1, 0)?;
        let bits =
            element_bits(kind).ok_or_else(|| err(at(), format!("unknown tensor type {kind}")))?;
        let buffer = t.u32(2, 0)? as usize;
        let has_data = match self.buffers {
            Some(list) if buffer < list.len() => {
                let b = list.table(buffer)?;
                b.vector(0, 1)?.is_some_and(|d| !d.is_empty())
                    || (b.u64(1, 0)? > 1 && b.u64(2, 0)? > 0)
            }
            _ if buffer == 0 => false,
            _ => {
                return Err(err(
                    at(),
                    format!(
                        "buffer {buffer} does not exist (the model has {})",
                        self.buffers.map_or(0, |b| b.len())
                    ),
                ))
            }
        };
        let variable = t.u8(5, 0)? != 0;
        Ok(TensorInfo {
            name,
            dims,
            signature,
            kind,
            bits,
            buffer,
            konst: has_data || variable,
        })
    }

    /// An `[int]` vector, paid for.
    fn ints(&mut self, v: Option<Vector>) -> Result<Option<Vec<i64>>, Error> {
        let Some(v) = v else {
            return Ok(None);
        };
        self.budget.spend(4 * v.len())?;
        Ok(Some(v.i32s()?.into_iter().map(i64::from).collect()))
    }

    fn operator(
        &mut self,
        list: &Vector<'a>,
        k: usize,
        s: usize,
        n_tensors: usize,
    ) -> Result<OpInfo<'a>, Error> {
        self.budget.spend(16)?;
        let op = list.table(k)?;
        let code = op.u32(0, 0)? as usize;
        let kind = self.codes.get(code).cloned().ok_or_else(|| {
            err(
                Some(format!("operator {k}")),
                format!(
                    "opcode index {code} does not exist (the model has {})",
                    self.codes.len()
                ),
            )
        })?;
        self.budget.spend(kind.len())?;
        let what = format!("input of operator {k} ({kind})");
        let inputs = self.positions(op.vector(1, 4)?, s, n_tensors, &what)?;
        let what = format!("output of operator {k} ({kind})");
        let outputs = self.positions(op.vector(2, 4)?, s, n_tensors, &what)?;
        let (opts_type, opts) = Opts::of(&op)?;
        let custom = match op.vector(5, 1)? {
            Some(v) => Some(v.prefix(1 << 10)?),
            None => None,
        };
        Ok(OpInfo {
            kind,
            inputs,
            outputs,
            opts_type,
            opts,
            custom,
        })
    }

    /// Tensor indices of an `[int]` vector by position; `-1` (an absent optional
    /// tensor) is `None`.
    fn positions(
        &mut self,
        list: Option<Vector>,
        s: usize,
        n_tensors: usize,
        what: &str,
    ) -> Result<Vec<Option<usize>>, Error> {
        let Some(list) = list else {
            return Ok(Vec::new());
        };
        self.budget.spend(4 * list.len())?;
        let mut out = Vec::with_capacity(list.len());
        for i in list.i32s()? {
            match usize::try_from(i) {
                Ok(t) if t < n_tensors => out.push(Some(t)),
                _ if i == -1 => out.push(None),
                _ => {
                    return Err(err(
                        None,
                        format!(
                            "{what} names tensor {i}, but subgraph {s} has {n_tensors} tensors"
                        ),
                    ))
                }
            }
        }
        Ok(out)
    }

    /// Tensor indices, absent ones skipped.
    fn indices(
        &mut self,
        list: Option<Vector>,
        s: usize,
        n_tensors: usize,
        what: &str,
    ) -> Result<Vec<usize>, Error> {
        Ok(self
            .positions(list, s, n_tensors, what)?
            .into_iter()
            .flatten()
            .collect())
    }

    /// Looks up the value of constant integer tensor `t` once.
    fn load(&mut self, t: usize, info: &TensorInfo, st: &mut State) -> Result<(), Error> {
        if std::mem::replace(&mut st.loaded[t], true) || !info.konst {
            return Ok(());
        }
        let size = match info.kind {
            INT32 => 4,
            INT64 => 8,
            _ => return Ok(()),
        };
        let count = info
            .dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?));
        let Some(count) = count.filter(|&c| c <= MAX_VALUE as u64) else {
            return Ok(());
        };
        let count = count as usize;
        let Some(list) = self.buffers.filter(|b| info.buffer < b.len()) else {
            return Ok(());
        };
        let b = list.table(info.buffer)?;
        let bad = |m: String| err(Some(format!("tensor `{}`", info.name)), m);
        let (offset, len) = (b.u64(1, 0)?, b.u64(2, 0)?);
        let bytes = match b.vector(0, 1)? {
            Some(v) if !v.is_empty() => v.prefix(count * size)?,
            // a variable, without data
            _ if offset <= 1 || len == 0 => return Ok(()),
            _ => {
                // a model over 2 GB keeps its buffers after the FlatBuffer
                usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(o, l)| self.data.range(o, l.min(count * size)).ok())
                    .ok_or_else(|| {
                        bad(format!(
                            "its buffer ({len} bytes at offset {offset}) lies outside the file"
                        ))
                    })?
            }
        };
        let bytes = bytes.get(..count * size).ok_or_else(|| {
            bad(format!(
                "its buffer holds {} bytes, but its shape {} needs {}",
                bytes.len(),
                show(&info.dims),
                count * size
            ))
        })?;
        self.budget.spend(count * 8)?;
        st.values[t] = Some(
            bytes
                .chunks_exact(size)
                .map(|c| match *c {
                    [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
                    [a, b, c, d, e, f, g, h] => i64::from_le_bytes([a, b, c, d, e, f, g, h]),
                    _ => 0,
                })
                .collect(),
        );
        Ok(())
    }

    /// Applies the shape rule of op `k`, which a changed shape reaches.
    fn infer(
        &mut self,
        s: usize,
        k: usize,
        op: &OpInfo,
        tensors: &[TensorInfo],
        st: &mut State,
    ) -> Result<(), Error> {
        let at = || op_at(s, k, &op.kind);
        let changed = op.inputs.iter().flatten().copied().find(|&t| st.changed[t]);
        let why = match changed {
            Some(t) if st.dims[t] == tensors[t].dims => format!(
                "its input `{}` holds values computed from a changed shape",
                tensors[t].name
            ),
            Some(t) => format!(
                "its input `{}` is now {} (stored {})",
                tensors[t].name,
                show(&st.dims[t]),
                show(&tensors[t].dims)
            ),
            None => "its inputs changed".to_string(),
        };
        let Some(rule) = shapes::rule(&op.kind) else {
            return Err(err(
                at(),
                format!(
                    "memplan has no shape rule for {}, and {why}: give input shapes that leave it unchanged",
                    op.kind
                ),
            ));
        };
        for &t in op.inputs.iter().flatten() {
            self.load(t, &tensors[t], st)?;
            let d = &st.dims[t];
            if d.len() > MAX_RANK || d.iter().any(|&x| x < 0) {
                return Err(err(
                    at(),
                    format!(
                        "its input `{}` has shape {}, which memplan cannot propagate (a negative size or a rank above {MAX_RANK})",
                        tensors[t].name,
                        show(d)
                    ),
                ));
            }
        }
        let outs = {
            let ins: Vec<Option<In>> = op
                .inputs
                .iter()
                .map(|i| {
                    i.map(|t| In {
                        dims: &st.dims[t],
                        value: st.values[t].as_deref(),
                    })
                })
                .collect();
            let ctx = shapes::Ctx {
                inputs: &ins,
                outputs: op.outputs.len(),
                opts: op.opts,
                custom: op.custom.as_deref(),
            };
            rule(&ctx).map_err(|m| err(at(), format!("{m}; {why}")))?
        };
        if outs.len() != op.outputs.len() {
            return Err(err(
                at(),
                format!(
                    "its shape rule gives {} outputs, but it has {}",
                    outs.len(),
                    op.outputs.len()
                ),
            ));
        }
        for (o, out) in op.outputs.iter().zip(outs) {
            let Some(t) = *o else { continue };
            if out.dims.len() > MAX_RANK || out.dims.iter().any(|&d| d < 0) {
                return Err(err(
                    at(),
                    format!(
                        "its output `{}` would have shape {}; {why}",
                        tensors[t].name,
                        show(&out.dims)
                    ),
                ));
            }
            let int = matches!(tensors[t].kind, INT32 | INT64);
            let value = out.value.filter(|v| int && v.len() <= MAX_VALUE);
            self.budget
                .spend(8 * (out.dims.len() + value.as_ref().map_or(0, Vec::len)))?;
            st.loaded[t] = true;
            st.changed[t] = out.dims != tensors[t].dims || value.is_some();
            st.dims[t] = out.dims;
            st.values[t] = value;
        }
        Ok(())
    }

    /// Builds the subgraphs that control op `k` calls, with its inputs' shapes
    /// when a changed shape reaches it, and gives its outputs their shapes; a
    /// note when an `IF`'s branches disagree.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        s: usize,
        k: usize,
        op: &OpInfo,
        tensors: &[TensorInfo],
        st: &mut State,
        visit: bool,
        calls: &mut Vec<(usize, &'static str, Graph)>,
    ) -> Result<Option<String>, Error> {
        let at = || op_at(s, k, &op.kind);
        let Some((union_type, table, fields)) = control(&op.kind) else {
            return Ok(None);
        };
        if op.opts_type != union_type {
            return Err(err(at(), format!("it has no {table}")));
        }
        // IF's input 0 is its condition; the branches take the rest
        let skip = usize::from(op.kind == "IF");
        let args = op
            .inputs
            .iter()
            .skip(skip)
            .map(|i| i.map(|t| st.dims[t].clone()))
            .collect::<Option<Vec<_>>>();
        let mut results = Vec::with_capacity(fields.len());
        for &(field, attribute) in fields {
            let index = op.opts.int(field, 0).map_err(|m| err(at(), m))?;
            let index = usize::try_from(index)
                .ok()
                .filter(|&i| i < self.subgraphs.len())
                .ok_or_else(|| {
                    err(
                        at(),
                        format!(
                            "its {attribute} subgraph {index} does not exist (the model has {})",
                            self.subgraphs.len()
                        ),
                    )
                })?;
            let given = match (&args, visit && attribute != "init") {
                (Some(args), true) => Given::Dims(args.clone()),
                (None, true) => return Err(err(at(), "an input it passes on is absent (-1)")),
                _ => Given::Stored,
            };
            let built = self.subgraph(index, None, given)?;
            results.push(built.outputs);
            calls.push((k, attribute, built.graph));
        }
        if !visit {
            return Ok(None);
        }
        let mut note = None;
        let outs: Vec<Vec<i64>> = match (op.kind.as_str(), results.as_slice()) {
            ("IF", [then, other]) => {
                if then != other {
                    let place = op_at(s, k, &op.kind).unwrap_or_default();
                    note = Some(format!(
                        "{place}: its branches give outputs of different shapes; memplan plans the larger size on each axis"
                    ));
                }
                branches(then, other).map_err(|m| err(at(), m))?
            }
            ("WHILE", [_, body]) => {
                let args = args.unwrap_or_default();
                if *body != args {
                    return Err(err(
                        at(),
                        "its body gives its loop values other shapes than it takes, which a static plan cannot hold",
                    ));
                }
                args
            }
            _ => return Ok(None),
        };
        if outs.len() != op.outputs.len() {
            return Err(err(
                at(),
                format!(
                    "it has {} outputs, but its subgraphs give {}",
                    op.outputs.len(),
                    outs.len()
                ),
            ));
        }
        for (o, d) in op.outputs.iter().zip(outs) {
            if let Some(t) = *o {
                st.set(t, d, &tensors[t].dims);
            }
        }
        Ok(note)
    }
}

/// The options of a control op: union type, table name, and the fields that
/// hold subgraph indices with the attribute each becomes.
type Control = (u8, &'static str, &'static [(usize, &'static str)]);

fn control(kind: &str) -> Option<Control> {
    match kind {
        "IF" => Some((92, "IfOptions", &[(0, "then"), (1, "else")])),
        "WHILE" => Some((93, "WhileOptions", &[(0, "cond"), (1, "body")])),
        "CALL_ONCE" => Some((103, "CallOnceOptions", &[(0, "init")])),
        _ => None,
    }
}

/// The shapes of an `IF`'s outputs: the branches' where they agree, else the
/// larger size on each axis (the plan holds either branch's result).
fn branches(then: &[Vec<i64>], other: &[Vec<i64>]) -> Result<Vec<Vec<i64>>, String> {
    if then.len() != other.len() {
        return Err(format!(
            "its branches give {} and {} outputs",
            then.len(),
            other.len()
        ));
    }
    then.iter()
        .zip(other)
        .map(|(a, b)| {
            if a.len() != b.len() {
                return Err(format!(
                    "its branches give outputs of shapes {} and {}",
                    show(a),
                    show(b)
                ));
            }
            Ok(a.iter().zip(b).map(|(&x, &y)| x.max(y)).collect())
        })
        .collect()
}

/// The free dimensions of subgraph 0's inputs and the new shapes of the inputs
/// the options change; unknown names in the options are errors that list the
/// names the model has.
#[allow(clippy::type_complexity)]
fn main_inputs(
    tensors: &[TensorInfo],
    inputs: &[usize],
    opts: &ReadOptions,
    budget: &mut Budget,
) -> Result<(Vec<FreeDim>, Vec<(usize, Vec<i64>)>), Error> {
    // a constant listed as an input is a weight, not something the user feeds
    let mut listed = vec![false; tensors.len()];
    let fed: Vec<usize> = inputs
        .iter()
        .copied()
        .filter(|&t| !tensors[t].konst && !std::mem::replace(&mut listed[t], true))
        .collect();
    for (missing, _) in &opts.input_shapes {
        if !fed.iter().any(|&t| &tensors[t].name == missing) {
            let names: Vec<&str> = fed.iter().map(|&t| tensors[t].name.as_str()).collect();
            return Err(Error::usage(format!(
                "--input-shape names `{missing}`, which is not an input of the model (inputs: {})",
                names.join(", ")
            )));
        }
    }
    let whole = |t: usize| {
        opts.input_shapes
            .iter()
            .find(|(n, _)| n == &tensors[t].name)
            .map(|(_, d)| d)
    };
    let mut free: Vec<FreeDim> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &t in &fed {
        let info = &tensors[t];
        if whole(t).is_some() {
            continue;
        }
        let dynamic = info.signature.iter().flatten().enumerate();
        for (axis, _) in dynamic.filter(|(_, &d)| d < 0) {
            let name = format!("{}:{axis}", info.name);
            let at = format!("{}[{axis}]", info.name);
            budget.spend(2 * name.len() + at.len() + 32)?;
            if let Some(&i) = index.get(&name) {
                // two inputs of one name
                free[i].at.push(at);
                continue;
            }
            // where the signature says -1, TFLite's converter leaves a placeholder
            // in `shape` (1 for a batch exported as None, else the size the model
            // was traced with): that is the default, so a model imports as it
            // always has when no --dim is given; a placeholder of 0 or less reads 1
            let stored = info
                .dims
                .get(axis)
                .copied()
                .filter(|&d| d > 0)
                .map_or(1, |d| d as u64);
            let given = opts.dims.iter().find(|(n, _)| n == &name).map(|d| d.1);
            index.insert(name.clone(), free.len());
            free.push(FreeDim {
                name,
                value: given.unwrap_or(stored),
                given: given.is_some(),
                at: vec![at],
            });
        }
    }
    if let Some((unknown, _)) = opts.dims.iter().find(|(n, _)| !index.contains_key(n)) {
        return Err(import::unknown_dim(unknown, &free));
    }
    let too_large = |what: String, d: u64| Error::usage(format!("{what} = {d} is too large"));
    let mut set = Vec::new();
    for &t in &fed {
        let info = &tensors[t];
        let dims = match (whole(t), &info.signature) {
            (Some(dims), _) => dims
                .iter()
                .map(|&d| {
                    i64::try_from(d)
                        .map_err(|_| too_large(format!("a dimension of input `{}`", info.name), d))
                })
                .collect::<Result<Vec<_>, _>>()?,
            (None, Some(sig)) if sig.iter().any(|&d| d < 0) => {
                let mut dims = Vec::with_capacity(sig.len());
                for (axis, &d) in sig.iter().enumerate() {
                    let stored = info.dims.get(axis).copied();
                    dims.push(match (d, stored) {
                        (d, _) if d < 0 => {
                            let name = format!("{}:{axis}", info.name);
                            let v = index
                                .get(&name)
                                .and_then(|&i| free.get(i))
                                .map_or(1, |f| f.value);
                            i64::try_from(v).map_err(|_| too_large(format!("`{name}`"), v))?
                        }
                        // the stored shape wins where both are static and the
                        // ranks agree
                        (_, Some(s)) if sig.len() == info.dims.len() => s,
                        (d, _) => d,
                    });
                }
                dims
            }
            _ => continue,
        };
        if dims != info.dims {
            set.push((t, dims));
        }
    }
    Ok((free, set))
}
