//! onnxruntime's transformer fusions (`com.microsoft`): attention
//! (`Attention`, `MultiHeadAttention`, `GroupQueryAttention`), the fused
//! normalisations and embedding, GELU variants, and fused convolutions and products.
//!
//! Why over 500 lines: the family's handlers are 400; the rest are their tests.

use super::elementwise;
use super::nn::{conv_shape, gemm_shape, matmul_shape};
use super::{Ctx, Registry, MS, ONNX};
use crate::onnx::dtype::{BOOL, FLOAT, INT32};
use crate::onnx::shape::{add, mul, to_nchw, to_nhwc, Out};

/// Ops whose every output is the first input's type.
const SAME: &[&str] = &[
    "BiasGelu",
    "FastGelu",
    "QuickGelu",
    "Gelu",
    "BiasAdd",
    "Inverse",
    "Trilu",
    "RotaryEmbedding",
    "MRotaryEmbedding",
    "BiasSoftmax",
    "GroupNorm",
    "SkipGroupNorm",
];

pub fn register(r: &mut Registry) {
    r.add(MS, SAME, |c| c.same());
    r.add(MS, &["Attention"], |c| attention(c, 4));
    r.add(MS, &["MultiHeadAttention"], multi_head_attention);
    r.add(MS, &["GroupQueryAttention"], group_query_attention);
    r.add(
        MS,
        &["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"],
        skip_layer_norm,
    );
    r.add(
        MS,
        &["LayerNormalization", "SimplifiedLayerNormalization"],
        elementwise::layer_norm,
    );
    r.add(
        ONNX,
        &["SimplifiedLayerNormalization"],
        elementwise::layer_norm,
    );
    r.add(MS, &["EmbedLayerNormalization"], embed_layer_norm);
    r.add(
        MS,
        &["FusedMatMul", "TransposeMatMul", "FusedMatMulActivation"],
        fused_matmul,
    );
    r.add(MS, &["GemmFastGelu"], gemm_fast_gelu);
    r.add(MS, &["FusedConv"], fused_conv);
    r.add(MS, &["NhwcConv", "NhwcFusedConv"], nhwc_conv);
    r.add(MS, &["FusedGemm"], fused_gemm);
    r.add(MS, &["BiasSplitGelu"], bias_split_gelu);
    r.add(MS, &["BiasDropout"], bias_dropout);
    r.add(MS, &["GemmaRotaryEmbedding"], gemma_rotary);
    r.add(MS, &["RelativePositionBias"], relative_position_bias);
}

/// A required positive integer attribute.
fn positive(c: &Ctx, name: &str) -> Result<i64, String> {
    let v = c.int(name, 0);
    if v <= 0 {
        return Err(format!("no positive `{name}` attribute"));
    }
    Ok(v)
}

/// `n / by` when it divides evenly.
fn exact_div(n: i64, by: i64, what: &str) -> Result<i64, String> {
    if by <= 0 || n % by != 0 {
        return Err(format!("{what} {n} does not divide by {by}"));
    }
    Ok(n / by)
}

