//! Reductions, arg-max/min and top-k, losses, and signal processing.

use super::{Ctx, Registry, ONNX};
use crate::onnx::dtype::{FLOAT, INT64};
use crate::onnx::shape::{axes, axis, broadcast, mul, with_dim, Out};

pub fn register(r: &mut Registry) {
    r.add(
        ONNX,
        &[
            "ReduceMean",
            "ReduceSum",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
            "ArgMax",
            "ArgMin",
        ],
        reduce,
    );
    r.add(ONNX, &["TopK"], top_k);
    r.add(
        ONNX,
        &["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"],
        loss,
    );
    r.add(ONNX, &["Einsum"], einsum);
    r.add(ONNX, &["Det"], det);
    r.add(ONNX, &["DFT"], dft);
    r.add(ONNX, &["STFT"], stft);
    r.add(
        ONNX,
        &["HannWindow", "HammingWindow", "BlackmanWindow"],
        window,
    );
    r.add(ONNX, &["MelWeightMatrix"], mel_weight_matrix);
}

/// The shape left after reducing `which` axes of `x` (kept as 1 with `keep`).
pub fn reduced(x: &[i64], which: &[usize], keep: bool) -> Vec<i64> {
    (0..x.len())
        .filter(|a| keep || !which.contains(a))
        .map(|a| if which.contains(&a) { 1 } else { x[a] })
        .collect()
}

fn reduce(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let op = c.node.op_type.as_str();
    let keep = c.int("keepdims", 1) != 0;
    let arg = op.starts_with("Arg");
    if arg {
        let a = axis(c.int("axis", 0), x.rank())?;
        return Ok(vec![(INT64, reduced(&x.shape, &[a], keep))]);
    }
    let from_input = (op == "ReduceSum" && c.opset >= 13) || c.opset >= 18;
    let which = match c.list(1, "axes", from_input)? {
        Some(list) if !list.is_empty() => axes(&list, x.rank())?,
        _ if c.int("noop_with_empty_axes", 0) != 0 => vec![],
        _ => (0..x.rank()).collect(),
    };
    Ok(vec![(x.dtype, reduced(&x.shape, &which, keep))])
}

fn top_k(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let a = axis(c.int("axis", -1), x.rank())?;
    let k = if c.opset >= 10 {
        match c.x(1)?.ints().as_deref() {
            Some(&[k]) => k,
            Some(k) => return Err(format!("k has {} values, not 1", k.len())),
            // k is computed at run time: at most the whole axis
            None => {
                let why = format!("k up to the whole axis of {}", x.shape[a]);
                c.worst_case(0, why.clone());
                c.worst_case(1, why);
                x.shape[a]
            }
        }
    } else {
        c.int("k", -1)
    };
    if k < 0 || k > x.shape[a] {
        return Err(format!("k = {k} for an axis of {}", x.shape[a]));
    }
    let shape = with_dim(&x.shape, a, k);
    Ok(vec![(x.dtype, shape.clone()), (INT64, shape)])
}

/// The loss's shape: the target's (`[N, d1, ...]`) without reduction, else a scalar.
fn loss_shape(c: &Ctx) -> Result<Vec<i64>, String> {
    let (x, target) = (c.x(0)?, c.x(1)?);
    if x.rank() < 2 {
        return Err(format!("an input of rank {}, not at least 2", x.rank()));
    }
    let mut per_item = x.shape.clone();
    per_item.remove(1);
    if target.shape != per_item {
        return Err(format!(
            "a target of {:?} for an input of {:?}",
            target.shape, x.shape
        ));
    }
    match c.string("reduction").as_deref().unwrap_or("mean") {
        "none" => Ok(per_item),
        "mean" | "sum" => Ok(vec![]),
        other => Err(format!("reduction `{other}`")),
    }
}

/// `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss` (whose optional
/// second output, the log-probabilities, has the input's shape).
fn loss(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let mut out = vec![(x.dtype, loss_shape(c)?)];
    if c.n_out() > 1 {
        out.push(x.ty());
    }
    Ok(out)
}

