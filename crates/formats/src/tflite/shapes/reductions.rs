//! Reductions, segment reductions and arg-reductions.

use super::*;

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
pub(super) fn reduce(c: &Ctx) -> R<Vec<Out>> {
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

pub(super) fn reduce_sum(c: &Ctx) -> R<Vec<Out>> {
    fold(c, i64::checked_add, 0)
}

pub(super) fn reduce_prod(c: &Ctx) -> R<Vec<Out>> {
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

pub(super) fn segment_prod(c: &Ctx) -> R<Vec<Out>> {
    segments(c, i64::checked_mul, 1)
}

pub(super) fn segment_sum(c: &Ctx) -> R<Vec<Out>> {
    segments(c, i64::checked_add, 0)
}

pub(super) fn segment_max(c: &Ctx) -> R<Vec<Out>> {
    segments(c, |a, b| Some(a.max(b)), i64::MIN)
}

pub(super) fn segment_min(c: &Ctx) -> R<Vec<Out>> {
    segments(c, |a, b| Some(a.min(b)), i64::MAX)
}

/// `ARG_MAX`, `ARG_MIN`: the axis of input 1 dropped.
pub(super) fn arg_reduce(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    let a = axis(c.scalar(1, "axis")?, x.len())?;
    let mut d = x.to_vec();
    d.remove(a);
    one(d)
}
