//! Contents of small integer constants computed at load time, for the shape
//! arithmetic models do with `Shape`, `Gather`, `Concat`, `Unsqueeze`, `Slice`:
//! the shapes that `Reshape`, `ConstantOfShape` or `Expand` read from an input.

use super::infer::{axis, Info};
use super::layout::shape_range;
use super::proto::{Node, MAX_DATA};

/// Integer contents of each output of a folded `node`, where computable.
pub fn fold(
    node: &Node,
    inputs: &[Option<&Info>],
    outs: &[(i32, Vec<i64>)],
) -> Vec<Option<Vec<i64>>> {
    let first = compute(node, inputs);
    let mut result = vec![None; outs.len()];
    if let (Some(data), Some((dtype, shape))) = (first, outs.first()) {
        let count = shape.iter().try_fold(1i64, |p, &d| p.checked_mul(d));
        if is_integer(*dtype) && count == Some(data.len() as i64) && data.len() <= MAX_DATA {
            result[0] = Some(data);
        }
    }
    result
}

fn is_integer(dtype: i32) -> bool {
    matches!(dtype, 2..=7 | 9 | 12 | 13)
}

fn compute(node: &Node, inputs: &[Option<&Info>]) -> Option<Vec<i64>> {
    let info = |i: usize| inputs.get(i).copied().flatten();
    let data = |i: usize| info(i).and_then(|x| x.data.as_deref());
    match node.op_type.as_str() {
        "Shape" => {
            let s = &info(0)?.shape;
            Some(s[shape_range(node, s.len()).ok()?].to_vec())
        }
        "Size" => Some(vec![info(0)?
            .shape
            .iter()
            .try_fold(1i64, |p, &d| p.checked_mul(d))?]),
        "Constant" => {
            let a = node.attributes.first()?;
            match a.name.as_str() {
                "value" => a.t.as_ref()?.ints.clone(),
                "value_int" => Some(vec![a.i?]),
                "value_ints" => Some(a.ints.clone()),
                _ => None,
            }
        }
        "Identity" | "Cast" | "Reshape" | "Flatten" | "Unsqueeze" | "Squeeze" | "Dropout" => {
            data(0).map(<[i64]>::to_vec)
        }
        "ConstantOfShape" => {
            let count = data(0)?.iter().try_fold(1i64, |p, &d| p.checked_mul(d))?;
            let value = node
                .attribute("value")
                .and_then(|a| a.t.as_ref())
                .map_or(Some(0), |t| {
                    t.ints.as_ref().and_then(|v| v.first().copied())
                })?;
            (0..=MAX_DATA as i64)
                .contains(&count)
                .then(|| vec![value; count as usize])
        }
        "Gather" if info(0)?.shape.len() == 1 => {
            let (values, n) = (data(0)?, data(0)?.len());
            data(1)?
                .iter()
                .map(|&i| axis(i, n).ok().map(|i| values[i]))
                .collect()
        }
        "Concat" => {
            let mut out = Vec::new();
            for x in inputs.iter().flatten() {
                let part = x.data.as_deref()?;
                if out.len() + part.len() > MAX_DATA {
                    return None;
                }
                out.extend_from_slice(part);
            }
            Some(out)
        }
        "Slice" if info(0)?.shape.len() == 1 => {
            let values = data(0)?;
            let (start, end) = (*data(1)?.first()?, *data(2)?.first()?);
            let step = data(4).and_then(|s| s.first().copied()).unwrap_or(1);
            slice(values, start, end, step)
        }
        "Add" | "Sub" | "Mul" | "Div" => {
            let (a, b) = (data(0)?, data(1)?);
            let n = a.len().max(b.len());
            if (a.len() != n && a.len() != 1) || (b.len() != n && b.len() != 1) {
                return None;
            }
            let at = |v: &[i64], i: usize| v[if v.len() == 1 { 0 } else { i }];
            (0..n)
                .map(|i| {
                    let (x, y) = (at(a, i), at(b, i));
                    match node.op_type.as_str() {
                        "Add" => x.checked_add(y),
                        "Sub" => x.checked_sub(y),
                        "Mul" => x.checked_mul(y),
                        _ => x.checked_div(y),
                    }
                })
                .collect()
        }
        _ => None,
    }
}

fn slice(values: &[i64], start: i64, end: i64, step: i64) -> Option<Vec<i64>> {
    let d = values.len() as i64;
    let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, e) = (norm(start).clamp(0, d), norm(end).clamp(0, d));
        while i < e {
            out.push(values[i as usize]);
            i = i.saturating_add(step);
        }
    } else if step < 0 {
        let (mut i, e) = (norm(start).clamp(-1, d - 1), norm(end).clamp(-1, d - 1));
        while i > e {
            out.push(values[i as usize]);
            i = i.saturating_add(step);
        }
    }
    Some(out)
}
