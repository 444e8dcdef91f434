//! Shape rules of TFLite's builtin operators, looked up by op name in [`RULES`].
//!
//! A rule gives the dimensions of an op's outputs from the dimensions of its
//! inputs, its `builtin_options` and the values of its constant inputs (a
//! `RESHAPE`'s new shape, a `PAD`'s paddings ...), as the kernels' `Prepare`
//! computes them. Rules also compute the values of small integer tensors where
//! they can (`SHAPE`, `STRIDED_SLICE`, `PACK`, integer arithmetic ...), so that a
//! shape computed in the graph (`SHAPE` -> `STRIDED_SLICE` -> `PACK` ->
//! `RESHAPE`) follows a new input shape. Inputs are positional as in the model:
//! an absent optional input (`-1`) is `None`.
//!
//! Errors are plain messages; the importer adds the op, its index and the tensor.
//! All arithmetic is checked: a hostile file gives an error, never a panic.
//!
//! Why one long file: it is a table, one short rule per builtin operator (more than a
//! hundred), looked up by name; a rule reads best beside its neighbours of the same
//! family, and the tests (the last 140 lines) exercise them together.

use super::options::Opts;
pub use super::options::MAX_RANK;

/// Largest number of elements of a value memplan reads or computes.
pub const MAX_VALUE: usize = 4096;

type R<T> = Result<T, String>;

/// A rule: the outputs of an op, one per output of the op.
pub type Rule = fn(&Ctx) -> R<Vec<Out>>;

/// An input as a rule sees it: its dimensions and, when known, its values.
#[derive(Clone, Copy, Debug)]
pub struct In<'a> {
    pub dims: &'a [i64],
    pub value: Option<&'a [i64]>,
}

/// An output: its dimensions and, for a small integer tensor, its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub dims: Vec<i64>,
    pub value: Option<Vec<i64>>,
}

/// What a rule reads about one op.
pub struct Ctx<'a> {
    pub inputs: &'a [Option<In<'a>>],
    /// The number of outputs the op has.
    pub outputs: usize,
    pub opts: Opts<'a>,
    /// `custom_options` bytes (custom ops).
    pub custom: Option<&'a [u8]>,
}

/// The rules by op name.
#[rustfmt::skip]
pub const RULES: &[(&str, Rule)] = &[
    // convolutions and pools (NHWC)
    ("CONV_2D", conv_2d), ("DEPTHWISE_CONV_2D", depthwise_conv_2d),
    ("TRANSPOSE_CONV", transpose_conv),
    ("CUSTOM:Convolution2DTransposeBias", transpose_conv_bias),
    ("AVERAGE_POOL_2D", pool_2d), ("MAX_POOL_2D", pool_2d), ("L2_POOL_2D", pool_2d),
    ("FULLY_CONNECTED", fully_connected), ("BATCH_MATMUL", batch_matmul),
    // broadcasting elementwise ops
    ("ADD", add), ("SUB", sub), ("MUL", mul), ("DIV", div), ("FLOOR_DIV", floor_div),
    ("FLOOR_MOD", broadcast_all), ("MAXIMUM", maximum), ("MINIMUM", minimum),
    ("POW", broadcast_all), ("SQUARED_DIFFERENCE", broadcast_all), ("ATAN2", broadcast_all),
    ("LESS", broadcast_all), ("LESS_EQUAL", broadcast_all), ("GREATER", broadcast_all),
    ("GREATER_EQUAL", broadcast_all), ("EQUAL", broadcast_all), ("NOT_EQUAL", broadcast_all),
    ("LOGICAL_AND", broadcast_all), ("LOGICAL_OR", broadcast_all),
    ("BITWISE_XOR", broadcast_all), ("RIGHT_SHIFT", broadcast_all),
    ("PRELU", broadcast_all), ("ADD_N", broadcast_all), ("SELECT_V2", broadcast_all),
    ("SELECT", select),
    // unary ops and activations: the shape of input 0
    ("RELU", same), ("RELU6", same), ("RELU_N1_TO_1", same), ("RELU_0_TO_1", same),
    ("LEAKY_RELU", same), ("ELU", same), ("GELU", same), ("HARD_SWISH", same),
    ("LOGISTIC", same), ("TANH", same), ("SOFTMAX", same), ("LOG_SOFTMAX", same),
    ("QUANTIZE", same), ("DEQUANTIZE", same), ("FAKE_QUANT", same), ("CAST", cast),
    ("ABS", same), ("NEG", same), ("SIGN", same), ("EXP", same), ("LOG", same),
    ("SQRT", same), ("RSQRT", same), ("SQUARE", same), ("SIN", same), ("COS", same),
    ("FLOOR", same), ("CEIL", same), ("ROUND", same), ("LOGICAL_NOT", same),
    ("ZEROS_LIKE", same), ("L2_NORMALIZATION", same),
    ("LOCAL_RESPONSE_NORMALIZATION", same), ("CUMSUM", same), ("REVERSE_V2", same),
    ("REVERSE_SEQUENCE", same), ("DYNAMIC_UPDATE_SLICE", same),
    ("MATRIX_SET_DIAG", same),
    // layout
    ("RESHAPE", reshape), ("SQUEEZE", squeeze), ("EXPAND_DIMS", expand_dims),
    ("TRANSPOSE", transpose), ("CONCATENATION", concatenation), ("PACK", pack),
    ("UNPACK", unpack), ("SPLIT", split), ("SPLIT_V", split_v), ("TILE", tile),
    ("BROADCAST_TO", broadcast_to), ("DEPTH_TO_SPACE", depth_to_space),
    ("SPACE_TO_DEPTH", space_to_depth), ("SPACE_TO_BATCH_ND", space_to_batch_nd),
    ("BATCH_TO_SPACE_ND", batch_to_space_nd),
    ("PAD", pad), ("PADV2", pad), ("MIRROR_PAD", pad),
    ("RESIZE_BILINEAR", resize), ("RESIZE_NEAREST_NEIGHBOR", resize),
    // slicing and gathering
    ("STRIDED_SLICE", strided_slice), ("SLICE", slice), ("GATHER", gather),
    ("GATHER_ND", gather_nd), ("EMBEDDING_LOOKUP", embedding_lookup),
    ("SCATTER_ND", scatter_nd), ("ONE_HOT", one_hot), ("TOPK_V2", topk),
    // reductions
    ("MEAN", reduce), ("SUM", reduce_sum), ("REDUCE_PROD", reduce_prod),
    ("REDUCE_MAX", reduce), ("REDUCE_MIN", reduce), ("REDUCE_ANY", reduce),
    ("REDUCE_ALL", reduce), ("ARG_MAX", arg_reduce), ("ARG_MIN", arg_reduce),
    ("UNSORTED_SEGMENT_PROD", segment_prod), ("UNSORTED_SEGMENT_SUM", segment_sum),
    ("UNSORTED_SEGMENT_MAX", segment_max), ("UNSORTED_SEGMENT_MIN", segment_min),
    // shapes as values
    ("SHAPE", shape), ("RANK", rank), ("FILL", fill), ("RANGE", range),
];

