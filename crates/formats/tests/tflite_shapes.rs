//! TFLite input shapes, free dimensions and subgraphs: the shape rules one by one
//! on hand-made one-op models (stored shapes as the default, then a new input
//! shape propagated), free dimensions from `shape_signature`, a doubled batch on
//! the corpus models, and `IF` / `WHILE` / `CALL_ONCE` subgraphs planned as
//! nested arenas.
//!
//! Why one long file: one area, TFLite shape propagation, on hand-made models built by
//! the same helpers (`model`, `read`, `size`, `follows`, `fails`). The seam before
//! the subgraphs does not cut cleanly: the hostile-files test runs fixtures of every
//! section (a computed transpose conv, a dynamic model, an `IF`, a `WHILE`) through
//! one random stream, and the per-op rules alone would still be over 500 lines.

use memplan::graph::{FreeDim, Graph, Role};
use memplan::{check, Options, Strategy};
use memplan_formats::{self as formats, ReadOptions};
use memplan_testkit::fb::tfl::{self, Model};
use memplan_testkit::fb::Table;

fn read(
    m: &Model,
    shapes: &[(&str, &[u64])],
    dims: &[(&str, u64)],
) -> Result<Graph, memplan::Error> {
    read_bytes(&m.bytes(), shapes, dims)
}

/// Reads `data` with input `shapes` and free `dims`.
fn read_bytes(
    data: &[u8],
    shapes: &[(&str, &[u64])],
    dims: &[(&str, u64)],
) -> Result<Graph, memplan::Error> {
    let opts = ReadOptions {
        input_shapes: shapes
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_vec()))
            .collect(),
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..ReadOptions::default()
    };
    formats::read_with(data, None, "m", &opts)
}

/// The error of reading `m` with input `shapes` and free `dims`.
fn read_err(m: &Model, shapes: &[(&str, &[u64])], dims: &[(&str, u64)]) -> String {
    read(m, shapes, dims).unwrap_err().to_string()
}

fn size(g: &Graph, name: &str) -> u64 {
    g.tensors
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tensor `{name}` in {:?}", g.tensors))
        .size
}

fn floats(dims: &[u64]) -> u64 {
    dims.iter().product::<u64>() * 4
}

/// A model `y0, y1.. = kind(x, extra..)` with float tensors; `extra` makes the
/// op's other inputs.
fn model(
    kind: i32,
    x: &[i32],
    ys: &[&[i32]],
    options: Option<(u8, Table)>,
    extra: impl FnOnce(&mut Model) -> Vec<i32>,
) -> Model {
    let mut m = Model::new();
    let xi = m.tensor(0, "x", x);
    let mut inputs = vec![xi];
    inputs.extend(extra(&mut m));
    let outs: Vec<i32> = ys
        .iter()
        .enumerate()
        .map(|(i, d)| m.tensor(0, &format!("y{i}"), d))
        .collect();
    m.op(0, kind, &inputs, &outs, options);
    m.io(0, &[xi], &outs);
    m
}

/// As stored, every `y{i}` has its stored size; with `x` of shape `new`, the
/// size of `want[i]`.
fn follows(m: &Model, new: &[u64], want: &[(&[u64], &[u64])]) {
    let stored = read(m, &[], &[]).unwrap();
    let changed = read(m, &[("x", new)], &[]).unwrap_or_else(|e| panic!("{e}"));
    for (i, (s, w)) in want.iter().enumerate() {
        let y = format!("y{i}");
        assert_eq!(size(&stored, &y), floats(s), "{y} as stored");
        assert_eq!(size(&changed, &y), floats(w), "{y} with x = {new:?}");
    }
}

/// The error of reading `m` with `x` of shape `new`.
fn fails(m: &Model, new: &[u64]) -> String {
    read_err(m, &[("x", new)], &[])
}

fn conv_options(padding: i8, stride: i32, dilation: i32) -> Table {
    Table::new()
        .i8(0, padding)
        .i32(1, stride)
        .i32(2, stride)
        .i32(4, dilation)
        .i32(5, dilation)
}

// ---------------------------------------------------------------- convolutions

#[test]
fn conv_2d_same_and_valid_with_dilation() {
    let same = model(
        tfl::CONV_2D,
        &[1, 8, 8, 3],
        &[&[1, 4, 4, 4]],
        Some((tfl::CONV_2D_OPTIONS, conv_options(0, 2, 1))),
        |m| vec![m.weight(0, "w", &[4, 3, 3, 3]), m.weight(0, "b", &[4])],
    );
    follows(&same, &[2, 17, 9, 3], &[(&[1, 4, 4, 4], &[2, 9, 5, 4])]);
    // VALID, stride 1, dilation 2: a 3x3 filter spans 5
    let valid = model(
        tfl::CONV_2D,
        &[1, 10, 10, 3],
        &[&[1, 6, 6, 4]],
        Some((tfl::CONV_2D_OPTIONS, conv_options(1, 1, 2))),
        |m| vec![m.weight(0, "w", &[4, 3, 3, 3]), m.weight(0, "b", &[4])],
    );
    follows(&valid, &[1, 12, 7, 3], &[(&[1, 6, 6, 4], &[1, 8, 3, 4])]);
}

#[test]
fn depthwise_conv_2d_takes_its_channels_from_the_filter() {
    let opts = Table::new().i8(0, 1).i32(1, 1).i32(2, 1).i32(3, 1);
    let m = model(
        tfl::DEPTHWISE_CONV_2D,
        &[1, 8, 8, 6],
        &[&[1, 6, 6, 6]],
        Some((tfl::DEPTHWISE_CONV_2D_OPTIONS, opts)),
        |m| vec![m.weight(0, "w", &[1, 3, 3, 6]), m.weight(0, "b", &[6])],
    );
    follows(&m, &[3, 12, 10, 6], &[(&[1, 6, 6, 6], &[3, 10, 8, 6])]);
}

#[test]
fn pools_follow_their_window() {
    let opts = Table::new()
        .i8(0, 1)
        .i32(1, 2)
        .i32(2, 2)
        .i32(3, 2)
        .i32(4, 2);
    for kind in [tfl::AVERAGE_POOL_2D, tfl::MAX_POOL_2D, tfl::L2_POOL_2D] {
        let m = model(
            kind,
            &[1, 8, 8, 3],
            &[&[1, 4, 4, 3]],
            Some((tfl::POOL_2D_OPTIONS, opts.clone())),
            |_| vec![],
        );
        follows(&m, &[2, 10, 6, 3], &[(&[1, 4, 4, 3], &[2, 5, 3, 3])]);
    }
}

