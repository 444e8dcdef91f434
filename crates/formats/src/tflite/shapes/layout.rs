//! Layout: reshapes, transposes, concatenation, splits, tiles, moves between
//! space, depth and batch, pads and resizes.

use super::*;

/// `RESHAPE`: the new shape from input 1's value, else from option 0
/// (`new_shape`); one `-1` takes the elements left over.
pub(super) fn reshape(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn squeeze(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn expand_dims(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    let a = axis(c.scalar(1, "axis")?, x.dims.len() + 1)?;
    let mut d = x.dims.to_vec();
    d.insert(a, 1);
    Ok(vec![valued(d, x.value.map(<[i64]>::to_vec))])
}

/// `TRANSPOSE`: the axes in the order of input 1 (`perm`).
pub(super) fn transpose(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn concatenation(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn pack(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn unpack(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn split(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn split_v(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn tile(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn broadcast_to(c: &Ctx) -> R<Vec<Out>> {
    let shape = c.value(1, "shape")?;
    one(broadcast(c.dims(0)?, shape)?)
}

fn block(c: &Ctx) -> R<i64> {
    positive(c.opts.int(0, 0)?, "block size")
}

/// `DEPTH_TO_SPACE` (option 0 `block_size`): [N, H*b, W*b, C/b²].
pub(super) fn depth_to_space(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    let b = block(c)?;
    let bb = mul_(b, b)?;
    if x[3] % bb != 0 {
        return Err(format!("depth {} does not divide by {b}x{b}", x[3]));
    }
    one(vec![x[0], mul_(x[1], b)?, mul_(x[2], b)?, x[3] / bb])
}

/// `SPACE_TO_DEPTH` (option 0 `block_size`): [N, H/b, W/b, C*b²].
pub(super) fn space_to_depth(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn space_to_batch_nd(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn batch_to_space_nd(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn pad(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn resize(c: &Ctx) -> R<Vec<Out>> {
    let x = c.ranked(0, 4)?;
    match c.value(1, "size")? {
        &[h, w] if h >= 0 && w >= 0 => one(vec![x[0], h, w, x[3]]),
        s => Err(format!("its size {} is not a height and a width", show(s))),
    }
}