/// The rule for op `kind`.
pub fn rule(kind: &str) -> Option<Rule> {
    RULES.iter().find(|(k, _)| *k == kind).map(|&(_, r)| r)
}

// ---------------------------------------------------------------- helpers

impl<'a> Ctx<'a> {
    fn input(&self, i: usize) -> R<In<'a>> {
        self.inputs
            .get(i)
            .copied()
            .flatten()
            .ok_or_else(|| format!("it has no input {i}"))
    }

    fn has(&self, i: usize) -> bool {
        self.inputs.get(i).is_some_and(|x| x.is_some())
    }

    fn dims(&self, i: usize) -> R<&'a [i64]> {
        Ok(self.input(i)?.dims)
    }

    /// The dimensions of input `i`, which must have rank `rank`.
    fn ranked(&self, i: usize, rank: usize) -> R<&'a [i64]> {
        let d = self.dims(i)?;
        if d.len() != rank {
            return Err(format!(
                "input {i} has rank {} ({}), not {rank}",
                d.len(),
                show(d)
            ));
        }
        Ok(d)
    }

    /// The values of input `i` (its `what`).
    fn value(&self, i: usize, what: &str) -> R<&'a [i64]> {
        self.input(i)?.value.ok_or_else(|| {
            format!(
                "its {what} (input {i}) is computed at run time, from values memplan does not know"
            )
        })
    }

    /// The single value of input `i` (a scalar or a one-element vector).
    fn scalar(&self, i: usize, what: &str) -> R<i64> {
        match self.value(i, what)? {
            [v] => Ok(*v),
            v => Err(format!(
                "its {what} (input {i}) holds {} values, not one",
                v.len()
            )),
        }
    }
}

/// `[1, 2, 3]`.
pub fn show(d: &[i64]) -> String {
    let parts: Vec<String> = d.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn out(dims: Vec<i64>) -> Out {
    Out { dims, value: None }
}

fn one(dims: Vec<i64>) -> R<Vec<Out>> {
    Ok(vec![out(dims)])
}

/// An output with a value, kept only when it fits its dimensions.
fn valued(dims: Vec<i64>, value: Option<Vec<i64>>) -> Out {
    let fits = |v: &Vec<i64>| v.len() <= MAX_VALUE && numel(&dims).ok() == Some(v.len() as i64);
    let value = value.filter(fits);
    Out { dims, value }
}

fn too_large() -> String {
    "a dimension overflows".to_string()
}

fn add_(a: i64, b: i64) -> R<i64> {
    a.checked_add(b).ok_or_else(too_large)
}

fn sub_(a: i64, b: i64) -> R<i64> {
    a.checked_sub(b).ok_or_else(too_large)
}

fn mul_(a: i64, b: i64) -> R<i64> {
    a.checked_mul(b).ok_or_else(too_large)
}

fn numel(d: &[i64]) -> R<i64> {
    d.iter().try_fold(1i64, |acc, &x| mul_(acc, x))
}

/// `a` as an axis of a tensor of rank `rank` (negative counts from the end).
fn axis(a: i64, rank: usize) -> R<usize> {
    let r = rank as i64;
    let b = if a < 0 { a + r } else { a };
    if (0..r).contains(&b) {
        Ok(b as usize)
    } else {
        Err(format!("axis {a} is out of range for rank {rank}"))
    }
}

/// NumPy broadcasting of two shapes.
fn broadcast(a: &[i64], b: &[i64]) -> R<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut outd = vec![0; n];
    for (i, o) in outd.iter_mut().enumerate() {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(format!(
                    "shapes {} and {} do not broadcast",
                    show(a),
                    show(b)
                ))
            }
        };
    }
    Ok(outd)
}

fn positive(v: i64, what: &str) -> R<i64> {
    if v > 0 {
        Ok(v)
    } else {
        Err(format!("its {what} is {v}, not positive"))
    }
}

/// The output size of a convolution or pool along one axis (TFLite's
/// `ComputeOutSize`): `padding` 0 is SAME, 1 is VALID.
fn window(size: i64, filter: i64, stride: i64, dilation: i64, padding: i64) -> R<i64> {
    let stride = positive(stride, "stride")?;
    let dilation = positive(dilation, "dilation")?;
    let filter = positive(filter, "filter size")?;
    let effective = add_(mul_(filter - 1, dilation)?, 1)?;
    match padding {
        0 => Ok(add_(size, stride - 1)? / stride),
        1 => Ok(sub_(add_(size, stride)?, effective)?.max(0) / stride),
        p => Err(format!("padding {p} is neither SAME (0) nor VALID (1)")),
    }
}

// ---------------------------------------------------------------- convolutions

/// `CONV_2D`: input [N, H, W, C], filter [O, KH, KW, C/groups] -> [N, OH, OW, O].
/// Options: padding 0, stride_w 1, stride_h 2, dilation_w 4, dilation_h 5.
fn conv_2d(c: &Ctx) -> R<Vec<Out>> {
    let (x, w) = (c.ranked(0, 4)?, c.ranked(1, 4)?);
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let h = window(x[1], w[1], o.int(2, 0)?, o.int(5, 1)?, pad)?;
    let wd = window(x[2], w[2], o.int(1, 0)?, o.int(4, 1)?, pad)?;
    one(vec![x[0], h, wd, w[0]])
}

