//! Ops whose output sizes depend on the input values (`NonZero`, `Compress`,
//! `Unique`, `NonMaxSuppression`, strings split or stripped of stop words).
//!
//! Each has a worst case that follows from its inputs' shapes: no more indices
//! than elements, no more boxes than every box of every class. A handler gives
//! that shape and marks the output with [`Ctx::worst_case`], so that the import
//! plans for it (valid for every input) and says so. Where a constant decides
//! the size (a known condition, a constant `max_output_boxes_per_class`), the
//! size or the bound follows from it. An op without such a bound (a decoded
//! image, the substrings of strings of any length) is an error asking for one.

use super::layout::data_dependent;
use super::{Ctx, Registry, ONNX};
use crate::onnx::dtype::{INT64, STRING};
use crate::onnx::shape::{axis, mul, product, Info, Out};

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["NonZero"], non_zero);
    r.add(ONNX, &["Compress"], compress);
    r.add(ONNX, &["Unique"], unique);
    r.add(ONNX, &["NonMaxSuppression"], non_max_suppression);
    r.add(ONNX, &["ImageDecoder"], image_decoder);
    r.add(ONNX, &["StringNormalizer"], string_normalizer);
    r.add(ONNX, &["StringSplit"], string_split);
}

/// Nonzero elements among the first `limit` of a constant, when its contents
/// are known.
fn nonzero_count(x: &Info, limit: usize) -> Option<i64> {
    let values = x.data.as_ref()?.floats();
    Some(values.iter().take(limit).filter(|&&v| v != 0.0).count() as i64)
}

/// `[rank, count]`: the count of a constant input, else every element.
fn non_zero(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let n = match nonzero_count(x, usize::MAX) {
        Some(n) => n,
        None => {
            c.worst_case(0, "every element of the input nonzero");
            product(&x.shape)?
        }
    };
    Ok(vec![(INT64, vec![x.rank().max(1) as i64, n])])
}

/// The input with the slices its `condition` keeps (along `axis`, else
/// flattened): as many as the condition holds true values, at most as many as
/// it is long.
fn compress(c: &Ctx) -> Result<Out, String> {
    let (x, cond) = (c.x(0)?, c.x(1)?);
    let a = match c.attr("axis") {
        Some(_) => Some(axis(c.int("axis", 0), x.rank())?),
        None => None,
    };
    let len = match a {
        Some(a) => x.shape[a],
        None => product(&x.shape)?,
    };
    let n = match nonzero_count(cond, usize::try_from(len).unwrap_or(usize::MAX)) {
        Some(n) => n,
        None => {
            c.worst_case(0, "every value of the condition true");
            len.min(product(&cond.shape)?)
        }
    };
    let shape = match a {
        Some(a) => {
            let mut s = x.shape.clone();
            s[a] = n;
            s
        }
        None => vec![n],
    };
    Ok(vec![(x.dtype, shape)])
}

/// The distinct values (or slices along `axis`), their first indices, the
/// inverse indices (one per element or slice: not data-dependent) and the
/// counts; at worst every element or slice is distinct.
fn unique(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let (y, n, why) = match c.attr("axis") {
        Some(_) => {
            let a = axis(c.int("axis", 0), x.rank())?;
            (
                x.shape.clone(),
                x.shape[a],
                "every slice along the axis distinct",
            )
        }
        None => {
            let n = product(&x.shape)?;
            (vec![n], n, "every element distinct")
        }
    };
    for j in [0, 1, 3] {
        c.worst_case(j, why);
    }
    let mut out = vec![
        (x.dtype, y),
        (INT64, vec![n]),
        (INT64, vec![n]),
        (INT64, vec![n]),
    ];
    out.truncate(c.n_out().max(1));
    Ok(out)
}

