//! Convolutions, pooling, matrix products, resizing and other windows over images.

use super::{Ctx, Registry, ONNX};
use crate::onnx::dtype::INT64;
use crate::onnx::shape::{add, axes, broadcast, mul, Out};

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["Conv", "ConvInteger", "DeformConv"], conv);
    r.add(ONNX, &["ConvTranspose"], conv_transpose);
    r.add(ONNX, &["MaxPool", "AveragePool", "LpPool"], pooling);
    r.add(
        ONNX,
        &["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"],
        global_pool,
    );
    r.add(ONNX, &["Gemm"], gemm);
    r.add(ONNX, &["MatMul"], matmul);
    r.add(ONNX, &["Resize", "Upsample"], resize);
    r.add(ONNX, &["Attention"], attention);
}

/// One spatial output size of a convolution or pooling window.
pub fn window(
    input: i64,
    k: i64,
    stride: i64,
    dil: i64,
    pads: (i64, i64),
    auto: &str,
    ceil: bool,
) -> Result<i64, String> {
    if stride <= 0 || dil <= 0 || k <= 0 {
        return Err(format!(
            "kernel {k}, stride {stride} and dilation {dil} must be positive"
        ));
    }
    let eff = mul(k - 1, dil)?
        .checked_add(1)
        .ok_or("a dimension overflows")?;
    // a window that overhangs the input counts as onnx's shape inference and
    // onnxruntime count it: the division truncates (or rounds up in ceil mode,
    // the same below 0), so a window of 2 with stride 2 over 1 element gives 1
    let div = |num: i64| {
        if ceil && num > 0 {
            num / stride + i64::from(num % stride != 0)
        } else {
            num / stride
        }
    };
    let out = match auto {
        "SAME_UPPER" | "SAME_LOWER" => {
            input.div_euclid(stride) + i64::from(input.rem_euclid(stride) != 0)
        }
        "VALID" => div(input - eff) + 1,
        _ => {
            let padded = input.saturating_add(pads.0).saturating_add(pads.1);
            let mut out = div(padded - eff) + 1;
            // ceil mode: the last window must start inside the input or left padding
            if ceil && out > 0 && (out - 1).saturating_mul(stride) >= input.saturating_add(pads.0) {
                out -= 1;
            }
            out
        }
    };
    if out < 0 {
        return Err(format!(
            "the window of {eff} does not fit the input of {input}"
        ));
    }
    Ok(out)
}

/// `[N, C, spatial...]` of a pooling over `x` with `kernel`.
pub fn pool_shape(c: &Ctx, x: &[i64], kernel: Option<&[i64]>) -> Result<Vec<i64>, String> {
    windows(c, x, kernel, false)
}

/// `[N, C, spatial...]` of a convolution or pooling over `x` with `kernel`; with
/// `must_fit`, a window wider than the padded input is an error (a
/// convolution's, which onnxruntime refuses, where a pool's gives 1).
fn windows(c: &Ctx, x: &[i64], kernel: Option<&[i64]>, must_fit: bool) -> Result<Vec<i64>, String> {
    let kernel = kernel.or(c.ints("kernel_shape")).ok_or("no kernel_shape")?;
    let k = kernel.len();
    if x.len() != k + 2 {
        return Err(format!(
            "a kernel of rank {k} over an input of rank {}",
            x.len()
        ));
    }
    let ones = vec![1i64; k];
    let zeros = vec![0i64; 2 * k];
    let strides = c.ints("strides").unwrap_or(&ones);
    let dilations = c.ints("dilations").unwrap_or(&ones);
    let pads = c.ints("pads").unwrap_or(&zeros);
    if strides.len() != k || dilations.len() != k || pads.len() != 2 * k {
        return Err("strides, dilations or pads do not match the kernel".into());
    }
    let auto = c.string("auto_pad").unwrap_or_default();
    let ceil = c.int("ceil_mode", 0) != 0;
    let mut out = x[..2].to_vec();
    for i in 0..k {
        if must_fit && !matches!(auto.as_str(), "SAME_UPPER" | "SAME_LOWER") {
            let padded = match auto.as_str() {
                "VALID" => x[i + 2],
                _ => x[i + 2].saturating_add(pads[i]).saturating_add(pads[i + k]),
            };
            let eff = (kernel[i] - 1)
                .saturating_mul(dilations[i])
                .saturating_add(1);
            if padded < eff {
                return Err(format!(
                    "the window of {eff} does not fit the input of {padded}"
                ));
            }
        }
        out.push(window(
            x[i + 2],
            kernel[i],
            strides[i],
            dilations[i],
            (pads[i], pads[i + k]),
            &auto,
            ceil,
        )?);
    }
    Ok(out)
}