/// `DEPTHWISE_CONV_2D`: filter [1, KH, KW, O]. Options: padding 0, stride_w 1,
/// stride_h 2, dilation_w 5, dilation_h 6.
fn depthwise_conv_2d(c: &Ctx) -> R<Vec<Out>> {
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
fn transpose_conv(c: &Ctx) -> R<Vec<Out>> {
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
fn transpose_conv_bias(c: &Ctx) -> R<Vec<Out>> {
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
fn pool_2d(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    let o = &c.opts;
    let pad = o.byte(0, 0)?;
    let h = window(x[1], o.int(4, 0)?, o.int(2, 0)?, 1, pad)?;
    let w = window(x[2], o.int(3, 0)?, o.int(1, 0)?, 1, pad)?;
    one(vec![x[0], h, w, x[3]])
}

/// `FULLY_CONNECTED`: weights [O, I]. With keep_num_dims (option 2) the input's
/// dimensions but the last; else [elements / I, O].
fn fully_connected(c: &Ctx) -> R<Vec<Out>> {
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
fn batch_matmul(c: &Ctx) -> R<Vec<Out>> {
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

// ---------------------------------------------------------------- elementwise

/// The broadcast shape of every present input.
fn broadcast_all(c: &Ctx) -> R<Vec<Out>> {
    Ok(vec![out(broadcast_inputs(c)?)])
}

fn broadcast_inputs(c: &Ctx) -> R<Vec<i64>> {
    let mut d: Option<Vec<i64>> = None;
    for x in c.inputs.iter().flatten() {
        d = Some(match d {
            None => x.dims.to_vec(),
            Some(d) => broadcast(&d, x.dims)?,
        });
    }
    d.ok_or_else(|| "it has no inputs".to_string())
}

/// A broadcasting binary op whose integer values memplan computes (for shapes
/// computed in the graph): same-length values or one of them a single value.
fn arith(c: &Ctx, f: fn(i64, i64) -> Option<i64>) -> R<Vec<Out>> {
    let d = broadcast_inputs(c)?;
    let value = match (c.input(0)?.value, c.input(1)?.value) {
        (Some(a), Some(b))
            if !a.is_empty()
                && !b.is_empty()
                && (a.len() == b.len() || a.len() == 1 || b.len() == 1) =>
        {
            let n = a.len().max(b.len());
            let at = |v: &[i64], i: usize| if v.len() == 1 { v[0] } else { v[i] };
            (0..n).map(|i| f(at(a, i), at(b, i))).collect()
        }
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

fn add(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_add)
}

fn sub(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_sub)
}

fn mul(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_mul)
}

/// Integer `DIV` truncates, as TFLite's does.
fn div(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_div)
}

fn floor_div(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| {
        let q = a.checked_div(b)?;
        Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
            q - 1
        } else {
            q
        })
    })
}

fn maximum(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| Some(a.max(b)))
}

fn minimum(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| Some(a.min(b)))
}

/// `SELECT` (v1): a condition of rank 1 picks whole rows of x and y; otherwise
/// the shapes broadcast as in `SELECT_V2`.
fn select(c: &Ctx) -> R<Vec<Out>> {
    let (cond, x, y) = (c.dims(0)?, c.dims(1)?, c.dims(2)?);
    if cond.len() == 1 && x.len() > 1 {
        return one(broadcast(x, y)?);
    }
    broadcast_all(c)
}

/// The shape of input 0.
fn same(c: &Ctx) -> R<Vec<Out>> {
    one(c.dims(0)?.to_vec())
}

/// `CAST`: the shape and, between integer types, the values of input 0.
fn cast(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    Ok(vec![valued(x.dims.to_vec(), x.value.map(<[i64]>::to_vec))])
}

// ---------------------------------------------------------------- layout

/// `RESHAPE`: the new shape from input 1's value, else from option 0
/// (`new_shape`); one `-1` takes the elements left over.
fn reshape(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let target = match (c.inputs.get(1).copied().flatten(), c.opts.ints(0)?) {
        (
            Some(In {
                value: Some(v),
                dims,
            }),
            _,
        ) if dims.len() <= 1 => v.to_vec(),
        (_, Some(v)) if !v.is_empty() || !c.has(1) => v,
        (None, _) => Vec::new(),
        (Some(_), _) => return Err(
            "its new shape (input 1) is computed at run time, from values memplan does not know"
                .to_string(),
        ),
    };
    let n = numel(x.dims)?;
    let mut known = 1i64;
    let mut stretch = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            -1 if stretch.is_none() => stretch = Some(i),
            d if d >= 0 => known = mul_(known, d)?,
            _ => return Err(format!("its new shape {} is not a shape", show(&target))),
        }
    }
    let mut d = target.clone();
    if let Some(i) = stretch {
        if known == 0 || n % known != 0 {
            return Err(format!(
                "its new shape {} cannot hold the {n} elements of its input {}",
                show(&target),
                show(x.dims)
            ));
        }
        d[i] = n / known;
    } else if known != n {
        return Err(format!(
            "its new shape {} (fixed in the model) holds {known} elements, but its input {} has {n}",
            show(&target),
            show(x.dims)
        ));
    }
    Ok(vec![valued(d, x.value.map(<[i64]>::to_vec))])
}

/// `SQUEEZE`: drops the axes of option 0 (`squeeze_dims`), or every axis of 1.
fn squeeze(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let axes = c.opts.ints(0)?.unwrap_or_default();
    let mut drop = vec![axes.is_empty(); x.dims.len()];
    for &a in &axes {
        drop[axis(a, x.dims.len())?] = true;
    }
    let mut d = Vec::new();
    for (i, &n) in x.dims.iter().enumerate() {
        match (drop[i], n) {
            (true, 1) => {}
            (true, _) if !axes.is_empty() => {
                return Err(format!("it squeezes axis {i} of {}, not 1", show(x.dims)))
            }
            _ => d.push(n),
        }
    }
    Ok(vec![valued(d, x.value.map(<[i64]>::to_vec))])
}

