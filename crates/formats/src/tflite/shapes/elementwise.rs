//! Broadcasting elementwise ops, `SELECT`, unary ops and casts.

use super::*;

/// The broadcast shape of every present input.
pub(super) fn broadcast_all(c: &Ctx) -> R<Vec<Out>> {
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

pub(super) fn add(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_add)
}

pub(super) fn sub(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_sub)
}

pub(super) fn mul(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_mul)
}

/// Integer `DIV` truncates, as TFLite's does.
pub(super) fn div(c: &Ctx) -> R<Vec<Out>> {
    arith(c, i64::checked_div)
}

pub(super) fn floor_div(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| {
        let q = a.checked_div(b)?;
        Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
            q - 1
        } else {
            q
        })
    })
}

pub(super) fn maximum(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| Some(a.max(b)))
}

pub(super) fn minimum(c: &Ctx) -> R<Vec<Out>> {
    arith(c, |a, b| Some(a.min(b)))
}

/// `SELECT` (v1): a condition of rank 1 picks whole rows of x and y; otherwise
/// the shapes broadcast as in `SELECT_V2`.
pub(super) fn select(c: &Ctx) -> R<Vec<Out>> {
    let (cond, x, y) = (c.dims(0)?, c.dims(1)?, c.dims(2)?);
    if cond.len() == 1 && x.len() > 1 {
        return one(broadcast(x, y)?);
    }
    broadcast_all(c)
}

/// The shape of input 0.
pub(super) fn same(c: &Ctx) -> R<Vec<Out>> {
    one(c.dims(0)?.to_vec())
}

/// `CAST`: the shape and, between integer types, the values of input 0.
pub(super) fn cast(c: &Ctx) -> R<Vec<Out>> {
    let x = c.input(0)?;
    Ok(vec![valued(x.dims.to_vec(), x.value.map(<[i64]>::to_vec))])
}
