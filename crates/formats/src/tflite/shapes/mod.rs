//! Shape rules of TFLite's builtin operators, looked up by op name in
//! [`RULES`](table::RULES).
//!
//! A rule gives the dimensions of an op's outputs from the dimensions of its
//! inputs, its `builtin_options` and the values of its constant inputs (a
//! `RESHAPE`'s new shape, a `PAD`'s paddings ...), as the kernels' `Prepare`
//! computes them. Rules also compute the values of small integer tensors where
//! they can (`SHAPE`, `STRIDED_SLICE`, `PACK`, integer arithmetic ...), so that a
//! shape computed in the graph (`SHAPE` -> `STRIDED_SLICE` -> `PACK` ->
//! `RESHAPE`) follows a new input shape. Inputs are positional as in the model:
//! an absent optional input (`-1`) is `None`.
//!
//! Errors are plain messages; the importer adds the op, its index and the tensor.
//! All arithmetic is checked: a hostile file gives an error, never a panic.
//!
//! The rules sit one family per file (`conv`, `elementwise`, `layout`, `slicing`,
//! `reductions`, `values`), a rule beside its neighbours of the same family;
//! `table` lists them by op name. This module holds what they share: the types a
//! rule reads and returns, and the checked arithmetic; its tests run rules together
//! through the table.

mod conv;
mod elementwise;
mod layout;
mod reductions;
mod slicing;
mod table;
mod values;

use super::options::Opts;
pub use super::options::MAX_RANK;
pub use table::rule;

/// Largest number of elements of a value memplan reads or computes.
pub const MAX_VALUE: usize = 4096;

type R<T> = Result<T, String>;

/// A rule: the outputs of an op, one per output of the op.
pub type Rule = fn(&Ctx) -> R<Vec<Out>>;

/// An input as a rule sees it: its dimensions and, when known, its values.
#[derive(Clone, Copy, Debug)]
pub struct In<'a> {
    pub dims: &'a [i64],
    pub value: Option<&'a [i64]>,
}

/// An output: its dimensions and, for a small integer tensor, its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub dims: Vec<i64>,
    pub value: Option<Vec<i64>>,
}

/// What a rule reads about one op.
pub struct Ctx<'a> {
    pub inputs: &'a [Option<In<'a>>],
    /// The number of outputs the op has.
    pub outputs: usize,
    pub opts: Opts<'a>,
    /// `custom_options` bytes (custom ops).
    pub custom: Option<&'a [u8]>,
}

// ---------------------------------------------------------------- helpers

impl<'a> Ctx<'a> {
    fn input(&self, i: usize) -> R<In<'a>> {
        self.inputs
            .get(i)
            .copied()
            .flatten()
            .ok_or_else(|| format!("it has no input {i}"))
    }

    fn has(&self, i: usize) -> bool {
        self.inputs.get(i).is_some_and(|x| x.is_some())
    }

    fn dims(&self, i: usize) -> R<&'a [i64]> {
        Ok(self.input(i)?.dims)
    }

    /// The dimensions of input `i`, which must have rank `rank`.
    fn ranked(&self, i: usize, rank: usize) -> R<&'a [i64]> {
        let d = self.dims(i)?;
        if d.len() != rank {
            return Err(format!(
                "input {i} has rank {} ({}), not {rank}",
                d.len(),
                show(d)
            ));
        }
        Ok(d)
    }

    /// The values of input `i` (its `what`).
    fn value(&self, i: usize, what: &str) -> R<&'a [i64]> {
        self.input(i)?.value.ok_or_else(|| {
            format!(
                "its {what} (input {i}) is computed at run time, from values memplan does not know"
            )
        })
    }

    /// The single value of input `i` (a scalar or a one-element vector).
    fn scalar(&self, i: usize, what: &str) -> R<i64> {
        match self.value(i, what)? {
            [v] => Ok(*v),
            v => Err(format!(
                "its {what} (input {i}) holds {} values, not one",
                v.len()
            )),
        }
    }
}