/// `EXPAND_DIMS`: a 1 at the axis of input 1.
fn expand_dims(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let a = axis(c.scalar(1, "axis")?, x.dims.len() + 1)?;
    let mut d = x.dims.to_vec();
    d.insert(a, 1);
    Ok(vec![valued(d, x.value.map(<[i64]>::to_vec))])
}

/// `TRANSPOSE`: the axes in the order of input 1 (`perm`).
fn transpose(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let perm = c.value(1, "permutation")?;
    let mut seen = vec![false; x.len()];
    let mut d = Vec::with_capacity(x.len());
    for &p in perm {
        let a = axis(p, x.len())?;
        if std::mem::replace(&mut seen[a], true) {
            return Err(format!("its permutation {} repeats an axis", show(perm)));
        }
        d.push(x[a]);
    }
    if d.len() != x.len() {
        return Err(format!(
            "its permutation {} does not fit rank {}",
            show(perm),
            x.len()
        ));
    }
    one(d)
}

/// `CONCATENATION` along option 0 (`axis`).
fn concatenation(c: &Ctx) -> R<Vec<Out>> {
    let first = c.dims(0)?;
    let a = axis(c.opts.int(0, 0)?, first.len())?;
    let mut d = first.to_vec();
    d[a] = 0;
    let mut values = Some(Vec::new());
    for x in c.inputs.iter().flatten() {
        let same_rest = x.dims.len() == first.len()
            && (0..first.len()).all(|i| i == a || x.dims[i] == first[i]);
        if !same_rest {
            return Err(format!(
                "its inputs {} and {} differ off axis {a}",
                show(first),
                show(x.dims)
            ));
        }
        d[a] = add_(d[a], x.dims[a])?;
        values = match (values, x.value) {
            (Some(mut v), Some(xv)) if first.len() == 1 && v.len() + xv.len() <= MAX_VALUE => {
                v.extend_from_slice(xv);
                Some(v)
            }
            _ => None,
        };
    }
    Ok(vec![valued(d, values)])
}

/// `PACK`: the inputs stacked along a new axis (option 1); the values of stacked
/// scalars or, along axis 0, of stacked vectors.
fn pack(c: &Ctx) -> R<Vec<Out>> {
    let first = c.dims(0)?;
    let n = c.inputs.iter().flatten().count();
    let a = axis(c.opts.int(1, 0)?, first.len() + 1)?;
    let mut values = Some(Vec::new());
    for x in c.inputs.iter().flatten() {
        if x.dims != first {
            return Err(format!(
                "its inputs {} and {} differ",
                show(first),
                show(x.dims)
            ));
        }
        values = match (values, x.value) {
            (Some(mut v), Some(xv)) if a == 0 && v.len() + xv.len() <= MAX_VALUE => {
                v.extend_from_slice(xv);
                Some(v)
            }
            _ => None,
        };
    }
    let mut d = first.to_vec();
    d.insert(a, n as i64);
    Ok(vec![valued(d, values)])
}

/// `UNPACK`: one output per index along option 1 (`axis`).
fn unpack(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let a = axis(c.opts.int(1, 0)?, x.dims.len())?;
    if x.dims[a] != c.outputs as i64 {
        return Err(format!(
            "it has {} outputs, but axis {a} of its input {} has {}",
            c.outputs,
            show(x.dims),
            x.dims[a]
        ));
    }
    let mut d = x.dims.to_vec();
    d.remove(a);
    Ok((0..c.outputs)
        .map(|i| {
            let v = x.value.filter(|_| x.dims.len() == 1);
            let v = v.and_then(|v| v.get(i)).map(|&e| vec![e]);
            valued(d.clone(), v)
        })
        .collect())
}

/// `SPLIT`: inputs (axis, input); equal parts, one per output.
fn split(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(1)?;
    let a = axis(c.scalar(0, "axis")?, x.len())?;
    let parts = c.outputs as i64;
    if parts == 0 || x[a] % parts != 0 {
        return Err(format!(
            "axis {a} of its input {} does not split into {parts} equal parts",
            show(x)
        ));
    }
    let mut d = x.to_vec();
    d[a] /= parts;
    Ok(vec![out(d); c.outputs])
}

/// `SPLIT_V`: inputs (input, size_splits, axis); one `-1` size takes the rest.
fn split_v(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let sizes = c.value(1, "split sizes")?;
    let a = axis(c.scalar(2, "axis")?, x.len())?;
    if sizes.len() != c.outputs {
        return Err(format!(
            "it has {} split sizes for {} outputs",
            sizes.len(),
            c.outputs
        ));
    }
    let known = sizes
        .iter()
        .filter(|&&s| s != -1)
        .try_fold(0i64, |acc, &s| {
            if s < 0 {
                Err(format!("split size {s}"))
            } else {
                add_(acc, s)
            }
        })?;
    let stretch = sizes.iter().filter(|&&s| s == -1).count();
    let rest = sub_(x[a], known)?;
    if stretch > 1 || rest < 0 || (stretch == 0 && rest != 0) {
        return Err(format!(
            "its split sizes {} do not add up to {} (axis {a} of {})",
            show(sizes),
            x[a],
            show(x)
        ));
    }
    Ok(sizes
        .iter()
        .map(|&s| {
            let mut d = x.to_vec();
            d[a] = if s == -1 { rest } else { s };
            out(d)
        })
        .collect())
}

/// `TILE`: each axis times input 1 (`multiples`).
fn tile(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let m = c.value(1, "multiples")?;
    if m.len() != x.len() || m.iter().any(|&v| v < 0) {
        return Err(format!("its multiples {} do not fit {}", show(m), show(x)));
    }
    one(x
        .iter()
        .zip(m)
        .map(|(&d, &k)| mul_(d, k))
        .collect::<R<_>>()?)
}

/// `BROADCAST_TO`: the input broadcast to the shape of input 1.
fn broadcast_to(c: &Ctx) -> R<Vec<Out>> {
    let shape = c.value(1, "shape")?;
    one(broadcast(c.dims(0)?, shape)?)
}

fn block(c: &Ctx) -> R<i64> {
    positive(c.opts.int(0, 0)?, "block size")
}

