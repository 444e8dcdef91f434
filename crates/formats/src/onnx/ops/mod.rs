//! The op registry: one small handler per op family, looked up by domain and op
//! type. A handler reads a node and what is known about its inputs ([`Ctx`]) and
//! returns the element type and shape of every output, or a short reason. Handlers
//! of ops with subgraphs (`If`, `Loop`, `Scan`) also get the importer's
//! [`Bodies`], which walks a subgraph.
//!
//! | file | families |
//! |---|---|
//! | `elementwise` | unary maths and activations, broadcasting arithmetic and logic, casts, normalisations, random-like ops |
//! | `layout` | reshape, transpose, concat, split, slice, pad, gather/scatter, shape values (`Shape`, `Range`, `ConstantOfShape` ...) |
//! | `nn` | convolution, pooling, matrix products, resizing |
//! | `image` | grid sampling, ROI pooling, unpooling, column-to-image |
//! | `reduce` | reductions, arg/top-k, losses, signal processing |
//! | `rnn` | `RNN`, `LSTM`, `GRU` and onnxruntime's fused RNN ops |
//! | `quant` | quantisation (`QuantizeLinear`, `QLinear*`, integer products, `com.microsoft` quantised ops) |
//! | `microsoft` | onnxruntime's transformer fusions (`Attention`, `SkipLayerNormalization` ...) |
//! | `control` | `If`, `Loop`, `Scan` |
//! | `sequence` | sequences of tensors (`SequenceConstruct`, `SplitToSequence` ...) |
//! | `bounded` | ops whose sizes depend on values (`NonZero`, `NonMaxSuppression` ...), at their worst case |
//! | `misc` | strings, optionals, training, `ai.onnx.ml` |

mod bounded;
mod control;
mod elementwise;
mod families;
mod image;
mod layout;
mod microsoft;
mod misc;
mod nn;
mod quant;
mod reduce;
mod rnn;
mod sequence;
#[cfg(test)]
mod testing;

pub use families::{lookup, registry};

use super::proto::{Attribute, Graph, Node};
use super::shape::{Data, Info, Out};
use std::cell::RefCell;
use std::collections::HashMap;

/// Domains, as nodes name them (`""` is the default `ai.onnx`).
pub const ONNX: &str = "";
pub const MS: &str = "com.microsoft";
pub const ML: &str = "ai.onnx.ml";
pub const TRAINING: &str = "ai.onnx.preview.training";

/// A node as a handler sees it.
pub struct Ctx<'a> {
    pub node: &'a Node,
    /// `None` for an absent optional input.
    pub inputs: &'a [Option<&'a Info>],
    /// The opset version of the node's domain.
    pub opset: i64,
    /// Outputs the handler sized at their worst case (a size that depends on
    /// the input data), each with why that is the worst (see [`Ctx::worst_case`]).
    worst: RefCell<Vec<(usize, String)>>,
    /// Outputs whose size depends on the input data with no bound the shapes
    /// give, each with why (see [`Ctx::no_bound`]).
    unbounded: RefCell<Vec<(usize, String)>>,
}

/// Walks a subgraph for a control-flow handler: given the types of the body's
/// inputs, the types of its outputs.
pub trait Bodies {
    fn walk(&mut self, attr: &str, body: &Graph, inputs: Vec<Info>) -> Result<Vec<Info>, String>;
    /// Adds a note to the import's report.
    fn note(&mut self, text: String);
    /// Notes that a branch of an `If` cannot run at these shapes, so that only
    /// the other is planned.
    fn branch_cannot_run(&mut self, text: String);
}

type Plain = fn(&Ctx) -> Result<Out, String>;
type WithBodies = fn(&Ctx, &mut dyn Bodies) -> Result<Out, String>;
type Values = fn(&Ctx) -> Result<Vec<Info>, String>;

#[derive(Clone, Copy)]
pub enum Handler {
    /// Types and shapes of tensors.
    Plain(Plain),
    /// Ops with subgraphs.
    Bodies(WithBodies),
    /// Ops on sequences: whole [`Info`]s (a sequence's element shapes, a
    /// length's value).
    Values(Values),
}

/// Op types by domain, each with its handler.
#[derive(Default)]
pub struct Registry {
    map: HashMap<(&'static str, &'static str), Handler>,
}

