//! Reductions, arg-max/min and top-k, losses, and signal processing.

use super::{Ctx, Registry, ONNX};
use crate::formats::onnx::dtype::INT64;
use crate::formats::onnx::shape::{axes, axis, Out};

pub fn register(r: &mut Registry) {
    r.add(
        ONNX,
        &[
            "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
            "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin",
        ],
        reduce,
    );
}

/// The shape left after reducing `which` axes of `x` (kept as 1 with `keep`).
pub fn reduced(x: &[i64], which: &[usize], keep: bool) -> Vec<i64> {
    (0..x.len())
        .filter(|a| keep || !which.contains(a))
        .map(|a| if which.contains(&a) { 1 } else { x[a] })
        .collect()
}

fn reduce(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let op = c.node.op_type.as_str();
    let keep = c.int("keepdims", 1) != 0;
    let arg = op.starts_with("Arg");
    if arg {
        let a = axis(c.int("axis", 0), x.rank())?;
        return Ok(vec![(INT64, reduced(&x.shape, &[a], keep))]);
    }
    let from_input = (op == "ReduceSum" && c.opset >= 13) || c.opset >= 18;
    let which = match c.list(1, "axes", from_input)? {
        Some(list) if !list.is_empty() => axes(&list, x.rank())?,
        _ if c.int("noop_with_empty_axes", 0) != 0 => vec![],
        _ => (0..x.rank()).collect(),
    };
    Ok(vec![(x.dtype, reduced(&x.shape, &which, keep))])
}
