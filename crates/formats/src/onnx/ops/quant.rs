//! Quantisation: `QuantizeLinear`, `DequantizeLinear`, `DynamicQuantizeLinear`, the
//! `QLinear*` ops, integer products, and the `com.microsoft` quantised ops that
//! onnxruntime's quantisation tools write (`QLinearAdd`, `QGemm`, `MatMulNBits` ...).
//!
//! Quantised ops take `(tensor, scale, zero point)` triples, so their tensors sit
//! at inputs 0 and 3 (`QLinearConv`'s weight, `QLinearMatMul`'s `b`) and the
//! output's type is that of its zero point.

use super::nn::{conv_shape, gemm_shape, matmul_shape, pool_shape};
use super::{Ctx, Registry, MS, ONNX};
use crate::onnx::dtype::{FLOAT, INT32, UINT8};
use crate::onnx::shape::{add, axes, axis, broadcast, to_nchw, to_nhwc, Out};

const UINT16: i32 = 4;
const UINT32: i32 = 12;

pub fn register(r: &mut Registry) {
    for d in [ONNX, MS] {
        r.add(d, &["QuantizeLinear"], quantize);
        r.add(d, &["DequantizeLinear"], dequantize);
        r.add(d, &["QLinearConv"], qlinear_conv);
    }
    r.add(ONNX, &["DynamicQuantizeLinear"], dynamic_quantize);
    r.add(ONNX, &["QLinearMatMul"], qlinear_matmul);
    r.add(ONNX, &["MatMulInteger"], matmul_integer);
    r.add(MS, &["QLinearAdd", "QLinearMul"], qlinear_binary);
    r.add(
        MS,
        &["QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"],
        qlinear_unary,
    );
    r.add(MS, &["QLinearGlobalAveragePool"], qlinear_global_pool);
    r.add(MS, &["QLinearAveragePool", "NhwcMaxPool"], qlinear_pool);
    r.add(MS, &["QLinearConcat"], qlinear_concat);
    r.add(MS, &["QLinearWhere"], qlinear_where);
    r.add(
        MS,
        &["QLinearReduceMean", "ReduceSumInteger"],
        reduce_integer,
    );
    r.add(MS, &["QGemm"], qgemm);
    r.add(MS, &["QAttention"], qattention);
    r.add(MS, &["QEmbedLayerNormalization"], qembed_layer_norm);
    r.add(
        MS,
        &["DynamicQuantizeMatMul", "MatMulIntegerToFloat"],
        matmul_to_float,
    );
    r.add(MS, &["MatMulInteger16"], matmul_integer16);
    r.add(MS, &["MulInteger"], mul_integer);
    r.add(MS, &["MatMulNBits", "MatMulBnb4"], matmul_nbits);
    r.add(MS, &["MatMulFpQ4"], matmul_fpq4);
}

/// The element type of input `i` when present and known, else `default`.
fn dtype_of(c: &Ctx, i: usize, default: i32) -> i32 {
    c.opt(i)
        .map(|x| x.dtype)
        .filter(|&d| d != 0)
        .unwrap_or(default)
}

/// The `output_dtype` attribute when set.
fn output_dtype(c: &Ctx) -> Result<Option<i32>, String> {
    let d = c.int("output_dtype", 0);
    let d = i32::try_from(d).map_err(|_| format!("output_dtype {d} is out of range"))?;
    Ok((d != 0).then_some(d))
}

/// Output type: the zero point's (input 2), else `output_dtype` (opset 21),
/// else uint8.
fn quantize(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = match c.opt(2).map(|z| z.dtype).filter(|&d| d != 0) {
        Some(d) => d,
        None => output_dtype(c)?.unwrap_or(UINT8),
    };
    Ok(vec![(dtype, x.shape.clone())])
}

/// Output type: `output_dtype` (opset 23), else the scale's (input 1).
fn dequantize(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = match output_dtype(c)? {
        Some(d) => d,
        None => dtype_of(c, 1, FLOAT),
    };
    Ok(vec![(dtype, x.shape.clone())])
}