/// `DEPTH_TO_SPACE` (option 0 `block_size`): [N, H*b, W*b, C/b²].
fn depth_to_space(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    let b = block(c)?;
    let bb = mul_(b, b)?;
    if x[3] % bb != 0 {
        return Err(format!("depth {} does not divide by {b}x{b}", x[3]));
    }
    one(vec![x[0], mul_(x[1], b)?, mul_(x[2], b)?, x[3] / bb])
}

/// `SPACE_TO_DEPTH` (option 0 `block_size`): [N, H/b, W/b, C*b²].
fn space_to_depth(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    let b = block(c)?;
    if x[1] % b != 0 || x[2] % b != 0 {
        return Err(format!("{} does not divide into blocks of {b}", show(x)));
    }
    one(vec![x[0], x[1] / b, x[2] / b, mul_(x[3], mul_(b, b)?)?])
}

/// The block shape (input 1) and paddings or crops (input 2) of the
/// batch-to-space ops, as (block, before, after) per spatial axis.
fn blocks(c: &Ctx, x: &[i64]) -> R<Vec<(i64, i64, i64)>> {
    let b = c.value(1, "block shape")?;
    let p = c.value(2, "paddings")?;
    if p.len() != 2 * b.len() || b.len() + 1 > x.len() {
        return Err(format!(
            "its block shape {} and paddings {} do not fit {}",
            show(b),
            show(p),
            show(x)
        ));
    }
    b.iter()
        .enumerate()
        .map(|(i, &k)| Ok((positive(k, "block size")?, p[2 * i], p[2 * i + 1])))
        .collect()
}

/// `SPACE_TO_BATCH_ND`: batch times the blocks, padded spatial axes divided.
fn space_to_batch_nd(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let mut d = x.to_vec();
    for (i, (k, lo, hi)) in blocks(c, x)?.into_iter().enumerate() {
        let padded = add_(add_(x[i + 1], lo)?, hi)?;
        if padded < 0 || padded % k != 0 {
            return Err(format!(
                "axis {} padded to {padded} does not divide by {k}",
                i + 1
            ));
        }
        d[i + 1] = padded / k;
        d[0] = mul_(d[0], k)?;
    }
    one(d)
}

/// `BATCH_TO_SPACE_ND`: batch divided by the blocks, spatial axes times them,
/// cropped.
fn batch_to_space_nd(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let mut d = x.to_vec();
    let mut total = 1i64;
    for (i, (k, lo, hi)) in blocks(c, x)?.into_iter().enumerate() {
        total = mul_(total, k)?;
        d[i + 1] = sub_(mul_(x[i + 1], k)?, add_(lo, hi)?)?;
        if d[i + 1] < 0 {
            return Err(format!("axis {} is cropped below 0", i + 1));
        }
    }
    if x[0] % total != 0 {
        return Err(format!(
            "batch {} does not divide by the blocks ({total})",
            x[0]
        ));
    }
    d[0] = x[0] / total;
    one(d)
}

/// `PAD`, `PADV2`, `MIRROR_PAD`: each axis grows by the [before, after] pairs
/// of input 1.
fn pad(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let p = c.value(1, "paddings")?;
    if p.len() != 2 * x.len() {
        return Err(format!(
            "its paddings {} do not fit rank {}",
            show(p),
            x.len()
        ));
    }
    let mut d = Vec::with_capacity(x.len());
    for (i, &n) in x.iter().enumerate() {
        let (lo, hi) = (p[2 * i], p[2 * i + 1]);
        if lo < 0 || hi < 0 {
            return Err(format!("its paddings {} are negative", show(p)));
        }
        d.push(add_(add_(n, lo)?, hi)?);
    }
    one(d)
}

/// `RESIZE_BILINEAR`, `RESIZE_NEAREST_NEIGHBOR`: [N, h, w, C] with (h, w) the
/// value of input 1.
fn resize(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    match c.value(1, "size")? {
        &[h, w] if h >= 0 && w >= 0 => one(vec![x[0], h, w, x[3]]),
        s => Err(format!("its size {} is not a height and a width", show(s))),
    }
}

// ---------------------------------------------------------------- slicing

/// Bit `i` of a mask.
fn bit(mask: i64, i: usize) -> bool {
    i < 32 && (mask >> i) & 1 == 1
}

