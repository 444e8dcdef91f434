//! Sequences of tensors: a sequence value knows the shape of each of its tensors,
//! so its bytes are their sum and `SequenceAt`/`ConcatFromSequence` resolve.

use super::{Ctx, Registry, ONNX};
use crate::onnx::dtype::{FLOAT, INT64};
use crate::onnx::shape::{add, axis, with_dim, Data, Info};

pub fn register(r: &mut Registry) {
    r.add_values(ONNX, &["SequenceEmpty"], empty);
    r.add_values(ONNX, &["SequenceConstruct"], construct);
    r.add_values(ONNX, &["SequenceInsert"], insert);
    r.add_values(ONNX, &["SequenceErase"], erase);
    r.add_values(ONNX, &["SequenceAt"], at);
    r.add_values(ONNX, &["SequenceLength"], length);
    r.add_values(ONNX, &["SplitToSequence"], split);
    r.add_values(ONNX, &["ConcatFromSequence"], concat);
}

fn elems<'a>(c: &Ctx<'a>, i: usize) -> Result<&'a [Vec<i64>], String> {
    c.x(i)?
        .seq
        .as_deref()
        .ok_or_else(|| format!("input {i} is not a sequence of known tensors"))
}

/// A position into `n` elements (`n` itself allowed when inserting).
fn position(c: &Ctx, i: usize, n: usize, end_ok: bool) -> Result<Option<usize>, String> {
    let Some(p) = c.opt_values(i, "position")? else {
        return Ok(None);
    };
    let p = *p.first().ok_or("an empty position")?;
    let len = (n + usize::from(end_ok)) as i64;
    let p = if p < 0 { p + n as i64 } else { p };
    if !(0..len).contains(&p) {
        return Err(format!("position {p} outside a sequence of {n}"));
    }
    Ok(Some(p as usize))
}

fn empty(c: &Ctx) -> Result<Vec<Info>, String> {
    Ok(vec![Info::sequence(
        c.int("dtype", FLOAT.into()) as i32,
        vec![],
    )])
}

fn construct(c: &Ctx) -> Result<Vec<Info>, String> {
    let parts: Vec<&Info> = c.inputs.iter().flatten().copied().collect();
    let dtype = parts.first().map_or(FLOAT, |p| p.dtype);
    Ok(vec![Info::sequence(
        dtype,
        parts.iter().map(|p| p.shape.clone()).collect(),
    )])
}

fn insert(c: &Ctx) -> Result<Vec<Info>, String> {
    let mut e = elems(c, 0)?.to_vec();
    let t = c.x(1)?;
    let at = position(c, 2, e.len(), true)?.unwrap_or(e.len());
    e.insert(at, t.shape.clone());
    Ok(vec![Info::sequence(t.dtype, e)])
}

fn erase(c: &Ctx) -> Result<Vec<Info>, String> {
    let mut e = elems(c, 0)?.to_vec();
    if e.is_empty() {
        return Err("erasing from an empty sequence".into());
    }
    let at = position(c, 1, e.len(), false)?.unwrap_or(e.len() - 1);
    e.remove(at);
    Ok(vec![Info::sequence(c.x(0)?.dtype, e)])
}

fn at(c: &Ctx) -> Result<Vec<Info>, String> {
    let e = elems(c, 0)?;
    let shape = match position(c, 1, e.len(), false) {
        Ok(Some(p)) => e[p].clone(),
        // an unknown position: fine when every tensor has the same shape
        _ if !e.is_empty() && e.iter().all(|s| s == &e[0]) => e[0].clone(),
        Err(why) => return Err(why),
        _ => return Err(c.values(1, "position").err().unwrap_or_default()),
    };
    Ok(vec![Info::new(c.x(0)?.dtype, shape)])
}

fn length(c: &Ctx) -> Result<Vec<Info>, String> {
    let n = elems(c, 0)?.len() as i64;
    Ok(vec![Info {
        data: Some(Data::Int(vec![n])),
        ..Info::new(INT64, vec![])
    }])
}

fn split(c: &Ctx) -> Result<Vec<Info>, String> {
    let x = c.x(0)?;
    let a = axis(c.int("axis", 0), x.rank())?;
    let dim = x.shape[a];
    let keep = c.int("keepdims", 1) != 0;
    let e: Vec<Vec<i64>> = match c.opt(1) {
        None => {
            let mut s = x.shape.clone();
            if keep {
                s[a] = 1;
            } else {
                s.remove(a);
            }
            (0..dim).map(|_| s.clone()).collect()
        }
        Some(split) => {
            let v = c.values(1, "split")?;
            let sizes: Vec<i64> = if split.rank() == 0 {
                let n = *v.first().ok_or("an empty split")?;
                if n <= 0 {
                    return Err(format!("a split of {n}"));
                }
                let mut s = vec![n; (dim / n) as usize];
                if dim % n != 0 {
                    s.push(dim % n);
                }
                s
            } else {
                v
            };
            if sizes.iter().sum::<i64>() != dim {
                return Err(format!("split {sizes:?} does not add up to {dim}"));
            }
            sizes.iter().map(|&s| with_dim(&x.shape, a, s)).collect()
        }
    };
    Ok(vec![Info::sequence(x.dtype, e)])
}

fn concat(c: &Ctx) -> Result<Vec<Info>, String> {
    let e = elems(c, 0)?;
    let first = e.first().ok_or("concatenating an empty sequence")?;
    let new_axis = c.int("new_axis", 0) != 0;
    let rank = first.len() + usize::from(new_axis);
    let a = axis(c.int("axis", 0), rank)?;
    let mut shape = first.clone();
    if new_axis {
        shape.insert(a, e.len() as i64);
    } else {
        shape[a] = 0;
        for s in e {
            if s.len() != first.len() {
                return Err("tensors of different ranks".into());
            }
            shape[a] = add(shape[a], s[a])?;
        }
    }
    Ok(vec![Info::new(c.x(0)?.dtype, shape)])
}