/// `input [batch, seq, input_hidden]` projected by merged Q/K/V weights:
/// `[batch, seq, v_hidden]`, and `present` `[2, batch, heads, past + seq, head]`
/// (or the past's shape when they share a buffer). `past_at` is the past's input.
pub fn attention(c: &Ctx, past_at: usize) -> Result<Out, String> {
    let x = c.x(0)?;
    let &[batch, seq, _] = x.shape.as_slice() else {
        return Err(format!("the input has rank {}, not 3", x.rank()));
    };
    let (hidden, v_hidden) = match c.ints("qkv_hidden_sizes") {
        Some(&[q, _, v]) => (q, v),
        Some(s) if !s.is_empty() => return Err("qkv_hidden_sizes must have 3 values".into()),
        _ => {
            let total = match (c.opt(2), c.opt(1)) {
                (Some(b), _) if b.rank() == 1 => b.shape[0],
                (_, Some(w)) if w.rank() == 2 => w.shape[1],
                _ => return Err("neither a bias nor weights give the hidden size".into()),
            };
            let h = exact_div(total, 3, "the merged Q/K/V width")?;
            (h, h)
        }
    };
    // the bias has the float type when the input is quantised (QAttention)
    let dtype = c.opt(2).map_or(x.dtype, |b| b.dtype);
    let mut out = vec![(dtype, vec![batch, seq, v_hidden])];
    if c.n_out() > 1 {
        let present = match c.opt(past_at) {
            Some(p) if c.int("past_present_share_buffer", 0) != 0 => p.shape.clone(),
            Some(p) => match p.shape.as_slice() {
                &[two, b, h, past, head] => vec![two, b, h, add(past, seq)?, head],
                _ => return Err("the past must have rank 5".into()),
            },
            None => {
                let heads = positive(c, "num_heads")?;
                vec![
                    2,
                    batch,
                    heads,
                    seq,
                    exact_div(hidden, heads, "the hidden size")?,
                ]
            }
        };
        out.push((dtype, present));
    }
    Ok(out)
}

/// The sequence length and head size of the key (`which` 0) or value (1)
/// of `MultiHeadAttention`, from packed QKV, packed KV, `[B, S, hidden]` or
/// `[B, heads, S, head]`.
fn mha_kv(c: &Ctx, which: usize, heads: i64) -> Result<(i64, i64), String> {
    let q = c.x(0)?;
    if let &[_, s, _, _, head] = q.shape.as_slice() {
        return Ok((s, head));
    }
    let key = c.opt(1);
    let cur = if which == 0 { key } else { c.opt(2) };
    match (
        cur.map(|t| t.shape.as_slice()),
        key.map(|k| k.shape.as_slice()),
    ) {
        (Some(&[_, s, hidden]), _) => Ok((s, exact_div(hidden, heads, "the key or value width")?)),
        (Some(&[_, _, s, head]), _) => Ok((s, head)),
        (_, Some(&[_, s, _, _, head])) => Ok((s, head)),
        _ => Err("the key and value shapes are not known".into()),
    }
}

/// Output `[batch, seq, v_hidden]`; `present_key`/`present_value`
/// `[batch, heads, past + kv_seq, head]` (the past's shape when buffers are
/// shared, `past_sequence_length` given); `qk` `[batch, heads, seq, total]`.
fn multi_head_attention(c: &Ctx) -> Result<Out, String> {
    let q = c.x(0)?;
    let (batch, seq) = match q.shape.as_slice() {
        &[b, s, _] | &[b, s, _, _, _] => (b, s),
        _ => return Err(format!("the query has rank {}, not 3 or 5", q.rank())),
    };
    let v_hidden = match (q.shape.as_slice(), c.opt(2).map(|v| v.shape.as_slice())) {
        (&[_, _, h, _, head], _) => mul(h, head)?,
        (_, Some(&[_, _, v])) => v,
        (_, Some(&[_, h, _, head])) => mul(h, head)?,
        (&[_, _, hidden], _) => hidden,
        _ => return Err("the value shape is not known".into()),
    };
    let mut out = vec![(q.dtype, vec![batch, seq, v_hidden])];
    if c.n_out() == 1 {
        return Ok(out);
    }
    let heads = positive(c, "num_heads")?;
    let shared = c.opt(8).is_some();
    let mut total = 0;
    for which in 0..2 {
        let past = c.opt(6 + which);
        let shape = match past {
            Some(p) if shared => p.shape.clone(),
            _ => {
                let (s, head) = mha_kv(c, which, heads)?;
                let past_len = match past.map(|p| p.shape.as_slice()) {
                    Some(&[_, _, l, _]) => l,
                    Some(_) => return Err("the past key or value must have rank 4".into()),
                    None => 0,
                };
                vec![batch, heads, add(past_len, s)?, head]
            }
        };
        if which == 0 {
            total = shape.get(2).copied().unwrap_or(0);
        }
        out.push((q.dtype, shape));
    }
    out.push((q.dtype, vec![batch, heads, seq, total]));
    out.truncate(c.n_out());
    Ok(out)
}