/// `STRIDED_SLICE`: inputs (input, begin, end, strides); options begin_mask 0,
/// end_mask 1, ellipsis_mask 2, new_axis_mask 3, shrink_axis_mask 4, offset 5
/// (end counts from begin). The values of a sliced vector are kept.
fn strided_slice(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let rank = x.dims.len();
    let begin = c.value(1, "begin")?;
    let end = c.value(2, "end")?;
    let ones = vec![1; begin.len()];
    let strides = if c.has(3) {
        c.value(3, "strides")?
    } else {
        &ones
    };
    let n = begin.len();
    if end.len() != n || strides.len() != n {
        return Err(format!(
            "its begin {}, end {} and strides {} differ in length",
            show(begin),
            show(end),
            show(strides)
        ));
    }
    let o = &c.opts;
    let (bm, em, ellipsis, new_axis, shrink) = (
        o.int(0, 0)?,
        o.int(1, 0)?,
        o.int(2, 0)?,
        o.int(3, 0)?,
        o.int(4, 0)?,
    );
    let offset = o.flag(5)?;
    let ellipses = (0..n).filter(|&i| bit(ellipsis, i)).count();
    if ellipses > 1 {
        return Err("it has more than one ellipsis".to_string());
    }
    let sliced = (0..n)
        .filter(|&i| !bit(ellipsis, i) && !bit(new_axis, i))
        .count();
    if sliced > rank {
        return Err(format!(
            "it slices {sliced} axes of its input {}",
            show(x.dims)
        ));
    }
    let mut d = Vec::new();
    // per input axis: first index, step and count (for the values of a vector)
    let mut picks: Vec<(i64, i64, i64)> = Vec::new();
    let mut next = 0;
    for i in 0..n {
        if bit(ellipsis, i) {
            for _ in 0..rank - sliced {
                d.push(x.dims[next]);
                picks.push((0, 1, x.dims[next]));
                next += 1;
            }
            continue;
        }
        if bit(new_axis, i) {
            d.push(1);
            continue;
        }
        let size = x.dims[next];
        next += 1;
        let s = strides[i];
        let b = begin[i];
        let e = if offset {
            b.saturating_add(end[i])
        } else {
            end[i]
        };
        let norm = |v: i64| if v < 0 { v.saturating_add(size) } else { v };
        if bit(shrink, i) {
            let b = norm(b);
            if !(0..size).contains(&b) {
                return Err(format!(
                    "index {} is out of range for axis {} of {}",
                    begin[i],
                    next - 1,
                    show(x.dims)
                ));
            }
            picks.push((b, 1, 1));
            continue;
        }
        let count = if s > 0 {
            let b = if bit(bm, i) {
                0
            } else {
                norm(b).clamp(0, size)
            };
            let e = if bit(em, i) {
                size
            } else {
                norm(e).clamp(0, size)
            };
            picks.push((b, s, 0));
            if e > b {
                (e - b - 1) / s + 1
            } else {
                0
            }
        } else if s < 0 {
            let b = if bit(bm, i) {
                size - 1
            } else {
                norm(b).clamp(-1, size - 1)
            };
            let e = if bit(em, i) {
                -1
            } else {
                norm(e).clamp(-1, size - 1)
            };
            picks.push((b, s, 0));
            let back = s.checked_neg().ok_or_else(too_large)?;
            if b > e {
                (b - e - 1) / back + 1
            } else {
                0
            }
        } else {
            return Err("its stride is 0".to_string());
        };
        if let Some(p) = picks.last_mut() {
            p.2 = count;
        }
        d.push(count);
    }
    while next < rank {
        d.push(x.dims[next]);
        picks.push((0, 1, x.dims[next]));
        next += 1;
    }
    let value = match (x.value, picks.as_slice()) {
        (Some(v), &[(start, step, count)]) if rank == 1 => (0..count)
            .map(|k| {
                let at = start.checked_add(k.checked_mul(step)?)?;
                usize::try_from(at).ok().and_then(|at| v.get(at).copied())
            })
            .collect(),
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

/// `SLICE`: inputs (input, begin, size); a size of -1 runs to the end.
fn slice(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let begin = c.value(1, "begin")?;
    let size = c.value(2, "size")?;
    if begin.len() != x.dims.len() || size.len() != x.dims.len() {
        return Err(format!(
            "its begin {} and size {} do not fit {}",
            show(begin),
            show(size),
            show(x.dims)
        ));
    }
    let mut d = Vec::with_capacity(x.dims.len());
    for ((&n, &b), &s) in x.dims.iter().zip(begin).zip(size) {
        let s = if s == -1 { sub_(n, b)? } else { s };
        if b < 0 || s < 0 || b.checked_add(s).is_none_or(|e| e > n) {
            return Err(format!(
                "begin {} and size {} leave its input {}",
                show(begin),
                show(size),
                show(x.dims)
            ));
        }
        d.push(s);
    }
    let value = match (x.value, x.dims.len()) {
        (Some(v), 1) => usize::try_from(begin[0])
            .ok()
            .and_then(|b| v.get(b..b + d[0] as usize))
            .map(<[i64]>::to_vec),
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

/// `GATHER`: params[:axis] + indices[batch_dims:] + params[axis+1:]; options
/// axis 0, batch_dims 1. The values of a gathered vector are kept.
fn gather(c: &Ctx) -> R<Vec<Out>> {
    let p = c.input(0)?;
    let idx = c.input(1)?;
    let a = axis(c.opts.int(0, 0)?, p.dims.len())?;
    let bd = c.opts.int(1, 0)?;
    let bd = if bd < 0 {
        bd + idx.dims.len() as i64
    } else {
        bd
    };
    let bd = usize::try_from(bd)
        .ok()
        .filter(|&b| b <= idx.dims.len() && b <= a)
        .ok_or_else(|| format!("batch_dims {bd} does not fit"))?;
    let mut d = p.dims[..a].to_vec();
    d.extend_from_slice(&idx.dims[bd..]);
    d.extend_from_slice(&p.dims[a + 1..]);
    let value = match (p.value, idx.value) {
        (Some(v), Some(ix)) if p.dims.len() == 1 => ix
            .iter()
            .map(|&i| usize::try_from(i).ok().and_then(|i| v.get(i).copied()))
            .collect(),
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

/// `GATHER_ND`: indices[:-1] + params[indices[-1]:].
fn gather_nd(c: &Ctx) -> R<Vec<Out>> {
    let (p, idx) = (c.dims(0)?, c.dims(1)?);
    let Some((&last, rest)) = idx.split_last() else {
        return Err("its indices are a scalar".to_string());
    };
    let k = usize::try_from(last)
        .ok()
        .filter(|&k| k <= p.len())
        .ok_or_else(|| format!("its indices {} do not fit {}", show(idx), show(p)))?;
    let mut d = rest.to_vec();
    d.extend_from_slice(&p[k..]);
    one(d)
}

/// `EMBEDDING_LOOKUP`: inputs (ids, table): [ids] + table[1:].
fn embedding_lookup(c: &Ctx) -> R<Vec<Out>> {
    let ids = c.ranked(0, 1)?;
    let table = c.dims(1)?;
    let mut d = vec![ids[0]];
    d.extend_from_slice(table.get(1..).unwrap_or(&[]));
    one(d)
}

/// `SCATTER_ND`: inputs (indices, updates, shape): the value of input 2.
fn scatter_nd(c: &Ctx) -> R<Vec<Out>> {
    let shape = c.value(2, "shape")?;
    if shape.iter().any(|&d| d < 0) {
        return Err(format!("its shape {} is not a shape", show(shape)));
    }
    one(shape.to_vec())
}

/// `ONE_HOT`: inputs (indices, depth, on, off); depth inserted at option 0
/// (`axis`, -1 for last).
fn one_hot(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let depth = c.scalar(1, "depth")?;
    if depth < 0 {
        return Err(format!("its depth {depth} is negative"));
    }
    let a = axis(c.opts.int(0, -1)?, x.len() + 1)?;
    let mut d = x.to_vec();
    d.insert(a, depth);
    one(d)
}

/// `TOPK_V2`: inputs (input, k); both outputs are input[:-1] + [k].
fn topk(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let k = c.scalar(1, "k")?;
    let Some((&last, rest)) = x.split_last() else {
        return Err("its input is a scalar".to_string());
    };
    if !(0..=last).contains(&k) {
        return Err(format!("k = {k} is out of range for {}", show(x)));
    }
    let mut d = rest.to_vec();
    d.push(k);
    Ok(vec![out(d); c.outputs])
}

// ---------------------------------------------------------------- reductions

/// The reduced shape: the axes of input 1 dropped, or kept as 1 with option 0
/// (`keep_dims`); and whether every axis is reduced.
fn reduced(c: &Ctx) -> R<(Vec<i64>, bool)> {
    let x = c.dims(0)?;
    let mut hit = vec![false; x.len()];
    for &a in c.value(1, "axes")? {
        hit[axis(a, x.len())?] = true;
    }
    let keep = c.opts.flag(0)?;
    let d = x
        .iter()
        .zip(&hit)
        .filter_map(|(&n, &h)| match (h, keep) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Ok((d, hit.iter().all(|&h| h)))
}

/// `MEAN`, `REDUCE_MAX`, `REDUCE_MIN`, `REDUCE_ANY`, `REDUCE_ALL`.
fn reduce(c: &Ctx) -> R<Vec<Out>> {
    one(reduced(c)?.0)
}

/// A reduction whose value memplan computes for a whole vector (the number of
/// elements of a computed shape, say).
fn fold(c: &Ctx, f: fn(i64, i64) -> Option<i64>, unit: i64) -> R<Vec<Out>> {
    let (d, all) = reduced(c)?;
    let x = c.input(0)?;
    let value = match x.value {
        Some(v) if all && x.dims.len() == 1 => v
            .iter()
            .try_fold(unit, |acc, &e| f(acc, e))
            .map(|r| vec![r]),
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

fn reduce_sum(c: &Ctx) -> R<Vec<Out>> {
    fold(c, i64::checked_add, 0)
}

fn reduce_prod(c: &Ctx) -> R<Vec<Out>> {
    fold(c, i64::checked_mul, 1)
}

/// `UNSORTED_SEGMENT_*`: `[num_segments]` followed by the dimensions of the data
/// past those of the segment ids; for a vector with known values (the
/// converter lowers an einsum's shape arithmetic to a segment product) its
/// value, each segment folded by `f` from `unit` (empty segments keep it).
fn segments(c: &Ctx, f: fn(i64, i64) -> Option<i64>, unit: i64) -> R<Vec<Out>> {
    let (data, ids) = (c.input(0)?, c.input(1)?);
    let n = c.scalar(2, "number of segments")?;
    if n < 0 || ids.dims.len() > data.dims.len() || data.dims[..ids.dims.len()] != *ids.dims {
        return Err(format!(
            "{n} segments of data {} by segment ids {}",
            show(data.dims),
            show(ids.dims)
        ));
    }
    let mut d = vec![n];
    d.extend_from_slice(&data.dims[ids.dims.len()..]);
    let value = match (data.value, ids.value) {
        (Some(v), Some(seg)) if d.len() == 1 && v.len() == seg.len() && n as usize <= MAX_VALUE => {
            // none when a segment id is out of range or a fold overflows
            let mut out = vec![unit; n as usize];
            v.iter()
                .zip(seg)
                .try_for_each(|(&x, &s)| {
                    let o = usize::try_from(s).ok().and_then(|s| out.get_mut(s))?;
                    *o = f(*o, x)?;
                    Some(())
                })
                .map(|()| out)
        }
        _ => None,
    };
    Ok(vec![valued(d, value)])
}

fn segment_prod(c: &Ctx) -> R<Vec<Out>> {
    segments(c, i64::checked_mul, 1)
}

fn segment_sum(c: &Ctx) -> R<Vec<Out>> {
    segments(c, i64::checked_add, 0)
}

fn segment_max(c: &Ctx) -> R<Vec<Out>> {
    segments(c, |a, b| Some(a.max(b)), i64::MIN)
}

fn segment_min(c: &Ctx) -> R<Vec<Out>> {
    segments(c, |a, b| Some(a.min(b)), i64::MAX)
}

/// `ARG_MAX`, `ARG_MIN`: the axis of input 1 dropped.
fn arg_reduce(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let a = axis(c.scalar(1, "axis")?, x.len())?;
    let mut d = x.to_vec();
    d.remove(a);
    one(d)
}

// ---------------------------------------------------------------- shapes as values

/// `SHAPE`: [rank], whose value is the input's dimensions.
fn shape(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    Ok(vec![valued(vec![x.len() as i64], Some(x.to_vec()))])
}

/// `RANK`: a scalar, the input's rank.
fn rank(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    Ok(vec![valued(Vec::new(), Some(vec![x.len() as i64]))])
}

/// `FILL`: inputs (dims, value): the shape is the value of input 0.
fn fill(c: &Ctx) -> R<Vec<Out>> {
    let d = c.value(0, "dims")?;
    if d.iter().any(|&n| n < 0) {
        return Err(format!("its dims {} are not a shape", show(d)));
    }
    let value = match (c.input(1)?.value, numel(d)) {
        (Some(&[v]), Ok(n)) if (0..=MAX_VALUE as i64).contains(&n) => Some(vec![v; n as usize]),
        _ => None,
    };
    Ok(vec![valued(d.to_vec(), value)])
}

/// `RANGE`: inputs (start, limit, delta), integers.
fn range(c: &Ctx) -> R<Vec<Out>> {
    let (start, limit, delta) = (
        c.scalar(0, "start")?,
        c.scalar(1, "limit")?,
        c.scalar(2, "delta")?,
    );
    if delta == 0 {
        return Err("its delta is 0".to_string());
    }
    let span = i128::from(limit) - i128::from(start);
    let delta128 = i128::from(delta);
    let n = if (span > 0) == (delta > 0) && span != 0 {
        (span.abs() + delta128.abs() - 1) / delta128.abs()
    } else {
        0
    };
    let n = i64::try_from(n).map_err(|_| too_large())?;
    let value = (n as u64 <= MAX_VALUE as u64)
        .then(|| {
            (0..n)
                .map(|k| start.checked_add(k.checked_mul(delta)?))
                .collect()
        })
        .flatten();
    Ok(vec![valued(vec![n], value)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: &str, inputs: &[(&[i64], Option<&[i64]>)], outputs: usize) -> R<Vec<Out>> {
        let ins: Vec<Option<In>> = inputs
            .iter()
            .map(|&(dims, value)| Some(In { dims, value }))
            .collect();
        let c = Ctx {
            inputs: &ins,
            outputs,
            opts: Opts::default(),
            custom: None,
        };
        rule(kind).expect("a rule")(&c)
    }

    #[test]
    fn every_rule_is_listed_once() {
        for (i, (k, _)) in RULES.iter().enumerate() {
            assert!(
                RULES[..i].iter().all(|(o, _)| o != k),
                "{k} is listed twice"
            );
        }
        assert!(rule("NON_MAX_SUPPRESSION_V4").is_none());
    }

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast(&[2, 3], &[4]).is_err());
    }

    #[test]
    fn windows_follow_tflite() {
        assert_eq!(window(224, 3, 2, 1, 0).unwrap(), 112);
        assert_eq!(window(225, 3, 2, 1, 0).unwrap(), 113);
        assert_eq!(window(224, 3, 2, 1, 1).unwrap(), 111);
        assert_eq!(window(10, 3, 1, 2, 1).unwrap(), 6);
        assert_eq!(window(2, 5, 1, 1, 1).unwrap(), 0);
        assert!(window(8, 3, 0, 1, 0).is_err());
        assert!(window(8, 3, 1, 1, 7).is_err());
    }

    #[test]
    fn a_computed_shape_flows_to_a_reshape() {
        // SHAPE -> STRIDED_SLICE [0:1] shrink -> PACK with 12 -> RESHAPE
        let s = run("SHAPE", &[(&[6, 4, 3], None)], 1).unwrap();
        assert_eq!(s[0].value, Some(vec![6, 4, 3]));
        let tail = run(
            "STRIDED_SLICE",
            &[
                (&[3], Some(&[6, 4, 3])),
                (&[1], Some(&[1])),
                (&[1], Some(&[3])),
                (&[1], Some(&[1])),
            ],
            1,
        )
        .unwrap();
        assert_eq!(tail[0], valued(vec![2], Some(vec![4, 3])));
        let prod = run(
            "REDUCE_PROD",
            &[(&[2], Some(&[4, 3])), (&[1], Some(&[0]))],
            1,
        )
        .unwrap();
        assert_eq!(prod[0], valued(vec![], Some(vec![12])));
        let packed = run("PACK", &[(&[], Some(&[6])), (&[], Some(&[12]))], 1).unwrap();
        assert_eq!(packed[0], valued(vec![2], Some(vec![6, 12])));
        let r = run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[6, 12]))], 1).unwrap();
        assert_eq!(r[0].dims, vec![6, 12]);
        let r = run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[-1, 8]))], 1).unwrap();
        assert_eq!(r[0].dims, vec![9, 8]);
        assert!(run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[5, 8]))], 1).is_err());
    }

    #[test]
    fn strided_slices_clamp_step_and_reverse() {
        let x: &[i64] = &[10, 7];
        let ss = |b: &[i64], e: &[i64], s: &[i64]| {
            run(
                "STRIDED_SLICE",
                &[(x, None), (&[2], Some(b)), (&[2], Some(e)), (&[2], Some(s))],
                1,
            )
            .unwrap()[0]
                .dims
                .clone()
        };
        assert_eq!(ss(&[0, 0], &[10, 7], &[1, 1]), vec![10, 7]);
        assert_eq!(ss(&[1, 0], &[100, 7], &[3, 2]), vec![3, 4]);
        assert_eq!(ss(&[-1, 6], &[-11, -8], &[-1, -2]), vec![10, 4]);
        assert_eq!(ss(&[5, 0], &[2, 7], &[1, 1]), vec![0, 7]);
        let v = run(
            "STRIDED_SLICE",
            &[
                (&[4], Some(&[1, 2, 3, 4])),
                (&[1], Some(&[-1])),
                (&[1], Some(&[0])),
                (&[1], Some(&[-2])),
            ],
            1,
        )
        .unwrap();
        assert_eq!(v[0], valued(vec![2], Some(vec![4, 2])));
    }

    #[test]
    fn hostile_values_give_errors_not_panics() {
        let big: &[i64] = &[i64::MAX, i64::MAX];
        assert!(run("PAD", &[(&[2], None), (&[2], Some(&[i64::MAX, 1]))], 1).is_err());
        assert!(run("TILE", &[(big, None), (&[2], Some(&[2, 2]))], 1).is_err());
        assert!(run("RESHAPE", &[(big, None), (&[1], Some(&[-1]))], 1).is_err());
        assert!(run("TRANSPOSE", &[(&[2, 3], None), (&[2], Some(&[0, 0]))], 1).is_err());
        assert!(run("SPLIT", &[(&[], Some(&[0])), (&[7], None)], 2).is_err());
        assert!(run(
            "RANGE",
            &[
                (&[], Some(&[i64::MIN])),
                (&[], Some(&[i64::MAX])),
                (&[], Some(&[1]))
            ],
            1
        )
        .is_err());
        assert!(run("CONCATENATION", &[(&[2, 3], None), (&[2, 4], None)], 1).is_err());
        let cat = run("CONCATENATION", &[(&[2, 3], None), (&[4, 3], None)], 1).unwrap();
        assert_eq!(cat[0].dims, vec![6, 3]);
        assert!(run(
            "GATHER",
            &[(&[4], Some(&[1, 2, 3, 4])), (&[1], Some(&[9]))],
            1
        )
        .is_ok());
        assert!(run("ADD", &[(&[], Some(&[i64::MAX])), (&[], Some(&[1]))], 1).is_ok());
    }
}