/// One operand's labels: letters, and `None` for the ellipsis.
fn einsum_term(term: &str) -> Result<Vec<Option<char>>, String> {
    let mut labels = Vec::new();
    let mut rest = term;
    while let Some(ch) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if labels.contains(&None) {
                return Err(format!("the term `{term}` has two ellipses"));
            }
            labels.push(None);
            rest = after;
        } else if ch.is_ascii_alphabetic() {
            labels.push(Some(ch));
            rest = &rest[1..];
        } else {
            return Err(format!("the term `{term}` has the character `{ch}`"));
        }
    }
    Ok(labels)
}

/// The output shape of an `Einsum` `equation` over operands of `shapes`:
/// numpy's rules, with broadcast ellipses and the implicit output (the ellipsis,
/// then the letters used once, in alphabetical order).
pub fn einsum_shape(equation: &str, shapes: &[&[i64]]) -> Result<Vec<i64>, String> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(format!(
            "{} operands for {} terms",
            shapes.len(),
            terms.len()
        ));
    }
    let mut dims: Vec<(char, i64, usize)> = Vec::new(); // label, size, uses
    let mut ellipses: Vec<&[i64]> = Vec::new();
    for (term, shape) in terms.iter().zip(shapes) {
        let labels = einsum_term(term)?;
        let letters = labels.iter().flatten().count();
        let has_ellipsis = labels.len() > letters;
        let wide = shape
            .len()
            .checked_sub(letters)
            .filter(|&w| has_ellipsis || w == 0);
        let wide = wide
            .ok_or_else(|| format!("the term `{term}` for an operand of rank {}", shape.len()))?;
        let mut at = 0;
        for label in labels {
            let Some(ch) = label else {
                ellipses.push(&shape[at..at + wide]);
                at += wide;
                continue;
            };
            let d = shape[at];
            at += 1;
            match dims.iter_mut().find(|e| e.0 == ch) {
                Some(e) if e.1 == d || d == 1 => e.2 += 1,
                Some(e) if e.1 == 1 => *e = (ch, d, e.2 + 1),
                Some(e) => return Err(format!("label `{ch}` is both {} and {d}", e.1)),
                None => dims.push((ch, d, 1)),
            }
        }
    }
    let ellipsis = broadcast(&ellipses)?;
    let size = |ch: char| dims.iter().find(|e| e.0 == ch).map(|e| e.1);
    let mut out = Vec::new();
    match rhs {
        Some(rhs) => {
            let labels = einsum_term(rhs)?;
            for (i, label) in labels.iter().enumerate() {
                match label {
                    None => out.extend_from_slice(&ellipsis),
                    Some(ch) if labels[..i].contains(label) => {
                        return Err(format!("the output repeats label `{ch}`"))
                    }
                    Some(ch) => out.push(
                        size(*ch)
                            .ok_or_else(|| format!("the output label `{ch}` is in no operand"))?,
                    ),
                }
            }
        }
        None => {
            out.extend_from_slice(&ellipsis);
            dims.sort_unstable_by_key(|e| e.0);
            out.extend(dims.iter().filter(|e| e.2 == 1).map(|e| e.1));
        }
    }
    Ok(out)
}

