//! Recurrent layers: `RNN`, `LSTM`, `GRU` and onnxruntime's `DynamicQuantizeLSTM`.
//!
//! Every output slot gets a type: `Y` (`[seq, num_directions, batch, hidden]`)
//! first, then the final states `Y_h` and `Y_c` (`[num_directions, batch, hidden]`);
//! `layout` 1 puts the batch first in all of them.

use super::{Ctx, Registry, MS, ONNX};
use crate::onnx::shape::Out;

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["RNN", "LSTM", "GRU"], recurrent);
    r.add(MS, &["DynamicQuantizeLSTM"], dynamic_quantize_lstm);
}

/// Gates per hidden unit: `W` is `[num_directions, gates * hidden, input]`.
fn gates(op: &str) -> i64 {
    match op {
        "LSTM" => 4,
        "GRU" => 3,
        _ => 1,
    }
}

fn directions(c: &Ctx) -> Result<i64, String> {
    match c.string("direction").as_deref() {
        None | Some("forward") | Some("reverse") => Ok(1),
        Some("bidirectional") => Ok(2),
        Some(d) => Err(format!("unknown direction `{d}`")),
    }
}

/// The `hidden_size` attribute when positive.
fn hidden_attr(c: &Ctx) -> Option<i64> {
    Some(c.int("hidden_size", 0)).filter(|&h| h > 0)
}

/// Dimension `i` of input `at` when it has rank 3.
fn weight_dim(c: &Ctx, at: usize, i: usize) -> Option<i64> {
    c.opt(at)
        .filter(|w| w.rank() == 3)
        .and_then(|w| w.shape.get(i).copied())
}

/// `n / by` when it divides evenly.
fn exact_div(n: i64, by: i64) -> Option<i64> {
    (by > 0 && n % by == 0).then(|| n / by)
}

/// `Y` and the final states for `hidden` units; `layout` 1 is batch-major.
fn outputs(c: &Ctx, hidden: i64, layout: i64) -> Result<Out, String> {
    let x = c.x(0)?;
    let &[a, b, _] = x.shape.as_slice() else {
        return Err(format!("the input has rank {}, not 3", x.rank()));
    };
    let dirs = directions(c)?;
    let (y, state) = match layout {
        0 => (vec![a, dirs, b, hidden], vec![dirs, b, hidden]),
        1 => (vec![a, b, dirs, hidden], vec![a, dirs, hidden]),
        l => return Err(format!("unknown layout {l}")),
    };
    let mut out = Vec::with_capacity(c.n_out());
    for i in 0..c.n_out() {
        out.push((x.dtype, if i == 0 { y.clone() } else { state.clone() }));
    }
    Ok(out)
}

/// `RNN`, `LSTM`, `GRU`: the hidden size is the attribute, else `R`'s last
/// dimension (`[num_directions, gates * hidden, hidden]`), else `W`'s rows / gates.
fn recurrent(c: &Ctx) -> Result<Out, String> {
    let g = gates(&c.node.op_type);
    let hidden = hidden_attr(c)
        .or_else(|| weight_dim(c, 2, 2))
        .or_else(|| weight_dim(c, 1, 1).and_then(|rows| exact_div(rows, g)))
        .ok_or("no hidden_size and no weight of rank 3 to read it from")?;
    outputs(c, hidden, c.int("layout", 0))
}

/// `DynamicQuantizeLSTM`: weights are transposed, `W` `[num_directions, input,
/// 4 * hidden]` and `R` `[num_directions, hidden, 4 * hidden]`.
fn dynamic_quantize_lstm(c: &Ctx) -> Result<Out, String> {
    let hidden = hidden_attr(c)
        .or_else(|| weight_dim(c, 2, 1))
        .or_else(|| weight_dim(c, 1, 2).and_then(|cols| exact_div(cols, 4)))
        .ok_or("no hidden_size and no weight of rank 3 to read it from")?;
    outputs(c, hidden, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::ops::testing::*;

    #[test]
    fn hidden_size_comes_from_the_recurrence_weight() {
        // bidirectional LSTM, seq 5, batch 3, input 10, hidden 7
        let n = node("LSTM", vec![text("direction", "bidirectional")], 3);
        let ins = [
            typed(1, &[5, 3, 10]),
            typed(1, &[2, 28, 10]),
            typed(1, &[2, 28, 7]),
        ];
        let out = run(recurrent, &n, 14, &ins).unwrap();
        assert_eq!(out[0].1, vec![5, 2, 3, 7]);
        assert_eq!(out[1].1, vec![2, 3, 7]);
        assert_eq!(out[2].1, vec![2, 3, 7]);
        // W alone: 3 gates for GRU
        let n = node("GRU", vec![], 2);
        let ins = [typed(1, &[5, 3, 10]), typed(1, &[1, 27, 10])];
        assert_eq!(run(recurrent, &n, 14, &ins).unwrap()[1].1, vec![1, 3, 9]);
    }

    #[test]
    fn batch_major_layout_puts_the_batch_first() {
        let n = node("RNN", vec![int("hidden_size", 4), int("layout", 1)], 2);
        let out = run(recurrent, &n, 14, &[typed(1, &[3, 6, 2])]).unwrap();
        assert_eq!(out[0].1, vec![3, 6, 1, 4]);
        assert_eq!(out[1].1, vec![3, 1, 4]);
        assert!(run(recurrent, &n, 14, &[typed(1, &[3, 6])]).is_err());
        let bad = node(
            "RNN",
            vec![text("direction", "sideways"), int("hidden_size", 4)],
            1,
        );
        assert!(run(recurrent, &bad, 14, &[typed(1, &[3, 6, 2])]).is_err());
    }

    #[test]
    fn quantized_lstm_reads_transposed_weights() {
        let n = node("DynamicQuantizeLSTM", vec![], 3);
        let ins = [
            typed(1, &[5, 3, 10]),
            typed(2, &[1, 10, 32]),
            typed(2, &[1, 8, 32]),
        ];
        let out = run(dynamic_quantize_lstm, &n, 14, &ins).unwrap();
        assert_eq!(out[0], (1, vec![5, 1, 3, 8]));
        assert_eq!(out[2], (1, vec![1, 3, 8]));
    }
}