/// `batch = STRIDED_SLICE(SHAPE(x), [0], [1], [1])`, the first axis shrunk: the
/// batch of `x` (of `rank` axes) as an int32 scalar computed in the graph.
fn batch_of(m: &mut Model, x: i32, rank: i32) -> i32 {
    let shape = m.typed(0, "shape", &[rank], tfl::INT32);
    m.op(0, tfl::SHAPE, &[x], &[shape], None);
    let (b, e, s) = (
        m.ints(0, "b", &[0]),
        m.ints(0, "e", &[1]),
        m.ints(0, "s", &[1]),
    );
    let batch = m.typed(0, "batch", &[], tfl::INT32);
    let shrink = Table::new().i32(4, 1);
    m.op(
        0,
        tfl::STRIDED_SLICE,
        &[shape, b, e, s],
        &[batch],
        Some((tfl::STRIDED_SLICE_OPTIONS, shrink)),
    );
    batch
}

/// `TRANSPOSE_CONV` with its output shape computed in the graph: SHAPE(x)[0]
/// packed with constants, so the batch follows the input.
fn computed_transpose_conv() -> Model {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[1, 4, 4, 4]);
    let batch = batch_of(&mut m, x, 4);
    let (h, w, c) = (
        m.scalar(0, "h", 8),
        m.scalar(0, "w", 8),
        m.scalar(0, "c", 2),
    );
    let out_shape = m.typed(0, "out_shape", &[4], tfl::INT32);
    m.op(
        0,
        tfl::PACK,
        &[batch, h, w, c],
        &[out_shape],
        Some((tfl::PACK_OPTIONS, Table::new().i32(0, 4))),
    );
    let filter = m.weight(0, "filter", &[2, 3, 3, 4]);
    let y = m.tensor(0, "y0", &[1, 8, 8, 2]);
    let opts = Table::new().i8(0, 0).i32(1, 2).i32(2, 2);
    m.op(
        0,
        tfl::TRANSPOSE_CONV,
        &[out_shape, filter, x, -1],
        &[y],
        Some((tfl::TRANSPOSE_CONV_OPTIONS, opts)),
    );
    m.io(0, &[x], &[y]);
    m
}

#[test]
fn transpose_conv_follows_a_computed_output_shape() {
    let m = computed_transpose_conv();
    follows(&m, &[3, 4, 4, 4], &[(&[1, 8, 8, 2], &[3, 8, 8, 2])]);
    // the spatial size is a constant: a new resolution does not fit it
    let e = fails(&m, &[1, 5, 5, 4]);
    assert!(
        e.contains("operator 3 (TRANSPOSE_CONV)") && e.contains("fixed in the model"),
        "{e}"
    );
}

#[test]
fn transpose_conv_with_a_constant_output_shape_refuses_a_new_batch() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[1, 4, 4, 4]);
    let shape = m.ints(0, "shape", &[1, 8, 8, 2]);
    let filter = m.weight(0, "filter", &[2, 3, 3, 4]);
    let y = m.tensor(0, "y0", &[1, 8, 8, 2]);
    let opts = Table::new().i8(0, 0).i32(1, 2).i32(2, 2);
    m.op(
        0,
        tfl::TRANSPOSE_CONV,
        &[shape, filter, x],
        &[y],
        Some((tfl::TRANSPOSE_CONV_OPTIONS, opts)),
    );
    m.io(0, &[x], &[y]);
    assert_eq!(
        size(&read(&m, &[], &[]).unwrap(), "y0"),
        floats(&[1, 8, 8, 2])
    );
    let e = fails(&m, &[2, 4, 4, 4]);
    assert!(
        e.contains("operator 0 (TRANSPOSE_CONV)") && e.contains("`x`"),
        "{e}"
    );
}

/// MediaPipe's `Convolution2DTransposeBias` (in selfie_segmentation): SAME
/// padding, stride 2.
#[test]
fn mediapipe_transpose_conv_bias() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[1, 4, 4, 8]);
    let w = m.weight(0, "w", &[2, 2, 2, 8]);
    let b = m.weight(0, "b", &[2]);
    let y = m.tensor(0, "y0", &[1, 8, 8, 2]);
    let params: Vec<u8> = [1i32, 2, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
    m.custom(0, "Convolution2DTransposeBias", &[x, w, b], &[y], &params);
    m.io(0, &[x], &[y]);
    // height 6: 2 * 5 + 2 = 12; width 5: 2 * 4 + 2 - 1 = 9
    follows(&m, &[1, 6, 5, 8], &[(&[1, 8, 8, 2], &[1, 12, 9, 2])]);
}

#[test]
fn fully_connected_flattens_or_keeps_dims() {
    let flat = model(tfl::FULLY_CONNECTED, &[1, 4, 3], &[&[1, 5]], None, |m| {
        vec![m.weight(0, "w", &[5, 12]), m.weight(0, "b", &[5])]
    });
    follows(&flat, &[3, 4, 3], &[(&[1, 5], &[3, 5])]);
    let keep = model(
        tfl::FULLY_CONNECTED,
        &[2, 3, 12],
        &[&[2, 3, 5]],
        Some((tfl::FULLY_CONNECTED_OPTIONS, Table::new().flag(2, true))),
        |m| vec![m.weight(0, "w", &[5, 12])],
    );
    follows(&keep, &[4, 7, 12], &[(&[2, 3, 5], &[4, 7, 5])]);
    assert!(fails(&keep, &[4, 7, 11]).contains("FULLY_CONNECTED"));
}

#[test]
fn batch_matmul_broadcasts_batches_and_adjoints() {
    let plain = model(tfl::BATCH_MATMUL, &[2, 3, 4], &[&[2, 3, 5]], None, |m| {
        vec![m.weight(0, "w", &[4, 5])]
    });
    follows(&plain, &[7, 6, 3, 4], &[(&[2, 3, 5], &[7, 6, 3, 5])]);
    let adj = model(
        tfl::BATCH_MATMUL,
        &[2, 4, 3],
        &[&[2, 3, 5]],
        Some((
            tfl::BATCH_MATMUL_OPTIONS,
            Table::new().flag(0, true).flag(1, true),
        )),
        |m| vec![m.weight(0, "w", &[5, 4])],
    );
    follows(&adj, &[7, 4, 9], &[(&[2, 3, 5], &[7, 9, 5])]);
}

// ---------------------------------------------------------------- elementwise

#[test]
fn binary_ops_broadcast() {
    // ADD SUB MUL DIV SQUARED_DIFFERENCE POW MAXIMUM MINIMUM LESS GREATER EQUAL
    // LOGICAL_AND LOGICAL_OR FLOOR_DIV
    for kind in [0, 41, 18, 42, 99, 78, 55, 57, 58, 61, 71, 86, 84, 90] {
        let m = model(kind, &[1, 4, 1], &[&[1, 4, 3]], None, |m| {
            vec![m.weight(0, "c", &[3])]
        });
        follows(&m, &[2, 4, 1], &[(&[1, 4, 3], &[2, 4, 3])]);
        assert!(fails(&m, &[2, 4, 2]).contains("do not broadcast"), "{kind}");
    }
}

