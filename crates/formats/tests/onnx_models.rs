//! Today's ONNX exports (`../shared/corpus/models/`): each imports to exactly its
//! reference graph (`models/ref/`: arena tensor names and byte sizes, lower bound)
//! at the reference's input dims, and every plan of it (and of its bodies) passes
//! the checker.

use memplan::check;
use memplan::graph::{Graph, Role};
use memplan::{Options, Strategy};
use memplan_formats::{self as formats, ReadOptions};
use serde_json::Value;
use std::collections::BTreeMap;

/// The reference of `stem` and the model imported at its input dims.
fn import(stem: &str) -> Option<(Value, Graph)> {
    import_with(stem, false)
}

/// [`import`], with `no_declared` ignoring the file's `value_info`.
fn import_with(stem: &str, no_declared: bool) -> Option<(Value, Graph)> {
    let dir = memplan_testkit::corpus_dir("models")?;
    let reference: Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("ref/{stem}.json"))).unwrap())
            .unwrap();
    let data = std::fs::read(dir.join(format!("{stem}.onnx"))).unwrap();
    let mut opts = ReadOptions {
        no_declared,
        ..ReadOptions::default()
    };
    for t in reference["tensors"].as_array().unwrap() {
        if t["kind"] == "input" {
            let dims = t["shape"].as_array().unwrap();
            let dims = dims.iter().map(|d| d.as_u64().unwrap()).collect();
            opts.input_shapes
                .push((t["name"].as_str().unwrap().to_string(), dims));
        }
    }
    let g = formats::read_with(&data, None, stem, &opts).unwrap_or_else(|e| panic!("{stem}: {e}"));
    Some((reference, g))
}

fn arena(g: &Graph) -> BTreeMap<String, u64> {
    g.tensors
        .iter()
        .filter(|t| t.role == Role::Arena)
        .map(|t| (t.name.clone(), t.size))
        .collect()
}

/// Checks every plan of `g` and of its nested arenas.
fn every_plan_checks(stem: &str, g: &Graph) {
    for strategy in [Strategy::GreedySize, Strategy::BestFit, Strategy::FirstFit] {
        let plan = memplan::plan(g, strategy, &Options::default()).unwrap();
        assert_eq!(check::check(g, &plan), vec![], "{stem} {}", strategy.name());
        for n in memplan::plan_nested(g, strategy, &Options::default()).unwrap() {
            assert_eq!(check::check(n.graph, &n.plan), vec![], "{stem} {}", n.path);
        }
    }
}

