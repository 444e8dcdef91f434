//! Output shapes of the ops that join, split, reshape, slice or reduce tensors.

use super::infer::{axis, broadcast, list, product, Info, Out, INT64};
use super::proto::Node;

pub(super) fn concat(node: &Node, inputs: &[Option<&Info>]) -> Result<Vec<i64>, String> {
    let parts: Vec<&Info> = inputs.iter().flatten().copied().collect();
    let first = parts.first().ok_or("no inputs")?;
    let a = axis(node.int("axis", 0), first.shape.len())?;
    let mut shape = first.shape.clone();
    shape[a] = 0;
    for p in &parts {
        if p.shape.len() != shape.len() {
            return Err("inputs of different ranks".into());
        }
        shape[a] = shape[a]
            .checked_add(p.shape[a])
            .ok_or("a dimension overflows")?;
    }
    Ok(shape)
}

pub(super) fn gemm(node: &Node, a: &Info, b: &Info) -> Result<Vec<i64>, String> {
    let (a, b) = (&a.shape, &b.shape);
    if a.len() != 2 || b.len() != 2 {
        return Err("Gemm needs two matrices".into());
    }
    let m = if node.int("transA", 0) != 0 {
        a[1]
    } else {
        a[0]
    };
    let n = if node.int("transB", 0) != 0 {
        b[0]
    } else {
        b[1]
    };
    Ok(vec![m, n])
}

pub(super) fn matmul(a: &Info, b: &Info) -> Result<Vec<i64>, String> {
    let (a, b) = (&a.shape, &b.shape);
    if a.is_empty() || b.is_empty() {
        return Err("MatMul of a scalar".into());
    }
    let a2 = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.clone()
    };
    let b2 = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.clone()
    };
    let (ra, rb) = (a2.len(), b2.len());
    let mut shape = broadcast(&[&a2[..ra - 2], &b2[..rb - 2]])?;
    if a.len() > 1 {
        shape.push(a2[ra - 2]);
    }
    if b.len() > 1 {
        shape.push(b2[rb - 1]);
    }
    Ok(shape)
}

pub(super) fn reshape(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Vec<i64>, String> {
    let target = list(node, inputs, 1, "shape", opset >= 5)?.ok_or("no target shape")?;
    let allow_zero = node.int("allowzero", 0) != 0;
    let mut shape = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            0 if !allow_zero => shape.push(*x.shape.get(i).ok_or("a 0 past the input's rank")?),
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                shape.push(1);
            }
            d if d >= 0 => shape.push(d),
            d => return Err(format!("target dimension {d}")),
        }
    }
    if let Some(i) = infer_at {
        let (total, known) = (product(&x.shape)?, product(&shape)?);
        if known == 0 || total % known != 0 {
            return Err(format!("{total} elements do not reshape to {target:?}"));
        }
        shape[i] = total / known;
    }
    Ok(shape)
}

pub(super) fn transpose(node: &Node, x: &[i64]) -> Result<Vec<i64>, String> {
    let reversed: Vec<i64> = (0..x.len() as i64).rev().collect();
    let perm = node.ints("perm").unwrap_or(&reversed);
    if perm.len() != x.len() {
        return Err(format!("perm {perm:?} for rank {}", x.len()));
    }
    perm.iter()
        .map(|&p| axis(p, x.len()).map(|a| x[a]))
        .collect()
}