#[test]
fn prelu_broadcasts_its_alpha() {
    let m = model(tfl::PRELU, &[1, 4, 4, 3], &[&[1, 4, 4, 3]], None, |m| {
        vec![m.weight(0, "alpha", &[1, 1, 3])]
    });
    follows(&m, &[2, 6, 4, 3], &[(&[1, 4, 4, 3], &[2, 6, 4, 3])]);
}

#[test]
fn unary_ops_keep_the_shape() {
    // RELU RELU6 RELU_N1_TO_1 LOGISTIC TANH HARD_SWISH QUANTIZE DEQUANTIZE CAST
    // SOFTMAX LOG_SOFTMAX LEAKY_RELU ELU GELU ABS NEG EXP LOG SQRT RSQRT SQUARE
    // FLOOR CEIL ROUND LOGICAL_NOT L2_NORMALIZATION LOCAL_RESPONSE_NORMALIZATION
    for kind in [
        19, 21, 20, 14, 28, 117, 114, 6, 53, 25, 50, 98, 111, 150, 101, 59, 47, 73, 75, 76, 92, 8,
        104, 116, 87, 11, 13,
    ] {
        let m = model(kind, &[1, 4, 4, 3], &[&[1, 4, 4, 3]], None, |_| vec![]);
        follows(&m, &[2, 5, 4, 3], &[(&[1, 4, 4, 3], &[2, 5, 4, 3])]);
    }
}

// ---------------------------------------------------------------- layout

#[test]
fn reshape_from_options_or_a_constant_with_one_stretch() {
    let opts = Table::new().ints(0, &[-1, 6]);
    let from_options = model(
        tfl::RESHAPE,
        &[2, 3, 2],
        &[&[2, 6]],
        Some((tfl::RESHAPE_OPTIONS, opts)),
        |_| vec![],
    );
    follows(&from_options, &[4, 3, 2], &[(&[2, 6], &[4, 6])]);
    let from_input = model(tfl::RESHAPE, &[2, 3, 2], &[&[2, 6]], None, |m| {
        vec![m.ints(0, "shape", &[-1, 6])]
    });
    follows(&from_input, &[5, 3, 2], &[(&[2, 6], &[5, 6])]);
    // a shape fixed in the model cannot hold a new batch: the error names the op,
    // its index and the tensor that changed
    let fixed = model(tfl::RESHAPE, &[2, 3, 2], &[&[2, 6]], None, |m| {
        vec![m.ints(0, "shape", &[2, 6])]
    });
    let e = fails(&fixed, &[4, 3, 2]);
    assert!(
        e.contains("operator 0 (RESHAPE)") && e.contains("`x` is now [4, 3, 2]"),
        "{e}"
    );
}

/// SHAPE -> STRIDED_SLICE (the batch) -> PACK with -1 -> RESHAPE: [N, rest].
#[test]
fn reshape_follows_a_shape_computed_in_the_graph() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[2, 4, 5]);
    let batch = batch_of(&mut m, x, 3);
    let rest = m.scalar(0, "rest", -1);
    let target = m.typed(0, "target", &[2], tfl::INT32);
    m.op(
        0,
        tfl::PACK,
        &[batch, rest],
        &[target],
        Some((tfl::PACK_OPTIONS, Table::new().i32(0, 2))),
    );
    let y = m.tensor(0, "y0", &[2, 20]);
    m.op(0, tfl::RESHAPE, &[x, target], &[y], None);
    m.io(0, &[x], &[y]);
    follows(&m, &[3, 4, 7], &[(&[2, 20], &[3, 28])]);
}

#[test]
fn squeeze_named_axes_or_every_one() {
    let named = model(
        tfl::SQUEEZE,
        &[1, 3, 1, 2],
        &[&[3, 1, 2]],
        Some((tfl::SQUEEZE_OPTIONS, Table::new().ints(0, &[0]))),
        |_| vec![],
    );
    follows(&named, &[1, 5, 1, 2], &[(&[3, 1, 2], &[5, 1, 2])]);
    assert!(fails(&named, &[2, 5, 1, 2]).contains("SQUEEZE"));
    let all = model(tfl::SQUEEZE, &[1, 3, 1, 2], &[&[3, 2]], None, |_| vec![]);
    follows(&all, &[1, 5, 1, 7], &[(&[3, 2], &[5, 7])]);
}

#[test]
fn expand_dims_at_a_negative_axis() {
    let m = model(tfl::EXPAND_DIMS, &[2, 3], &[&[2, 3, 1]], None, |m| {
        vec![m.scalar(0, "axis", -1)]
    });
    follows(&m, &[4, 3], &[(&[2, 3, 1], &[4, 3, 1])]);
}

#[test]
fn transpose_by_its_permutation() {
    let m = model(tfl::TRANSPOSE, &[1, 4, 5, 3], &[&[1, 3, 4, 5]], None, |m| {
        vec![m.ints(0, "perm", &[0, 3, 1, 2])]
    });
    follows(&m, &[2, 6, 5, 7], &[(&[1, 3, 4, 5], &[2, 7, 6, 5])]);
}

#[test]
fn concatenation_sums_its_axis() {
    let m = model(
        tfl::CONCATENATION,
        &[1, 2, 3],
        &[&[1, 6, 3]],
        Some((tfl::CONCATENATION_OPTIONS, Table::new().i32(0, -2))),
        |m| vec![m.weight(0, "c", &[1, 4, 3])],
    );
    follows(&m, &[1, 5, 3], &[(&[1, 6, 3], &[1, 9, 3])]);
    assert!(fails(&m, &[2, 5, 3]).contains("differ off axis 1"));
}

#[test]
fn pads_add_their_paddings() {
    for kind in [tfl::PAD, tfl::PADV2, tfl::MIRROR_PAD] {
        let m = model(kind, &[1, 4, 4, 3], &[&[1, 6, 8, 3]], None, |m| {
            vec![m.consts(0, "p", &[4, 2], &[0, 0, 1, 1, 2, 2, 0, 0])]
        });
        follows(&m, &[2, 5, 5, 3], &[(&[1, 6, 8, 3], &[2, 7, 9, 3])]);
    }
}

