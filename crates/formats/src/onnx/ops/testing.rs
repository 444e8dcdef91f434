//! What the handlers' unit tests share: nodes, attributes and inputs made by hand.

use super::Ctx;
use crate::onnx::dtype::{FLOAT, INT64};
use crate::onnx::proto::{Attribute, Node};
use crate::onnx::shape::{Data, Info, Out};

/// A node of `op` with `attributes` and `outputs` outputs named `y0`, `y1`, ...
pub fn node(op: &str, attributes: Vec<Attribute>, outputs: usize) -> Node {
    Node {
        op_type: op.into(),
        outputs: (0..outputs).map(|i| format!("y{i}")).collect(),
        attributes,
        ..Node::default()
    }
}

pub fn int(name: &str, i: i64) -> Attribute {
    Attribute {
        name: name.into(),
        i: Some(i),
        ..Attribute::default()
    }
}

pub fn ints(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        ints: v.to_vec(),
        ..Attribute::default()
    }
}

/// A string attribute.
pub fn text(name: &str, s: &str) -> Attribute {
    Attribute {
        name: name.into(),
        s: s.as_bytes().to_vec(),
        ..Attribute::default()
    }
}

/// An attribute listing `n` strings.
pub fn strings(name: &str, n: usize) -> Attribute {
    Attribute {
        name: name.into(),
        strings: n,
        ..Attribute::default()
    }
}

/// Runs handler `f` on `n` at `opset` with `inputs` (`None` for an absent one).
pub fn run(
    f: fn(&Ctx) -> Result<Out, String>,
    n: &Node,
    opset: i64,
    inputs: &[Option<Info>],
) -> Result<Out, String> {
    let refs: Vec<Option<&Info>> = inputs.iter().map(Option::as_ref).collect();
    f(&Ctx::new(n, &refs, opset))
}

/// Runs handler `f` as [`run`] does, and also returns the outputs it sized at
/// their worst case.
pub fn run_worst(
    f: fn(&Ctx) -> Result<Out, String>,
    n: &Node,
    opset: i64,
    inputs: &[Option<Info>],
) -> (Result<Out, String>, Vec<usize>) {
    let refs: Vec<Option<&Info>> = inputs.iter().map(Option::as_ref).collect();
    let c = Ctx::new(n, &refs, opset);
    let out = f(&c);
    (out, c.worst_cases().into_iter().map(|(j, _)| j).collect())
}

/// A float input of `shape`.
pub fn t(shape: &[i64]) -> Option<Info> {
    typed(FLOAT, shape)
}

/// An input of element type `dtype` and `shape`.
pub fn typed(dtype: i32, shape: &[i64]) -> Option<Info> {
    Some(Info::new(dtype, shape.to_vec()))
}

/// A constant int64 input of `shape` holding `v`.
pub fn k(shape: &[i64], v: &[i64]) -> Option<Info> {
    Some(Info {
        data: Some(Data::Int(v.to_vec())),
        konst: true,
        ..Info::new(INT64, shape.to_vec())
    })
}

/// The shapes of `out`.
pub fn shapes(out: Out) -> Vec<Vec<i64>> {
    out.into_iter().map(|(_, s)| s).collect()
}
