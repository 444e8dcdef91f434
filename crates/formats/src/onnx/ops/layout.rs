//! Ops that join, split, reshape, slice, pad or index tensors, and the ops that
//! make shape values (`Shape`, `Size`, `Range`, `ConstantOfShape`, `Constant`).

use super::{Ctx, Registry, DATA_DEPENDENT, ONNX};
use crate::onnx::dtype::{FLOAT, INT64};
use crate::onnx::shape::{
    add, axes, axis, broadcast, mul, product, shape_range, slice_len, with_dim, Out,
};

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["Reshape"], reshape);
    r.add(ONNX, &["Flatten"], flatten);
    r.add(ONNX, &["Transpose"], transpose);
    r.add(ONNX, &["Concat"], concat);
    r.add(ONNX, &["Split"], split);
    r.add(ONNX, &["Slice"], slice);
    r.add(ONNX, &["Pad"], pad);
    r.add(ONNX, &["Squeeze"], squeeze);
    r.add(ONNX, &["Unsqueeze"], unsqueeze);
    r.add(ONNX, &["Expand"], expand);
    r.add(ONNX, &["Tile"], tile);
    r.add(ONNX, &["Shape"], shape);
    r.add(ONNX, &["Size"], size);
    r.add(ONNX, &["Constant"], constant);
    r.add(ONNX, &["ConstantOfShape"], constant_of_shape);
    r.add(ONNX, &["Range"], range);
    r.add(ONNX, &["Gather"], gather);
    r.add(ONNX, &["GatherElements"], gather_elements);
    r.add(ONNX, &["GatherND"], gather_nd);
    r.add(ONNX, &["OneHot"], one_hot);
    r.add(ONNX, &["DepthToSpace", "SpaceToDepth"], depth_space);
    r.add(ONNX, &["CenterCropPad"], center_crop_pad);
}

fn reshape(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let target = c.list(1, "shape", c.opset >= 5)?.ok_or("no target shape")?;
    let allow_zero = c.int("allowzero", 0) != 0;
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
    let total = product(&x.shape)?;
    if let Some(i) = infer_at {
        let known = product(&shape)?;
        if known == 0 || total % known != 0 {
            return Err(format!("{total} elements do not reshape to {target:?}"));
        }
        shape[i] = total / known;
    } else if product(&shape)? != total {
        return Err(format!("{total} elements do not reshape to {target:?}"));
    }
    Ok(vec![(x.dtype, shape)])
}

fn flatten(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let (a, r) = (c.int("axis", 1), x.rank() as i64);
    if a < -r || a > r {
        return Err(format!("axis {a} is out of range for rank {r}"));
    }
    let a = (if a < 0 { a + r } else { a }) as usize;
    Ok(vec![(
        x.dtype,
        vec![product(&x.shape[..a])?, product(&x.shape[a..])?],
    )])
}

fn transpose(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let reversed: Vec<i64> = (0..x.rank() as i64).rev().collect();
    let perm = c.ints("perm").unwrap_or(&reversed);
    if perm.len() != x.rank() {
        return Err(format!("perm {perm:?} for rank {}", x.rank()));
    }
    let shape = axes(perm, x.rank())?.iter().map(|&a| x.shape[a]).collect();
    Ok(vec![(x.dtype, shape)])
}

fn concat(c: &Ctx) -> Result<Out, String> {
    let parts: Vec<_> = c.inputs.iter().flatten().collect();
    let first = parts.first().ok_or("no inputs")?;
    let a = axis(c.int("axis", 0), first.rank())?;
    let mut shape = first.shape.clone();
    shape[a] = 0;
    for p in &parts {
        if p.rank() != shape.len() {
            return Err("inputs of different ranks".into());
        }
        // every dimension but the axis's must agree (no broadcasting)
        if let Some(i) = (0..shape.len()).find(|&i| i != a && p.shape[i] != first.shape[i]) {
            return Err(format!(
                "the inputs differ in dimension {i} ({:?} and {:?}), not only along axis {a}",
                first.shape, p.shape
            ));
        }
        shape[a] = add(shape[a], p.shape[a])?;
    }
    Ok(vec![(first.dtype, shape)])
}

fn split(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let a = axis(c.int("axis", 0), x.rank())?;
    let n = c.n_out() as i64;
    let dim = x.shape[a];
    let sizes: Vec<i64> = match c.list(1, "split", c.opset >= 13)? {
        Some(s) if !s.is_empty() => s,
        _ => {
            let parts = if c.opset >= 18 {
                c.int("num_outputs", n)
            } else {
                n
            };
            if parts <= 0 {
                return Err("no outputs".into());
            }
            let chunk = dim / parts + i64::from(dim % parts != 0);
            (0..n).map(|i| chunk.min(dim - chunk * i).max(0)).collect()
        }
    };
    if sizes.iter().sum::<i64>() != dim {
        return Err(format!("split {sizes:?} does not add up to {dim}"));
    }
    Ok(sizes
        .iter()
        .map(|&s| (x.dtype, with_dim(&x.shape, a, s)))
        .collect())
}