/// A convolution of `x` by the weight `w` (`[M, C/group, k...]`). Unlike a pool's,
/// a convolution's window must fit in the padded input (onnxruntime refuses one
/// that overhangs it, where a pool gives an output of 1).
pub fn conv_shape(c: &Ctx, x: &[i64], w: &[i64]) -> Result<Vec<i64>, String> {
    if w.len() < 2 {
        return Err("the weight has rank below 2".into());
    }
    let kernel = c.ints("kernel_shape").unwrap_or(&w[2..]);
    let mut shape = windows(c, x, Some(kernel), true)?;
    shape[1] = w[0];
    Ok(shape)
}

fn conv(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = if c.node.op_type == "ConvInteger" {
        6
    } else {
        x.dtype
    };
    Ok(vec![(dtype, conv_shape(c, &x.shape, &c.x(1)?.shape)?)])
}

fn conv_transpose(c: &Ctx) -> Result<Out, String> {
    let (x, w) = (c.x(0)?, c.x(1)?);
    let k = x
        .rank()
        .checked_sub(2)
        .ok_or("the input has rank below 2")?;
    if w.rank() != k + 2 {
        return Err("the weight's rank does not match the input's".into());
    }
    let channels = mul(w.shape[1], c.int("group", 1))?;
    let mut shape = vec![x.shape[0], channels];
    if let Some(out) = c.ints("output_shape") {
        shape.extend_from_slice(&out[out.len().saturating_sub(k)..]);
        return Ok(vec![(x.dtype, shape)]);
    }
    let kernel = c.ints("kernel_shape").unwrap_or(&w.shape[2..]);
    let (ones, zeros) = (vec![1i64; k], vec![0i64; 2 * k]);
    let strides = c.ints("strides").unwrap_or(&ones);
    let dilations = c.ints("dilations").unwrap_or(&ones);
    let pads = c.ints("pads").unwrap_or(&zeros);
    let extra = c.ints("output_padding").unwrap_or(&zeros[..k]);
    if kernel.len() != k
        || strides.len() != k
        || dilations.len() != k
        || pads.len() != 2 * k
        || extra.len() != k
    {
        return Err(
            "kernel, strides, dilations, pads or output_padding do not match the input".into(),
        );
    }
    let auto = c.string("auto_pad").unwrap_or_default();
    for i in 0..k {
        let d = if auto.starts_with("SAME") {
            mul(x.shape[i + 2], strides[i])?
        } else {
            let eff = mul(kernel[i] - 1, dilations[i])? + 1;
            mul(strides[i], x.shape[i + 2] - 1)? + extra[i] + eff - pads[i] - pads[i + k]
        };
        shape.push(d);
    }
    Ok(vec![(x.dtype, shape)])
}

fn pooling(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let shape = pool_shape(c, &x.shape, None)?;
    let mut out = vec![(x.dtype, shape.clone())];
    if c.n_out() > 1 {
        out.push((INT64, shape));
    }
    Ok(out)
}

fn global_pool(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut shape: Vec<i64> = x.shape.iter().take(2).copied().collect();
    shape.extend(std::iter::repeat_n(1, x.rank().saturating_sub(2)));
    Ok(vec![(x.dtype, shape)])
}