/// `[selected, 3]` indices: at most `max_output_boxes_per_class` (when it is a
/// constant, else every box) for every batch and class. Without that input
/// nothing is selected.
fn non_max_suppression(c: &Ctx) -> Result<Out, String> {
    let (boxes, scores) = (c.x(0)?, c.x(1)?);
    let (&[batches, spatial, 4], &[_, classes, _]) = (&boxes.shape[..], &scores.shape[..]) else {
        return Err(format!(
            "boxes of {:?} and scores of {:?}, not [batches, boxes, 4] and [batches, classes, boxes]",
            boxes.shape, scores.shape
        ));
    };
    let most = match c.opt(2).filter(|m| !m.shape.contains(&0)) {
        None => return Ok(vec![(INT64, vec![0, 3])]),
        Some(m) => match m.ints().as_deref() {
            Some([m, ..]) if *m <= 0 => return Ok(vec![(INT64, vec![0, 3])]),
            Some([m, ..]) if *m < spatial => {
                c.worst_case(0, format!("{m} boxes (max_output_boxes_per_class) of each of {batches} batches x {classes} classes"));
                *m
            }
            _ => {
                c.worst_case(
                    0,
                    format!("every box of each of {batches} batches x {classes} classes"),
                );
                spatial
            }
        },
    };
    let n = mul(mul(batches, classes)?, most)?;
    Ok(vec![(INT64, vec![n, 3])])
}

fn image_decoder(_: &Ctx) -> Result<Out, String> {
    Err(data_dependent(
        "the image's size is in its encoded bytes, which bound nothing",
    ))
}

/// `[C]` or `[1, C]` strings; stop words make `C` smaller by as many as match
/// (at worst none does; when all do, one empty string is left).
fn string_normalizer(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    if !matches!(x.shape[..], [_] | [1, _]) {
        return Err(format!("an input of {:?}, not [C] or [1, C]", x.shape));
    }
    let mut shape = x.shape.clone();
    if c.attr("stopwords").is_some_and(|a| a.strings > 0) {
        c.worst_case(0, "no string is a stop word");
        let last = shape.len() - 1;
        shape[last] = shape[last].max(1);
    }
    Ok(vec![(STRING, shape)])
}