#[test]
fn reductions_drop_or_keep_their_axes() {
    for kind in [tfl::MEAN, tfl::SUM, tfl::REDUCE_MAX] {
        let keep = model(
            kind,
            &[1, 4, 4, 3],
            &[&[1, 1, 1, 3]],
            Some((tfl::REDUCER_OPTIONS, Table::new().flag(0, true))),
            |m| vec![m.ints(0, "axes", &[1, 2])],
        );
        follows(&keep, &[2, 5, 4, 7], &[(&[1, 1, 1, 3], &[2, 1, 1, 7])]);
        let drop = model(kind, &[1, 4, 4, 3], &[&[1, 3]], None, |m| {
            vec![m.ints(0, "axes", &[1, -2])]
        });
        follows(&drop, &[2, 5, 4, 7], &[(&[1, 3], &[2, 7])]);
    }
}

#[test]
fn strided_slices_with_masks_and_shrinks() {
    let masks = Table::new().i32(0, 7).i32(1, 7);
    let m = model(
        tfl::STRIDED_SLICE,
        &[1, 8, 8, 4],
        &[&[1, 8, 8, 2]],
        Some((tfl::STRIDED_SLICE_OPTIONS, masks)),
        |m| {
            vec![
                m.ints(0, "b", &[0, 0, 0, 1]),
                m.ints(0, "e", &[0, 0, 0, 3]),
                m.ints(0, "s", &[1, 1, 1, 1]),
            ]
        },
    );
    follows(&m, &[2, 10, 6, 4], &[(&[1, 8, 8, 2], &[2, 10, 6, 2])]);
    // a stride of 2 from 1 to the end, and a shrunk first axis
    let shrink = model(
        tfl::STRIDED_SLICE,
        &[4, 6],
        &[&[3]],
        Some((tfl::STRIDED_SLICE_OPTIONS, Table::new().i32(4, 1).i32(1, 2))),
        |m| {
            vec![
                m.ints(0, "b", &[1, 1]),
                m.ints(0, "e", &[2, 0]),
                m.ints(0, "s", &[1, 2]),
            ]
        },
    );
    follows(&shrink, &[5, 9], &[(&[3], &[4])]);
}

#[test]
fn slice_with_a_size_to_the_end() {
    let m = model(tfl::SLICE, &[2, 4, 3], &[&[2, 2, 3]], None, |m| {
        vec![
            m.ints(0, "begin", &[0, 1, 0]),
            m.ints(0, "size", &[-1, 2, -1]),
        ]
    });
    follows(&m, &[5, 4, 7], &[(&[2, 2, 3], &[5, 2, 7])]);
    assert!(fails(&m, &[5, 2, 7]).contains("SLICE"));
}

#[test]
fn gather_along_an_axis() {
    let axis0 = model(tfl::GATHER, &[5, 4], &[&[3, 4]], None, |m| {
        vec![m.ints(0, "idx", &[0, 2, 4])]
    });
    follows(&axis0, &[6, 7], &[(&[3, 4], &[3, 7])]);
    let axis1 = model(
        tfl::GATHER,
        &[2, 5],
        &[&[2, 3]],
        Some((tfl::GATHER_OPTIONS, Table::new().i32(0, 1))),
        |m| vec![m.ints(0, "idx", &[0, 2, 4])],
    );
    follows(&axis1, &[4, 5], &[(&[2, 3], &[4, 3])]);
}

#[test]
fn split_and_split_v() {
    // SPLIT takes its axis first
    let mut m = Model::new();
    let axis = m.scalar(0, "axis", 3);
    let x = m.tensor(0, "x", &[1, 4, 4, 6]);
    let ys: Vec<i32> = (0..3)
        .map(|i| m.tensor(0, &format!("y{i}"), &[1, 4, 4, 2]))
        .collect();
    m.op(
        0,
        tfl::SPLIT,
        &[axis, x],
        &ys,
        Some((tfl::SPLIT_OPTIONS, Table::new().i32(0, 3))),
    );
    m.io(0, &[x], &ys);
    let part: (&[u64], &[u64]) = (&[1, 4, 4, 2], &[2, 4, 4, 3]);
    follows(&m, &[2, 4, 4, 9], &[part, part, part]);
    assert!(fails(&m, &[2, 4, 4, 8]).contains("3 equal parts"));
    let v = model(tfl::SPLIT_V, &[3, 5], &[&[3, 2], &[3, 3]], None, |m| {
        vec![m.ints(0, "sizes", &[2, -1]), m.scalar(0, "axis", 1)]
    });
    follows(&v, &[4, 7], &[(&[3, 2], &[4, 2]), (&[3, 3], &[4, 5])]);
}

#[test]
fn resizes_take_a_constant_size() {
    for kind in [tfl::RESIZE_BILINEAR, tfl::RESIZE_NEAREST_NEIGHBOR] {
        let m = model(kind, &[1, 4, 4, 3], &[&[1, 8, 8, 3]], None, |m| {
            vec![m.ints(0, "size", &[8, 8])]
        });
        follows(&m, &[2, 5, 5, 7], &[(&[1, 8, 8, 3], &[2, 8, 8, 7])]);
    }
}

#[test]
fn depth_to_space_and_back() {
    let d2s = model(
        tfl::DEPTH_TO_SPACE,
        &[1, 2, 2, 8],
        &[&[1, 4, 4, 2]],
        Some((tfl::DEPTH_TO_SPACE_OPTIONS, Table::new().i32(0, 2))),
        |_| vec![],
    );
    follows(&d2s, &[3, 3, 5, 8], &[(&[1, 4, 4, 2], &[3, 6, 10, 2])]);
    let s2d = model(
        tfl::SPACE_TO_DEPTH,
        &[1, 4, 4, 2],
        &[&[1, 2, 2, 8]],
        Some((tfl::SPACE_TO_DEPTH_OPTIONS, Table::new().i32(0, 2))),
        |_| vec![],
    );
    follows(&s2d, &[2, 6, 8, 2], &[(&[1, 2, 2, 8], &[2, 3, 4, 8])]);
    assert!(fails(&s2d, &[2, 5, 8, 2]).contains("blocks of 2"));
}

/// The dilated-convolution pattern: SPACE_TO_BATCH_ND, then BATCH_TO_SPACE_ND.
#[test]
fn space_to_batch_and_back() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[1, 8, 8, 3]);
    let block = m.ints(0, "block", &[2, 2]);
    let pads = m.consts(0, "pads", &[2, 2], &[0, 0, 0, 0]);
    let mid = m.tensor(0, "y0", &[4, 4, 4, 3]);
    m.op(0, tfl::SPACE_TO_BATCH_ND, &[x, block, pads], &[mid], None);
    let y = m.tensor(0, "y1", &[1, 8, 8, 3]);
    m.op(0, tfl::BATCH_TO_SPACE_ND, &[mid, block, pads], &[y], None);
    m.io(0, &[x], &[y]);
    follows(
        &m,
        &[1, 10, 6, 3],
        &[
            (&[4, 4, 4, 3], &[4, 5, 3, 3]),
            (&[1, 8, 8, 3], &[1, 10, 6, 3]),
        ],
    );
}

