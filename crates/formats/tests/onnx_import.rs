//! The ONNX importer on hand-made models: declared facts, node order, shape
//! values computed the way exporters compute them, and errors that name things.

use memplan::graph::{Graph, Role};
use memplan_formats::{self as formats, ReadOptions};
use memplan_testkit::pb;

fn size(g: &Graph, name: &str) -> u64 {
    g.tensors.iter().find(|t| t.name == name).unwrap().size
}

fn read(data: &[u8], opts: &ReadOptions) -> Result<Graph, String> {
    formats::read_with(data, None, "m", opts).map_err(|e| e.to_string())
}

#[test]
fn a_node_list_out_of_order_is_ordered_with_a_note() {
    let nodes = [
        pb::node("second", "Sigmoid", &["y"], &["z"]),
        pb::node("first", "Relu", &["x"], &["y"]),
    ];
    let g = read(&pb::model(&[2, 4], &nodes), &ReadOptions::default()).unwrap();
    let names: Vec<&str> = g.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    assert!(
        g.notes
            .iter()
            .any(|n| n.contains("not topologically sorted")),
        "{:?}",
        g.notes
    );
    assert_eq!(size(&g, "y"), 32);
}

#[test]
fn value_info_fills_gaps_and_disagreements_are_named() {
    // `mystery` has no inference: its declared output type is used
    let nodes = [
        pb::node("n0", "Relu", &["x"], &["y"]),
        pb::node("mystery", "FancyOp", &["y"], &["w"]),
        pb::node("n2", "Relu", &["w"], &["z"]),
    ];
    let declared = [
        pb::bytes(13, &pb::value("w", &[3, 5])),
        pb::bytes(13, &pb::value("y", &[7])),
    ]
    .concat();
    let data = pb::model_graph(&[2, 4], &[], &nodes, &declared);
    let g = read(&data, &ReadOptions::default()).unwrap();
    assert_eq!(size(&g, "w"), 60, "declared 3x5 floats");
    assert_eq!(size(&g, "y"), 32, "inference wins over a wrong declaration");
    assert!(
        g.notes
            .iter()
            .any(|n| n.contains("`y`") && n.contains("[7]")),
        "{:?}",
        g.notes
    );
    // without declared facts the unknown op stops the import, naming it
    let opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    let e = read(&data, &opts).unwrap_err();
    for part in ["`mystery`", "FancyOp", "ai.onnx", "`w`"] {
        assert!(e.contains(part), "{part} missing from: {e}");
    }
}

/// TorchScript's `Expand`: `shape = Where(Equal(s, -1), ones, s)`, with `s`
/// built by `Concat` of a `Shape` slice and constants.
#[test]
fn computed_shapes_resolve_through_the_evaluator() {
    let nodes = [
        pb::node("shape", "Shape", &["x"], &["s"]),
        pb::constant("zero", &[0]),
        pb::node("g", "Gather", &["s", "zero"], &["batch"]),
        pb::constant("rest", &[-1, 6]),
        pb::node("cat", "Concat", &["batch", "rest"], &["want"]),
        pb::constant("minus", &[-1]),
        pb::node("eq", "Equal", &["want", "minus"], &["mask"]),
        pb::constant("ones", &[1, 1, 1]),
        pb::node("wh", "Where", &["mask", "ones", "want"], &["target"]),
        pb::node("ex", "Expand", &["x", "target"], &["e"]),
        pb::node("last", "Relu", &["e"], &["z"]),
    ];
    let nodes: Vec<Vec<u8>> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            if i == 2 || i == 4 {
                pb::with_int(n, "axis", 0)
            } else {
                n
            }
        })
        .collect();
    // x: [4, 1, 1] expanded to [4, 1, 6]
    let g = read(&pb::model(&[4, 1, 1], &nodes), &ReadOptions::default()).unwrap();
    assert_eq!(size(&g, "e"), 4 * 6 * 4);
    let arena: Vec<&str> = g
        .tensors
        .iter()
        .filter(|t| t.role == Role::Arena)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(arena, ["e"], "the shape arithmetic folds away");
}

