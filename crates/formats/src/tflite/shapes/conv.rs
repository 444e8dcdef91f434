//! Convolutions, pools and matrix products (NHWC).

use super::*;

/// `CONV_2D`: input [N, H, W, C], filter [O, KH, KW, C/groups] -> [N, OH, OW, O].
/// Options: padding 0, stride_w 1, stride_h 2, dilation_w 4, dilation_h 5.
pub(super) fn conv_2d(c: &Ctx) -> R<Vec<Out>> {
    let (x, w) = (c.ranked(0, 4)?, c.ranked(1, 4)?);
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let h = window(x[1], w[1], o.int(2, 0)?, o.int(5, 1)?, pad)?;
    let wd = window(x[2], w[2], o.int(1, 0)?, o.int(4, 1)?, pad)?;
    one(vec![x[0], h, wd, w[0]])
}

/// `DEPTHWISE_CONV_2D`: filter [1, KH, KW, O]. Options: padding 0, stride_w 1,
/// stride_h 2, dilation_w 5, dilation_h 6.
pub(super) fn depthwise_conv_2d(c: &Ctx) -> R<Vec<Out>> {
    let (x, w) = (c.ranked(0, 4)?, c.ranked(1, 4)?);
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let h = window(x[1], w[1], o.int(2, 0)?, o.int(6, 1)?, pad)?;
    let wd = window(x[2], w[2], o.int(1, 0)?, o.int(5, 1)?, pad)?;
    one(vec![x[0], h, wd, w[3]])
}

/// `TRANSPOSE_CONV`: inputs (output_shape, filter [O, KH, KW, C], input, bias);
/// the output shape is input 0's value. It must agree with the input (its batch,
/// and the spatial sizes a convolution of the output would give back), since a
/// model usually stores it as a constant that does not follow a new input shape.
pub(super) fn transpose_conv(c: &Ctx) -> R<Vec<Out>> {
    let shape = c.value(0, "output shape")?;
    let (w, x) = (c.ranked(1, 4)?, c.ranked(2, 4)?);
    if shape.len() != 4 || shape.iter().any(|&d| d < 0) {
        return Err(format!("its output shape {} is not 4 sizes", show(shape)));
    }
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let back_h = window(shape[1], w[1], o.int(2, 0)?, 1, pad)?;
    let back_w = window(shape[2], w[2], o.int(1, 0)?, 1, pad)?;
    if shape[0] != x[0] || back_h != x[1] || back_w != x[2] || shape[3] != w[0] {
        return Err(format!(
            "its output shape {} (input 0, fixed in the model) does not fit its input {}",
            show(shape),
            show(x)
        ));
    }
    one(shape.to_vec())
}

/// MediaPipe's `Convolution2DTransposeBias`: inputs (input, filter [O, KH, KW,
/// C], bias); custom options are `TfLiteTransposeConvParams` (int32 padding, 1
/// SAME or 2 VALID, stride_w, stride_h).
pub(super) fn transpose_conv_bias(c: &Ctx) -> R<Vec<Out>> {
    let (x, w) = (c.ranked(0, 4)?, c.ranked(1, 4)?);
    let raw = c.custom.unwrap_or(&[]);
    let int = |i: usize| -> R<i64> {
        raw.get(4 * i..4 * i + 4)
            .and_then(|b| b.try_into().ok())
            .map(|b| i64::from(i32::from_le_bytes(b)))
            .ok_or_else(|| format!("its custom options hold {} bytes, not 12", raw.len()))
    };
    let (padding, sw, sh) = (int(0)?, int(1)?, int(2)?);
    let size = |n: i64, k: i64, s: i64| -> R<i64> {
        let s = positive(s, "stride")?;
        let pad = if padding == 1 {
            (k - (n - 1).rem_euclid(s) - 1).max(0)
        } else {
            0
        };
        add_(mul_(s, n - 1)?, k - pad)
    };
    one(vec![
        x[0],
        size(x[1], w[1], sh)?,
        size(x[2], w[2], sw)?,
        w[0],
    ])
}

/// `AVERAGE_POOL_2D`, `MAX_POOL_2D`, `L2_POOL_2D`. Options: padding 0, stride_w
/// 1, stride_h 2, filter_width 3, filter_height 4.
pub(super) fn pool_2d(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let h = window(x[1], o.int(4, 0)?, o.int(2, 0)?, 1, pad)?;
    let w = window(x[2], o.int(3, 0)?, o.int(1, 0)?, 1, pad)?;
    one(vec![x[0], h, w, x[3]])
}

/// `FULLY_CONNECTED`: weights [O, I]. With keep_num_dims (option 2) the input's
/// dimensions but the last; else [elements / I, O].
pub(super) fn fully_connected(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let w = c.ranked(1, 2)?;
    let (units, depth) = (w[0], w[1]);
    if c.opts.flag(2)? {
        match x.split_last() {
            Some((&last, rest)) if last == depth => {
                let mut d = rest.to_vec();
                d.push(units);
                one(d)
            }
            _ => Err(format!(
                "its input {} does not end in the weights' depth {depth}",
                show(x)
            )),
        }
    } else {
        let n = numel(x)?;
        if depth <= 0 || n % depth != 0 {
            return Err(format!(
                "its input {} does not divide into rows of the weights' depth {depth}",
                show(x)
            ));
        }
        one(vec![n / depth, units])
    }
}

/// `BATCH_MATMUL`: [..., M, K] x [..., K, N] with broadcast batch dimensions;
/// adj_x (option 0) and adj_y (option 1) transpose the last two axes.
pub(super) fn batch_matmul(c: &Ctx) -> R<Vec<Out>> {
    let (a, b) = (c.dims(0)?, c.dims(1)?);
    if a.len() < 2 || b.len() < 2 {
        return Err(format!(
            "its inputs {} and {} are not matrices",
            show(a),
            show(b)
        ));
    }
    let (ra, rb) = (a.len(), b.len());
    let (m, k1) = if c.opts.flag(0)? {
        (a[ra - 1], a[ra - 2])
    } else {
        (a[ra - 2], a[ra - 1])
    };
    let (k2, n) = if c.opts.flag(1)? {
        (b[rb - 1], b[rb - 2])
    } else {
        (b[rb - 2], b[rb - 1])
    };
    if k1 != k2 {
        return Err(format!(
            "its inputs {} and {} do not share an inner dimension",
            show(a),
            show(b)
        ));
    }
    let mut d = broadcast(&a[..ra - 2], &b[..rb - 2])?;
    d.extend([m, n]);
    one(d)
}