#[test]
fn pack_unpack_and_tile() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[2, 3]);
    let y = m.tensor(0, "y0", &[2, 2, 3]);
    m.op(
        0,
        tfl::PACK,
        &[x, x],
        &[y],
        Some((tfl::PACK_OPTIONS, Table::new().i32(0, 2).i32(1, 1))),
    );
    m.io(0, &[x], &[y]);
    follows(&m, &[4, 3], &[(&[2, 2, 3], &[4, 2, 3])]);

    let unpack = model(
        tfl::UNPACK,
        &[2, 3],
        &[&[2], &[2], &[2]],
        Some((tfl::UNPACK_OPTIONS, Table::new().i32(0, 3).i32(1, 1))),
        |_| vec![],
    );
    let part: (&[u64], &[u64]) = (&[2], &[5]);
    follows(&unpack, &[5, 3], &[part, part, part]);
    assert!(fails(&unpack, &[5, 4]).contains("3 outputs"));

    let tile = model(tfl::TILE, &[2, 3], &[&[4, 3]], None, |m| {
        vec![m.ints(0, "k", &[2, 1])]
    });
    follows(&tile, &[3, 4], &[(&[4, 3], &[6, 4])]);
}

// ---------------------------------------------------------------- what has no rule

#[test]
fn an_op_without_a_rule_is_an_error_only_when_a_change_reaches_it() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[2, 3]);
    let y = m.tensor(0, "y", &[2, 3]);
    m.op(0, tfl::RELU, &[x], &[y], None);
    let side = m.tensor(0, "side", &[4]);
    let idx = m.typed(0, "idx", &[4, 1], tfl::INT32);
    m.op(0, tfl::WHERE, &[side], &[idx], None);
    let z = m.typed(0, "z", &[2, 3, 1], tfl::INT32);
    m.op(0, tfl::WHERE, &[y], &[z], None);
    m.io(0, &[x, side], &[z, idx]);
    // as stored, nothing needs a rule; a new `side` reaches only operator 1
    assert!(read(&m, &[], &[]).is_ok());
    let e = read_err(&m, &[("side", &[5])], &[]);
    assert!(
        e.contains("operator 1 (WHERE)") && e.contains("no shape rule") && e.contains("`side`"),
        "{e}"
    );
    let e = fails(&m, &[4, 3]);
    assert!(
        e.contains("operator 2 (WHERE)") && e.contains("`y` is now [4, 3]"),
        "{e}"
    );
}

// ---------------------------------------------------------------- free dimensions and names

fn dynamic_model(stored_batch: i32) -> Model {
    let mut m = Model::new();
    let x = m.dynamic(0, "x", &[stored_batch, 4], &[-1, 4]);
    let h = m.tensor(0, "h", &[stored_batch, 4]);
    m.op(0, tfl::RELU, &[x], &[h], None);
    let y = m.tensor(0, "y", &[stored_batch, 4]);
    m.op(0, tfl::RELU, &[h], &[y], None);
    m.io(0, &[x], &[y]);
    m
}

#[test]
fn shape_signature_gives_free_dimensions() {
    let m = dynamic_model(1);
    let g = read(&m, &[], &[]).unwrap();
    assert_eq!(
        g.free_dims,
        vec![FreeDim {
            name: "x:0".into(),
            value: 1,
            given: false,
            raised: false,
            at: vec!["x[0]".into()],
        }]
    );
    assert_eq!(size(&g, "h"), 16);
    let g = read(&m, &[], &[("x:0", 8)]).unwrap();
    assert_eq!((g.free_dims[0].value, g.free_dims[0].given), (8, true));
    assert_eq!(
        (size(&g, "x"), size(&g, "h"), size(&g, "y")),
        (128, 128, 128)
    );
    // the stored placeholder is the default, so the model imports as stored
    let g = read(&dynamic_model(3), &[], &[]).unwrap();
    assert_eq!((g.free_dims[0].value, size(&g, "h")), (3, 48));
    // a whole input shape replaces its free dimensions
    let g = read(&m, &[("x", &[5, 4])], &[]).unwrap();
    assert!(g.free_dims.is_empty());
    assert_eq!(size(&g, "h"), 80);
}

/// TFLite's converter stores a placeholder for every dimension a dynamic input
/// reaches (1 where the signature says -1), also where the dimension is not the
/// batch: ConvNeXt's `Tensordot` reshapes `[1, 56, 56, 96]` to `[-1, 96]`, stored
/// `[1, 96]`, which holds 3,136 rows at run time. The shapes propagate from a
/// dynamic input even at its placeholder, and a computed shape (here an einsum's
/// `UNSORTED_SEGMENT_PROD` of SHAPE's dims, as the converter lowers it) resolves.
#[test]
fn placeholders_the_converter_stores_are_propagated_over() {
    let mut m = Model::new();
    let x = m.dynamic(0, "x", &[1, 4, 4, 3], &[-1, 4, 4, 3]);
    let h = m.dynamic(0, "h", &[1, 4, 4, 3], &[-1, 4, 4, 3]);
    m.op(0, tfl::RELU, &[x], &[h], None);
    // rows = RESHAPE(h, [-1, 3]), stored [1, 3]
    let rows_shape = m.ints(0, "rows_shape", &[-1, 3]);
    let rows = m.dynamic(0, "rows", &[1, 3], &[-1, 3]);
    m.op(0, tfl::RESHAPE, &[h, rows_shape], &[rows], None);
    // merged = RESHAPE(h, SEGMENT_PROD(SHAPE(h), [0, 1, 1, 2], 3)) = [N, 16, 3]
    let shape = m.typed(0, "shape", &[4], tfl::INT32);
    m.op(0, tfl::SHAPE, &[h], &[shape], None);
    let (ids, n) = (m.ints(0, "ids", &[0, 1, 1, 2]), m.scalar(0, "n", 3));
    let merged_shape = m.typed(0, "merged_shape", &[3], tfl::INT32);
    m.op(
        0,
        tfl::UNSORTED_SEGMENT_PROD,
        &[shape, ids, n],
        &[merged_shape],
        None,
    );
    let merged = m.dynamic(0, "merged", &[1, 1, 3], &[-1, -1, 3]);
    m.op(0, tfl::RESHAPE, &[h, merged_shape], &[merged], None);
    let y = m.tensor(0, "y", &[1, 3]);
    m.op(0, tfl::RELU, &[rows], &[y], None);
    let z = m.tensor(0, "z", &[1, 1, 3]);
    m.op(0, tfl::RELU, &[merged], &[z], None);
    m.io(0, &[x], &[y, z]);
    let g = read(&m, &[], &[]).unwrap();
    assert_eq!(size(&g, "rows"), 16 * 3 * 4, "not the stored [1, 3]");
    assert_eq!(size(&g, "merged"), 16 * 3 * 4, "[1, 16, 3]");
    assert!(g.notes.is_empty(), "{:?}", g.notes);
    let g = read(&m, &[], &[("x:0", 2)]).unwrap();
    assert_eq!((size(&g, "rows"), size(&g, "merged")), (2 * 192, 2 * 192));

    // an op without a shape rule on the way (WHERE's size depends on the data):
    // at the placeholder the stored shapes stand, with a note; changed, an error
    let mut m = Model::new();
    let x = m.dynamic(0, "x", &[1, 4], &[-1, 4]);
    let w = m.dynamic(0, "w", &[1, 2], &[-1, 2]);
    m.op(0, tfl::WHERE, &[x], &[w], None);
    m.io(0, &[x], &[w]);
    let g = read(&m, &[], &[]).unwrap();
    assert_eq!(size(&g, "w"), 8);
    assert!(
        g.notes.iter().any(|n| n.contains("stored in the file")),
        "{:?}",
        g.notes
    );
    let e = read_err(&m, &[], &[("x:0", 2)]);
    assert!(e.contains("WHERE"), "{e}");
}

