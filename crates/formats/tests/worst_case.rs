//! Sizes that depend on the input data, planned at their worst case: never
//! smaller than what onnxruntime produces, listed with why, and every plan of
//! them checked. `tests/data/detector.onnx` is an SSDlite-like detector with
//! NonMaxSuppression, NonZero and TopK (`tests/data/make_data_dependent.py`
//! wrote it, and `detector.runtime.json`: the largest shape onnxruntime gave
//! every value over five inputs).

use memplan::check;
use memplan::graph::Graph;
use memplan::{Options, Strategy};
use memplan_formats::{self as formats, ReadOptions, ShapeSource, ValueShape};
use serde_json::Value;

fn data(file: &str) -> Vec<u8> {
    std::fs::read(memplan_testkit::root().join("tests/data").join(file)).unwrap()
}

/// The arena's peak with `strategy`, its plan checked.
fn checked_peak(g: &Graph, strategy: Strategy) -> u64 {
    let plan = memplan::plan(g, strategy, &Options::default()).unwrap();
    assert_eq!(check::check(g, &plan), vec![], "{}", strategy.name());
    plan.peak_bytes
}

fn shapes(file: &str, opts: &ReadOptions) -> (Graph, Vec<ValueShape>) {
    formats::onnx_shapes(&data(file), "m", opts).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_detector_bound_covers_what_onnxruntime_produced() {
    let (g, values) = shapes("detector.onnx", &ReadOptions::default());
    let runtime: Value =
        serde_json::from_slice(&data("detector.runtime.json")).expect("the recorded shapes");
    let recorded = runtime["shapes"].as_object().unwrap();
    assert!(recorded.len() >= 30, "{} values recorded", recorded.len());
    for (name, dims) in recorded {
        let want: Vec<i64> = (dims.as_array().unwrap().iter())
            .map(|d| d.as_i64().unwrap())
            .collect();
        let v = values.iter().find(|v| &v.name == name).unwrap();
        let covers = v.dims.len() == want.len() && v.dims.iter().zip(&want).all(|(b, w)| b >= w);
        assert!(
            covers,
            "`{name}`: memplan {:?}, onnxruntime {want:?}",
            v.dims
        );
    }
    // the values where the data decides, each listed with why; the bound flows on
    let bounded: Vec<(&str, &[u64], &str)> = (g.bounds.iter())
        .map(|b| (b.value.as_str(), &b.dims[..], b.why.as_str()))
        .collect();
    assert_eq!(
        bounded,
        [
            (
                "selected",
                &[100, 3][..],
                "20 boxes (max_output_boxes_per_class) of each of 1 batches x 5 classes"
            ),
            (
                "over_index",
                &[3, 7680][..],
                "every element of the input nonzero"
            ),
            ("over_scores", &[7680][..], "k up to the whole axis of 7680"),
            ("over_order", &[7680][..], "k up to the whole axis of 7680"),
        ]
    );
    assert!(g.bounds.iter().all(|b| !b.given && b.dims == b.worst));
    for b in &g.bounds {
        let v = values.iter().find(|v| v.name == b.value).unwrap();
        assert_eq!(v.source, ShapeSource::WorstCase, "{}", b.value);
    }
    let kept = values.iter().find(|v| v.name == "kept_boxes").unwrap();
    assert_eq!(
        (kept.dims.as_slice(), kept.source),
        (&[100, 4][..], ShapeSource::Inferred)
    );
    for strategy in [Strategy::GreedySize, Strategy::BestFit, Strategy::Auto] {
        checked_peak(&g, strategy);
    }
}

/// A bound the user gives replaces the worst case: listed as given, the arena
/// smaller, the plan checked; one above the worst case gets a note.
#[test]
fn a_smaller_bound_given_plans_a_smaller_arena() {
    let worst = formats::read(&data("detector.onnx"), None, "m").unwrap();
    // at most 2,500 scores over the threshold (onnxruntime gave 2,321 at most);
    // TopK's indices share the bound given for its values
    let opts = ReadOptions {
        value_shapes: vec![
            ("over_index".into(), vec![3, 2500]),
            ("over_scores".into(), vec![2500]),
        ],
        ..ReadOptions::default()
    };
    let given = formats::read_with(&data("detector.onnx"), None, "m", &opts).unwrap();
    let b = given
        .bounds
        .iter()
        .find(|b| b.value == "over_index")
        .unwrap();
    assert!(
        b.given && b.dims == [3, 2500] && b.worst == [3, 7680],
        "{b:?}"
    );
    let order = given
        .bounds
        .iter()
        .find(|b| b.value == "over_order")
        .unwrap();
    assert!(order.given && order.dims == [2500], "{order:?}");
    // the bound flows on: the detections are as many as the scores
    let at = |g: &Graph, name: &str| g.tensors.iter().find(|t| t.name == name).unwrap().size;
    assert_eq!(
        (at(&worst, "over_index"), at(&given, "over_index")),
        (3 * 7680 * 8, 3 * 2500 * 8)
    );
    assert_eq!(
        (at(&worst, "over_boxes"), at(&given, "over_boxes")),
        (7680 * 4 * 4, 2500 * 4 * 4)
    );
    let (w, s) = (
        checked_peak(&worst, Strategy::Auto),
        checked_peak(&given, Strategy::Auto),
    );
    assert!(s < w, "{s} at the bound given, {w} at the worst case");
    eprintln!("detector arena: {w} B at the worst case, {s} B at the bounds given");
    assert!(given.notes.is_empty(), "{:?}", given.notes);
    let opts = ReadOptions {
        value_shapes: vec![("selected".into(), vec![200, 3])],
        ..ReadOptions::default()
    };
    let above = formats::read_with(&data("detector.onnx"), None, "m", &opts).unwrap();
    assert!(
        above
            .notes
            .iter()
            .any(|n| n.contains("`selected`") && n.contains("not within its worst case [100, 3]")),
        "{:?}",
        above.notes
    );
}

/// Where nothing bounds a size (a Loop's scan output, its trip count a graph
/// input), the import stops naming the value and what decides it, and a bound
/// given for it plans.
#[test]
fn a_size_nothing_bounds_is_asked_for() {
    let err = formats::read(&data("loop_scan.onnx"), None, "m").unwrap_err();
    assert_eq!(err.value_needing_shape(), Some("steps"), "{err}");
    let e = err.to_string();
    assert!(e.contains("trip count") && e.contains("`trips`"), "{e}");
    let opts = ReadOptions {
        value_shapes: vec![("steps".into(), vec![8, 4])],
        ..ReadOptions::default()
    };
    let g = formats::read_with(&data("loop_scan.onnx"), None, "m", &opts).unwrap();
    assert_eq!(
        g.tensors.iter().find(|t| t.name == "steps").unwrap().size,
        8 * 4 * 4
    );
    assert!(
        g.bounds.is_empty(),
        "a bound with no worst case is not a worst case"
    );
    checked_peak(&g, Strategy::BestFit);
}

/// The corpus models whose references took shapes from onnxruntime (`shape_from`)
/// or mark them `data_dependent` import at sizes no smaller than those.
#[test]
fn corpus_models_cover_their_runtime_shapes() {
    let Some(dir) = memplan_testkit::corpus_dir("models") else {
        return;
    };
    let mut checked = 0;
    for file in memplan_testkit::files(&dir.join("ref"), "json") {
        let reference: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let tensors = reference["tensors"].as_array().unwrap();
        let marked: Vec<&Value> = (tensors.iter())
            .filter(|t| t.get("shape_from").is_some() || t["data_dependent"] == true)
            .collect();
        if marked.is_empty() {
            continue;
        }
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let mut opts = ReadOptions::default();
        for t in tensors.iter().filter(|t| t["kind"] == "input") {
            let dims = t["shape"].as_array().unwrap();
            let dims = dims.iter().map(|d| d.as_u64().unwrap()).collect();
            opts.input_shapes
                .push((t["name"].as_str().unwrap().into(), dims));
        }
        let model = std::fs::read(dir.join(format!("{stem}.onnx"))).unwrap();
        let g =
            formats::read_with(&model, None, stem, &opts).unwrap_or_else(|e| panic!("{stem}: {e}"));
        for t in marked {
            let name = t["name"].as_str().unwrap();
            let got = g.tensors.iter().find(|x| x.name == name).map(|x| x.size);
            let want = t["bytes"].as_u64().unwrap();
            assert!(
                got.is_some_and(|b| b >= want),
                "{stem} `{name}`: {got:?} bytes, onnxruntime {want}"
            );
            checked += 1;
        }
        checked_peak(&g, Strategy::BestFit);
    }
    assert!(checked >= 6, "{checked} runtime shapes checked");
}

/// x [4, 5] -> NonZero -> Shape -> [1] -> `n` (at most 20), then `filled` =
/// ConstantOfShape(`size`), `size` computed from `n` by `last`; `z`, the
/// graph's output, is `filled` again.
fn count_then(last: Vec<Vec<u8>>) -> Vec<u8> {
    use memplan_testkit::pb;
    let mut nodes = vec![
        pb::node("nz", "NonZero", &["x"], &["idx"]),
        pb::node("shape", "Shape", &["idx"], &["s"]),
        pb::constant("one_at", &[1]),
        pb::node("count", "Gather", &["s", "one_at"], &["n"]),
    ];
    nodes.extend(last);
    nodes.push(pb::node("fill", "ConstantOfShape", &["size"], &["filled"]));
    nodes.push(pb::node("out", "Identity", &["filled"], &["z"]));
    pb::model(&[4, 5], &nodes)
}

#[test]
fn a_bound_read_where_more_gives_more_plans() {
    use memplan_testkit::pb;
    // n - 1 elements: at most 19
    let model = count_then(vec![
        pb::constant("one", &[1]),
        pb::node("less", "Sub", &["n", "one"], &["size"]),
    ]);
    let (g, values) = formats::onnx_shapes(&model, "m", &ReadOptions::default()).unwrap();
    let filled = values.iter().find(|v| v.name == "filled").unwrap();
    assert_eq!(filled.dims, [19]);
    checked_peak(&g, Strategy::BestFit);
}

#[test]
fn a_bound_read_where_more_can_give_less_needs_a_bound() {
    use memplan_testkit::pb;
    // 1000 - n elements: the fewest at n's bound, so planning at it would be too
    // small for an input with fewer nonzero elements
    let model = count_then(vec![
        pb::constant("most", &[1000]),
        pb::node("less", "Sub", &["most", "n"], &["size"]),
    ]);
    let e = formats::onnx_shapes(&model, "m", &ReadOptions::default())
        .err()
        .expect("no plan below the real size");
    let text = e.to_string();
    assert_eq!(e.value_needing_shape(), Some("filled"), "{text}");
    assert!(text.contains("planned at its bound"), "{text}");
    // a bound given for it plans
    let opts = ReadOptions {
        value_shapes: vec![("filled".into(), vec![1000])],
        ..ReadOptions::default()
    };
    let (g, _) = formats::onnx_shapes(&model, "m", &opts).unwrap();
    checked_peak(&g, Strategy::BestFit);
}
