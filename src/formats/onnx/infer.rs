//! Shape and element-type inference for the common ONNX ops, following the
//! operator specifications. A failure is a short reason; the caller names the op
//! and the value.

use super::layout::{
    concat, gemm, matmul, pad, reduce, reshape, shape_range, slice, split, squeeze, transpose,
    unsqueeze,
};
use super::proto::{Node, MAX_RANK};
use super::window::{conv, conv_transpose, pool};

pub const FLOAT: i32 = 1;
pub const INT64: i32 = 7;
pub const BOOL: i32 = 9;

/// What is known about a value: element type, shape, and for small integer
/// constants their contents.
#[derive(Clone, Debug, Default)]
pub struct Info {
    pub dtype: i32,
    pub shape: Vec<i64>,
    pub data: Option<Vec<i64>>,
    pub konst: bool,
}

pub(super) type Out = Vec<(i32, Vec<i64>)>;

const UNARY: &[&str] = &[
    "Relu",
    "Sigmoid",
    "Tanh",
    "LRN",
    "Softmax",
    "LogSoftmax",
    "Hardmax",
    "Clip",
    "Identity",
    "LeakyRelu",
    "Elu",
    "Selu",
    "Celu",
    "Exp",
    "Log",
    "Sqrt",
    "Neg",
    "Abs",
    "Erf",
    "Reciprocal",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "Sin",
    "Cos",
    "Softplus",
    "Softsign",
    "HardSigmoid",
    "HardSwish",
    "Gelu",
    "Mish",
    "ThresholdedRelu",
    "InstanceNormalization",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Dropout",
    "BatchNormalization",
    "LayerNormalization",
    "CumSum",
    "Shrink",
];
const BROADCAST: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Sum",
    "Max",
    "Min",
    "Mean",
    "PRelu",
    "Mod",
    "Where",
    "BitShift",
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
];
const LOGICAL: &[&str] = &[
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "Not",
];

/// Output types and shapes of `node`; `inputs[i]` is `None` for an absent optional
/// input.
pub fn infer(node: &Node, inputs: &[Option<&Info>], opset: i64) -> Result<Out, String> {
    let op = node.op_type.as_str();
    let n_out = node.outputs.len();
    let x = || input(inputs, 0);
    let same = |info: &Info| vec![(info.dtype, info.shape.clone()); n_out];
    let mut out = match op {
        "Not" => same(x()?),
        _ if UNARY.contains(&op) => unary(node, x()?, opset),
        _ if BROADCAST.contains(&op) => {
            let present: Vec<&Info> = inputs.iter().flatten().copied().collect();
            let shapes: Vec<&[i64]> = present.iter().map(|i| i.shape.as_slice()).collect();
            let dtype = if op == "Where" {
                input(inputs, 1)?.dtype
            } else {
                x()?.dtype
            };
            vec![(dtype, broadcast(&shapes)?)]
        }
        "Conv" | "ConvInteger" | "QLinearConv" => conv(node, x()?, input(inputs, 1)?)?,
        "ConvTranspose" => conv_transpose(node, x()?, input(inputs, 1)?)?,
        "MaxPool" | "AveragePool" | "LpPool" => {
            let shape = pool(node, &x()?.shape, None)?;
            let mut out = vec![(x()?.dtype, shape.clone())];
            if n_out > 1 {
                out.push((INT64, shape));
            }
            out
        }
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
            let s = &x()?.shape;
            let mut shape = s.iter().take(2).copied().collect::<Vec<_>>();
            shape.extend(std::iter::repeat_n(1, s.len().saturating_sub(2)));
            vec![(x()?.dtype, shape)]
        }
        "Concat" => vec![(x()?.dtype, concat(node, inputs)?)],
        "Gemm" => vec![(x()?.dtype, gemm(node, x()?, input(inputs, 1)?)?)],
        "MatMul" | "MatMulInteger" => vec![(x()?.dtype, matmul(x()?, input(inputs, 1)?)?)],
        "Reshape" => vec![(x()?.dtype, reshape(node, x()?, inputs, opset)?)],
        "Flatten" => {
            let s = &x()?.shape;
            let axis = axis(node.int("axis", 1), s.len() + 1)?;
            vec![(x()?.dtype, vec![product(&s[..axis])?, product(&s[axis..])?])]
        }
        "Transpose" => vec![(x()?.dtype, transpose(node, &x()?.shape)?)],
        "Split" => split(node, x()?, inputs, opset)?,
        "Slice" => vec![(x()?.dtype, slice(node, x()?, inputs, opset)?)],
        "Pad" => vec![(x()?.dtype, pad(node, x()?, inputs, opset)?)],
        "Shape" => vec![(
            INT64,
            vec![shape_range(node, x()?.shape.len())?.len() as i64],
        )],
        "Size" => vec![(INT64, vec![])],
        "Gather" => {
            let (data, indices) = (x()?, input(inputs, 1)?);
            let a = axis(node.int("axis", 0), data.shape.len())?;
            let mut shape = data.shape[..a].to_vec();
            shape.extend_from_slice(&indices.shape);
            shape.extend_from_slice(&data.shape[a + 1..]);
            vec![(data.dtype, shape)]
        }
        "Unsqueeze" => vec![(x()?.dtype, unsqueeze(node, x()?, inputs, opset)?)],
        "Squeeze" => vec![(x()?.dtype, squeeze(node, x()?, inputs, opset)?)],
        "ConstantOfShape" => {
            let shape = data(inputs, 0, "shape")?.to_vec();
            let dtype = node.attribute("value").and_then(|a| a.t.as_ref());
            vec![(dtype.map_or(FLOAT, |t| t.data_type), shape)]
        }
        "Constant" => vec![constant(node)?],
        "Cast" => vec![(node.int("to", FLOAT.into()) as i32, x()?.shape.clone())],
        "Expand" => {
            let to = data(inputs, 1, "shape")?;
            vec![(x()?.dtype, broadcast(&[&x()?.shape, to])?)]
        }
        "Tile" => {
            let reps = data(inputs, 1, "repeats")?;
            let s = &x()?.shape;
            if reps.len() != s.len() {
                return Err(format!("{} repeats for rank {}", reps.len(), s.len()));
            }
            let shape = s
                .iter()
                .zip(reps)
                .map(|(&d, &r)| mul(d, r))
                .collect::<Result<_, _>>()?;
            vec![(x()?.dtype, shape)]
        }
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSumExp" | "ReduceSumSquare" | "ArgMax" | "ArgMin" => {
            reduce(node, x()?, inputs, opset)?
        }
        _ => return Err(format!("no shape inference for op type `{op}`")),
    };
    if LOGICAL.contains(&op) {
        out.iter_mut().for_each(|o| o.0 = BOOL);
    }
    out.truncate(n_out);
    if out.len() < n_out {
        return Err(format!(
            "{n_out} outputs, of which only {} can be inferred",
            out.len()
        ));
    }
    if let Some((_, s)) = out
        .iter()
        .find(|(_, s)| s.len() > MAX_RANK || s.iter().any(|&d| d < 0))
    {
        return Err(format!("the inferred shape {s:?} is invalid"));
    }
    Ok(out)
}