#[test]
fn unknown_names_list_what_the_model_has() {
    let m = dynamic_model(1);
    let e = read_err(&m, &[], &[("x:1", 2)]);
    assert!(e.contains("`x:1`") && e.contains("it has: x:0"), "{e}");
    let e = read_err(&m, &[("input", &[2, 4])], &[]);
    assert!(e.contains("`input`") && e.contains("inputs: x"), "{e}");
    let e = read_err(
        &model(tfl::RELU, &[2], &[&[2]], None, |_| vec![]),
        &[],
        &[("x:0", 2)],
    );
    assert!(e.contains("no free dimensions"), "{e}");
}

// ---------------------------------------------------------------- the corpus

fn corpus_model(file: &str) -> Option<Vec<u8>> {
    let path = memplan_testkit::corpus_dir("tflite")?.join(file);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn read_data(data: &[u8], shapes: &[(&str, &[u64])]) -> Result<Graph, memplan::Error> {
    read_bytes(data, shapes, &[])
}

/// Every tensor of these models carries the batch: doubling it doubles every
/// arena tensor, the lower bound and the plan, which still checks.
#[test]
fn a_doubled_batch_doubles_the_plan() {
    let models = [
        ("selfie_segmentation.tflite", "input_1", [1, 256, 256, 3]),
        ("face_landmark.tflite", "input_1", [1, 192, 192, 3]),
        ("iris_landmark.tflite", "input_1", [1, 64, 64, 3]),
        ("hand_landmark_lite.tflite", "input_1", [1, 224, 224, 3]),
        (
            "face_detection_short_range.tflite",
            "input",
            [1, 128, 128, 3],
        ),
        ("pose_detection.tflite", "input_1", [1, 224, 224, 3]),
    ];
    for (file, input, dims) in models {
        let Some(data) = corpus_model(file) else {
            return;
        };
        let one = read_data(&data, &[]).unwrap();
        // the stored shape, given, changes nothing
        assert_eq!(read_data(&data, &[(input, &dims)]).unwrap(), one, "{file}");
        let mut doubled = dims;
        doubled[0] = 2;
        let two = read_data(&data, &[(input, &doubled)]).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(one.ops.len(), two.ops.len(), "{file}");
        for (a, b) in one.tensors.iter().zip(&two.tensors) {
            assert_eq!(a.role, b.role, "{file} {}", a.name);
            if a.role != Role::Const {
                assert_eq!(2 * a.size, b.size, "{file} {}", a.name);
            }
        }
        let (pa, pb) = (
            memplan::plan(&one, Strategy::GreedySize, &Options::default()).unwrap(),
            memplan::plan(&two, Strategy::GreedySize, &Options::default()).unwrap(),
        );
        assert_eq!(2 * pa.lower_bound, pb.lower_bound, "{file}");
        assert_eq!(2 * pa.peak_bytes, pb.peak_bytes, "{file}");
        assert_eq!(check::check(&two, &pb), vec![], "{file}");
    }
}

/// hand_recrop slices its channels with a STRIDED_SLICE whose end, batch
/// included, is fixed in the model ([1, 4, 4, 32]): as in TFLite, that slice
/// keeps batch 1 and the ADD after it broadcasts it back to the new batch.
#[test]
fn a_fixed_slice_keeps_its_batch() {
    let Some(data) = corpus_model("hand_recrop.tflite") else {
        return;
    };
    let one = read_data(&data, &[]).unwrap();
    let two = read_data(&data, &[("input_1", &[2, 256, 256, 3])]).unwrap();
    assert_eq!(
        size(&two, "channel_padding_3"),
        size(&one, "channel_padding_3")
    );
    assert_eq!(size(&two, "conv2d_10"), 2 * size(&one, "conv2d_10"));
    let after = |g: &Graph| {
        let op = g.ops.iter().find(|o| {
            o.inputs
                .iter()
                .any(|&t| g.tensor(t).name == "channel_padding_3")
        });
        g.tensor(op.unwrap().outputs[0]).size
    };
    assert_eq!(after(&two), 2 * after(&one));
}

/// A RESHAPE whose new shape is fixed in the model cannot take a new batch: the
/// error says where.
#[test]
fn a_fixed_reshape_refuses_a_new_batch() {
    let Some(data) = corpus_model("object_detection_ssd_mobilenetv2_oidv4_fp16.tflite") else {
        return;
    };
    let e = read_data(
        &data,
        &[("normalized_input_image_tensor", &[2, 300, 300, 3])],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("(RESHAPE)") && e.contains("fixed in the model"),
        "{e}"
    );
}

// ---------------------------------------------------------------- subgraphs

/// A subgraph `a -> RELU -> t -> RELU -> b` of shape `dims`.
fn relu_body(m: &mut Model, name: &str, dims: &[i32]) -> usize {
    let s = m.subgraph(name);
    let a = m.tensor(s, &format!("{name}_a"), dims);
    let t = m.tensor(s, &format!("{name}_t"), dims);
    let b = m.tensor(s, &format!("{name}_b"), dims);
    m.op(s, tfl::RELU, &[a], &[t], None);
    m.op(s, tfl::RELU, &[t], &[b], None);
    m.io(s, &[a], &[b]);
    s
}

fn if_model(then: i32, other: i32) -> Model {
    let mut m = Model::new();
    let cond = m.typed(0, "cond", &[], tfl::BOOL);
    let x = m.tensor(0, "x", &[2, 3]);
    let y = m.tensor(0, "y", &[2, 3]);
    let opts = Table::new().i32(0, then).i32(1, other);
    m.op(0, tfl::IF, &[cond, x], &[y], Some((tfl::IF_OPTIONS, opts)));
    m.io(0, &[cond, x], &[y]);
    m
}

/// [`if_model`] with its branches: subgraphs `then` (1) and `else` (2).
fn branched_if() -> Model {
    let mut m = if_model(1, 2);
    relu_body(&mut m, "then", &[2, 3]);
    relu_body(&mut m, "else", &[2, 3]);
    m
}

#[test]
fn if_branches_are_nested_arenas_that_follow_the_input() {
    let m = branched_if();
    let g = read(&m, &[], &[]).unwrap();
    let subs: Vec<(&str, &str, &str)> = g
        .subgraphs
        .iter()
        .map(|s| (s.op.as_str(), s.attribute.as_str(), s.graph.name.as_str()))
        .collect();
    assert_eq!(
        subs,
        vec![("IF#0", "then", "then"), ("IF#0", "else", "else")]
    );
    let then = &g.subgraphs[0].graph;
    let roles: Vec<Role> = then.tensors.iter().map(|t| t.role).collect();
    assert_eq!(roles, vec![Role::Input, Role::Arena, Role::Output]);
    assert_eq!(size(then, "then_t"), 24);
    let nested = memplan::plan_nested(&g, Strategy::GreedySize, &Options::default()).unwrap();
    assert_eq!(nested.len(), 2);
    for n in &nested {
        assert_eq!(check::check(n.graph, &n.plan), vec![], "{}", n.path);
        assert_eq!(n.plan.peak_bytes, 24, "{}", n.path);
    }
    // a new input shape flows into both branches and out of the IF
    let g = read(&m, &[("x", &[4, 3])], &[]).unwrap();
    assert_eq!(size(&g, "y"), 48);
    assert_eq!(size(&g.subgraphs[0].graph, "then_t"), 48);
    assert_eq!(size(&g.subgraphs[1].graph, "else_b"), 48);
}

#[test]
fn an_if_with_constant_inputs_is_not_folded() {
    let mut m = Model::new();
    let cond = m.consts(0, "cond", &[], &[1]);
    let x = m.weight(0, "x", &[2, 3]);
    let y = m.tensor(0, "y", &[2, 3]);
    let opts = Table::new().i32(0, 1).i32(1, 1);
    m.op(0, tfl::IF, &[cond, x], &[y], Some((tfl::IF_OPTIONS, opts)));
    m.io(0, &[], &[y]);
    relu_body(&mut m, "branch", &[2, 3]);
    let g = read(&m, &[], &[]).unwrap();
    assert_eq!(g.ops.len(), 1);
    assert_eq!(g.subgraphs.len(), 2);
}

/// CALL_ONCE (init: subgraph 3), then WHILE (cond 1, body 2) whose body holds
/// an IF with both branches subgraph 4.
fn loop_model() -> Model {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[2, 3]);
    let y = m.tensor(0, "y", &[2, 3]);
    let opts = Table::new().i32(0, 1).i32(1, 2);
    m.op(
        0,
        tfl::CALL_ONCE,
        &[],
        &[],
        Some((tfl::CALL_ONCE_OPTIONS, Table::new().i32(0, 3))),
    );
    m.op(0, tfl::WHILE, &[x], &[y], Some((tfl::WHILE_OPTIONS, opts)));
    m.io(0, &[x], &[y]);
    // cond: LESS(sum, limit)
    let c = m.subgraph("cond");
    let a = m.tensor(c, "cond_a", &[2, 3]);
    let sum = m.tensor(c, "cond_sum", &[]);
    let axes = m.ints(c, "cond_axes", &[0, 1]);
    m.op(c, tfl::SUM, &[a, axes], &[sum], None);
    let limit = m.weight(c, "cond_limit", &[]);
    let more = m.typed(c, "cond_more", &[], tfl::BOOL);
    m.op(c, tfl::LESS, &[sum, limit], &[more], None);
    m.io(c, &[a], &[more]);
    // body: an IF inside, whose branches are one subgraph
    let body = m.subgraph("body");
    let ba = m.tensor(body, "body_a", &[2, 3]);
    let bcond = m.weight(body, "body_cond", &[]);
    let bb = m.tensor(body, "body_b", &[2, 3]);
    m.op(
        body,
        tfl::IF,
        &[bcond, ba],
        &[bb],
        Some((tfl::IF_OPTIONS, Table::new().i32(0, 4).i32(1, 4))),
    );
    m.io(body, &[ba], &[bb]);
    let init = m.subgraph("init");
    let ia = m.tensor(init, "init_a", &[8]);
    let ib = m.tensor(init, "init_b", &[8]);
    m.op(init, tfl::RELU, &[ia], &[ib], None);
    m.io(init, &[ia], &[ib]);
    relu_body(&mut m, "inner", &[2, 3]);
    m
}