fn einsum(c: &Ctx) -> Result<Out, String> {
    let equation = c.string("equation").ok_or("no equation")?;
    let shapes = (0..c.inputs.len())
        .map(|i| c.x(i).map(|x| x.shape.as_slice()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![(c.x(0)?.dtype, einsum_shape(&equation, &shapes)?)])
}

fn det(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let r = x.rank();
    if r < 2 || x.shape[r - 1] != x.shape[r - 2] {
        return Err(format!("{:?} is not a batch of square matrices", x.shape));
    }
    Ok(vec![(x.dtype, x.shape[..r - 2].to_vec())])
}

/// The one value of a scalar (or one-element) constant input.
fn scalar(c: &Ctx, i: usize, what: &str) -> Result<i64, String> {
    match c.values(i, what)?[..] {
        [v] => Ok(v),
        ref v => Err(format!("`{what}` has {} values, not 1", v.len())),
    }
}

/// `DFT`: the signal axis becomes `dft_length` (halved plus one for a one-sided
/// forward transform), the last axis 2 (complex) or 1 (a one-sided inverse).
fn dft(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let r = x.rank();
    if r < 2 {
        return Err("an input of rank below 2".into());
    }
    let onesided = c.int("onesided", 0) != 0;
    let inverse = c.int("inverse", 0) != 0;
    let mut shape = x.shape.clone();
    shape[r - 1] = if onesided && inverse { 1 } else { 2 };
    let length = match c.opt(1) {
        Some(_) => Some(scalar(c, 1, "dft_length")?),
        None => None,
    };
    let a = if c.opset >= 20 {
        match c.opt(2) {
            // an unknown axis only matters when the signal axis changes length
            Some(_) if !onesided && length.is_none() && c.x(2)?.ints().is_none() => {
                return Ok(vec![(x.dtype, shape)])
            }
            Some(_) => scalar(c, 2, "axis")?,
            None => -2,
        }
    } else {
        c.int("axis", 1)
    };
    let ri = r as i64;
    if a < -ri || a == -1 || a >= ri - 1 {
        return Err(format!("axis {a} for rank {r}"));
    }
    let a = axis(a, r)?;
    let n = match length {
        Some(n) if n <= 0 => return Err(format!("a dft_length of {n}")),
        Some(n) if onesided && !inverse => n / 2 + 1,
        Some(n) => n,
        None if onesided && inverse => mul(2, x.shape[a] - 1)?,
        None if onesided => x.shape[a] / 2 + 1,
        None => x.shape[a],
    };
    shape[a] = n;
    Ok(vec![(x.dtype, shape)])
}

/// `STFT`: `[batch, frames, bins, 2]` of a `[batch, length, 1|2]` signal.
fn stft(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    if x.rank() < 2 {
        return Err("a signal of rank below 2".into());
    }
    let step = scalar(c, 1, "frame_step")?;
    let window = c.opt(2).map(|w| w.shape.clone());
    let size = match (c.opt(3), &window) {
        (Some(_), _) => scalar(c, 3, "frame_length")?,
        (None, Some(w)) if w.len() == 1 => w[0],
        (None, Some(w)) => return Err(format!("a window of rank {}", w.len())),
        (None, None) => return Err("neither a window nor a frame_length".into()),
    };
    if let Some(w) = &window {
        if w[..] != [size] {
            return Err(format!("a window of {w:?} for frames of {size}"));
        }
    }
    let signal = x.shape[1];
    if step <= 0 || size <= 0 || size > signal {
        return Err(format!(
            "frames of {size} every {step} over a signal of {signal}"
        ));
    }
    let frames = (signal - size) / step + 1;
    let bins = if c.int("onesided", 1) != 0 {
        size / 2 + 1
    } else {
        size
    };
    Ok(vec![(x.dtype, vec![x.shape[0], frames, bins, 2])])
}

/// `HannWindow`, `HammingWindow`, `BlackmanWindow`: `[size]` of `output_datatype`.
fn window(c: &Ctx) -> Result<Out, String> {
    let size = scalar(c, 0, "size")?;
    if size < 0 {
        return Err(format!("a window size of {size}"));
    }
    Ok(vec![(out_type(c)?, vec![size])])
}

/// The `output_datatype` attribute (float by default).
fn out_type(c: &Ctx) -> Result<i32, String> {
    let t = c.int("output_datatype", i64::from(FLOAT));
    i32::try_from(t).map_err(|_| format!("output_datatype {t}"))
}

/// `MelWeightMatrix`: `[dft_length / 2 + 1, num_mel_bins]`.
fn mel_weight_matrix(c: &Ctx) -> Result<Out, String> {
    let bins = scalar(c, 0, "num_mel_bins")?;
    let length = scalar(c, 1, "dft_length")?;
    if bins <= 0 || length <= 0 {
        return Err(format!("{bins} mel bins for a dft_length of {length}"));
    }
    Ok(vec![(out_type(c)?, vec![length / 2 + 1, bins])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::ops::testing::*;
    use crate::onnx::proto::Attribute;

    #[test]
    fn einsum_follows_numpy() {
        let e = |eq: &str, shapes: &[&[i64]]| einsum_shape(eq, shapes);
        assert_eq!(e("ij,jk->ik", &[&[2, 3], &[3, 4]]).unwrap(), vec![2, 4]);
        assert_eq!(e("ij,jk", &[&[2, 3], &[3, 4]]).unwrap(), vec![2, 4]);
        assert_eq!(e("ji", &[&[2, 3]]).unwrap(), vec![3, 2]);
        assert_eq!(e("i,i", &[&[5], &[5]]).unwrap(), Vec::<i64>::new());
        assert_eq!(e("ii->i", &[&[3, 3]]).unwrap(), vec![3]);
        assert_eq!(e("Ba, ab -> B", &[&[2, 3], &[3, 4]]).unwrap(), vec![2]);
        assert_eq!(e("...ii->...i", &[&[3, 5, 5]]).unwrap(), vec![3, 5]);
        assert_eq!(
            e("bij,bjk->bik", &[&[5, 2, 3], &[5, 3, 4]]).unwrap(),
            vec![5, 2, 4]
        );
        assert_eq!(
            e("...ij,...jk", &[&[7, 1, 2, 3], &[6, 3, 4]]).unwrap(),
            vec![7, 6, 2, 4]
        );
        assert_eq!(e("i...->...", &[&[2]]).unwrap(), Vec::<i64>::new());
        assert!(e("ij->k", &[&[2, 3]]).is_err());
        assert!(e("ij,jk", &[&[2, 3], &[4, 4]]).is_err());
        assert!(e("ijk", &[&[2, 3]]).is_err());
        assert!(e("i.j", &[&[2, 3]]).is_err());
        assert!(e("......", &[&[2, 3]]).is_err());
        assert!(e("ij,jk", &[&[2, 3]]).is_err());
        assert!(e("ii->ii", &[&[2, 2]]).is_err());
    }

    #[test]
    fn top_k_reads_k_by_opset() {
        let n = node("TopK", vec![int("k", 2)], 2);
        let out = run(top_k, &n, 1, &[t(&[3, 4])]).unwrap();
        assert_eq!(out, vec![(FLOAT, vec![3, 2]), (INT64, vec![3, 2])]);
        let n = node("TopK", vec![int("axis", 0)], 2);
        assert_eq!(
            shapes(run(top_k, &n, 11, &[t(&[3, 4]), k(&[1], &[3])]).unwrap())[0],
            vec![3, 4]
        );
        // a k computed at run time: the whole axis, both outputs at their worst
        let (out, worst) = run_worst(top_k, &n, 11, &[t(&[3, 4]), t(&[1])]);
        assert_eq!(shapes(out.unwrap()), vec![vec![3, 4], vec![3, 4]]);
        assert_eq!(worst, vec![0, 1]);
        let (_, worst) = run_worst(top_k, &n, 11, &[t(&[3, 4]), k(&[1], &[2])]);
        assert!(worst.is_empty());
        assert!(run(top_k, &n, 11, &[t(&[3, 4]), k(&[1], &[5])]).is_err());
    }

    #[test]
    fn losses_reduce_to_a_scalar_unless_none() {
        let none = Attribute {
            name: "reduction".into(),
            s: b"none".to_vec(),
            ..Attribute::default()
        };
        let target = || k(&[2, 4, 5], &[]);
        let n = node("NegativeLogLikelihoodLoss", vec![none], 1);
        assert_eq!(
            shapes(run(loss, &n, 13, &[t(&[2, 3, 4, 5]), target()]).unwrap()),
            vec![vec![2, 4, 5]]
        );
        let n = node("SoftmaxCrossEntropyLoss", vec![], 2);
        let out = shapes(run(loss, &n, 13, &[t(&[2, 3, 4, 5]), target()]).unwrap());
        assert_eq!(out, vec![vec![], vec![2, 3, 4, 5]]);
        assert!(run(loss, &n, 13, &[t(&[2, 3, 4, 5]), k(&[2, 4], &[])]).is_err());
        assert!(run(loss, &n, 13, &[t(&[2]), k(&[2], &[])]).is_err());
    }

    #[test]
    fn dft_follows_onesided_inverse_and_axis() {
        // opset 17: axis attribute (1 by default), real input, one-sided
        let n = node("DFT", vec![int("onesided", 1)], 1);
        assert_eq!(
            shapes(run(dft, &n, 17, &[t(&[1, 10, 1])]).unwrap())[0],
            vec![1, 6, 2]
        );
        let ins = [t(&[1, 10, 1]), k(&[], &[8])];
        assert_eq!(shapes(run(dft, &n, 17, &ins).unwrap())[0], vec![1, 5, 2]);
        // opset 20: axis as input 2, -2 by default
        let n = node("DFT", vec![int("inverse", 1)], 1);
        let ins = [t(&[2, 4, 6, 2]), None, k(&[], &[1])];
        assert_eq!(shapes(run(dft, &n, 20, &ins).unwrap())[0], vec![2, 4, 6, 2]);
        let ins = [t(&[2, 4, 6, 2]), k(&[], &[9]), k(&[], &[1])];
        assert_eq!(shapes(run(dft, &n, 20, &ins).unwrap())[0], vec![2, 9, 6, 2]);
        let n = node("DFT", vec![int("inverse", 1), int("onesided", 1)], 1);
        assert_eq!(
            shapes(run(dft, &n, 20, &[t(&[1, 6, 2])]).unwrap())[0],
            vec![1, 10, 1]
        );
        // an unknown axis is harmless unless the signal axis changes length
        let n = node("DFT", vec![], 1);
        let ins = [t(&[3, 5, 1]), None, t(&[])];
        assert_eq!(shapes(run(dft, &n, 20, &ins).unwrap())[0], vec![3, 5, 2]);
        let ins = [t(&[3, 5, 1]), k(&[], &[4]), t(&[])];
        assert!(run(dft, &n, 20, &ins).is_err());
        assert!(run(dft, &n, 20, &[t(&[3, 5, 1]), None, k(&[], &[-1])]).is_err());
        assert!(run(dft, &n, 20, &[t(&[5])]).is_err());
    }

    #[test]
    fn stft_and_windows() {
        let n = node("STFT", vec![], 1);
        let ins = [t(&[1, 128, 1]), k(&[], &[8]), t(&[16])];
        assert_eq!(
            shapes(run(stft, &n, 17, &ins).unwrap())[0],
            vec![1, 15, 9, 2]
        );
        let n = node("STFT", vec![int("onesided", 0)], 1);
        let ins = [t(&[2, 128, 2]), k(&[], &[8]), None, k(&[], &[16])];
        assert_eq!(
            shapes(run(stft, &n, 17, &ins).unwrap())[0],
            vec![2, 15, 16, 2]
        );
        let ins = [t(&[1, 128, 1]), k(&[], &[8]), t(&[15]), k(&[], &[16])];
        assert!(run(stft, &n, 17, &ins).is_err());
        let n = node("HannWindow", vec![int("output_datatype", 11)], 1);
        assert_eq!(
            run(window, &n, 17, &[k(&[], &[10])]).unwrap(),
            vec![(11, vec![10])]
        );
        let n = node("MelWeightMatrix", vec![], 1);
        let ins = [k(&[], &[8]), k(&[], &[16]), k(&[], &[8192]), t(&[]), t(&[])];
        assert_eq!(
            run(mel_weight_matrix, &n, 17, &ins).unwrap(),
            vec![(FLOAT, vec![9, 8])]
        );
    }

    #[test]
    fn det_drops_the_matrix_axes() {
        let n = node("Det", vec![], 1);
        assert_eq!(
            shapes(run(det, &n, 11, &[t(&[2, 3, 3])]).unwrap())[0],
            vec![2]
        );
        assert!(run(det, &n, 11, &[t(&[2, 3])]).is_err());
        assert!(run(det, &n, 11, &[t(&[3])]).is_err());
    }
}