/// Output `[batch, seq, heads * head]` (`query` may pack Q, K and V);
/// `present_key`/`present_value` `[batch, kv_heads, length, head]`, where the
/// length is the larger of the past's and a constant `total_sequence_length`,
/// else past + new tokens; the past's own shape with `sliding_window_cache`.
fn group_query_attention(c: &Ctx) -> Result<Out, String> {
    let q = c.x(0)?;
    let &[batch, seq, width] = q.shape.as_slice() else {
        return Err(format!("the query has rank {}, not 3", q.rank()));
    };
    let heads = positive(c, "num_heads")?;
    let kv_heads = positive(c, "kv_num_heads")?;
    let value = c.opt(2);
    let head = match value {
        Some(_) => exact_div(width, heads, "the query width")?,
        None => exact_div(
            width,
            add(heads, mul(2, kv_heads)?)?,
            "the packed QKV width",
        )?,
    };
    let mut out = vec![(q.dtype, vec![batch, seq, mul(heads, head)?])];
    let kv_seq = match value.map(|v| v.shape.as_slice()) {
        Some(&[_, s, _]) => s,
        _ => seq,
    };
    let total = c
        .opt(6)
        .and_then(|t| t.ints())
        .and_then(|v| v.first().copied())
        .filter(|&t| t > 0);
    let mut length = 0;
    for which in 0..2 {
        if c.n_out() <= 1 + which {
            break;
        }
        let ty = match c.opt(3 + which) {
            Some(p) => {
                let &[b, h, past, d] = p.shape.as_slice() else {
                    return Err("the past key or value must have rank 4".into());
                };
                let len = if c.int("sliding_window_cache", 0) == 1 {
                    past
                } else {
                    match total {
                        Some(t) => t.max(past),
                        None => add(past, kv_seq)?,
                    }
                };
                (p.dtype, vec![b, h, len, d])
            }
            None => (
                q.dtype,
                vec![batch, kv_heads, total.unwrap_or(kv_seq), head],
            ),
        };
        if which == 0 {
            length = ty.1[2];
        }
        out.push(ty);
    }
    if c.n_out() > 3 {
        out.push((q.dtype, vec![batch, heads, seq, total.unwrap_or(length)]));
    }
    Ok(out)
}

/// `output` and `input_skip_bias_sum` are the input's; `mean` and
/// `inv_std_var` are float with the last dimension 1.
fn skip_layer_norm(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut stats = x.shape.clone();
    if let Some(last) = stats.last_mut() {
        *last = 1;
    }
    let out = (0..c.n_out())
        .map(|i| match i {
            1 | 2 => (FLOAT, stats.clone()),
            _ => x.ty(),
        })
        .collect();
    Ok(out)
}

/// `output [batch, seq, hidden]` (hidden from the word embedding, input 2),
/// `mask_index [batch]` (the ids' int32), `embedding_sum` like the output.
pub fn embed_layer_norm_as(c: &Ctx, dtype: i32) -> Result<Out, String> {
    let ids = c.x(0)?;
    let &[batch, seq] = ids.shape.as_slice() else {
        return Err(format!("input_ids has rank {}, not 2", ids.rank()));
    };
    let words = c.x(2)?;
    let &[_, hidden] = words.shape.as_slice() else {
        return Err(format!(
            "the word embedding has rank {}, not 2",
            words.rank()
        ));
    };
    let mask = if ids.dtype == 0 { INT32 } else { ids.dtype };
    let out = (0..c.n_out())
        .map(|i| match i {
            1 => (mask, vec![batch]),
            _ => (dtype, vec![batch, seq, hidden]),
        })
        .collect();
    Ok(out)
}

