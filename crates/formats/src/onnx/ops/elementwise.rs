//! Ops that keep their input's shape (activations, unary maths, normalisations),
//! broadcasting arithmetic and comparisons, and casts.

use super::{Ctx, Registry, ONNX};
use crate::onnx::dtype::{BOOL, FLOAT};
use crate::onnx::shape::{axis, broadcast, Out};

const UNARY: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "BitwiseNot",
    "Ceil",
    "Celu",
    "Clip",
    "Cos",
    "Cosh",
    "CumSum",
    "Elu",
    "Erf",
    "Exp",
    "Floor",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "LRN",
    "LeakyRelu",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Mish",
    "Neg",
    "Reciprocal",
    "Relu",
    "Round",
    "Selu",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softmax",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Trilu",
    "GroupNormalization",
    "RMSNormalization",
    "Swish",
    "ReverseSequence",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "RandomUniformLike",
    "RandomNormalLike",
    "Bernoulli",
    "EyeLike",
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
    "Mod",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
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
];

pub fn register(r: &mut Registry) {
    r.add(ONNX, UNARY, unary);
    r.add(ONNX, BROADCAST, arithmetic);
    r.add(ONNX, LOGICAL, logical);
    r.add(ONNX, &["PRelu"], prelu);
    r.add(ONNX, &["RandomNormal", "RandomUniform"], random);
    r.add(ONNX, &["Multinomial"], multinomial);
    r.add(ONNX, &["BitCast"], bit_cast);
    r.add(ONNX, &["Not", "IsNaN", "IsInf"], predicate);
    r.add(ONNX, &["Where"], where_);
    r.add(ONNX, &["Cast"], cast);
    r.add(ONNX, &["CastLike"], cast_like);
    r.add(ONNX, &["Dropout"], dropout);
    r.add(ONNX, &["BatchNormalization"], batch_norm);
    r.add(ONNX, &["LayerNormalization"], layer_norm);
}

fn unary(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = match c.node.op_type.as_str() {
        "EyeLike" | "RandomUniformLike" | "RandomNormalLike" | "Bernoulli" => {
            c.int("dtype", i64::from(x.dtype)) as i32
        }
        _ => x.dtype,
    };
    Ok(vec![(dtype, x.shape.clone()); c.n_out().min(1)])
}

fn present_shapes<'a>(c: &'a Ctx) -> Vec<&'a [i64]> {
    c.inputs
        .iter()
        .flatten()
        .map(|i| i.shape.as_slice())
        .collect()
}

fn arithmetic(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(c.x(0)?.dtype, broadcast(&present_shapes(c))?)])
}

/// `RandomNormal`, `RandomUniform`: the `shape` and `dtype` attributes.
fn random(c: &Ctx) -> Result<Out, String> {
    let shape = c.ints("shape").ok_or("no shape attribute")?;
    Ok(vec![(c.int("dtype", FLOAT.into()) as i32, shape.to_vec())])
}

/// `[batch, sample_size]` class indices.
fn multinomial(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let batch = *x.shape.first().ok_or("an input of rank 0")?;
    Ok(vec![(
        c.int("dtype", 6) as i32,
        vec![batch, c.int("sample_size", 1)],
    )])
}

/// The same bits as another element type: the last axis grows or shrinks by the
/// ratio of the element sizes.
fn bit_cast(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let to = c.int("to", 0) as i32;
    let (from_bits, to_bits) = (
        crate::onnx::dtype::bits(x.dtype).ok_or("an unknown input type")?,
        crate::onnx::dtype::bits(to).ok_or("an unknown `to` type")?,
    );
    if from_bits == to_bits {
        return Ok(vec![(to, x.shape.clone())]);
    }
    if from_bits == 0 || to_bits == 0 {
        return Err("a cast of strings".into());
    }
    let mut shape = x.shape.clone();
    if from_bits > to_bits {
        shape.push((from_bits / to_bits) as i64);
    } else {
        let last = shape.pop().ok_or("a scalar to a wider type")?;
        if last != (to_bits / from_bits) as i64 {
            return Err(format!(
                "a last axis of {last} to a type {} times wider",
                to_bits / from_bits
            ));
        }
    }
    Ok(vec![(to, shape)])
}

/// The slope broadcasts to `x` (before opset 7 it may also be one per channel).
fn prelu(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    match broadcast(&present_shapes(c)) {
        Ok(s) => Ok(vec![(x.dtype, s)]),
        Err(_) if c.x(1)?.rank() <= 1 && c.x(1)?.shape.first() == x.shape.get(1) => {
            Ok(vec![x.ty()])
        }
        Err(e) => Err(e),
    }
}

fn logical(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(BOOL, broadcast(&present_shapes(c))?)])
}

fn predicate(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(BOOL, c.x(0)?.shape.clone())])
}

fn where_(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(c.x(1)?.dtype, broadcast(&present_shapes(c))?)])
}

fn cast(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(
        c.int("to", FLOAT.into()) as i32,
        c.x(0)?.shape.clone(),
    )])
}

fn cast_like(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(c.x(1)?.dtype, c.x(0)?.shape.clone())])
}

fn dropout(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut out = vec![x.ty()];
    if c.n_out() > 1 {
        out.push((if c.opset >= 10 { BOOL } else { x.dtype }, x.shape.clone()));
    }
    Ok(out)
}

fn batch_norm(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let ch = x.shape.get(1).copied().unwrap_or(1);
    let mut out = vec![x.ty()];
    // running mean and variance (training mode), or mean, var, saved mean, saved var
    for i in 1..c.n_out() {
        let dtype = c.opt(3 + (i - 1) % 2).map_or(x.dtype, |s| s.dtype);
        out.push((dtype, vec![ch]));
    }
    Ok(out)
}

/// `LayerNormalization` (and onnxruntime's `SimplifiedLayerNormalization`): the
/// output like the input, statistics of `stash_type` with the dimensions from
/// `axis` on set to 1.
pub(super) fn layer_norm(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let a = axis(c.int("axis", -1), x.rank())?;
    let mut stats = x.shape.clone();
    stats[a..].iter_mut().for_each(|d| *d = 1);
    let stash = i32::try_from(c.int("stash_type", FLOAT.into()))
        .map_err(|_| "stash_type is out of range")?;
    let mut out = vec![x.ty()];
    out.extend(std::iter::repeat_n(
        (stash, stats),
        c.n_out().saturating_sub(1),
    ));
    Ok(out)
}
