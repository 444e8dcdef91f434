//! Sizes planned at a bound stay bounds downstream. A value whose size depends on
//! the data is planned at its worst case (or at the user's bound); every value
//! computed from it is marked `bounded`, and its shape flows on as usual: a shape
//! function gives no smaller output for larger inputs. Data is another matter. The
//! size of such a value, read by `Shape`, is the largest it can be, and an op may
//! turn a larger number into a smaller size: `1000 - n` as a `ConstantOfShape`'s
//! shape, `n` as a `Slice`'s start. So the data of a bounded value is used only
//! where a larger value can only give a larger result ([`keeps_order`]); anywhere
//! else it is treated as unknown, and a size computed from it needs a bound like
//! any other size that depends on the data.

use super::shape::{Data, Info};

/// Drops the data of the bounded inputs of op `op_type` (of the default domain
/// when `domain` is empty) at the places where a larger value could make a
/// smaller size. Returns whether any bounded input was at such a place: the
/// op's outputs then carry no data either.
pub(super) fn guard(domain: &str, op_type: &str, inputs: &mut [Option<Info>]) -> bool {
    let mut dropped = false;
    for k in 0..inputs.len() {
        let bounded = inputs[k].as_ref().is_some_and(|i| i.bounded);
        if bounded && !(domain.is_empty() && keeps_order(op_type, k, inputs)) {
            if let Some(info) = inputs[k].as_mut() {
                info.data = None;
            }
            dropped = true;
        }
    }
    dropped
}

/// True when a larger value (or shape) of input `k` of `op` can only give
/// larger outputs, in data and in size: reading it at its bound then bounds what
/// the op makes.
fn keeps_order(op: &str, k: usize, inputs: &[Option<Info>]) -> bool {
    let all_at_least = |i: usize, least: f64| {
        inputs
            .get(i)
            .and_then(|x| x.as_ref())
            .and_then(|x| x.data.as_ref())
            .is_some_and(|d| match d {
                Data::Int(v) => v.iter().all(|&x| x as f64 >= least),
                Data::Float(v) => v.iter().all(|&x| x >= least),
            })
    };
    let others_at_least = |least: f64| {
        (0..inputs.len())
            .filter(|&i| i != k)
            .all(|i| all_at_least(i, least))
    };
    match op {
        // the data moved, copied or read as a shape
        "Identity" | "Cast" | "CastLike" | "Shape" | "Size" | "Unsqueeze" | "Squeeze"
        | "Flatten" | "Transpose" | "SequenceLength" | "Ceil" | "Floor" | "Round" | "Sqrt"
        | "Relu" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "NonZero"
        | "Unique" | "ConstantOfShape" | "GatherElements" => k == 0,
        "Concat" | "Add" | "Sum" | "Min" | "Max" => true,
        "Gather" | "Expand" | "Tile" | "Reshape" | "TopK" | "Clip" => k <= 1,
        // a larger end keeps more; a larger start, axis or step does not
        "Slice" => k == 0 || k == 2,
        "Mul" => others_at_least(0.0),
        // n / d and n - d grow with n only
        "Div" => k == 0 && all_at_least(1, f64::MIN_POSITIVE),
        "Sub" => k == 0,
        "Pad" => k == 0 || (k == 1 && all_at_least(1, 0.0)),
        // Range(start, limit, delta): more elements for a larger limit when delta > 0
        "Range" => k == 1 && all_at_least(2, f64::MIN_POSITIVE),
        "Resize" => k == 0 || k == 3,
        "NonMaxSuppression" => k <= 2,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::dtype::INT64;

    fn value(v: &[i64], bounded: bool) -> Option<Info> {
        Some(Info {
            data: Some(Data::Int(v.to_vec())),
            bounded,
            ..Info::new(INT64, vec![v.len() as i64])
        })
    }

    #[test]
    fn a_bound_is_read_where_more_gives_more() {
        let mut ins = vec![value(&[7680], true), value(&[100], false)];
        assert!(!guard("", "Min", &mut ins));
        assert!(ins[0].as_ref().unwrap().data.is_some());
        let mut ins = vec![value(&[7680], true), value(&[1], false)];
        assert!(!guard("", "Sub", &mut ins), "n - 1 grows with n");
    }

    #[test]
    fn a_bound_is_not_read_where_more_can_give_less() {
        // 1000 - n, a start of a slice, a divisor, a negative factor
        for (op, at, other) in [
            ("Sub", 1, 1000),
            ("Slice", 1, 0),
            ("Div", 1, 1000),
            ("Mul", 0, -1),
        ] {
            let mut ins = vec![value(&[other], false), value(&[other], false)];
            ins[at] = value(&[7680], true);
            assert!(guard("", op, &mut ins), "{op} input {at}");
            assert!(ins[at].as_ref().unwrap().data.is_none(), "{op}");
        }
        // nor in an op of another domain
        let mut ins = vec![value(&[7680], true)];
        assert!(guard("com.microsoft", "Identity", &mut ins));
    }

    #[test]
    fn unbounded_values_are_left_alone() {
        let mut ins = vec![value(&[1000], false), value(&[5], false)];
        assert!(!guard("", "Sub", &mut ins));
        assert!(ins.iter().all(|i| i.as_ref().unwrap().data.is_some()));
    }
}