fn embed_layer_norm(c: &Ctx) -> Result<Out, String> {
    embed_layer_norm_as(c, c.x(2)?.dtype)
}

/// An operand of `FusedMatMul` as `matmul` sees it: `trans` swaps the last two
/// axes, `trans_batch` moves the first axis to just before the last.
fn fused_operand(shape: &[i64], trans: bool, trans_batch: bool) -> Vec<i64> {
    let r = shape.len();
    if r < 2 {
        return shape.to_vec();
    }
    let (batch, row, col) = if trans_batch {
        (&shape[1..r - 1], shape[0], shape[r - 1])
    } else {
        (&shape[..r - 2], shape[r - 2], shape[r - 1])
    };
    let mut out = batch.to_vec();
    if trans {
        out.extend([col, row]);
    } else {
        out.extend([row, col]);
    }
    out
}

/// `FusedMatMul` (`transA`, `transB`, `transBatchA`, `transBatchB`),
/// `TransposeMatMul`.
fn fused_matmul(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(1)?);
    let flag = |name| c.int(name, 0) != 0;
    let a2 = fused_operand(&a.shape, flag("transA"), flag("transBatchA"));
    let b2 = fused_operand(&b.shape, flag("transB"), flag("transBatchB"));
    Ok(vec![(a.dtype, matmul_shape(&a2, &b2)?)])
}

fn gemm_fast_gelu(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    Ok(vec![(x.dtype, matmul_shape(&x.shape, &c.x(1)?.shape)?)])
}

fn fused_conv(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    Ok(vec![(x.dtype, conv_shape(c, &x.shape, &c.x(1)?.shape)?)])
}

/// NHWC input and output; the weight is `[M, k..., C/group]` as onnxruntime's
/// fusion writes it.
fn nhwc_conv(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let w = to_nchw(&c.x(1)?.shape)?;
    Ok(vec![(
        x.dtype,
        to_nhwc(&conv_shape(c, &to_nchw(&x.shape)?, &w)?)?,
    )])
}

fn fused_gemm(c: &Ctx) -> Result<Out, String> {
    let a = c.x(0)?;
    Ok(vec![(a.dtype, gemm_shape(c, &a.shape, &c.x(1)?.shape)?)])
}

/// `[N, S, D]` to `[N, S, D/2]`.
fn bias_split_gelu(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut shape = x.shape.clone();
    let last = shape.last_mut().ok_or("the input is a scalar")?;
    *last = exact_div(*last, 2, "the hidden size")?;
    Ok(vec![(x.dtype, shape)])
}

/// The output and a boolean mask, both the input's shape.
fn bias_dropout(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut out = vec![x.ty(), (BOOL, x.shape.clone())];
    out.truncate(c.n_out());
    Ok(out)
}

/// The embedded `q` (input 1) and `k` (input 3).
fn gemma_rotary(c: &Ctx) -> Result<Out, String> {
    let mut out = vec![c.x(1)?.ty(), c.x(3)?.ty()];
    out.truncate(c.n_out());
    Ok(out)
}