/// `[1, 2, 3]`.
pub fn show(d: &[i64]) -> String {
    let parts: Vec<String> = d.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn out(dims: Vec<i64>) -> Out {
    Out { dims, value: None }
}

fn one(dims: Vec<i64>) -> R<Vec<Out>> {
    Ok(vec![out(dims)])
}

/// An output with a value, kept only when it fits its dimensions.
fn valued(dims: Vec<i64>, value: Option<Vec<i64>>) -> Out {
    let fits = |v: &Vec<i64>| v.len() <= MAX_VALUE && numel(&dims).ok() == Some(v.len() as i64);
    let value = value.filter(fits);
    Out { dims, value }
}

fn too_large() -> String {
    "a dimension overflows".to_string()
}

fn add_(a: i64, b: i64) -> R<i64> {
    a.checked_add(b).ok_or_else(too_large)
}

fn sub_(a: i64, b: i64) -> R<i64> {
    a.checked_sub(b).ok_or_else(too_large)
}

fn mul_(a: i64, b: i64) -> R<i64> {
    a.checked_mul(b).ok_or_else(too_large)
}

fn numel(d: &[i64]) -> R<i64> {
    d.iter().try_fold(1i64, |acc, &x| mul_(acc, x))
}

/// `a` as an axis of a tensor of rank `rank` (negative counts from the end).
fn axis(a: i64, rank: usize) -> R<usize> {
    let r = rank as i64;
    let b = if a < 0 { a + r } else { a };
    if (0..r).contains(&b) {
        Ok(b as usize)
    } else {
        Err(format!("axis {a} is out of range for rank {rank}"))
    }
}

/// NumPy broadcasting of two shapes.
fn broadcast(a: &[i64], b: &[i64]) -> R<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut outd = vec![0; n];
    for (i, o) in outd.iter_mut().enumerate() {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(format!(
                    "shapes {} and {} do not broadcast",
                    show(a),
                    show(b)
                ))
            }
        };
    }
    Ok(outd)
}

fn positive(v: i64, what: &str) -> R<i64> {
    if v > 0 {
        Ok(v)
    } else {
        Err(format!("its {what} is {v}, not positive"))
    }
}

/// The output size of a convolution or pool along one axis (TFLite's
/// `ComputeOutSize`): `padding` 0 is SAME, 1 is VALID.
fn window(size: i64, filter: i64, stride: i64, dilation: i64, padding: i64) -> R<i64> {
    let stride = positive(stride, "stride")?;
    let dilation = positive(dilation, "dilation")?;
    let filter = positive(filter, "filter size")?;
    let effective = add_(mul_(filter - 1, dilation)?, 1)?;
    match padding {
        0 => Ok(add_(size, stride - 1)? / stride),
        1 => Ok(sub_(add_(size, stride)?, effective)?.max(0) / stride),
        p => Err(format!("padding {p} is neither SAME (0) nor VALID (1)")),
    }
}

#[cfg(test)]
mod tests {
    use super::table::RULES;
    use super::*;

    fn run(kind: &str, inputs: &[(&[i64], Option<&[i64]>)], outputs: usize) -> R<Vec<Out>> {
        let ins: Vec<Option<In>> = inputs
            .iter()
            .map(|&(dims, value)| Some(In { dims, value }))
            .collect();
        let c = Ctx {
            inputs: &ins,
            outputs,
            opts: Opts::default(),
            custom: None,
        };
        rule(kind).expect("a rule")(&c)
    }