#[test]
fn while_and_call_once_subgraphs_nest() {
    let m = loop_model();
    let g = read(&m, &[], &[]).unwrap();
    let attrs: Vec<(&str, &str)> = g
        .subgraphs
        .iter()
        .map(|s| (s.op.as_str(), s.attribute.as_str()))
        .collect();
    assert_eq!(
        attrs,
        vec![
            ("CALL_ONCE#0", "init"),
            ("WHILE#1", "cond"),
            ("WHILE#1", "body")
        ]
    );
    let body = &g.subgraphs[2].graph;
    assert_eq!(body.subgraphs.len(), 2);
    assert_eq!(body.subgraphs[0].op, "IF#0");
    let nested = memplan::plan_nested(&g, Strategy::GreedySize, &Options::default()).unwrap();
    assert_eq!(nested.len(), 5);
    assert!(
        nested[3]
            .path
            .contains("WHILE `WHILE#1` body / IF `IF#0` then"),
        "{}",
        nested[3].path
    );
    for n in &nested {
        assert_eq!(check::check(n.graph, &n.plan), vec![], "{}", n.path);
    }
    // the loop's shapes follow its input, through the body's IF
    let g = read(&m, &[("x", &[5, 3])], &[]).unwrap();
    assert_eq!(size(&g, "y"), 60);
    assert_eq!(
        size(&g.subgraphs[2].graph.subgraphs[0].graph, "inner_t"),
        60
    );
}