#[test]
fn a_shape_fed_at_run_time_is_an_error_naming_the_input() {
    let nodes = [pb::node("r", "Reshape", &["x", "x"], &["z"])];
    let opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    let e = read(&pb::model(&[2], &nodes), &opts).unwrap_err();
    assert!(
        e.contains("`r`") && e.contains("`x`") && e.contains("shape"),
        "{e}"
    );
}

#[test]
fn an_omitted_optional_output_is_not_an_error() {
    let nodes = [pb::node("d", "Dropout", &["x"], &["z", ""])];
    let g = read(&pb::model(&[2, 3], &nodes), &ReadOptions::default()).unwrap();
    assert_eq!(g.ops[0].outputs.len(), 1);
}

#[test]
fn value_shapes_give_sizes_and_rank_zero_inputs_parse() {
    let nodes = [
        pb::node("mystery", "FancyOp", &["x"], &["w"]),
        pb::node("n2", "Relu", &["w"], &["z"]),
    ];
    let opts = ReadOptions {
        value_shapes: vec![formats::parse_input_shape("w=10x10").unwrap()],
        no_declared: true,
        ..ReadOptions::default()
    };
    let g = read(&pb::model(&[2], &nodes), &opts).unwrap();
    assert_eq!(size(&g, "w"), 400);
    assert_eq!(
        formats::parse_input_shape("n=").unwrap().1,
        Vec::<u64>::new()
    );
    assert_eq!(
        formats::parse_input_shape("n=scalar").unwrap().1,
        Vec::<u64>::new()
    );
}

/// Named (`batch`, `seq`), unnamed (`?`) and mixed dimensions are listed, each
/// with where it occurs; `--dim` sets a name everywhere; unknown names are errors
/// that list the known ones.
#[test]
fn free_dimensions_are_named_listed_and_set() {
    let inputs = [
        pb::value_dims("ids", &["batch", "seq"]),
        pb::value_dims("mask", &["batch", "seq"]),
        pb::value_dims("img", &["batch", "3", "?", "?"]),
    ];
    let nodes = [
        pb::node("a", "Relu", &["ids"], &["r"]),
        pb::node("b", "Add", &["r", "mask"], &["s"]),
        pb::node("c", "Relu", &["img"], &["t"]),
        pb::node("d", "Concat", &["s", "s"], &["z"]),
    ];
    let nodes: Vec<Vec<u8>> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            if i == 3 {
                pb::with_int(n, "axis", 0)
            } else {
                n
            }
        })
        .collect();
    let data = pb::model_inputs(&inputs, &nodes);
    let g = read(&data, &ReadOptions::default()).unwrap();
    let names: Vec<&str> = g.free_dims.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["batch", "seq", "img:2", "img:3"]);
    assert!(g.free_dims.iter().all(|d| d.value == 1 && !d.given));
    assert_eq!(g.free_dims[0].at, ["ids[0]", "mask[0]", "img[0]"]);
    assert_eq!(size(&g, "r"), 4);

    let opts = ReadOptions {
        dims: vec![
            formats::parse_dim("seq=128").unwrap(),
            formats::parse_dim("batch=2").unwrap(),
            ("img:2".into(), 48),
            ("img:3".into(), 320),
        ],
        ..ReadOptions::default()
    };
    let g = read(&data, &opts).unwrap();
    assert_eq!(size(&g, "r"), 2 * 128 * 4, "seq and batch set in ids");
    assert_eq!(size(&g, "s"), 2 * 128 * 4, "and in mask");
    assert_eq!(size(&g, "t"), 2 * 3 * 48 * 320 * 4);
    assert!(g.free_dims.iter().all(|d| d.given));

    let opts = ReadOptions {
        dims: vec![("sequence".into(), 8)],
        ..ReadOptions::default()
    };
    let e = read(&data, &opts).unwrap_err();
    for part in ["`sequence`", "batch", "seq", "img:2", "img:3"] {
        assert!(e.contains(part), "{part} missing from: {e}");
    }
    // a whole shape given for an input takes its dims out of the free ones
    let opts = ReadOptions {
        input_shapes: vec![("img".into(), vec![1, 3, 8, 8])],
        ..ReadOptions::default()
    };
    let g = read(&data, &opts).unwrap();
    assert_eq!(g.free_dims.len(), 2);
    assert!(formats::parse_dim("seq").is_err() && formats::parse_dim("=3").is_err());
}