fn slice(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let new = c.opset >= 10;
    let starts = c.list(1, "starts", new)?.ok_or("no starts")?;
    let ends = c.list(2, "ends", new)?.ok_or("no ends")?;
    let all: Vec<i64> = (0..starts.len() as i64).collect();
    let axes_ = c.list(3, "axes", new)?.unwrap_or(all);
    let steps = if new { c.opt_values(4, "steps")? } else { None };
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes_.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps differ in length".into());
    }
    let mut shape = x.shape.clone();
    for (i, &a) in axes(&axes_, x.rank())?.iter().enumerate() {
        shape[a] = slice_len(x.shape[a], starts[i], ends[i], steps[i])?;
    }
    Ok(vec![(x.dtype, shape)])
}

fn pad(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let pads = c.list(1, "pads", c.opset >= 11)?.ok_or("no pads")?;
    let all: Vec<i64> = (0..x.rank() as i64).collect();
    let which = if c.opset >= 18 {
        c.opt_values(3, "axes")?.unwrap_or(all)
    } else {
        all
    };
    if pads.len() != 2 * which.len() {
        return Err(format!("{} pads for {} axes", pads.len(), which.len()));
    }
    let mut shape = x.shape.clone();
    // a reflection repeats no edge element: it needs more elements than it pads
    let reflect = c.string("mode").as_deref() == Some("reflect");
    for (i, a) in axes(&which, x.rank())?.into_iter().enumerate() {
        let most = pads[i].max(pads[i + which.len()]);
        if reflect && most > 0 && most >= shape[a] {
            return Err(format!(
                "a reflection of {most} does not fit the input of {} along axis {a}",
                shape[a]
            ));
        }
        let grown = i128::from(shape[a]) + i128::from(pads[i]) + i128::from(pads[i + which.len()]);
        shape[a] = i64::try_from(grown).map_err(|_| "a dimension overflows")?;
    }
    Ok(vec![(x.dtype, shape)])
}

fn squeeze(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let drop = match c.list(1, "axes", c.opset >= 13)? {
        Some(list) => {
            let a = axes(&list, x.rank())?;
            if let Some(&bad) = a.iter().find(|&&a| x.shape[a] != 1) {
                return Err(format!("axis {bad} has {} elements, not 1", x.shape[bad]));
            }
            a
        }
        None => (0..x.rank()).filter(|&a| x.shape[a] == 1).collect(),
    };
    let shape = (0..x.rank())
        .filter(|a| !drop.contains(a))
        .map(|a| x.shape[a])
        .collect();
    Ok(vec![(x.dtype, shape)])
}

fn unsqueeze(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let list = c.list(1, "axes", c.opset >= 13)?.ok_or("no axes")?;
    let rank = x.rank() + list.len();
    let marked = axes(&list, rank)?;
    let mut dims = x.shape.iter();
    let shape = (0..rank)
        .map(|a| {
            if marked.contains(&a) {
                1
            } else {
                dims.next().copied().unwrap_or(1)
            }
        })
        .collect();
    Ok(vec![(x.dtype, shape)])
}

fn expand(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let to = c.values(1, "shape")?;
    Ok(vec![(x.dtype, broadcast(&[&x.shape, &to])?)])
}

fn tile(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let reps = c.values(1, "repeats")?;
    if reps.len() != x.rank() {
        return Err(format!("{} repeats for rank {}", reps.len(), x.rank()));
    }
    let shape = x
        .shape
        .iter()
        .zip(&reps)
        .map(|(&d, &r)| mul(d, r))
        .collect::<Result<_, _>>()?;
    Ok(vec![(x.dtype, shape)])
}

fn shape(c: &Ctx) -> Result<Out, String> {
    let n = shape_range(c.node, c.x(0)?.rank()).len();
    Ok(vec![(INT64, vec![n as i64])])
}

fn size(_: &Ctx) -> Result<Out, String> {
    Ok(vec![(INT64, vec![])])
}