/// `y` (uint8, the input's shape), `y_scale` (float scalar), `y_zero_point` (uint8 scalar).
fn dynamic_quantize(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut out = vec![(UINT8, x.shape.clone()), (FLOAT, vec![]), (UINT8, vec![])];
    out.truncate(c.n_out());
    Ok(out)
}

/// `x` (input 0) by the weight `w` (input 3); `channels_last` (onnxruntime)
/// takes and gives NHWC while the weight stays `[M, C/group, k...]`.
fn qlinear_conv(c: &Ctx) -> Result<Out, String> {
    let (x, w) = (c.x(0)?, c.x(3)?);
    let shape = if c.int("channels_last", 0) != 0 {
        to_nhwc(&conv_shape(c, &to_nchw(&x.shape)?, &w.shape)?)?
    } else {
        conv_shape(c, &x.shape, &w.shape)?
    };
    Ok(vec![(dtype_of(c, 7, x.dtype), shape)])
}

/// `a` (input 0) by `b` (input 3), typed as `y_zero_point` (input 7).
fn qlinear_matmul(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(3)?);
    Ok(vec![(
        dtype_of(c, 7, a.dtype),
        matmul_shape(&a.shape, &b.shape)?,
    )])
}

fn matmul_integer(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(INT32, matmul_shape(&c.x(0)?.shape, &c.x(1)?.shape)?)])
}

/// `QLinearAdd`, `QLinearMul`: `A` (input 0) and `B` (input 3) broadcast.
fn qlinear_binary(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(3)?);
    Ok(vec![(a.dtype, broadcast(&[&a.shape, &b.shape])?)])
}

fn qlinear_unary(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    if c.node.op_type == "QLinearSoftmax" {
        axis(c.int("axis", -1), x.rank())?;
    }
    Ok(vec![x.ty()])
}

/// `N, C, 1...` (or `N, 1..., C` with `channels_last`).
fn qlinear_global_pool(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let r = x.rank();
    if r < 2 {
        return Err(format!("the input has rank {r}, below 2"));
    }
    let spatial = if c.int("channels_last", 0) != 0 {
        1..r - 1
    } else {
        2..r
    };
    let mut shape = x.shape.clone();
    shape[spatial].iter_mut().for_each(|d| *d = 1);
    Ok(vec![(x.dtype, shape)])
}

/// `QLinearAveragePool` (`channels_last` for NHWC) and `NhwcMaxPool`.
fn qlinear_pool(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let shape = if c.node.op_type == "NhwcMaxPool" || c.int("channels_last", 0) != 0 {
        to_nhwc(&pool_shape(c, &to_nchw(&x.shape)?, None)?)?
    } else {
        pool_shape(c, &x.shape, None)?
    };
    Ok(vec![(x.dtype, shape)])
}

/// Inputs `y_scale`, `y_zero_point`, then `(x, scale, zero point)` triples.
fn qlinear_concat(c: &Ctx) -> Result<Out, String> {
    let parts = (2..c.inputs.len())
        .step_by(3)
        .map(|i| c.x(i))
        .collect::<Result<Vec<_>, _>>()?;
    let first = parts.first().ok_or("no tensors to concatenate")?;
    let a = c
        .attr("axis")
        .and_then(|a| a.i)
        .ok_or("no axis attribute")?;
    let a = axis(a, first.rank())?;
    let mut shape = first.shape.clone();
    shape[a] = 0;
    for p in &parts {
        if p.rank() != shape.len() {
            return Err("the inputs differ in rank".into());
        }
        for (k, (&d, o)) in p.shape.iter().zip(shape.iter_mut()).enumerate() {
            if k == a {
                *o = add(*o, d)?;
            } else if d != *o {
                return Err(format!(
                    "shapes {:?} and {:?} do not concatenate",
                    first.shape, p.shape
                ));
            }
        }
    }
    Ok(vec![(dtype_of(c, 1, first.dtype), shape)])
}