/// PP-OCR's recogniser declares `x: [p2o.DynamicDimension.0, 3, ?,
/// p2o.DynamicDimension.1]`: named and unnamed dims mixed in one input. `--dim`
/// for each plans exactly as the whole shape given with `--input-shape`.
#[test]
fn mixed_named_and_unnamed_dims_set_as_a_whole_shape_does() {
    let inputs = [pb::value_dims(
        "x",
        &["p2o.DynamicDimension.0", "3", "?", "p2o.DynamicDimension.1"],
    )];
    let nodes = [
        pb::node("a", "Relu", &["x"], &["r"]),
        pb::node("b", "Sigmoid", &["r"], &["s"]),
        pb::node("c", "Tanh", &["s"], &["z"]),
    ];
    let data = pb::model_inputs(&inputs, &nodes);
    let g = read(&data, &ReadOptions::default()).unwrap();
    let names: Vec<&str> = g.free_dims.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["p2o.DynamicDimension.0", "x:2", "p2o.DynamicDimension.1"]
    );
    let by_dims = ReadOptions {
        dims: vec![
            ("p2o.DynamicDimension.0".into(), 1),
            ("x:2".into(), 48),
            ("p2o.DynamicDimension.1".into(), 320),
        ],
        ..ReadOptions::default()
    };
    let by_shape = ReadOptions {
        input_shapes: vec![formats::parse_input_shape("x=1x3x48x320").unwrap()],
        ..ReadOptions::default()
    };
    let (a, b) = (
        read(&data, &by_dims).unwrap(),
        read(&data, &by_shape).unwrap(),
    );
    assert_eq!(size(&a, "r"), 3 * 48 * 320 * 4);
    let sizes = |g: &Graph| g.tensors.iter().map(|t| t.size).collect::<Vec<_>>();
    assert_eq!(sizes(&a), sizes(&b));
    assert!(b.free_dims.is_empty(), "a whole shape leaves nothing free");
}

