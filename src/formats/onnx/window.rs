//! Output shapes of sliding windows: convolutions and pooling.

use super::infer::{mul, Info, Out};
use super::proto::Node;

/// One spatial output size of a convolution or pooling window.
pub(super) fn window(
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
    let div = |num: i64| {
        if ceil {
            num.div_euclid(stride) + i64::from(num.rem_euclid(stride) != 0)
        } else {
            num.div_euclid(stride)
        }
    };
    let out = match auto {
        "SAME_UPPER" | "SAME_LOWER" => {
            input.div_euclid(stride) + i64::from(input.rem_euclid(stride) != 0)
        }
        "VALID" => (input - eff).div_euclid(stride) + 1,
        _ => div(input.saturating_add(pads.0).saturating_add(pads.1) - eff) + 1,
    };
    if out < 0 {
        return Err(format!(
            "the window of {eff} does not fit the input of {input}"
        ));
    }
    Ok(out)
}

/// `[N, C, spatial...]` of a convolution or pooling over `x` with `kernel`.
pub(super) fn pool(node: &Node, x: &[i64], kernel: Option<&[i64]>) -> Result<Vec<i64>, String> {
    let kernel = kernel
        .or(node.ints("kernel_shape"))
        .ok_or("no kernel_shape")?;
    let k = kernel.len();
    if x.len() != k + 2 {
        return Err(format!(
            "a kernel of rank {k} over an input of rank {}",
            x.len()
        ));
    }
    let ones = vec![1i64; k];
    let zeros = vec![0i64; 2 * k];
    let strides = node.ints("strides").unwrap_or(&ones);
    let dilations = node.ints("dilations").unwrap_or(&ones);
    let pads = node.ints("pads").unwrap_or(&zeros);
    if strides.len() != k || dilations.len() != k || pads.len() != 2 * k {
        return Err("strides, dilations or pads do not match the kernel".into());
    }
    let auto = node.string("auto_pad").unwrap_or_default();
    let ceil = node.int("ceil_mode", 0) != 0;
    let mut out = x[..2].to_vec();
    for i in 0..k {
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

pub(super) fn conv(node: &Node, x: &Info, w: &Info) -> Result<Out, String> {
    if w.shape.len() < 2 {
        return Err("the weight has rank below 2".into());
    }
    let mut shape = pool(
        node,
        &x.shape,
        Some(node.ints("kernel_shape").unwrap_or(&w.shape[2..])),
    )?;
    shape[1] = w.shape[0];
    Ok(vec![(x.dtype, shape)])
}

pub(super) fn conv_transpose(node: &Node, x: &Info, w: &Info) -> Result<Out, String> {
    let k = x
        .shape
        .len()
        .checked_sub(2)
        .ok_or("the input has rank below 2")?;
    if w.shape.len() != k + 2 {
        return Err("the weight's rank does not match the input's".into());
    }
    let channels = mul(w.shape[1], node.int("group", 1))?;
    let mut shape = vec![x.shape[0], channels];
    if let Some(out) = node.ints("output_shape") {
        shape.extend_from_slice(&out[out.len().saturating_sub(k)..]);
        return Ok(vec![(x.dtype, shape)]);
    }
    let kernel = node.ints("kernel_shape").unwrap_or(&w.shape[2..]);
    let (ones, zeros) = (vec![1i64; k], vec![0i64; 2 * k]);
    let strides = node.ints("strides").unwrap_or(&ones);
    let dilations = node.ints("dilations").unwrap_or(&ones);
    let pads = node.ints("pads").unwrap_or(&zeros);
    let extra = node.ints("output_padding").unwrap_or(&zeros[..k]);
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
    let auto = node.string("auto_pad").unwrap_or_default();
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
        assert!(window(8, 3, 0, 1, (0, 0), "", false).is_err());
    }
}
