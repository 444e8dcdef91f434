//! What the op handlers share: the facts known about a value ([`Info`]), and the
//! shape arithmetic every family needs (axes, broadcasting, products). Failures
//! are short reasons; the importer names the node and the value.

use super::proto::{Node, MAX_RANK};

/// An output's element type and shape.
pub type Ty = (i32, Vec<i64>);
/// Every output of a node.
pub type Out = Vec<Ty>;

/// Contents of a small constant, as the shape-value evaluator keeps them.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Int(Vec<i64>),
    Float(Vec<f64>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::Int(v) => v.len(),
            Data::Float(v) => v.len(),
        }
    }

    /// The contents as integers (floats only when every one is whole).
    pub fn ints(&self) -> Option<Vec<i64>> {
        match self {
            Data::Int(v) => Some(v.clone()),
            Data::Float(v) => v
                .iter()
                .map(|&f| (f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64))
                .collect(),
        }
    }

    pub fn floats(&self) -> Vec<f64> {
        match self {
            Data::Int(v) => v.iter().map(|&i| i as f64).collect(),
            Data::Float(v) => v.clone(),
        }
    }
}

/// What is known about a value: element type, shape, whether it is a constant,
/// and for small constants their contents.
#[derive(Clone, Debug, Default)]
pub struct Info {
    pub dtype: i32,
    pub shape: Vec<i64>,
    pub data: Option<Data>,
    pub konst: bool,
    /// Its size may exceed the real one: a size that depends on the data planned
    /// at its bound, or a value computed from one (see `monotone`).
    pub bounded: bool,
    /// For a sequence, the shapes of its tensors (of element type `dtype`);
    /// `shape` is then empty.
    pub seq: Option<Vec<Vec<i64>>>,
}

impl Info {
    pub fn new(dtype: i32, shape: Vec<i64>) -> Info {
        Info {
            dtype,
            shape,
            data: None,
            konst: false,
            bounded: false,
            seq: None,
        }
    }

    pub fn sequence(dtype: i32, elems: Vec<Vec<i64>>) -> Info {
        Info {
            seq: Some(elems),
            ..Info::new(dtype, vec![])
        }
    }

    pub fn ty(&self) -> Ty {
        (self.dtype, self.shape.clone())
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Integer contents, when known.
    pub fn ints(&self) -> Option<Vec<i64>> {
        self.data.as_ref().and_then(Data::ints)
    }
}

/// `a` as an index into `rank` axes (negative counts from the end).
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if a < -r || a >= r {
        return Err(format!("axis {a} is out of range for rank {rank}"));
    }
    Ok((if a < 0 { a + r } else { a }) as usize)
}

/// Distinct axes, each normalised; a repeated axis is an error.
pub fn axes(list: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(list.len());
    for &a in list {
        let a = axis(a, rank)?;
        if out.contains(&a) {
            return Err(format!("axis {a} is repeated"));
        }
        out.push(a);
    }
    Ok(out)
}

pub fn mul(a: i64, b: i64) -> Result<i64, String> {
    a.checked_mul(b)
        .ok_or_else(|| "a dimension overflows".to_string())
}

pub fn add(a: i64, b: i64) -> Result<i64, String> {
    a.checked_add(b)
        .ok_or_else(|| "a dimension overflows".to_string())
}

pub fn product(dims: &[i64]) -> Result<i64, String> {
    dims.iter().try_fold(1i64, |p, &d| mul(p, d))
}

/// Multidirectional (numpy) broadcasting of `shapes`.
pub fn broadcast(shapes: &[&[i64]]) -> Result<Vec<i64>, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    for s in shapes {
        for (k, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(format!("shapes {shapes:?} do not broadcast"));
            }
        }
    }
    Ok(out)
}

/// A shape as a handler may return it: rank and dimensions in bounds.
pub fn valid(shape: &[i64]) -> Result<(), String> {
    if shape.len() > MAX_RANK || shape.iter().any(|&d| d < 0) {
        return Err(format!("the inferred shape {shape:?} is invalid"));
    }
    Ok(())
}

/// `x` with axis `a` replaced by `d`.
pub fn with_dim(x: &[i64], a: usize, d: i64) -> Vec<i64> {
    let mut s = x.to_vec();
    s[a] = d;
    s
}

/// Elements kept along one axis of length `d` by `start:end:step`.
pub fn slice_len(d: i64, start: i64, end: i64, step: i64) -> Result<i64, String> {
    Ok(slice_range(d, start, end, step)?.1)
}

/// The first index and the count that `start:end:step` keeps of `d` elements.
pub fn slice_range(d: i64, start: i64, end: i64, step: i64) -> Result<(i64, i64), String> {
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
    let (first, len) = if step > 0 {
        let (s, e) = (s.clamp(0, d), e.clamp(0, d));
        (s, (e - s + step - 1).div_euclid(step))
    } else {
        let (s, e) = (s.clamp(-1, d - 1), e.clamp(-1, d - 1));
        (s, (s - e - step - 1).div_euclid(-step))
    };
    Ok((first as i64, len.max(0) as i64))
}

/// The dimensions `Shape` returns (its `start`/`end` attributes, opset 15).
pub fn shape_range(node: &Node, rank: usize) -> std::ops::Range<usize> {
    let r = rank as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let (s, e) = (clamp(node.int("start", 0)), clamp(node.int("end", r)));
    s..e.max(s)
}

/// `NHWC...` as `NCHW...`.
pub fn to_nchw(x: &[i64]) -> Result<Vec<i64>, String> {
    let (&n, rest) = x.split_first().ok_or("a channels-last input of rank 0")?;
    let (&ch, spatial) = rest.split_last().ok_or("a channels-last input of rank 1")?;
    let mut out = vec![n, ch];
    out.extend_from_slice(spatial);
    Ok(out)
}

/// `NCHW...` as `NHWC...`.
pub fn to_nhwc(y: &[i64]) -> Result<Vec<i64>, String> {
    let [n, ch, spatial @ ..] = y else {
        return Err("a channels-first shape of rank below 2".into());
    };
    let mut out = vec![*n];
    out.extend_from_slice(spatial);
    out.push(*ch);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[&[2, 1, 4], &[3, 1]]).unwrap(), vec![2, 3, 4]);
        assert_eq!(broadcast(&[&[], &[5]]).unwrap(), vec![5]);
        assert!(broadcast(&[&[2], &[3]]).is_err());
        assert_eq!(axis(-1, 3).unwrap(), 2);
        assert!(axis(3, 3).is_err());
        assert!(axes(&[0, -3], 3).is_err());
    }

    #[test]
    fn slices_clamp_like_numpy() {
        assert_eq!(slice_len(10, 0, i64::MAX, 1).unwrap(), 10);
        assert_eq!(slice_len(10, -3, -1, 1).unwrap(), 2);
        assert_eq!(slice_len(10, 1, 10, 3).unwrap(), 3);
        assert_eq!(slice_len(10, -1, i64::MIN, -1).unwrap(), 10);
        assert_eq!(slice_len(10, 8, 2, 1).unwrap(), 0);
        assert!(slice_len(10, 0, 5, 0).is_err());
    }

    #[test]
    fn whole_floats_read_as_integers() {
        assert_eq!(Data::Float(vec![2.0, 3.0]).ints(), Some(vec![2, 3]));
        assert_eq!(Data::Float(vec![1.5]).ints(), None);
    }
}