/// A model that cannot run with its free dims at 1 (a reshape into rows of 16,
/// as an STFT's window is wider than one sample) imports with the dims that
/// reach the failing op raised to the least power of two that imports, each
/// alone first, then together; a dim that does not reach it stays 1, and a note
/// says why. What nothing tried makes import is an error that carries the free
/// dims, so the page can ask for them, and says how to set them.
#[test]
fn free_dims_that_cannot_run_at_1_are_raised_until_the_model_imports() {
    let rows = |name: &str, input: &str, out: &str| {
        vec![
            pb::constant(&format!("{name}_shape"), &[-1, 16]),
            pb::node(name, "Reshape", &[input, &format!("{name}_shape")], &[out]),
        ]
    };
    // one dim reaches the reshape; `batch` and `other:1` do not
    let inputs = [
        pb::value_dims("x", &["batch", "samples"]),
        pb::value_dims("other", &["batch", "?"]),
    ];
    let mut nodes = rows("r", "x", "rows");
    nodes.push(pb::node("o", "Relu", &["other"], &["y"]));
    nodes.push(pb::node("out", "Relu", &["rows"], &["z"]));
    let data = pb::model_inputs(&inputs, &nodes);
    let g = read(&data, &ReadOptions::default()).unwrap();
    let dims: Vec<(&str, u64, bool, bool)> = (g.free_dims.iter())
        .map(|d| (d.name.as_str(), d.value, d.given, d.raised))
        .collect();
    assert_eq!(
        dims,
        [
            ("batch", 1, false, false),
            ("samples", 16, false, true),
            ("other:1", 1, false, false)
        ]
    );
    assert_eq!(size(&g, "rows"), 16 * 4);
    let note = g
        .notes
        .iter()
        .find(|n| n.contains("samples"))
        .expect("a note");
    assert!(
        note.contains("set to 16") && note.contains("Reshape"),
        "{note}"
    );
    // given dims are the user's: never raised; the error still lists them (the
    // page keeps asking) but has no hint to set them
    let given = ReadOptions {
        dims: vec![
            ("samples".into(), 3),
            ("batch".into(), 1),
            ("other:1".into(), 1),
        ],
        ..ReadOptions::default()
    };
    let e = formats::read_with(&data, None, "m", &given).unwrap_err();
    assert!(!e.to_string().contains("--dim"), "{e}");
    assert!(e.free_dims().len() == 3 && e.free_dims().iter().all(|d| d.given && !d.raised));

    // two inputs that each need their own dim raised: alone neither imports
    let inputs = [pb::value_dims("a", &["n"]), pb::value_dims("b", &["m"])];
    let mut nodes = rows("ra", "a", "za");
    nodes.extend(rows("rb", "b", "zb"));
    nodes.push(pb::node("s", "Add", &["za", "zb"], &["sum"]));
    nodes.push(pb::node("out", "Relu", &["sum"], &["z"]));
    let g = read(&pb::model_inputs(&inputs, &nodes), &ReadOptions::default()).unwrap();
    let raised: Vec<(&str, u64)> = (g.free_dims.iter())
        .filter(|d| d.raised)
        .map(|d| (d.name.as_str(), d.value))
        .collect();
    assert_eq!(raised, [("n", 16), ("m", 16)]);

    // only 100 fits: no power of two does
    let inputs = [pb::value_dims("x", &["n", "k"])];
    let nodes = [
        pb::constant("shape", &[100]),
        pb::node("r", "Reshape", &["x", "shape"], &["rows"]),
        pb::node("out", "Relu", &["rows"], &["z"]),
    ];
    let data = pb::model_inputs(&inputs, &nodes);
    let e = formats::read_with(&data, None, "m", &ReadOptions::default()).unwrap_err();
    let names: Vec<&str> = e.free_dims().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["n", "k"]);
    assert!(e.free_dims().iter().all(|d| d.value == 1 && !d.given));
    let text = e.to_string();
    assert!(
        text.contains("Reshape")
            && text.contains("n=1, k=1 defaulted; other values may import")
            && !text.contains("--"),
        "{text}"
    );
    let fits = ReadOptions {
        dims: vec![("n".into(), 10), ("k".into(), 10)],
        ..ReadOptions::default()
    };
    assert_eq!(size(&read(&data, &fits).unwrap(), "rows"), 400);
}

/// Shapes that onnxruntime refuses are errors here too, so that a model is never
/// planned at shapes it cannot run with (and defaulted dims are raised past
/// them): a concatenation of inputs that differ off its axis, a reflection
/// wider than its input, a convolution whose window overhangs the padded input.
/// A pool's overhanging window gives 1, as onnxruntime counts it.
#[test]
fn shapes_onnxruntime_refuses_are_errors() {
    // each op writes `t`, read by the output `z` (whose declared type would
    // stand in for an inference that fails)
    let out = || pb::node("out", "Relu", &["t"], &["z"]);
    let read_x = |x: &[&str], nodes: &[Vec<u8>]| {
        let nodes = [nodes, &[out()]].concat();
        read(
            &pb::model_inputs(&[pb::value_dims("x", x)], &nodes),
            &ReadOptions::default(),
        )
    };
    let concat = |x: &[&str]| {
        let n = pb::with_int(pb::node("c", "Concat", &["x", "y"], &["t"]), "axis", 1);
        let inputs = [
            pb::value_dims("x", x),
            pb::value_dims("y", &["1", "3", "3"]),
        ];
        read(
            &pb::model_inputs(&inputs, &[n, out()]),
            &ReadOptions::default(),
        )
    };
    let e = concat(&["1", "2", "2"]).unwrap_err();
    assert!(e.contains("differ in dimension 2"), "{e}");
    assert_eq!(size(&concat(&["1", "2", "3"]).unwrap(), "t"), 5 * 3 * 4);

    let reflect = |pad: i64| {
        let pads = pb::constant("pads", &[0, pad, 0, pad]);
        let n = pb::with_str(
            pb::node("p", "Pad", &["x", "pads"], &["t"]),
            "mode",
            "reflect",
        );
        read_x(&["1", "4"], &[pads, n])
    };
    let e = reflect(4).unwrap_err();
    assert!(
        e.contains("reflection of 4 does not fit the input of 4"),
        "{e}"
    );
    assert_eq!(size(&reflect(3).unwrap(), "t"), 10 * 4);

    // a window of 2, stride 2, over 1 element: a pool gives 1, a convolution fails
    let pool = [
        pb::node("m", "MaxPool", &["x"], &["t"]),
        kernel_attrs(&[2], &[2]),
    ]
    .concat();
    assert_eq!(size(&read_x(&["1", "1", "1"], &[pool]).unwrap(), "t"), 4);
    let w = pb::constant_float("w", &[1, 1, 2]);
    let conv = [
        pb::node("c", "Conv", &["x", "w"], &["t"]),
        kernel_attrs(&[2], &[2]),
    ]
    .concat();
    let e = read_x(&["1", "1", "1"], &[w, conv]).unwrap_err();
    assert!(e.contains("window of 2 does not fit the input of 1"), "{e}");
}