/// Substrings (one more axis, as long as the most substrings: at most
/// `maxsplit + 1`) and their counts.
fn string_split(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let counts = (INT64, x.shape.clone());
    if c.node.outputs.first().is_some_and(|o| o.is_empty()) {
        return Ok(vec![(STRING, vec![]), counts]);
    }
    let mut shape = x.shape.clone();
    match c.attr("maxsplit").and_then(|a| a.i).filter(|&m| m >= 0) {
        Some(most) => {
            c.worst_case(0, format!("every string split {most} times (maxsplit)"));
            shape.push(most.checked_add(1).ok_or("maxsplit overflows")?);
        }
        None => {
            c.no_bound(0, "it holds the substrings of the longest string, and no maxsplit bounds their number");
            shape.push(0);
        }
    }
    Ok(vec![(STRING, shape), counts])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::dtype::BOOL;
    use crate::onnx::ops::testing::*;
    use crate::onnx::ops::DATA_DEPENDENT;
    use crate::onnx::shape::Data;

    /// A constant bool condition.
    fn cond(v: &[i64]) -> Option<Info> {
        Some(Info {
            data: Some(Data::Int(v.to_vec())),
            konst: true,
            ..Info::new(BOOL, vec![v.len() as i64])
        })
    }

    #[test]
    fn known_conditions_give_sizes_unknown_ones_the_worst() {
        let n = node("Compress", vec![int("axis", 0)], 1);
        let (out, worst) = run_worst(compress, &n, 11, &[t(&[3, 2]), cond(&[0, 1, 1])]);
        assert_eq!((shapes(out.unwrap()), worst), (vec![vec![2, 2]], vec![]));
        let n = node("Compress", vec![], 1);
        assert_eq!(
            shapes(run(compress, &n, 11, &[t(&[3, 2]), cond(&[0, 1, 1])]).unwrap()),
            vec![vec![2]]
        );
        // a condition shorter than the flattened input keeps at most its length
        let (out, worst) = run_worst(compress, &n, 11, &[t(&[3, 2]), t(&[4])]);
        assert_eq!((shapes(out.unwrap()), worst), (vec![vec![4]], vec![0]));
        let n = node("Compress", vec![int("axis", 1)], 1);
        let (out, _) = run_worst(compress, &n, 11, &[t(&[3, 2]), t(&[5])]);
        assert_eq!(shapes(out.unwrap()), vec![vec![3, 2]]);
        let n = node("NonZero", vec![], 1);
        assert_eq!(
            run(non_zero, &n, 13, &[cond(&[0, 1, 1])]).unwrap(),
            vec![(INT64, vec![1, 2])]
        );
        let (out, worst) = run_worst(non_zero, &n, 13, &[t(&[2, 3, 4])]);
        assert_eq!((out.unwrap(), worst), (vec![(INT64, vec![3, 24])], vec![0]));
    }

    #[test]
    fn unique_is_at_worst_all_distinct() {
        let n = node("Unique", vec![], 4);
        let (out, worst) = run_worst(unique, &n, 11, &[t(&[2, 3])]);
        assert_eq!(
            shapes(out.unwrap()),
            vec![vec![6], vec![6], vec![6], vec![6]]
        );
        assert_eq!(worst, vec![0, 1, 3]);
        let n = node("Unique", vec![int("axis", -1)], 2);
        let out = run(unique, &n, 11, &[t(&[2, 5])]).unwrap();
        assert_eq!(shapes(out), vec![vec![2, 5], vec![5]]);
    }

    #[test]
    fn nms_keeps_every_box_or_the_constant_most_per_class() {
        let n = node("NonMaxSuppression", vec![], 1);
        let (boxes, scores) = (t(&[2, 100, 4]), t(&[2, 3, 100]));
        let run3 = |most: Option<Info>| {
            run_worst(
                non_max_suppression,
                &n,
                11,
                &[boxes.clone(), scores.clone(), most],
            )
        };
        let (out, worst) = run3(None);
        assert_eq!((shapes(out.unwrap()), worst), (vec![vec![0, 3]], vec![]));
        let (out, worst) = run3(k(&[1], &[10]));
        assert_eq!((shapes(out.unwrap()), worst), (vec![vec![60, 3]], vec![0]));
        let (out, _) = run3(k(&[1], &[500]));
        assert_eq!(shapes(out.unwrap()), vec![vec![600, 3]]);
        let (out, worst) = run3(Some(Info::new(INT64, vec![1])));
        assert_eq!((shapes(out.unwrap()), worst), (vec![vec![600, 3]], vec![0]));
        let (out, _) = run3(k(&[1], &[0]));
        assert_eq!(shapes(out.unwrap()), vec![vec![0, 3]]);
        assert!(run(non_max_suppression, &n, 11, &[t(&[2, 100]), scores]).is_err());
    }

    #[test]
    fn strings_are_bounded_by_their_input_or_maxsplit() {
        let x = Some(Info::new(STRING, vec![1, 4]));
        let n = node("StringNormalizer", vec![], 1);
        let (out, worst) = run_worst(string_normalizer, &n, 10, std::slice::from_ref(&x));
        assert_eq!((out.unwrap(), worst), (vec![(STRING, vec![1, 4])], vec![]));
        let n = node("StringNormalizer", vec![strings("stopwords", 1)], 1);
        let (out, worst) = run_worst(string_normalizer, &n, 10, std::slice::from_ref(&x));
        assert_eq!((out.unwrap(), worst), (vec![(STRING, vec![1, 4])], vec![0]));
        let n = node("StringSplit", vec![int("maxsplit", 2)], 2);
        let (out, worst) = run_worst(string_split, &n, 20, std::slice::from_ref(&x));
        assert_eq!(shapes(out.unwrap()), vec![vec![1, 4, 3], vec![1, 4]]);
        assert_eq!(worst, vec![0]);
        let n = node("StringSplit", vec![], 2);
        let refs = [x.as_ref()];
        let c = Ctx::new(&n, &refs, 20);
        assert_eq!(shapes(string_split(&c).unwrap())[1], vec![1, 4]);
        assert_eq!(c.unbounded().len(), 1);
        let err = run(image_decoder, &node("ImageDecoder", vec![], 1), 20, &[]).unwrap_err();
        assert!(err.starts_with(DATA_DEPENDENT), "{err}");
    }
}