pub(super) fn split(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Out, String> {
    let a = axis(node.int("axis", 0), x.shape.len())?;
    let n = node.outputs.len() as i64;
    let dim = x.shape[a];
    let sizes: Vec<i64> = match list(node, inputs, 1, "split", opset >= 13)? {
        Some(s) if !s.is_empty() => s.to_vec(),
        _ if n > 0 => {
            let chunk = dim / n + i64::from(dim % n != 0);
            (0..n).map(|i| chunk.min(dim - chunk * i).max(0)).collect()
        }
        _ => return Err("no outputs".into()),
    };
    Ok(sizes
        .iter()
        .map(|&s| {
            let mut shape = x.shape.clone();
            shape[a] = s;
            (x.dtype, shape)
        })
        .collect())
}

pub(super) fn slice(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Vec<i64>, String> {
    let new = opset >= 10;
    let starts = list(node, inputs, 1, "starts", new)?.ok_or("no starts")?;
    let ends = list(node, inputs, 2, "ends", new)?.ok_or("no ends")?;
    let all: Vec<i64> = (0..starts.len() as i64).collect();
    let axes = list(node, inputs, 3, "axes", new)?.unwrap_or(&all);
    let ones = vec![1i64; starts.len()];
    let steps = if new {
        list(node, inputs, 4, "steps", true)?.unwrap_or(&ones)
    } else {
        &ones
    };
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps differ in length".into());
    }
    let mut shape = x.shape.clone();
    for i in 0..starts.len() {
        let a = axis(axes[i], shape.len())?;
        shape[a] = slice_len(x.shape[a], starts[i], ends[i], steps[i])?;
    }
    Ok(shape)
}

/// Elements kept along one axis of length `d` by `start:end:step`.
fn slice_len(d: i64, start: i64, end: i64, step: i64) -> Result<i64, String> {
    if step == 0 {
        return Err("a slice step of 0".into());
    }
    let (d, step) = (i128::from(d), i128::from(step));
    let norm = |v: i64| {
        let v = i128::from(v);
        if v < 0 {
            v + d
        } else {
            v
        }
    };
    let (s, e) = (norm(start), norm(end));
    let len = if step > 0 {
        let (s, e) = (s.clamp(0, d), e.clamp(0, d));
        (e - s + step - 1).div_euclid(step)
    } else {
        let (s, e) = (s.clamp(-1, d - 1), e.clamp(-1, d - 1));
        (s - e - step - 1).div_euclid(-step)
    };
    Ok(len.max(0) as i64)
}

pub(super) fn pad(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Vec<i64>, String> {
    let pads = list(node, inputs, 1, "pads", opset >= 11)?.ok_or("no pads")?;
    let rank = x.shape.len();
    let all: Vec<i64> = (0..rank as i64).collect();
    let axes = if opset >= 18 {
        list(node, inputs, 3, "axes", true)?.unwrap_or(&all)
    } else {
        &all
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!("{} pads for {} axes", pads.len(), axes.len()));
    }
    let mut shape = x.shape.clone();
    for (i, &a) in axes.iter().enumerate() {
        let a = axis(a, rank)?;
        let grown = i128::from(shape[a]) + i128::from(pads[i]) + i128::from(pads[i + axes.len()]);
        shape[a] = i64::try_from(grown).map_err(|_| "a dimension overflows")?;
    }
    Ok(shape)
}

/// The dimensions `Shape` returns (its `start`/`end` attributes, opset 15).
pub(super) fn shape_range(node: &Node, rank: usize) -> Result<std::ops::Range<usize>, String> {
    let r = rank as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let (s, e) = (clamp(node.int("start", 0)), clamp(node.int("end", r)));
    Ok(s..e.max(s))
}

pub(super) fn unsqueeze(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Vec<i64>, String> {
    let axes = list(node, inputs, 1, "axes", opset >= 13)?.ok_or("no axes")?;
    let rank = x.shape.len() + axes.len();
    let mut marked = vec![false; rank];
    for &a in axes {
        marked[axis(a, rank)?] = true;
    }
    let mut dims = x.shape.iter();
    Ok(marked
        .iter()
        .map(|&m| {
            if m {
                1
            } else {
                dims.next().copied().unwrap_or(1)
            }
        })
        .collect())
}

pub(super) fn squeeze(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Vec<i64>, String> {
    let rank = x.shape.len();
    let mut drop = vec![false; rank];
    match list(node, inputs, 1, "axes", opset >= 13)? {
        Some(axes) => {
            for &a in axes {
                drop[axis(a, rank)?] = true;
            }
        }
        None => drop
            .iter_mut()
            .zip(&x.shape)
            .for_each(|(d, &s)| *d = s == 1),
    }
    Ok(x.shape
        .iter()
        .zip(&drop)
        .filter(|(_, &d)| !d)
        .map(|(&s, _)| s)
        .collect())
}

pub(super) fn reduce(
    node: &Node,
    x: &Info,
    inputs: &[Option<&Info>],
    opset: i64,
) -> Result<Out, String> {
    let op = node.op_type.as_str();
    let rank = x.shape.len();
    let keep = node.int("keepdims", 1) != 0;
    let arg = op.starts_with("Arg");
    let from_input = (op == "ReduceSum" && opset >= 13) || (!arg && opset >= 18);
    let single = [node.int("axis", 0)];
    let axes = if arg {
        Some(&single[..])
    } else {
        list(node, inputs, 1, "axes", from_input)?
    };
    let mut marked = vec![false; rank];
    match axes {
        Some(axes) if !axes.is_empty() => {
            for &a in axes {
                marked[axis(a, rank)?] = true;
            }
        }
        _ if node.int("noop_with_empty_axes", 0) != 0 => {}
        _ => marked.iter_mut().for_each(|m| *m = true),
    }
    let shape = x
        .shape
        .iter()
        .zip(&marked)
        .filter(|(_, &m)| keep || !m)
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect();
    Ok(vec![(if arg { INT64 } else { x.dtype }, shape)])
}

#[cfg(test)]
mod tests {
    use super::slice_len;

    #[test]
    fn slices_clamp_like_numpy() {
        assert_eq!(slice_len(10, 0, i64::MAX, 1).unwrap(), 10);
        assert_eq!(slice_len(10, -3, -1, 1).unwrap(), 2);
        assert_eq!(slice_len(10, 1, 10, 3).unwrap(), 3);
        assert_eq!(slice_len(10, -1, i64::MIN, -1).unwrap(), 10);
        assert_eq!(slice_len(10, 8, 2, 1).unwrap(), 0);
        assert!(slice_len(10, 0, 5, 0).is_err());
    }
}