/// `condition` (input 0), `X` (input 1) and `Y` (input 4) broadcast.
fn qlinear_where(c: &Ctx) -> Result<Out, String> {
    let (cond, x, y) = (c.x(0)?, c.x(1)?, c.x(4)?);
    Ok(vec![(
        x.dtype,
        broadcast(&[&cond.shape, &x.shape, &y.shape])?,
    )])
}

/// `QLinearReduceMean` (the input's type) and `ReduceSumInteger` (32-bit):
/// `axes` attribute (all when absent), `keepdims` default 1.
fn reduce_integer(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let which = match c.ints("axes") {
        Some(list) if !list.is_empty() => axes(list, x.rank())?,
        _ => (0..x.rank()).collect(),
    };
    let keep = c.int("keepdims", 1) != 0;
    let shape = x
        .shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| {
            if which.contains(&i) {
                keep.then_some(1)
            } else {
                Some(d)
            }
        })
        .collect();
    let dtype = match (c.node.op_type.as_str(), x.dtype) {
        ("ReduceSumInteger", UINT8) => UINT32,
        ("ReduceSumInteger", _) => INT32,
        _ => x.dtype,
    };
    Ok(vec![(dtype, shape)])
}

/// `A` (input 0) by `B` (input 3); inputs 7 and 8 are `y_scale` and
/// `y_zero_point`: without them the output is float.
fn qgemm(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(3)?);
    let dtype = match (c.opt(7), c.opt(8)) {
        (_, Some(z)) if z.dtype != 0 => z.dtype,
        (Some(_), _) => a.dtype,
        _ => FLOAT,
    };
    Ok(vec![(dtype, gemm_shape(c, &a.shape, &b.shape)?)])
}

/// `Attention` over quantised inputs: the past is input 8, the output takes the
/// bias's (float) type.
fn qattention(c: &Ctx) -> Result<Out, String> {
    super::microsoft::attention(c, 8)
}

fn qembed_layer_norm(c: &Ctx) -> Result<Out, String> {
    super::microsoft::embed_layer_norm_as(c, FLOAT)
}

/// `DynamicQuantizeMatMul` (A's float type) and `MatMulIntegerToFloat` (the
/// type of `a_scale`, input 2).
fn matmul_to_float(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(1)?);
    let dtype = if c.node.op_type == "MatMulIntegerToFloat" {
        dtype_of(c, 2, FLOAT)
    } else {
        a.dtype
    };
    Ok(vec![(dtype, matmul_shape(&a.shape, &b.shape)?)])
}

/// uint32 when both operands are uint16, int32 otherwise.
fn matmul_integer16(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(1)?);
    let dtype = if a.dtype == UINT16 && b.dtype == UINT16 {
        UINT32
    } else {
        INT32
    };
    Ok(vec![(dtype, matmul_shape(&a.shape, &b.shape)?)])
}

/// `A` (input 0) times `B` (input 2), int32.
fn mul_integer(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(2)?);
    Ok(vec![(INT32, broadcast(&[&a.shape, &b.shape])?)])
}

/// `A [..., K]` by a packed weight of `N` columns (attributes `K` and `N`):
/// `[..., N]`; `MatMulBnb4` with `transB` 0 gives `[..., K]`.
fn matmul_nbits(c: &Ctx) -> Result<Out, String> {
    let a = c.x(0)?;
    let trans_b = c.node.op_type != "MatMulBnb4" || c.int("transB", 1) != 0;
    let name = if trans_b { "N" } else { "K" };
    let cols = c.int(name, 0);
    if cols <= 0 {
        return Err(format!("no positive `{name}` attribute"));
    }
    let (_, batch) = a.shape.split_last().ok_or("A is a scalar")?;
    let mut shape = batch.to_vec();
    shape.push(cols);
    Ok(vec![(a.dtype, shape)])
}