fn matches_reference(stem: &str) {
    let Some((reference, g)) = import(stem) else {
        return;
    };
    let tensors = reference["tensors"].as_array().unwrap();
    let want: BTreeMap<String, u64> = tensors
        .iter()
        .filter(|t| t["kind"] == "intermediate")
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let data_dependent: Vec<&str> = tensors
        .iter()
        .filter(|t| t["data_dependent"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let got = arena(&g);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{stem}: arena tensor names"
    );
    for (name, &bytes) in &want {
        if data_dependent.contains(&name.as_str()) {
            // one run's size: memplan's must bound it from above
            assert!(
                got[name] >= bytes,
                "{stem}: `{name}` {} < {bytes}",
                got[name]
            );
        } else {
            assert_eq!(got[name], bytes, "{stem}: bytes of `{name}`");
        }
    }
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    let lb = reference["stats"]["lower_bound"].as_u64().unwrap();
    if data_dependent.is_empty() {
        assert_eq!(a.liveness.lower_bound, lb, "{stem}: lower bound");
    } else {
        assert!(a.liveness.lower_bound >= lb, "{stem}: lower bound");
    }
    assert_eq!(
        g.ops.len() as u64,
        reference["stats"]["n_ops"].as_u64().unwrap(),
        "{stem}: ops after folding"
    );
    every_plan_checks(stem, &g);
    // memplan's own inference gives the same arena without the file's value_info
    let (_, own) = import_with(stem, true).unwrap();
    assert_eq!(arena(&own), got, "{stem}: without value_info");
}

macro_rules! models {
    ($($test:ident: $stem:literal,)*) => {
        $(
            #[test]
            fn $test() {
                matches_reference($stem);
            }
        )*

        #[test]
        fn every_model_has_a_test() {
            let Some(dir) = memplan_testkit::corpus_dir("models") else { return };
            let mut stems: Vec<String> = memplan_testkit::files(&dir, "onnx")
                .iter()
                .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
                .collect();
            stems.sort();
            let mut ours = vec![$($stem.to_string()),*];
            ours.sort();
            assert_eq!(stems, ours);
        }
    };
}

models! {
    bert_ts_fixed: "bert.ts_fixed",
    bert_dy_fixed: "bert.dy_fixed",
    bert_dy_dyn: "bert.dy_dyn",
    gpt2_ts_dyn: "gpt2.ts_dyn",
    gpt2_dy_fixed: "gpt2.dy_fixed",
    llama_ts_fixed: "llama.ts_fixed",
    llama_dy_dyn: "llama.dy_dyn",
    t5_encoder_dy_fixed: "t5_encoder.dy_fixed",
    t5_encoder_ts_dyn: "t5_encoder.ts_dyn",
    vit_ts_fixed: "vit.ts_fixed",
    vit_dy_dyn: "vit.dy_dyn",
    whisper_encoder_dy_fixed: "whisper_encoder.dy_fixed",
    yolo_ts_fixed: "yolo.ts_fixed",
    yolo_dy_dyn: "yolo.dy_dyn",
    rnn_ts_dyn: "rnn.ts_dyn",
    ctrl_cond_dy_fixed: "ctrl_cond.dy_fixed",
    ctrl_loop_ts_script: "ctrl_loop.ts_script",
    mobilenet_v2_w05_int8_qdq: "mobilenet_v2_w05.int8_qdq",
    mobilenet_v2_w05_int8_qop: "mobilenet_v2_w05.int8_qop",
    vit_ts_fixed_fp16: "vit.ts_fixed.fp16",
    bert_dy_fixed_int8_dyn: "bert.dy_fixed.int8_dyn",
    bert_dy_fixed_fp16: "bert.dy_fixed.fp16",
    silero_vad: "silero_vad",
    rapid_orientation: "rapid_orientation",
}

/// The plan that overwrote live data: `linear` is read inside both branches of
/// the `If`, so it must live through the `If` and no plan may put the `If`'s
/// output on it.
#[test]
fn values_read_inside_an_if_live_through_it() {
    let Some((_, g)) = import("ctrl_cond.dy_fixed") else {
        return;
    };
    let id = |name: &str| g.tensors.iter().position(|t| t.name == name).unwrap();
    let (linear, out) = (id("linear"), id("getitem"));
    let if_op = g.ops.iter().position(|o| o.kind == "If").unwrap();
    assert!(
        g.ops[if_op].inputs.iter().any(|t| t.index() == linear),
        "the If reads `linear`"
    );
    for strategy in Strategy::ALL {
        let plan = memplan::plan(&g, strategy, &Options::default()).unwrap();
        assert_eq!(check::check(&g, &plan), vec![], "{}", strategy.name());
        let at = |t: usize| plan.tensors.iter().find(|p| p.id as usize == t).unwrap();
        let (a, b) = (at(linear), at(out));
        let step = plan
            .order
            .iter()
            .position(|&o| o as usize == if_op)
            .unwrap() as u32;
        assert!(
            a.end >= step,
            "{}: `linear` ends at {} before the If at {step}",
            strategy.name(),
            a.end
        );
        let apart = a.offset + a.size <= b.offset || b.offset + b.size <= a.offset;
        assert!(apart, "{}: `getitem` overwrites `linear`", strategy.name());
    }
}

/// The checker sees the reads inside the branches too: a hand-made plan that
/// frees `linear` after its last outer read and puts the `If`'s output on it is
/// reported invalid.
#[test]
fn the_checker_refuses_a_plan_that_frees_a_value_a_branch_reads() {
    let Some((_, g)) = import("ctrl_cond.dy_fixed") else {
        return;
    };
    let mut plan = memplan::plan(&g, Strategy::GreedySize, &Options::default()).unwrap();
    assert_eq!(check::check(&g, &plan), vec![]);
    let linear = plan
        .tensors
        .iter()
        .position(|p| p.name == "linear")
        .unwrap();
    let out = plan
        .tensors
        .iter()
        .position(|p| p.name == "getitem")
        .unwrap();
    // what the planner did before: `linear` over steps 0-1 only, the If's output on it
    plan.tensors[linear].end = 1;
    plan.tensors[linear].offset = 0;
    plan.tensors[out].offset = 0;
    let violations = check::check(&g, &plan);
    let text: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
    assert!(text.iter().any(|t| t.contains("linear")), "{text:?}");
    assert!(
        text.iter().any(|t| t.contains("getitem")),
        "the overlap of `getitem` and `linear` is reported: {text:?}"
    );
}

/// silero's VAD leaves its input length free, and its STFT's window of 256 does
/// not fit one sample: with no dims given it opens with that length raised to
/// where both its branches run (the batch dims stay 1), exactly as the same
/// length given with `--dim`, and every plan checks.
#[test]
fn silero_opens_with_its_input_length_raised_where_1_cannot_run() {
    let Some(dir) = memplan_testkit::corpus_dir("models") else {
        return;
    };
    let data = std::fs::read(dir.join("silero_vad.onnx")).unwrap();
    let g = formats::read_with(&data, None, "silero_vad", &ReadOptions::default()).unwrap();
    let dims: Vec<(&str, u64, bool)> = (g.free_dims.iter())
        .map(|d| (d.name.as_str(), d.value, d.raised))
        .collect();
    let length = g.free_dims[1].value;
    assert_eq!(
        dims,
        [
            ("input:0", 1, false),
            ("input:1", length, true),
            ("state:1", 1, false)
        ]
    );
    assert!(length > 1 && length.is_power_of_two(), "{length}");
    assert!(
        g.notes.iter().any(|n| n.contains("input:1 set to")),
        "{:?}",
        g.notes
    );
    let given = ReadOptions {
        dims: vec![("input:1".into(), length)],
        ..ReadOptions::default()
    };
    let at = formats::read_with(&data, None, "silero_vad", &given).unwrap();
    assert_eq!(arena(&g), arena(&at));
    assert!(at.free_dims.iter().all(|d| !d.raised));
    // both branches (16 kHz and 8 kHz) run at that length; at half of it the
    // 16 kHz STFT does not (the least length where every branch runs was taken)
    let left_out = |g: &Graph| g.notes.iter().any(|n| n.contains("one branch cannot run"));
    assert!(!left_out(&g), "{:?}", g.notes);
    let half = ReadOptions {
        dims: vec![("input:1".into(), length / 2)],
        ..ReadOptions::default()
    };
    let half = formats::read_with(&data, None, "silero_vad", &half).unwrap();
    assert!(left_out(&half), "{:?}", half.notes);
    every_plan_checks("silero_vad", &g);
}