    #[test]
    fn every_rule_is_listed_once() {
        for (i, (k, _)) in RULES.iter().enumerate() {
            assert!(
                RULES[..i].iter().all(|(o, _)| o != k),
                "{k} is listed twice"
            );
        }
        assert!(rule("NON_MAX_SUPPRESSION_V4").is_none());
    }

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast(&[2, 3], &[4]).is_err());
    }

    #[test]
    fn windows_follow_tflite() {
        assert_eq!(window(224, 3, 2, 1, 0).unwrap(), 112);
        assert_eq!(window(225, 3, 2, 1, 0).unwrap(), 113);
        assert_eq!(window(224, 3, 2, 1, 1).unwrap(), 111);
        assert_eq!(window(10, 3, 1, 2, 1).unwrap(), 6);
        assert_eq!(window(2, 5, 1, 1, 1).unwrap(), 0);
        assert!(window(8, 3, 0, 1, 0).is_err());
        assert!(window(8, 3, 1, 1, 7).is_err());
    }

    #[test]
    fn a_computed_shape_flows_to_a_reshape() {
        // SHAPE -> STRIDED_SLICE [0:1] shrink -> PACK with 12 -> RESHAPE
        let s = run("SHAPE", &[(&[6, 4, 3], None)], 1).unwrap();
        assert_eq!(s[0].value, Some(vec![6, 4, 3]));
        let tail = run(
            "STRIDED_SLICE",
            &[
                (&[3], Some(&[6, 4, 3])),
                (&[1], Some(&[1])),
                (&[1], Some(&[3])),
                (&[1], Some(&[1])),
            ],
            1,
        )
        .unwrap();
        assert_eq!(tail[0], valued(vec![2], Some(vec![4, 3])));
        let prod = run(
            "REDUCE_PROD",
            &[(&[2], Some(&[4, 3])), (&[1], Some(&[0]))],
            1,
        )
        .unwrap();
        assert_eq!(prod[0], valued(vec![], Some(vec![12])));
        let packed = run("PACK", &[(&[], Some(&[6])), (&[], Some(&[12]))], 1).unwrap();
        assert_eq!(packed[0], valued(vec![2], Some(vec![6, 12])));
        let r = run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[6, 12]))], 1).unwrap();
        assert_eq!(r[0].dims, vec![6, 12]);
        let r = run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[-1, 8]))], 1).unwrap();
        assert_eq!(r[0].dims, vec![9, 8]);
        assert!(run("RESHAPE", &[(&[6, 4, 3], None), (&[2], Some(&[5, 8]))], 1).is_err());
    }

    #[test]
    fn strided_slices_clamp_step_and_reverse() {
        let x: &[i64] = &[10, 7];
        let ss = |b: &[i64], e: &[i64], s: &[i64]| {
            run(
                "STRIDED_SLICE",
                &[(x, None), (&[2], Some(b)), (&[2], Some(e)), (&[2], Some(s))],
                1,
            )
            .unwrap()[0]
                .dims
                .clone()
        };
        assert_eq!(ss(&[0, 0], &[10, 7], &[1, 1]), vec![10, 7]);
        assert_eq!(ss(&[1, 0], &[100, 7], &[3, 2]), vec![3, 4]);
        assert_eq!(ss(&[-1, 6], &[-11, -8], &[-1, -2]), vec![10, 4]);
        assert_eq!(ss(&[5, 0], &[2, 7], &[1, 1]), vec![0, 7]);
        let v = run(
            "STRIDED_SLICE",
            &[
                (&[4], Some(&[1, 2, 3, 4])),
                (&[1], Some(&[-1])),
                (&[1], Some(&[0])),
                (&[1], Some(&[-2])),
            ],
            1,
        )
        .unwrap();
        assert_eq!(v[0], valued(vec![2], Some(vec![4, 2])));
    }

    #[test]
    fn hostile_values_give_errors_not_panics() {
        let big: &[i64] = &[i64::MAX, i64::MAX];
        assert!(run("PAD", &[(&[2], None), (&[2], Some(&[i64::MAX, 1]))], 1).is_err());
        assert!(run("TILE", &[(big, None), (&[2], Some(&[2, 2]))], 1).is_err());
        assert!(run("RESHAPE", &[(big, None), (&[1], Some(&[-1]))], 1).is_err());
        assert!(run("TRANSPOSE", &[(&[2, 3], None), (&[2], Some(&[0, 0]))], 1).is_err());
        assert!(run("SPLIT", &[(&[], Some(&[0])), (&[7], None)], 2).is_err());
        assert!(run(
            "RANGE",
            &[
                (&[], Some(&[i64::MIN])),
                (&[], Some(&[i64::MAX])),
                (&[], Some(&[1]))
            ],
            1
        )
        .is_err());
        assert!(run("CONCATENATION", &[(&[2, 3], None), (&[2, 4], None)], 1).is_err());
        let cat = run("CONCATENATION", &[(&[2, 3], None), (&[4, 3], None)], 1).unwrap();
        assert_eq!(cat[0].dims, vec![6, 3]);
        assert!(run(
            "GATHER",
            &[(&[4], Some(&[1, 2, 3, 4])), (&[1], Some(&[9]))],
            1
        )
        .is_ok());
        assert!(run("ADD", &[(&[], Some(&[i64::MAX])), (&[], Some(&[1]))], 1).is_ok());
    }
}
