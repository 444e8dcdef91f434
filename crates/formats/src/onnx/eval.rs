//! The shape-value evaluator: computes the contents of the small constants that
//! exporters build shapes with (`Shape`, `Gather`, `Concat`, `Where(Equal(..))`,
//! `Range` ...), so that ops reading a shape from an input (`Reshape`, `Expand`,
//! `Pad`, `Resize`, `Slice` ...) resolve. Only folded nodes are evaluated, only
//! outputs of at most [`MAX_ELEMENTS`] elements, and the importer bounds the total.
//!
//! Why one long file: one small evaluator per op that builds shapes, over the same
//! bounded element type; the tests are the last 110 lines.

use super::dtype;
use super::proto::Node;
use super::shape::{axis, shape_range, slice_range, Data, Info, Out};

/// Most elements one evaluated value may hold.
pub const MAX_ELEMENTS: usize = 1 << 16;

/// Contents of each output of the folded `node`, where computable.
pub fn eval(node: &Node, inputs: &[Option<&Info>], outs: &Out) -> Vec<Option<Data>> {
    let mut result = vec![None; outs.len()];
    let Some((dtype, shape)) = outs.first() else {
        return result;
    };
    let count = shape
        .iter()
        .try_fold(1usize, |p, &d| p.checked_mul(usize::try_from(d).ok()?));
    if count.is_none_or(|n| n > MAX_ELEMENTS) {
        return result;
    }
    if !(dtype::is_integer(*dtype) || dtype::is_float(*dtype)) {
        return result;
    }
    let e = Eval {
        node,
        inputs,
        dtype: *dtype,
        shape,
    };
    if let Some(d) = e.run() {
        if d.len() == count.unwrap_or(0) {
            result[0] = Some(convert(d, *dtype));
        }
    }
    result
}

struct Eval<'a> {
    node: &'a Node,
    inputs: &'a [Option<&'a Info>],
    dtype: i32,
    shape: &'a [i64],
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn dims(shape: &[i64]) -> Option<Vec<usize>> {
    shape.iter().map(|&d| usize::try_from(d).ok()).collect()
}

/// For every element of `out`, the flat index of the element of `x` that
/// broadcasting reads.
fn broadcast_map(x: &[i64], out: &[i64]) -> Option<Vec<usize>> {
    let (x, out) = (dims(x)?, dims(out)?);
    if x.len() > out.len() {
        return None;
    }
    let pad = out.len() - x.len();
    let xs = strides(&x);
    let n: usize = out.iter().product();
    let os = strides(&out);
    (0..n)
        .map(|flat| {
            let mut idx = 0;
            for (k, (&o, &st)) in out.iter().zip(&os).enumerate() {
                let i = (flat / st) % o.max(1);
                if k >= pad {
                    let d = x[k - pad];
                    if d != 1 && d != o {
                        return None;
                    }
                    if d != 1 {
                        idx += i * xs[k - pad];
                    }
                }
            }
            Some(idx)
        })
        .collect()
}

/// `Where` over broadcast index `maps` (condition, x, y): each element of `a` or
/// `b` as the condition says.
fn choose<T: Copy>(cond: &[f64], maps: [&[usize]; 3], a: &[T], b: &[T]) -> Vec<T> {
    let [mc, mx, my] = maps;
    (0..mc.len())
        .map(|e| {
            if cond[mc[e]] != 0.0 {
                a[mx[e]]
            } else {
                b[my[e]]
            }
        })
        .collect()
}

fn pick(d: &Data, idx: &[usize]) -> Option<Data> {
    Some(match d {
        Data::Int(v) => Data::Int(
            idx.iter()
                .map(|&i| v.get(i).copied())
                .collect::<Option<_>>()?,
        ),
        Data::Float(v) => Data::Float(
            idx.iter()
                .map(|&i| v.get(i).copied())
                .collect::<Option<_>>()?,
        ),
    })
}