/// `A` by a packed blob whose shape is the constant input 2.
fn matmul_fpq4(c: &Ctx) -> Result<Out, String> {
    let a = c.x(0)?;
    let b_shape = c.values(2, "B_shape")?;
    Ok(vec![(a.dtype, matmul_shape(&a.shape, &b_shape)?)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::dtype::INT8;
    use crate::onnx::ops::testing::*;

    #[test]
    fn qlinear_conv_reads_the_weight_at_input_3() {
        let n = node(
            "QLinearConv",
            vec![ints("pads", &[1, 1, 1, 1]), ints("strides", &[2, 2])],
            1,
        );
        let s = typed(FLOAT, &[]);
        let ins = [
            typed(UINT8, &[1, 3, 224, 224]),
            s.clone(),
            typed(UINT8, &[]),
            typed(INT8, &[16, 3, 3, 3]),
            s.clone(),
            typed(INT8, &[]),
            s,
            typed(INT8, &[]),
        ];
        assert_eq!(
            run(qlinear_conv, &n, 21, &ins).unwrap(),
            vec![(INT8, vec![1, 16, 112, 112])]
        );
        // channels last: NHWC in and out, the weight unchanged
        let n = node("QLinearConv", vec![int("channels_last", 1)], 1);
        let mut ins = ins;
        ins[0] = typed(UINT8, &[1, 8, 8, 3]);
        assert_eq!(
            run(qlinear_conv, &n, 21, &ins).unwrap()[0].1,
            vec![1, 6, 6, 16]
        );
    }

    #[test]
    fn quantize_types_follow_the_zero_point() {
        let n = node("QuantizeLinear", vec![], 1);
        let x = typed(FLOAT, &[2, 3]);
        assert_eq!(
            run(quantize, &n, 21, &[x.clone(), typed(FLOAT, &[])]).unwrap()[0].0,
            UINT8
        );
        assert_eq!(
            run(
                quantize,
                &n,
                21,
                &[x.clone(), typed(FLOAT, &[]), typed(INT8, &[])]
            )
            .unwrap()[0]
                .0,
            INT8
        );
        let n = node("QuantizeLinear", vec![int("output_dtype", 22)], 1);
        assert_eq!(
            run(quantize, &n, 21, &[x.clone(), typed(FLOAT, &[])]).unwrap()[0].0,
            22
        );
        let n = node("DequantizeLinear", vec![], 1);
        assert_eq!(
            run(dequantize, &n, 21, &[typed(INT8, &[4]), typed(10, &[])]).unwrap()[0],
            (10, vec![4])
        );
    }

    #[test]
    fn microsoft_quantized_ops() {
        // QLinearConcat: scale, zero point, then triples
        let n = node("QLinearConcat", vec![int("axis", 1)], 1);
        let (s, z) = (typed(FLOAT, &[]), typed(UINT8, &[]));
        let ins = [
            s.clone(),
            z.clone(),
            typed(UINT8, &[1, 2, 4]),
            s.clone(),
            z.clone(),
            typed(UINT8, &[1, 3, 4]),
            s,
            z,
        ];
        assert_eq!(
            run(qlinear_concat, &n, 21, &ins).unwrap(),
            vec![(UINT8, vec![1, 5, 4])]
        );
        // QGemm: float without y_scale / y_zero_point
        let n = node("QGemm", vec![int("transB", 1)], 1);
        let ins = [typed(UINT8, &[1, 64]), None, None, typed(INT8, &[10, 64])];
        assert_eq!(
            run(qgemm, &n, 21, &ins).unwrap(),
            vec![(FLOAT, vec![1, 10])]
        );
        // global pool, channels last
        let n = node("QLinearGlobalAveragePool", vec![int("channels_last", 1)], 1);
        assert_eq!(
            run(qlinear_global_pool, &n, 21, &[typed(UINT8, &[1, 7, 7, 32])]).unwrap()[0].1,
            vec![1, 1, 1, 32]
        );
        let n = node("MatMulNBits", vec![int("K", 64), int("N", 96)], 1);
        assert_eq!(
            run(matmul_nbits, &n, 21, &[typed(10, &[1, 5, 64])]).unwrap(),
            vec![(10, vec![1, 5, 96])]
        );
        assert!(run(
            matmul_nbits,
            &node("MatMulNBits", vec![], 1),
            21,
            &[typed(10, &[1, 5, 64])]
        )
        .is_err());
    }
}