impl Registry {
    pub fn add(&mut self, domain: &'static str, ops: &[&'static str], f: Plain) {
        for op in ops {
            self.map.insert((domain, op), Handler::Plain(f));
        }
    }

    fn add_bodies(&mut self, domain: &'static str, ops: &[&'static str], f: WithBodies) {
        for op in ops {
            self.map.insert((domain, op), Handler::Bodies(f));
        }
    }

    fn add_values(&mut self, domain: &'static str, ops: &[&'static str], f: Values) {
        for op in ops {
            self.map.insert((domain, op), Handler::Values(f));
        }
    }

    /// Op types per domain that have a handler, sorted.
    pub fn covered(&self) -> Vec<(&'static str, &'static str)> {
        let mut v: Vec<_> = self.map.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// Ends the reason of a handler that needs an input's value: `(input N)` before
/// it names the input (see [`unknown_input`]).
const UNKNOWN: &str =
    " is not known before running the model; it must be a constant or computed from shapes";

/// The input whose unknown value a handler's reason names, if it names one.
pub fn unknown_input(why: &str) -> Option<usize> {
    let head = why.strip_suffix(UNKNOWN)?;
    let (_, n) = head.rsplit_once("(input ")?;
    n.strip_suffix(')')?.parse().ok()
}

/// Reasons that start with this are data-dependent sizes without a worst case
/// that follows from the input shapes (the importer asks for an upper bound).
pub const DATA_DEPENDENT: &str = "data-dependent";

impl<'a> Ctx<'a> {
    pub fn new(node: &'a Node, inputs: &'a [Option<&'a Info>], opset: i64) -> Ctx<'a> {
        Ctx {
            node,
            inputs,
            opset,
            worst: RefCell::new(Vec::new()),
            unbounded: RefCell::new(Vec::new()),
        }
    }

    /// Says that output `j`'s size depends on the input data and that nothing
    /// bounds it (`why`): the shape returned for it is a placeholder, and the
    /// importer asks for a bound unless the user gave one. The other outputs
    /// keep theirs.
    pub fn no_bound(&self, j: usize, why: impl Into<String>) {
        self.unbounded.borrow_mut().push((j, why.into()));
    }

    /// The outputs marked by [`Ctx::no_bound`], and why.
    pub fn unbounded(&self) -> Vec<(usize, String)> {
        self.unbounded.take()
    }

    /// Says that output `j`'s size depends on the input data and that the shape
    /// returned for it is the largest the inputs' shapes allow, `why` in a few
    /// words (`every element nonzero`). The importer plans it at that bound and
    /// lists it.
    pub fn worst_case(&self, j: usize, why: impl Into<String>) {
        self.worst.borrow_mut().push((j, why.into()));
    }

    /// The outputs marked by [`Ctx::worst_case`], and why.
    pub fn worst_cases(&self) -> Vec<(usize, String)> {
        self.worst.take()
    }

    pub fn n_out(&self) -> usize {
        self.node.outputs.len()
    }

    /// Input `i`, which must be present.
    pub fn x(&self, i: usize) -> Result<&'a Info, String> {
        self.inputs
            .get(i)
            .copied()
            .flatten()
            .ok_or_else(|| format!("input {i} is missing"))
    }

    /// Input `i` if present.
    pub fn opt(&self, i: usize) -> Option<&'a Info> {
        self.inputs.get(i).copied().flatten()
    }

    /// The integer contents of input `i`, which must be a known constant.
    pub fn values(&self, i: usize, what: &str) -> Result<Vec<i64>, String> {
        let x = self.x(i)?;
        x.ints().ok_or_else(|| self.unknown(i, what))
    }

    /// The contents of input `i` as floats, which must be a known constant.
    pub fn floats(&self, i: usize, what: &str) -> Result<Vec<f64>, String> {
        let x = self.x(i)?;
        x.data
            .as_ref()
            .map(Data::floats)
            .ok_or_else(|| self.unknown(i, what))
    }

    /// Integer contents of optional input `i`: `None` when absent (or empty).
    pub fn opt_values(&self, i: usize, what: &str) -> Result<Option<Vec<i64>>, String> {
        match self.opt(i) {
            Some(x) if x.shape.contains(&0) => Ok(None),
            Some(_) => self.values(i, what).map(Some),
            None => Ok(None),
        }
    }

    /// Input `i` for opsets that take it as an input, attribute `attr` before.
    pub fn list(&self, i: usize, attr: &str, from_input: bool) -> Result<Option<Vec<i64>>, String> {
        if from_input {
            self.opt_values(i, attr)
        } else {
            Ok(self.node.ints(attr).map(<[i64]>::to_vec))
        }
    }

    fn unknown(&self, i: usize, what: &str) -> String {
        let name = self.node.inputs.get(i).map_or("", String::as_str);
        format!("the value of its `{what}` input `{name}` (input {i}){UNKNOWN}")
    }

    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.node.int(name, default)
    }

    pub fn ints(&self, name: &str) -> Option<&'a [i64]> {
        self.node.ints(name)
    }

    pub fn attr(&self, name: &str) -> Option<&'a Attribute> {
        self.node.attribute(name)
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.node.string(name)
    }

    /// Input 0's type for every output: ops that keep their input's shape.
    pub fn same(&self) -> Result<Out, String> {
        let x = self.x(0)?;
        Ok(vec![x.ty(); self.n_out()])
    }
}