/// Values converted to the element type `dtype` (integers truncate, bool is 0/1).
fn convert(d: Data, dtype: i32) -> Data {
    if dtype == dtype::BOOL {
        return Data::Int(d.floats().iter().map(|&f| i64::from(f != 0.0)).collect());
    }
    match d {
        Data::Float(v) if dtype::is_integer(dtype) => Data::Int(
            v.iter()
                .map(|&f| if f.is_finite() { f as i64 } else { 0 })
                .collect(),
        ),
        Data::Int(v) if dtype::is_float(dtype) => {
            Data::Float(v.iter().map(|&i| i as f64).collect())
        }
        d => d,
    }
}

impl<'a> Eval<'a> {
    fn info(&self, i: usize) -> Option<&'a Info> {
        self.inputs.get(i).copied().flatten()
    }

    fn data(&self, i: usize) -> Option<&'a Data> {
        self.info(i)?.data.as_ref()
    }

    fn ints(&self, i: usize) -> Option<Vec<i64>> {
        self.info(i)?.ints()
    }

    fn run(&self) -> Option<Data> {
        let op = self.node.op_type.as_str();
        match op {
            "Shape" => {
                let s = &self.info(0)?.shape;
                Some(Data::Int(s[shape_range(self.node, s.len())].to_vec()))
            }
            "Size" => Some(Data::Int(vec![self
                .info(0)?
                .shape
                .iter()
                .try_fold(1i64, |p, &d| p.checked_mul(d))?])),
            "Constant" => constant(self.node),
            "Identity" | "Cast" | "CastLike" | "Reshape" | "Flatten" | "Unsqueeze" | "Squeeze"
            | "Dropout" => self.data(0).cloned(),
            "ConstantOfShape" => {
                let n: usize = dims(self.shape)?.iter().product();
                let value = match self.node.attribute("value").and_then(|a| a.t.as_ref()) {
                    Some(t) => match (&t.ints, &t.floats) {
                        (Some(v), _) => Data::Int(vec![*v.first()?]),
                        (_, Some(v)) => Data::Float(vec![*v.first()?]),
                        _ => return None,
                    },
                    None => Data::Float(vec![0.0]),
                };
                pick(&value, &vec![0; n])
            }
            "Gather" => self.gather(),
            "Slice" => self.slice(),
            "Concat" => self.concat(),
            "Transpose" => self.transpose(),
            "Expand" => pick(
                self.data(0)?,
                &broadcast_map(&self.info(0)?.shape, self.shape)?,
            ),
            "Tile" => self.tile(),
            "Range" => self.range(),
            "Neg" | "Abs" | "Not" | "Sign" | "Floor" | "Ceil" | "Round" | "Sqrt" | "Relu"
            | "Reciprocal" => self.unary(op),
            "Add" | "Sub" | "Mul" | "Div" | "Mod" | "Pow" | "Max" | "Min" | "Sum" | "Equal"
            | "Greater" | "Less" | "GreaterOrEqual" | "LessOrEqual" | "And" | "Or" | "Xor"
            | "BitwiseAnd" | "BitwiseOr" => self.nary(op),
            "Where" => self.where_(),
            "ReduceProd" | "ReduceSum" | "ReduceMax" | "ReduceMin" => self.reduce(op),
            _ => None,
        }
    }

    fn unary(&self, op: &str) -> Option<Data> {
        match self.data(0)? {
            Data::Int(v) => Some(Data::Int(
                v.iter()
                    .map(|&x| match op {
                        "Neg" => x.checked_neg(),
                        "Abs" => x.checked_abs(),
                        "Not" => Some(i64::from(x == 0)),
                        "Sign" => Some(x.signum()),
                        "Relu" => Some(x.max(0)),
                        "Floor" | "Ceil" | "Round" => Some(x),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            )),
            Data::Float(v) => Some(Data::Float(
                v.iter()
                    .map(|&x| match op {
                        "Neg" => -x,
                        "Abs" => x.abs(),
                        "Not" => f64::from(u8::from(x == 0.0)),
                        "Sign" => {
                            if x == 0.0 {
                                0.0
                            } else {
                                x.signum()
                            }
                        }
                        "Floor" => x.floor(),
                        "Ceil" => x.ceil(),
                        "Round" => x.round_ties_even(),
                        "Sqrt" => x.sqrt(),
                        "Relu" => x.max(0.0),
                        _ => 1.0 / x,
                    })
                    .collect(),
            )),
        }
    }

    /// Broadcasting binary (and variadic `Max`/`Min`/`Sum`) ops.
    fn nary(&self, op: &str) -> Option<Data> {
        let present: Vec<&Info> = self.inputs.iter().flatten().copied().collect();
        let maps: Vec<Vec<usize>> = present
            .iter()
            .map(|i| broadcast_map(&i.shape, self.shape))
            .collect::<Option<_>>()?;
        let datas: Vec<&Data> = present
            .iter()
            .map(|i| i.data.as_ref())
            .collect::<Option<_>>()?;
        let n: usize = dims(self.shape)?.iter().product();
        let all_int = datas.iter().all(|d| matches!(d, Data::Int(_)));
        let fmod = self.node.int("fmod", 0) != 0;
        if all_int {
            let vals: Vec<&Vec<i64>> = datas
                .iter()
                .map(|d| match d {
                    Data::Int(v) => v,
                    _ => unreachable!(),
                })
                .collect();
            let mut out = Vec::with_capacity(n);
            for e in 0..n {
                let mut acc = vals[0][maps[0][e]];
                for k in 1..vals.len() {
                    let y = vals[k][maps[k][e]];
                    acc = int_op(op, acc, y, fmod)?;
                }
                out.push(acc);
            }
            return Some(Data::Int(out));
        }
        let vals: Vec<Vec<f64>> = datas.iter().map(|d| d.floats()).collect();
        let mut out = Vec::with_capacity(n);
        for e in 0..n {
            let mut acc = vals[0][maps[0][e]];
            for k in 1..vals.len() {
                acc = float_op(op, acc, vals[k][maps[k][e]], fmod)?;
            }
            out.push(acc);
        }
        Some(Data::Float(out))
    }

    fn where_(&self) -> Option<Data> {
        let (c, x, y) = (self.info(0)?, self.info(1)?, self.info(2)?);
        let [mc, mx, my] = [c, x, y].map(|i| broadcast_map(&i.shape, self.shape));
        let (mc, mx, my) = (mc?, mx?, my?);
        let cond = c.data.as_ref()?.floats();
        let maps = [&mc[..], &mx[..], &my[..]];
        match (x.data.as_ref()?, y.data.as_ref()?) {
            (Data::Int(a), Data::Int(b)) => Some(Data::Int(choose(&cond, maps, a, b))),
            (a, b) => Some(Data::Float(choose(&cond, maps, &a.floats(), &b.floats()))),
        }
    }

    fn gather(&self) -> Option<Data> {
        let x = self.info(0)?;
        let idx = self.ints(1)?;
        let a = axis(self.node.int("axis", 0), x.rank()).ok()?;
        let s = dims(&x.shape)?;
        let (outer, len, inner) = (
            s[..a].iter().product::<usize>(),
            s[a],
            s[a + 1..].iter().product::<usize>(),
        );
        let mut map = Vec::with_capacity(outer * idx.len() * inner);
        for o in 0..outer {
            for &i in &idx {
                let i = axis(i, len).ok()?;
                map.extend((0..inner).map(|k| (o * len + i) * inner + k));
            }
        }
        pick(self.data(0)?, &map)
    }

    fn slice(&self) -> Option<Data> {
        let x = self.info(0)?;
        let (starts, ends) = if self.node.ints("starts").is_some() {
            (
                self.node.ints("starts")?.to_vec(),
                self.node.ints("ends")?.to_vec(),
            )
        } else {
            (self.ints(1)?, self.ints(2)?)
        };
        let all: Vec<i64> = (0..starts.len() as i64).collect();
        let which = self
            .node
            .ints("axes")
            .map(<[i64]>::to_vec)
            .or_else(|| self.ints(3))
            .unwrap_or(all);
        let steps = self.ints(4).unwrap_or_else(|| vec![1; starts.len()]);
        let s = dims(&x.shape)?;
        let mut first = vec![0i64; s.len()];
        let mut step = vec![1i64; s.len()];
        let mut count: Vec<i64> = x.shape.clone();
        for k in 0..starts.len() {
            let a = axis(*which.get(k)?, s.len()).ok()?;
            let (f, n) = slice_range(x.shape[a], starts[k], *ends.get(k)?, *steps.get(k)?).ok()?;
            (first[a], count[a], step[a]) = (f, n, steps[k]);
        }
        let st = strides(&s);
        let out = dims(&count)?;
        let os = strides(&out);
        let n: usize = out.iter().product();
        let map = (0..n)
            .map(|flat| {
                (0..s.len())
                    .map(|k| {
                        let i = ((flat / os[k]) % out[k].max(1)) as i64;
                        ((first[k] + i * step[k]) as usize) * st[k]
                    })
                    .sum()
            })
            .collect::<Vec<usize>>();
        pick(self.data(0)?, &map)
    }

    fn concat(&self) -> Option<Data> {
        let parts: Vec<&Info> = self.inputs.iter().flatten().copied().collect();
        let first = parts.first()?;
        let a = axis(self.node.int("axis", 0), first.rank()).ok()?;
        let s = dims(&first.shape)?;
        let outer: usize = s[..a].iter().product();
        let all_int = parts.iter().all(|p| matches!(p.data, Some(Data::Int(_))));
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        for o in 0..outer {
            for p in &parts {
                let ps = dims(&p.shape)?;
                let chunk: usize = ps[a..].iter().product();
                let d = p.data.as_ref()?;
                if all_int {
                    let Data::Int(v) = d else { return None };
                    ints.extend_from_slice(v.get(o * chunk..(o + 1) * chunk)?);
                } else {
                    floats.extend_from_slice(d.floats().get(o * chunk..(o + 1) * chunk)?);
                }
            }
        }
        Some(if all_int {
            Data::Int(ints)
        } else {
            Data::Float(floats)
        })
    }

    fn transpose(&self) -> Option<Data> {
        let x = self.info(0)?;
        let s = dims(&x.shape)?;
        let reversed: Vec<i64> = (0..s.len() as i64).rev().collect();
        let perm = self.node.ints("perm").unwrap_or(&reversed);
        let st = strides(&s);
        let out: Vec<usize> = perm
            .iter()
            .map(|&p| s.get(p as usize).copied())
            .collect::<Option<_>>()?;
        let os = strides(&out);
        let n: usize = out.iter().product();
        let map = (0..n)
            .map(|flat| {
                (0..out.len())
                    .map(|k| ((flat / os[k]) % out[k].max(1)) * st[perm[k] as usize])
                    .sum()
            })
            .collect::<Vec<usize>>();
        pick(self.data(0)?, &map)
    }

    fn tile(&self) -> Option<Data> {
        let x = self.info(0)?;
        let s = dims(&x.shape)?;
        let out = dims(self.shape)?;
        let (st, os) = (strides(&s), strides(&out));
        let n: usize = out.iter().product();
        let map = (0..n)
            .map(|flat| {
                (0..out.len())
                    .map(|k| ((flat / os[k]) % out[k].max(1)) % s[k].max(1) * st[k])
                    .sum()
            })
            .collect::<Vec<usize>>();
        pick(self.data(0)?, &map)
    }

    fn range(&self) -> Option<Data> {
        let n: usize = dims(self.shape)?.iter().product();
        match (self.data(0)?, self.data(2)?) {
            (Data::Int(s), Data::Int(d)) => {
                let (s, d) = (*s.first()?, *d.first()?);
                Some(Data::Int((0..n as i64).map(|i| s + i * d).collect()))
            }
            (s, d) => {
                let (s, d) = (*s.floats().first()?, *d.floats().first()?);
                Some(Data::Float((0..n).map(|i| s + i as f64 * d).collect()))
            }
        }
    }

    fn reduce(&self, op: &str) -> Option<Data> {
        let x = self.info(0)?;
        let s = dims(&x.shape)?;
        let list = self
            .node
            .ints("axes")
            .map(<[i64]>::to_vec)
            .or_else(|| self.ints(1));
        let which: Vec<usize> = match list {
            Some(l) if !l.is_empty() => l
                .iter()
                .map(|&a| axis(a, s.len()).ok())
                .collect::<Option<_>>()?,
            _ if self.node.int("noop_with_empty_axes", 0) != 0 => vec![],
            _ => (0..s.len()).collect(),
        };
        let kept: Vec<usize> = (0..s.len())
            .map(|a| if which.contains(&a) { 1 } else { s[a] })
            .collect();
        let (st, ks) = (strides(&s), strides(&kept));
        let n_out: usize = kept.iter().product();
        let vals = self.data(0)?.floats();
        let mut acc: Vec<Option<f64>> = vec![None; n_out];
        for (flat, &v) in vals.iter().enumerate() {
            let o: usize = (0..s.len())
                .map(|k| {
                    if which.contains(&k) {
                        0
                    } else {
                        (flat / st[k]) % s[k] * ks[k]
                    }
                })
                .sum();
            acc[o] = Some(match (acc[o], op) {
                (None, _) => v,
                (Some(a), "ReduceProd") => a * v,
                (Some(a), "ReduceSum") => a + v,
                (Some(a), "ReduceMax") => a.max(v),
                (Some(a), _) => a.min(v),
            });
        }
        let empty = match op {
            "ReduceProd" => 1.0,
            _ => 0.0,
        };
        let out: Vec<f64> = acc.into_iter().map(|a| a.unwrap_or(empty)).collect();
        if dtype::is_integer(self.dtype) {
            out.iter()
                .all(|f| f.abs() < 9.0e15)
                .then(|| Data::Int(out.iter().map(|&f| f as i64).collect()))
        } else {
            Some(Data::Float(out))
        }
    }
}

fn constant(node: &Node) -> Option<Data> {
    let a = node.attributes.first()?;
    match a.name.as_str() {
        "value" => {
            let t = a.t.as_ref()?;
            t.ints
                .clone()
                .map(Data::Int)
                .or_else(|| t.floats.clone().map(Data::Float))
        }
        "value_int" => Some(Data::Int(vec![a.i?])),
        "value_ints" => Some(Data::Int(a.ints.clone())),
        "value_float" => Some(Data::Float(vec![f64::from(a.f?)])),
        "value_floats" => Some(Data::Float(
            a.floats.iter().map(|&f| f64::from(f)).collect(),
        )),
        _ => None,
    }
}

fn int_op(op: &str, x: i64, y: i64, fmod: bool) -> Option<i64> {
    Some(match op {
        "Add" | "Sum" => x.checked_add(y)?,
        "Sub" => x.checked_sub(y)?,
        "Mul" => x.checked_mul(y)?,
        "Div" => x.checked_div(y)?,
        "Mod" if fmod => x.checked_rem(y)?,
        "Mod" => {
            let r = x.checked_rem(y)?;
            if r != 0 && (r < 0) != (y < 0) {
                r + y
            } else {
                r
            }
        }
        "Pow" => x.checked_pow(u32::try_from(y).ok()?)?,
        "Max" => x.max(y),
        "Min" => x.min(y),
        "Equal" => i64::from(x == y),
        "Greater" => i64::from(x > y),
        "Less" => i64::from(x < y),
        "GreaterOrEqual" => i64::from(x >= y),
        "LessOrEqual" => i64::from(x <= y),
        "And" => i64::from(x != 0 && y != 0),
        "Or" => i64::from(x != 0 || y != 0),
        "Xor" => i64::from((x != 0) != (y != 0)),
        "BitwiseAnd" => x & y,
        "BitwiseOr" => x | y,
        _ => return None,
    })
}

fn float_op(op: &str, x: f64, y: f64, fmod: bool) -> Option<f64> {
    let b = |v: bool| f64::from(u8::from(v));
    Some(match op {
        "Add" | "Sum" => x + y,
        "Sub" => x - y,
        "Mul" => x * y,
        "Div" => x / y,
        "Mod" if fmod => x % y,
        "Mod" => x - y * (x / y).floor(),
        "Pow" => x.powf(y),
        "Max" => x.max(y),
        "Min" => x.min(y),
        "Equal" => b(x == y),
        "Greater" => b(x > y),
        "Less" => b(x < y),
        "GreaterOrEqual" => b(x >= y),
        "LessOrEqual" => b(x <= y),
        "And" => b(x != 0.0 && y != 0.0),
        "Or" => b(x != 0.0 || y != 0.0),
        "Xor" => b((x != 0.0) != (y != 0.0)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str) -> Node {
        Node {
            op_type: op.to_string(),
            ..Node::default()
        }
    }

    fn ints(shape: &[i64], v: &[i64]) -> Info {
        Info {
            data: Some(Data::Int(v.to_vec())),
            konst: true,
            ..Info::new(dtype::INT64, shape.to_vec())
        }
    }

    fn run(node: &Node, inputs: &[&Info], out: (i32, &[i64])) -> Option<Data> {
        let refs: Vec<Option<&Info>> = inputs.iter().map(|&i| Some(i)).collect();
        eval(node, &refs, &vec![(out.0, out.1.to_vec())]).remove(0)
    }

    #[test]
    fn broadcasting_arithmetic_and_comparisons() {
        let a = ints(&[3], &[2, -1, 6]);
        let b = ints(&[], &[-1]);
        assert_eq!(
            run(&node("Equal"), &[&a, &b], (dtype::BOOL, &[3])),
            Some(Data::Int(vec![0, 1, 0]))
        );
        assert_eq!(
            run(&node("Mul"), &[&a, &b], (dtype::INT64, &[3])),
            Some(Data::Int(vec![-2, 1, -6]))
        );
        let m = ints(&[3], &[7, -7, 7]);
        let d = ints(&[3], &[2, 2, -2]);
        // integer Mod takes the divisor's sign unless fmod
        assert_eq!(
            run(&node("Mod"), &[&m, &d], (dtype::INT64, &[3])),
            Some(Data::Int(vec![1, 1, -1]))
        );
        assert_eq!(
            run(&node("Div"), &[&m, &d], (dtype::INT64, &[3])),
            Some(Data::Int(vec![3, -3, -3]))
        );
    }

    #[test]
    fn where_gather_slice_concat_transpose() {
        let c = ints(&[3], &[1, 0, 1]);
        let (x, y) = (ints(&[3], &[1, 2, 3]), ints(&[3], &[7, 8, 9]));
        assert_eq!(
            run(&node("Where"), &[&c, &x, &y], (dtype::INT64, &[3])),
            Some(Data::Int(vec![1, 8, 3]))
        );
        let m = ints(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        let idx = ints(&[], &[-1]);
        let mut g = node("Gather");
        g.attributes.push(crate::onnx::proto::Attribute {
            name: "axis".into(),
            i: Some(1),
            ..Default::default()
        });
        assert_eq!(
            run(&g, &[&m, &idx], (dtype::INT64, &[2])),
            Some(Data::Int(vec![3, 6]))
        );
        let (s, e, a) = (ints(&[1], &[1]), ints(&[1], &[i64::MAX]), ints(&[1], &[1]));
        assert_eq!(
            run(&node("Slice"), &[&m, &s, &e, &a], (dtype::INT64, &[2, 2])),
            Some(Data::Int(vec![2, 3, 5, 6]))
        );
        assert_eq!(
            run(&node("Transpose"), &[&m], (dtype::INT64, &[3, 2])),
            Some(Data::Int(vec![1, 4, 2, 5, 3, 6]))
        );
        let mut cat = node("Concat");
        cat.attributes.push(crate::onnx::proto::Attribute {
            name: "axis".into(),
            i: Some(1),
            ..Default::default()
        });
        let col = ints(&[2, 1], &[0, 9]);
        assert_eq!(
            run(&cat, &[&m, &col], (dtype::INT64, &[2, 4])),
            Some(Data::Int(vec![1, 2, 3, 0, 4, 5, 6, 9]))
        );
    }

    #[test]
    fn ranges_reductions_and_the_element_bound() {
        let (s, l, d) = (ints(&[], &[10]), ints(&[], &[0]), ints(&[], &[-3]));
        assert_eq!(
            run(&node("Range"), &[&s, &l, &d], (dtype::INT64, &[4])),
            Some(Data::Int(vec![10, 7, 4, 1]))
        );
        let m = ints(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(
            run(&node("ReduceProd"), &[&m], (dtype::INT64, &[1, 1])),
            Some(Data::Int(vec![720]))
        );
        let big = MAX_ELEMENTS as i64 + 1;
        let shape = ints(&[1], &[big]);
        assert_eq!(
            run(&node("ConstantOfShape"), &[&shape], (dtype::FLOAT, &[big])),
            None,
            "too many elements to keep"
        );
    }
}