/// `[M, N]` of `op(A) * op(B)` with the `transA`/`transB` attributes.
pub fn gemm_shape(c: &Ctx, a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    if a.len() != 2 || b.len() != 2 {
        return Err("Gemm needs two matrices".into());
    }
    let m = if c.int("transA", 0) != 0 { a[1] } else { a[0] };
    let n = if c.int("transB", 0) != 0 { b[0] } else { b[1] };
    Ok(vec![m, n])
}

fn gemm(c: &Ctx) -> Result<Out, String> {
    let a = c.x(0)?;
    Ok(vec![(a.dtype, gemm_shape(c, &a.shape, &c.x(1)?.shape)?)])
}

/// numpy `matmul` shapes: 1-D operands are promoted and the added axis dropped.
pub fn matmul_shape(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    if a.is_empty() || b.is_empty() {
        return Err("MatMul of a scalar".into());
    }
    let a2 = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2 = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (ra, rb) = (a2.len(), b2.len());
    if a2[ra - 1] != b2[rb - 2] {
        return Err(format!("MatMul of {a:?} by {b:?}"));
    }
    let mut shape = broadcast(&[&a2[..ra - 2], &b2[..rb - 2]])?;
    if a.len() > 1 {
        shape.push(a2[ra - 2]);
    }
    if b.len() > 1 {
        shape.push(b2[rb - 1]);
    }
    Ok(shape)
}

fn matmul(c: &Ctx) -> Result<Out, String> {
    let a = c.x(0)?;
    Ok(vec![(a.dtype, matmul_shape(&a.shape, &c.x(1)?.shape)?)])
}

/// ONNX's `Attention` (opset 23): `Q`, `K`, `V` as `[B, heads, seq, size]` or as
/// `[B, seq, hidden]` with `q_num_heads`/`kv_num_heads`; outputs `Y`, the present
/// key and value (past and new tokens), and the `Q·K` scores.
fn attention(c: &Ctx) -> Result<Out, String> {
    let (q, k, v) = (c.x(0)?, c.x(1)?, c.x(2)?);
    let four = q.rank() == 4;
    let (b, q_heads, q_seq) = if four {
        (q.shape[0], q.shape[1], q.shape[2])
    } else if q.rank() == 3 {
        (q.shape[0], c.int("q_num_heads", 0), q.shape[1])
    } else {
        return Err(format!("Q of rank {}", q.rank()));
    };
    let kv_heads = if four {
        k.shape.get(1).copied().ok_or("K of rank below 2")?
    } else {
        c.int("kv_num_heads", 0)
    };
    if q_heads <= 0 || kv_heads <= 0 || k.rank() != q.rank() || v.rank() != q.rank() {
        return Err("Q, K and V of different ranks, or no head counts".into());
    }
    let seq_axis = if four { 2 } else { 1 };
    let kv_seq = k.shape[seq_axis];
    let (k_size, v_size) = if four {
        (k.shape[3], v.shape[3])
    } else {
        (k.shape[2] / kv_heads, v.shape[2] / kv_heads)
    };
    let past = c.opt(4).and_then(|p| p.shape.get(2).copied()).unwrap_or(0);
    let total = add(past, kv_seq)?;
    let y = if four {
        vec![b, q_heads, q_seq, v_size]
    } else {
        vec![b, q_seq, mul(q_heads, v_size)?]
    };
    Ok(vec![
        (q.dtype, y),
        (k.dtype, vec![b, kv_heads, total, k_size]),
        (v.dtype, vec![b, kv_heads, total, v_size]),
        (q.dtype, vec![b, q_heads, q_seq, total]),
    ])
}

