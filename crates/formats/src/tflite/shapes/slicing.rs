//! Slicing and gathering: `STRIDED_SLICE`, `SLICE`, gathers, scatters, `ONE_HOT`,
//! `TOPK_V2`.

use super::*;

/// Bit `i` of a mask.
fn bit(mask: i64, i: usize) -> bool {
    i < 32 && (mask >> i) & 1 == 1
}

/// `STRIDED_SLICE`: inputs (input, begin, end, strides); options begin_mask 0,
/// end_mask 1, ellipsis_mask 2, new_axis_mask 3, shrink_axis_mask 4, offset 5
/// (end counts from begin). The values of a sliced vector are kept.
pub(super) fn strided_slice(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn slice(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn gather(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn gather_nd(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn embedding_lookup(c: &Ctx) -> R<Vec<Out>> {
    let ids = c.ranked(0, 1)?;
    let table = c.dims(1)?;
    let mut d = vec![ids[0]];
    d.extend_from_slice(table.get(1..).unwrap_or(&[]));
    one(d)
}

/// `SCATTER_ND`: inputs (indices, updates, shape): the value of input 2.
pub(super) fn scatter_nd(c: &Ctx) -> R<Vec<Out>> {
    let shape = c.value(2, "shape")?;
    if shape.iter().any(|&d| d < 0) {
        return Err(format!("its shape {} is not a shape", show(shape)));
    }
    one(shape.to_vec())
}

/// `ONE_HOT`: inputs (indices, depth, on, off); depth inserted at option 0
/// (`axis`, -1 for last).
pub(super) fn one_hot(c: &Ctx) -> R<Vec<Out>> {
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
pub(super) fn topk(c: &Ctx) -> R<Vec<Out>> {
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