fn constant(c: &Ctx) -> Result<Out, String> {
    let a = c.node.attributes.first().ok_or("no value attribute")?;
    Ok(vec![match a.name.as_str() {
        "value" => {
            let t = a.t.as_ref().ok_or("no value tensor")?;
            (t.data_type, t.dims.clone())
        }
        "value_float" => (FLOAT, vec![]),
        "value_int" => (INT64, vec![]),
        "value_floats" => (FLOAT, vec![a.floats.len() as i64]),
        "value_ints" => (INT64, vec![a.ints.len() as i64]),
        "value_string" => (8, vec![]),
        "value_strings" => (8, vec![a.strings as i64]),
        other => return Err(format!("a Constant with attribute `{other}`")),
    }])
}

fn constant_of_shape(c: &Ctx) -> Result<Out, String> {
    let shape = c.values(0, "shape")?;
    let dtype = c.attr("value").and_then(|a| a.t.as_ref());
    Ok(vec![(dtype.map_or(FLOAT, |t| t.data_type), shape)])
}

fn range(c: &Ctx) -> Result<Out, String> {
    let dtype = c.x(0)?.dtype;
    let (s, l, d) = (
        c.floats(0, "start")?,
        c.floats(1, "limit")?,
        c.floats(2, "delta")?,
    );
    let (s, l, d) = (
        *s.first().ok_or("an empty start")?,
        *l.first().ok_or("an empty limit")?,
        *d.first().ok_or("an empty delta")?,
    );
    if d == 0.0 {
        return Err("a delta of 0".into());
    }
    let n = ((l - s) / d).ceil().max(0.0);
    if !n.is_finite() || n > 1e15 {
        return Err(format!("a range of {n} elements"));
    }
    Ok(vec![(dtype, vec![n as i64])])
}

fn gather(c: &Ctx) -> Result<Out, String> {
    let (data, indices) = (c.x(0)?, c.x(1)?);
    let a = axis(c.int("axis", 0), data.rank())?;
    let mut shape = data.shape[..a].to_vec();
    shape.extend_from_slice(&indices.shape);
    shape.extend_from_slice(&data.shape[a + 1..]);
    Ok(vec![(data.dtype, shape)])
}

fn gather_elements(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(c.x(0)?.dtype, c.x(1)?.shape.clone())])
}

fn gather_nd(c: &Ctx) -> Result<Out, String> {
    let (data, idx) = (c.x(0)?, c.x(1)?);
    let b = usize::try_from(c.int("batch_dims", 0)).map_err(|_| "negative batch_dims")?;
    let k = *idx.shape.last().ok_or("indices of rank 0")?;
    let k = usize::try_from(k).map_err(|_| "a negative index depth")?;
    if b + k > data.rank() || b >= idx.rank() {
        return Err(format!("indices of depth {k} into rank {}", data.rank()));
    }
    let mut shape = idx.shape[..idx.rank() - 1].to_vec();
    shape.extend_from_slice(&data.shape[b + k..]);
    Ok(vec![(data.dtype, shape)])
}

fn one_hot(c: &Ctx) -> Result<Out, String> {
    let (idx, values) = (c.x(0)?, c.x(2)?);
    let depth = c.floats(1, "depth")?;
    let depth = *depth.first().ok_or("an empty depth")? as i64;
    let rank = idx.rank() + 1;
    let a = axis(c.int("axis", -1), rank)?;
    let mut shape = idx.shape.clone();
    shape.insert(a, depth);
    Ok(vec![(values.dtype, shape)])
}

fn depth_space(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let b = c.int("blocksize", 0);
    if x.rank() != 4 || b <= 0 {
        return Err("needs a 4-D input and a positive blocksize".into());
    }
    let s = &x.shape;
    let shape = if c.node.op_type == "DepthToSpace" {
        if s[1] % (b * b) != 0 {
            return Err(format!("{} channels for blocksize {b}", s[1]));
        }
        vec![s[0], s[1] / (b * b), mul(s[2], b)?, mul(s[3], b)?]
    } else {
        if s[2] % b != 0 || s[3] % b != 0 {
            return Err(format!("{}x{} for blocksize {b}", s[2], s[3]));
        }
        vec![s[0], mul(s[1], b * b)?, s[2] / b, s[3] / b]
    };
    Ok(vec![(x.dtype, shape)])
}

fn center_crop_pad(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let to = c.values(1, "shape")?;
    let all: Vec<i64> = (0..x.rank() as i64).collect();
    let which = c.ints("axes").map_or(all, <[i64]>::to_vec);
    if which.len() != to.len() {
        return Err(format!("{} sizes for {} axes", to.len(), which.len()));
    }
    let mut shape = x.shape.clone();
    for (a, &d) in axes(&which, x.rank())?.into_iter().zip(&to) {
        shape[a] = d;
    }
    Ok(vec![(x.dtype, shape)])
}

/// Ops whose output size depends on input values, not only shapes.
pub fn data_dependent(what: &str) -> String {
    format!("{DATA_DEPENDENT}: {what}")
}