/// `kernel_shape` and `strides` attributes.
fn kernel_attrs(kernel: &[i64], strides: &[i64]) -> Vec<u8> {
    let ints = |name: &str, v: &[i64]| {
        let mut a = pb::bytes(1, name.as_bytes());
        for &x in v {
            a.extend(pb::int(8, x));
        }
        a.extend(pb::int(20, 7));
        pb::bytes(5, &a)
    };
    [ints("kernel_shape", kernel), ints("strides", strides)].concat()
}

/// A constant whose contents do not fill its shape (a corrupt file) is not used
/// as a shape value, and nothing panics.
#[test]
fn contents_that_do_not_fill_their_shape_are_not_trusted() {
    // dims [3] but two int64s of raw data
    let raw: Vec<u8> = [4i64, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
    let t = [
        pb::int(1, 3),
        pb::int(2, 7),
        pb::bytes(8, b"s"),
        pb::bytes(9, &raw),
    ]
    .concat();
    let nodes = [
        pb::node("add", "Add", &["s", "s"], &["t"]),
        pb::node("r", "Reshape", &["x", "t"], &["z"]),
    ];
    let data = pb::model_with(&[8], &[t], &nodes);
    let opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    let e = read(&data, &opts).unwrap_err();
    assert!(e.contains("`r`") && e.contains("shape"), "{e}");
}

/// scikit-learn's classifiers as skl2onnx writes them (`tests/data/sklearn_*`:
/// a logistic regression on iris, int and string labels): `LinearClassifier`'s
/// labels come in `classlabels_ints` (trees use `classlabels_int64s`), and
/// `ZipMap` turns the `[N, classes]` scores into N maps, sized as 12 bytes an
/// entry (an 8-byte key, a float). Every plan checks.
#[test]
fn sklearn_classifiers_with_zipmap_import_and_plan() {
    for file in ["sklearn_logreg_zipmap.onnx", "sklearn_logreg_strings.onnx"] {
        let data = std::fs::read(memplan_testkit::root().join("tests/data").join(file)).unwrap();
        let opts = ReadOptions {
            dims: vec![("X:0".into(), 4)],
            ..ReadOptions::default()
        };
        let g = read(&data, &opts).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(size(&g, "probabilities"), 4 * 3 * 4, "{file}");
        assert_eq!(size(&g, "output_probability"), 4 * 3 * 12, "{file}");
        for strategy in [memplan::Strategy::GreedySize, memplan::Strategy::BestFit] {
            let plan = memplan::plan(&g, strategy, &memplan::Options::default()).unwrap();
            assert_eq!(memplan::check::check(&g, &plan), vec![], "{file}");
        }
    }
    let ints = read(
        &std::fs::read(memplan_testkit::root().join("tests/data/sklearn_logreg_zipmap.onnx"))
            .unwrap(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(size(&ints, "output_label"), 8, "one int64 label");
}