/// `[1, heads, query_length, key_length]`; heads are the bias table's columns.
fn relative_position_bias(c: &Ctx) -> Result<Out, String> {
    let table = c.x(0)?;
    let &[_, heads] = table.shape.as_slice() else {
        return Err("the bias table must have rank 2".into());
    };
    let length = |i, what| -> Result<i64, String> {
        c.values(i, what)?
            .first()
            .copied()
            .ok_or_else(|| format!("{what} is empty"))
    };
    let (q, k) = (length(1, "query_length")?, length(2, "key_length")?);
    Ok(vec![(table.dtype, vec![1, heads, q, k])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::dtype::FLOAT16;
    use crate::onnx::ops::testing::*;
    use crate::onnx::shape::{Data, Info};

    #[test]
    fn attention_output_and_present() {
        let n = node("Attention", vec![int("num_heads", 12)], 2);
        let ins = [t(&[2, 128, 768]), t(&[768, 2304]), t(&[2304])];
        let out = run(|c| attention(c, 4), &n, 1, &ins).unwrap();
        assert_eq!(out[0].1, vec![2, 128, 768]);
        assert_eq!(out[1].1, vec![2, 2, 12, 128, 64]);
        let ins = [
            t(&[2, 1, 768]),
            t(&[768, 2304]),
            t(&[2304]),
            None,
            t(&[2, 2, 12, 9, 64]),
        ];
        assert_eq!(
            run(|c| attention(c, 4), &n, 1, &ins).unwrap()[1].1,
            vec![2, 2, 12, 10, 64]
        );
    }

    #[test]
    fn group_query_attention_with_and_without_past() {
        let n = node(
            "GroupQueryAttention",
            vec![int("num_heads", 8), int("kv_num_heads", 2)],
            3,
        );
        // packed QKV: (8 + 2 * 2) * 16 = 192
        let mut ins = vec![t(&[1, 5, 192]), None, None, None, None, t(&[1]), None];
        let out = run(group_query_attention, &n, 1, &ins).unwrap();
        assert_eq!(out[0].1, vec![1, 5, 128]);
        assert_eq!(out[1].1, vec![1, 2, 5, 16]);
        ins[3] = t(&[1, 2, 7, 16]);
        ins[4] = t(&[1, 2, 7, 16]);
        assert_eq!(
            run(group_query_attention, &n, 1, &ins).unwrap()[2].1,
            vec![1, 2, 12, 16]
        );
        let mut total = Info::new(INT32, vec![]);
        total.data = Some(Data::Int(vec![64]));
        ins[6] = Some(total);
        assert_eq!(
            run(group_query_attention, &n, 1, &ins).unwrap()[1].1,
            vec![1, 2, 64, 16]
        );
    }

    #[test]
    fn fused_matmul_transposes_batches() {
        let n = node("FusedMatMul", vec![int("transB", 1)], 1);
        let out = run(fused_matmul, &n, 1, &[t(&[2, 3, 4]), t(&[2, 5, 4])]).unwrap();
        assert_eq!(out[0].1, vec![2, 3, 5]);
        // transBatchA: [M, batch, K] reads as [batch, M, K]
        let n = node("FusedMatMul", vec![int("transBatchA", 1)], 1);
        let out = run(fused_matmul, &n, 1, &[t(&[3, 2, 4]), t(&[2, 4, 5])]).unwrap();
        assert_eq!(out[0].1, vec![2, 3, 5]);
    }

    #[test]
    fn normalisations_and_embeddings() {
        let n = node("SkipLayerNormalization", vec![], 4);
        let x = Some(Info::new(FLOAT16, vec![1, 8, 32]));
        let out = run(skip_layer_norm, &n, 1, &[x.clone(), x.clone(), t(&[32])]).unwrap();
        assert_eq!(out[1], (FLOAT, vec![1, 8, 1]));
        assert_eq!(out[3], (FLOAT16, vec![1, 8, 32]));
        let n = node("EmbedLayerNormalization", vec![], 2);
        let ids = Some(Info::new(INT32, vec![2, 16]));
        let out = run(embed_layer_norm, &n, 1, &[ids.clone(), ids, t(&[100, 32])]).unwrap();
        assert_eq!(out, vec![(FLOAT, vec![2, 16, 32]), (INT32, vec![2])]);
        let n = node("NhwcConv", vec![], 1);
        let out = run(nhwc_conv, &n, 1, &[t(&[1, 10, 10, 3]), t(&[8, 3, 3, 3])]).unwrap();
        assert_eq!(out[0].1, vec![1, 8, 8, 8]);
    }
}