/// `Resize` (sizes or scales, `axes`, `keep_aspect_ratio_policy`) and `Upsample`.
fn resize(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let rank = x.rank();
    let upsample = c.node.op_type == "Upsample";
    let (scales_at, sizes_at) = if upsample || c.opset < 11 {
        (1, None)
    } else {
        (2, Some(3))
    };
    let which = match c.ints("axes") {
        Some(a) => axes(a, rank)?,
        None => (0..rank).collect(),
    };
    let mut shape = x.shape.clone();
    let sizes = match sizes_at {
        Some(i) => c.opt_values(i, "sizes")?,
        None => None,
    };
    if let Some(sizes) = sizes {
        if sizes.len() != which.len() {
            return Err(format!("{} sizes for {} axes", sizes.len(), which.len()));
        }
        let policy = c.string("keep_aspect_ratio_policy").unwrap_or_default();
        if policy == "not_larger" || policy == "not_smaller" {
            let ratios = which
                .iter()
                .zip(&sizes)
                .map(|(&a, &s)| s as f64 / x.shape[a] as f64);
            let scale = if policy == "not_larger" {
                ratios.fold(f64::INFINITY, f64::min)
            } else {
                ratios.fold(0.0, f64::max)
            };
            for &a in &which {
                shape[a] = (scale * x.shape[a] as f64 + 0.5).floor() as i64;
            }
        } else {
            for (&a, &s) in which.iter().zip(&sizes) {
                shape[a] = s;
            }
        }
        return Ok(vec![(x.dtype, shape)]);
    }
    let scales = if upsample && c.opset < 9 {
        c.attr("scales")
            .map(|a| a.floats.iter().map(|&f| f64::from(f)).collect())
    } else {
        match c.opt(scales_at) {
            Some(s) if !s.shape.contains(&0) => Some(c.floats(scales_at, "scales")?),
            _ => None,
        }
    };
    let scales = scales.ok_or("neither scales nor sizes are given")?;
    if scales.len() != which.len() {
        return Err(format!("{} scales for {} axes", scales.len(), which.len()));
    }
    let crop = c.string("coordinate_transformation_mode").as_deref() == Some("tf_crop_and_resize");
    let roi = if crop {
        c.opt(1).map(|_| c.floats(1, "roi")).transpose()?
    } else {
        None
    };
    for (i, (&a, &s)) in which.iter().zip(&scales).enumerate() {
        let extent = match &roi {
            Some(r) if r.len() == 2 * which.len() => r[i + which.len()] - r[i],
            _ => 1.0,
        };
        let d = (x.shape[a] as f64 * extent * s).floor();
        if !(0.0..9.0e15).contains(&d) {
            return Err(format!("a scale of {s} on {}", x.shape[a]));
        }
        shape[a] = d as i64;
    }
    Ok(vec![(x.dtype, shape)])
}

#[cfg(test)]
mod tests {
    use super::window;

    #[test]
    fn windows_follow_the_onnx_formulas() {
        // AlexNet conv1: 224, kernel 11, stride 4, no padding
        assert_eq!(window(224, 11, 4, 1, (0, 0), "", false).unwrap(), 54);
        // pooling 13 -> 6 with pads (0, 1), and ceil mode
        assert_eq!(window(13, 3, 2, 1, (0, 1), "", false).unwrap(), 6);
        assert_eq!(window(112, 3, 2, 1, (0, 0), "", true).unwrap(), 56);
        assert_eq!(window(7, 3, 2, 1, (0, 0), "SAME_UPPER", false).unwrap(), 4);
        assert_eq!(window(7, 3, 2, 2, (0, 0), "VALID", false).unwrap(), 2);
        assert!(window(2, 5, 1, 1, (0, 0), "", false).is_err());
        // overhanging windows as onnxruntime counts them: trunc((1 - 2) / 2) + 1
        assert_eq!(window(1, 2, 2, 1, (0, 0), "", false).unwrap(), 1);
        assert_eq!(window(1, 2, 2, 1, (0, 0), "", true).unwrap(), 1);
        assert_eq!(window(1, 3, 2, 1, (0, 0), "", true).unwrap(), 0);
        assert_eq!(window(1, 2, 1, 1, (0, 0), "", false).unwrap(), 0);
        assert!(window(1, 5, 2, 1, (0, 0), "", false).is_err());
        assert!(window(8, 3, 0, 1, (0, 0), "", false).is_err());
    }
}