fn unary(node: &Node, x: &Info, opset: i64) -> Out {
    let n_out = node.outputs.len();
    let mut out = vec![(x.dtype, x.shape.clone())];
    match node.op_type.as_str() {
        "Dropout" if n_out > 1 => {
            out.push((if opset >= 10 { BOOL } else { x.dtype }, x.shape.clone()))
        }
        "BatchNormalization" => {
            let c = x.shape.get(1).copied().unwrap_or(1);
            out.extend(std::iter::repeat_n(
                (x.dtype, vec![c]),
                n_out.saturating_sub(1),
            ));
        }
        "LayerNormalization" => {
            let a = axis(node.int("axis", -1), x.shape.len()).unwrap_or(0);
            let mut stats = x.shape.clone();
            stats[a..].iter_mut().for_each(|d| *d = 1);
            out.extend(std::iter::repeat_n((FLOAT, stats), n_out.saturating_sub(1)));
        }
        _ => {}
    }
    out
}

pub(super) fn input<'a>(inputs: &[Option<&'a Info>], i: usize) -> Result<&'a Info, String> {
    inputs
        .get(i)
        .copied()
        .flatten()
        .ok_or_else(|| format!("input {i} is missing"))
}

/// The integer contents of input `i`, which must be a known constant.
fn data<'a>(inputs: &[Option<&'a Info>], i: usize, what: &str) -> Result<&'a [i64], String> {
    input(inputs, i)?.data.as_deref().ok_or_else(|| {
        format!("the value of its `{what}` input (input {i}) is not a known constant")
    })
}

/// Integer contents of input `i` if present, else of attribute `attr`.
pub(super) fn list<'a>(
    node: &'a Node,
    inputs: &[Option<&'a Info>],
    i: usize,
    attr: &str,
    from_input: bool,
) -> Result<Option<&'a [i64]>, String> {
    if from_input {
        match inputs.get(i).copied().flatten() {
            Some(_) => data(inputs, i, attr).map(Some),
            None => Ok(None),
        }
    } else {
        Ok(node.ints(attr))
    }
}

pub(super) fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if a < -r || a >= r {
        return Err(format!("axis {a} is out of range for rank {rank}"));
    }
    Ok((if a < 0 { a + r } else { a }) as usize)
}

pub(super) fn mul(a: i64, b: i64) -> Result<i64, String> {
    a.checked_mul(b)
        .ok_or_else(|| "a dimension overflows".to_string())
}

pub(super) fn product(dims: &[i64]) -> Result<i64, String> {
    dims.iter().try_fold(1i64, |p, &d| mul(p, d))
}

pub(super) fn broadcast(shapes: &[&[i64]]) -> Result<Vec<i64>, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    for s in shapes {
        for (k, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(format!("shapes {shapes:?} do not broadcast"));
            }
        }
    }
    Ok(out)
}

fn constant(node: &Node) -> Result<(i32, Vec<i64>), String> {
    let a = node.attributes.first().ok_or("no value attribute")?;
    Ok(match a.name.as_str() {
        "value" => {
            let t = a.t.as_ref().ok_or("no value tensor")?;
            (t.data_type, t.dims.clone())
        }
        "value_float" => (FLOAT, vec![]),
        "value_int" => (INT64, vec![]),
        "value_floats" => (FLOAT, vec![a.floats.len() as i64]),
        "value_ints" => (INT64, vec![a.ints.len() as i64]),
        other => return Err(format!("a Constant with attribute `{other}`")),
    })
}