#[test]
fn a_loop_body_that_changes_shapes_is_an_error_when_reached() {
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[2, 3]);
    let y = m.tensor(0, "y", &[2, 3]);
    m.op(
        0,
        tfl::WHILE,
        &[x],
        &[y],
        Some((tfl::WHILE_OPTIONS, Table::new().i32(0, 1).i32(1, 1))),
    );
    m.io(0, &[x], &[y]);
    // cond and body in one: the output is padded (fixed at [2, 3] as stored)
    let s = m.subgraph("grow");
    let a = m.tensor(s, "a", &[2, 3]);
    let p = m.consts(s, "p", &[2, 2], &[0, 0, 0, 0]);
    let b = m.tensor(s, "b", &[2, 3]);
    m.op(s, tfl::PAD, &[a, p], &[b], None);
    let s2 = m.consts(s, "p2", &[2, 2], &[0, 1, 0, 0]);
    let c = m.tensor(s, "c", &[3, 3]);
    m.op(s, tfl::PAD, &[b, s2], &[c], None);
    m.io(s, &[a], &[c]);
    assert!(read(&m, &[], &[]).is_ok());
    let e = fails(&m, &[4, 3]);
    assert!(
        e.contains("operator 0 (WHILE)") && e.contains("other shapes"),
        "{e}"
    );
}

/// Adds subgraph `s{s}`: `b{s} = IF(c{s}, a{s})` of shape `dims` calling the
/// subgraphs `calls` (then, else), or `RELU(a{s})` when `None`; its index.
fn link(m: &mut Model, s: i32, dims: &[i32], calls: Option<(i32, i32)>) -> usize {
    let k = m.subgraph(&format!("s{s}"));
    let cond = m.typed(k, &format!("c{s}"), &[], tfl::BOOL);
    let a = m.tensor(k, &format!("a{s}"), dims);
    let b = m.tensor(k, &format!("b{s}"), dims);
    match calls {
        Some((then, other)) => {
            let opts = Table::new().i32(0, then).i32(1, other);
            m.op(k, tfl::IF, &[cond, a], &[b], Some((tfl::IF_OPTIONS, opts)));
        }
        None => m.op(k, tfl::RELU, &[a], &[b], None),
    }
    m.io(k, &[a], &[b]);
    k
}

#[test]
fn subgraphs_that_call_themselves_are_errors() {
    // subgraph 0 calls itself
    let mut m = if_model(0, 0);
    relu_body(&mut m, "unused", &[2, 3]);
    let e = read_err(&m, &[], &[]);
    assert!(
        e.contains("subgraph 0 calls itself (subgraph 0 -> 0)"),
        "{e}"
    );
    // 1 -> 2 -> 1
    let mut m = if_model(1, 1);
    for (s, next) in [(1, 2), (2, 1)] {
        assert_eq!(link(&mut m, s, &[2, 3], Some((next, next))), s as usize);
    }
    let e = read_err(&m, &[], &[]);
    assert!(e.contains("calls itself (subgraph 1 -> 2 -> 1)"), "{e}");
    // a subgraph that does not exist
    let e = read_err(&if_model(1, 7), &[], &[]);
    assert!(
        e.contains("subgraph 1 does not exist") || e.contains("does not exist"),
        "{e}"
    );
}

/// Subgraph 1 called twice by each of 20 nested subgraphs would be built 2^20
/// times: the reader's budget refuses it quickly.
#[test]
fn subgraphs_called_many_times_over_cannot_make_the_reader_slow() {
    let mut m = if_model(1, 1);
    for s in 1..=20 {
        link(&mut m, s, &[2], (s < 20).then_some((s + 1, s + 1)));
    }
    let started = std::time::Instant::now();
    let e = read_err(&m, &[], &[]);
    assert!(e.contains("share more data"), "{e}");
    assert!(started.elapsed().as_secs() < 2, "{:?}", started.elapsed());
}

// ---------------------------------------------------------------- hostile files

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Reads `data` with `shapes`; when it imports, plans it and every nested arena
/// and checks them. Fails on a panic or when that takes over a second.
fn survives(data: &[u8], shapes: &[(&str, &[u64])], what: &str) {
    let started = std::time::Instant::now();
    if let Ok(g) = read_data(data, shapes) {
        let opts = Options::default();
        if let Ok(plan) = memplan::plan(&g, Strategy::GreedySize, &opts) {
            assert_eq!(check::check(&g, &plan), vec![], "{what}");
        }
        if let Ok(nested) = memplan::plan_nested(&g, Strategy::GreedySize, &opts) {
            for n in &nested {
                assert_eq!(check::check(n.graph, &n.plan), vec![], "{what} {}", n.path);
            }
        }
    }
    assert!(
        started.elapsed().as_secs_f64() < 1.0,
        "{what}: took {:?}",
        started.elapsed()
    );
}

/// Cut and bit-flipped copies of hand-made models, read with a new input shape
/// so that shapes propagate through the rules and into subgraphs: errors, never
/// panics.
#[test]
fn corrupt_models_with_new_shapes_give_errors_not_panics() {
    let ifs = branched_if();
    let models: Vec<(&str, Vec<u8>, Vec<u64>)> = vec![
        (
            "transpose_conv",
            computed_transpose_conv().bytes(),
            vec![3, 4, 4, 4],
        ),
        ("loop", loop_model().bytes(), vec![5, 3]),
        ("if", ifs.bytes(), vec![4, 3]),
        ("dynamic", dynamic_model(1).bytes(), vec![6, 4]),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, data, new) in &models {
        let shapes: &[(&str, &[u64])] = &[("x", new)];
        survives(data, shapes, name);
        for cut in 0..data.len() {
            survives(&data[..cut], shapes, &format!("{name} cut at {cut}"));
        }
        for variant in 0..1500 {
            let mut copy = data.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(copy.len() as u64) as usize;
                copy[at] ^= 1 << rng.below(8);
            }
            survives(&copy, shapes, &format!("{name} flip variant {variant}"));
        }
    }
}

/// Bit-flipped copies of a corpus model read with a doubled batch.
#[test]
fn corrupt_corpus_models_with_a_new_batch_give_errors_not_panics() {
    let Some(data) = corpus_model("selfie_segmentation.tflite") else {
        return;
    };
    let shapes: &[(&str, &[u64])] = &[("input_1", &[2, 256, 256, 3])];
    let mut rng = Rng(7);
    for variant in 0..150 {
        let mut copy = data.clone();
        for _ in 0..1 + rng.below(4) {
            let span = if variant % 2 == 0 { copy.len() } else { 4096 };
            let at = rng.below(span as u64) as usize;
            copy[at] ^= 1 << rng.below(8);
        }
        survives(&copy, shapes, &format!("flip variant {variant}"));
    }
}

/// A chain of subgraphs, each calling the next, deeper than the reader follows.
#[test]
fn subgraph_calls_nest_at_most_24_deep() {
    let mut m = if_model(1, 1);
    for s in 1..=30 {
        link(&mut m, s, &[2], (s < 30).then_some((s + 1, 0)));
    }
    let e = read_err(&m, &[], &[]);
    assert!(e.contains("nest more than 24 deep"), "{e}");
}
