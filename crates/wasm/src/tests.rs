//! The wasm API as JS sees it, run in wasm by `wasm-bindgen-test` (in Node):
//! sessions, plan options, NPU solving and lessons, and every error a JS `Error`
//! carrying the core's message.

use super::npu::NpuSession;
use super::Session;
use crate::Thrown;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

const SEED: &[u8] = include_bytes!("../../../examples/transformer_layer.json");
const NPU_TINY: &[u8] = include_bytes!("../../../examples/npu_tiny_matmul.json");

/// The `kind` the JS `Error` carries (`undefined` when it has none), and its message.
fn kind_and_message(error: Thrown) -> (Option<String>, String) {
    let value = JsValue::from(error);
    let kind = js_sys::Reflect::get(&value, &"kind".into())
        .unwrap()
        .as_string();
    let error: js_sys::Error = value.dyn_into().expect("a JS Error");
    (kind, error.message().into())
}

/// The message of the JS `Error` that `error` becomes on the JS side.
fn message(error: Thrown) -> String {
    let value = JsValue::from(error);
    let error: js_sys::Error = value.dyn_into().expect("a JS Error");
    error.message().into()
}

fn options(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

fn plan(session: &mut Session, strategy: &str, opts: &str) -> Value {
    let text = session.plan(strategy, options(opts), None).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[wasm_bindgen_test]
fn the_seed_example_plans_at_its_bound() {
    let mut session = Session::new(SEED, "transformer_layer.json", JsValue::UNDEFINED).unwrap();
    let info: Value = serde_json::from_str(&session.info().unwrap()).unwrap();
    assert_eq!(info["name"], "transformer_layer");
    assert_eq!(info["tensors"], 8);
    for strategy in ["greedy-size", "best-fit", "search"] {
        let report = plan(&mut session, strategy, "{}");
        assert_eq!(report["valid"], true, "{strategy}");
        assert_eq!(report["peak_bytes"], 402_653_184u64, "{strategy}");
        assert_eq!(report["lower_bound"], 402_653_184u64);
        assert_eq!(report["capacity"], Value::Null);
    }
    let naive = plan(&mut session, "naive", r#"{"capacity": "400MiB"}"#);
    assert_eq!(naive["peak_bytes"], 939_524_096u64);
    assert_eq!(naive["capacity"], 419_430_400u64);
}

/// Two branches whose stored order keeps both large tensors alive (bound 201 B)
/// where the memory-aware order needs 102 B: `reorder` takes that order, and the
/// report's live-bytes profile is the one of the order it took.
#[wasm_bindgen_test]
fn the_profile_follows_the_order_reorder_took() {
    const BRANCHES: &[u8] = include_bytes!("../../../tests/data/two_branches.json");
    let mut session = Session::new(BRANCHES, "two_branches.json", JsValue::UNDEFINED).unwrap();
    let most = |report: &Value| {
        let steps = report["profile"].as_array().unwrap();
        steps.iter().map(|p| p[1].as_u64().unwrap()).max().unwrap()
    };
    let kahn = plan(&mut session, "greedy-size", "{}");
    assert_eq!(
        (most(&kahn), kahn["lower_bound"].as_u64()),
        (201, Some(201))
    );
    let reordered = plan(&mut session, "reorder", "{}");
    assert_eq!(reordered["order_kind"], "memory");
    assert_eq!(reordered["lower_bound"], 102);
    assert_eq!(most(&reordered), 102);
}

#[wasm_bindgen_test]
fn alignment_reaches_every_offset() {
    let mut session = Session::new(SEED, "t.json", JsValue::UNDEFINED).unwrap();
    let report = plan(&mut session, "first-fit", r#"{"align": "3MiB"}"#);
    assert_eq!(report["valid"], true);
    for t in report["tensors"].as_array().unwrap() {
        assert_eq!(t["offset"].as_u64().unwrap() % (3 << 20), 0, "{t}");
    }
}

#[wasm_bindgen_test]
fn a_search_reports_progress_through_the_callback() {
    let data = b"id,lower,upper,size\n0,0,4,64\n1,1,5,32\n2,2,8,64\n3,4,9,32\n4,5,9,96\n";
    let mut session = Session::new(data, "m.csv", JsValue::UNDEFINED).unwrap();
    let calls = js_sys::Array::new();
    let record = {
        let calls = calls.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |p: JsValue| {
            calls.push(&p);
        })
    };
    let callback: &js_sys::Function = record.as_ref().unchecked_ref();
    let text = session
        .plan("best-of", options("{}"), Some(callback.clone()))
        .unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["valid"], true);
    assert!(calls.length() >= 1, "no progress reported");
    let first = calls.get(0);
    let peak = js_sys::Reflect::get(&first, &"best_peak".into()).unwrap();
    assert!(peak.as_f64().unwrap() >= report["peak_bytes"].as_f64().unwrap());
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_the_core_message() {
    let bad = Session::new(b"{\"tensors\": [}", "bad.json", JsValue::UNDEFINED)
        .err()
        .unwrap();
    let (kind, text) = kind_and_message(bad);
    assert!(
        text.contains("line 1") && kind.as_deref() == Some("parse"),
        "{kind:?} {text}"
    );
    let cycle = br#"{"tensors": [{"name": "a", "size": 1}, {"name": "b", "size": 1}],
        "ops": [{"name": "f", "inputs": ["a"], "outputs": ["b"]},
                {"name": "g", "inputs": ["b"], "outputs": ["a"]}]}"#;
    let cyclic = Session::new(cycle, "c.json", JsValue::UNDEFINED)
        .err()
        .unwrap();
    let (kind, text) = kind_and_message(cyclic);
    assert_eq!(kind.as_deref(), Some("cycle"), "{text}");

    let mut session = Session::new(SEED, "t.json", JsValue::UNDEFINED).unwrap();
    let cases = [
        ("fastest", "{}", "unknown strategy `fastest`"),
        ("naive", r#"{"align": "lots"}"#, "alignment:"),
        ("naive", r#"{"capacity": "-3"}"#, "capacity:"),
        ("search", r#"{"budget_ms": 1e12}"#, "out of range"),
        ("naive", r#"{"colour": "red"}"#, "unknown field `colour`"),
    ];
    for (strategy, opts, expected) in cases {
        let Err(error) = session.plan(strategy, options(opts), None) else {
            panic!("{strategy} {opts}: planned instead of an error");
        };
        let text = message(error);
        assert!(text.contains(expected), "{strategy} {opts}: {text}");
    }
    // the session still plans after the errors
    assert_eq!(plan(&mut session, "greedy-size", "{}")["valid"], true);
}

#[wasm_bindgen_test]
fn an_npu_case_solves_and_checks() {
    let mut session = NpuSession::new(NPU_TINY, "npu_tiny_matmul.json").unwrap();
    let levels = vec![200.0, 1024.0, 256.0, 256.0, 512.0];
    let report: Value =
        serde_json::from_str(&session.solve(2, "best", levels.clone(), None).unwrap()).unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(
        report["checked"]["extra_movement"], 192,
        "{}",
        report["checked"]
    );
    let too_small = session.solve(2, "best", vec![1.0, 1024.0, 256.0, 256.0, 512.0], None);
    assert!(message(too_small.err().unwrap()).contains("L1"));
    let wrong = session.solve(2, "best", vec![], None).err().unwrap();
    assert!(message(wrong).contains("expected 5 capacities"));
    assert!(session.solve(2, "fastest", levels, None).is_err());
}

#[wasm_bindgen_test]
fn a_lesson_walks_the_plan_on_show() {
    let mut session = Session::new(SEED, "t.json", JsValue::UNDEFINED).unwrap();
    let report = plan(&mut session, "greedy-size", "{}");
    let handle = report["handle"].as_u64().unwrap() as u32;
    let lesson: Value = serde_json::from_str(&session.lesson(handle).unwrap()).unwrap();
    assert_eq!(lesson["lower_bound"], report["lower_bound"]);
    // the session keeps its last two reports
    let second = plan(&mut session, "best-fit", "{}");
    assert!(session.lesson(handle).is_ok());
    plan(&mut session, "naive", "{}");
    assert!(message(session.lesson(handle).unwrap_err()).contains("no longer kept"));
    assert!(session
        .lesson(second["handle"].as_u64().unwrap() as u32)
        .is_ok());
    // a plan of another body is not walked through this one
    session.focus(-1).unwrap();
    assert!(session
        .lesson(second["handle"].as_u64().unwrap() as u32)
        .is_err());
}

/// The field `key` of JS object `value`, as JSON.
fn field(value: &JsValue, key: &str) -> Value {
    let text = js_sys::JSON::stringify(&js_sys::Reflect::get(value, &key.into()).unwrap()).unwrap();
    serde_json::from_str(&String::from(text)).unwrap()
}

#[wasm_bindgen_test]
fn a_packed_report_draws_and_finds_tensors_by_id_and_under_a_point() {
    let mut session = Session::new(SEED, "t.json", JsValue::UNDEFINED).unwrap();
    let text = session
        .plan("greedy-size", JsValue::UNDEFINED, None)
        .unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    let packed = session
        .plan_packed("greedy-size", JsValue::UNDEFINED, None)
        .unwrap();
    let mut drawing = super::draw::Drawing::new();
    drawing.set_packed(0, &packed).unwrap();
    // the packed report is the JSON one (less the session's handle), the summary
    // it without the tensors
    let mut exported: Value = serde_json::from_str(&drawing.json(Some(0)).unwrap()).unwrap();
    exported["handle"] = report["handle"].clone();
    assert_eq!(exported, report);
    let summary: Value = serde_json::from_str(&drawing.summary(0).unwrap()).unwrap();
    assert_eq!(summary["peak_bytes"], report["peak_bytes"]);
    assert_eq!(summary["tensors"], Value::Array(Vec::new()));
    // the profile travels as records (the page reads them from the bytes)
    assert_eq!(summary["profile"], Value::Array(Vec::new()));
    assert!(report["profile"].as_array().unwrap().len() > 1);
    assert_eq!(
        summary["placed"],
        report["tensors"].as_array().unwrap().len()
    );
    let cut = drawing
        .set_packed(1, &packed[..packed.len() - 1])
        .unwrap_err();
    assert!(message(cut).contains("ends early"));
    let tensors = report["tensors"].as_array().unwrap();
    assert!(!tensors.is_empty());
    for t in tensors {
        let id = t["id"].as_u64().unwrap() as u32;
        let by_id = drawing.tensor(0, id).unwrap();
        assert_eq!(field(&by_id, "name"), t["name"]);
        assert_eq!(field(&by_id, "offset"), t["offset"]);
        // the middle of its box, and just past its last byte
        let (start, end) = (t["start"].as_f64().unwrap(), t["end"].as_f64().unwrap());
        let (offset, size) = (t["offset"].as_f64().unwrap(), t["size"].as_f64().unwrap());
        let inside = drawing
            .tensor_at(0, (start + end + 1.0) / 2.0, offset + size / 2.0)
            .unwrap();
        assert_eq!(field(&inside, "id"), t["id"]);
        let past = drawing.tensor_at(0, start, offset + size).unwrap();
        assert!(past.is_null() || field(&past, "id") != t["id"]);
    }
    assert!(drawing.tensor(0, 9_999).unwrap().is_null());
    assert!(drawing.tensor_at(0, -1.0, 0.0).unwrap().is_null());
    assert!(message(drawing.tensor(1, 0).unwrap_err()).contains("no plan"));
}

#[wasm_bindgen_test]
fn the_heap_grows_in_steps_that_grow_with_it_and_keeps_what_it_holds() {
    use core::arch::wasm32::memory_size;
    // 1,500 blocks of 64 KiB (about 94 MiB): a page each, so the standard allocator
    // would grow the memory about 1,500 times
    let mut sizes = vec![memory_size(0)];
    let blocks: Vec<Vec<u8>> = (0..1500u32)
        .map(|k| {
            let block = vec![(k % 251) as u8; 64 * 1024];
            if sizes.last() != Some(&memory_size(0)) {
                sizes.push(memory_size(0));
            }
            block
        })
        .collect();
    // an eighth more each time: about 40 steps from a small memory
    assert!(sizes.len() < 60, "{} sizes of memory", sizes.len());
    for (k, block) in blocks.iter().enumerate() {
        assert!(
            block.iter().all(|&b| b == (k % 251) as u8),
            "block {k} changed"
        );
    }
    // at most an eighth more than the blocks and what was there before
    let pages = memory_size(0);
    assert!(pages <= sizes[0] + 1500 * 9 / 8 + 64, "{pages} pages");
}

const SNAPSHOT: &[u8] = include_bytes!("../../../tests/data/mlp_train.pickle.gz");
const HOSTILE_PICKLE: &[u8] = include_bytes!("../../../tests/data/global.pickle");

#[wasm_bindgen_test]
fn a_snapshot_plans_beside_its_real_layout_with_a_summary_and_block_details() {
    assert_eq!(super::reader_of(SNAPSHOT), "snapshot");
    assert_eq!(super::reader_of(&SNAPSHOT[..16]), "snapshot");
    let mut session = Session::from_snapshot(SNAPSHOT, "mlp_train.pickle.gz", "").unwrap();
    assert!(session.is_snapshot());
    let info: Value = serde_json::from_str(&session.info().unwrap()).unwrap();
    let blocks = info["tensors"].as_u64().unwrap() as usize;
    assert_eq!(blocks, 104);
    let answer = session
        .plan_snapshot("greedy-size", JsValue::UNDEFINED, None)
        .unwrap();
    let bytes = |key: &str| {
        let v = js_sys::Reflect::get(&answer, &key.into()).unwrap();
        js_sys::Uint8Array::new(&v).to_vec()
    };
    let mut drawing = super::draw::Drawing::new();
    drawing.set_packed(0, &bytes("report")).unwrap();
    drawing.set_packed(1, &bytes("layout")).unwrap();
    let plan: Value = serde_json::from_str(&drawing.summary(0).unwrap()).unwrap();
    let real: Value = serde_json::from_str(&drawing.summary(1).unwrap()).unwrap();
    assert_eq!(plan["placed"], blocks);
    assert_eq!(real["placed"], blocks);
    assert_eq!(real["strategy"], "pytorch");
    assert_eq!(real["valid"], true, "{:?}", real["violations"]);
    // the same blocks in both, at different offsets
    for id in [0u32, 50, 103] {
        let (a, b) = (
            drawing.tensor(0, id).unwrap(),
            drawing.tensor(1, id).unwrap(),
        );
        assert_eq!(field(&a, "size"), field(&b, "size"));
        assert_eq!(field(&a, "start"), field(&b, "start"));
    }
    let summary = js_sys::Reflect::get(&answer, &"summary".into()).unwrap();
    let summary: Value = serde_json::from_str(&summary.as_string().unwrap()).unwrap();
    // the CLI's figures for this file
    assert_eq!(summary["live_peak"], 489_624_064u64);
    assert_eq!(summary["reserved_peak"], 494_927_872u64);
    assert_eq!(summary["plan_peak"], plan["peak_bytes"]);
    assert!(summary["oom"].is_null());
    assert!(!summary["holders"].as_array().unwrap().is_empty());

    let details = session.snapshot_details().unwrap();
    let column = |key: &str| {
        js_sys::Float64Array::new(&js_sys::Reflect::get(&details, &key.into()).unwrap()).to_vec()
    };
    let (addr, requested) = (column("addr"), column("requested"));
    assert_eq!(addr.len(), blocks);
    assert_eq!(column("endUs").len(), blocks);
    assert!(addr.iter().all(|&a| a > 0.0 && a.fract() == 0.0));
    for id in [0usize, 50, 103] {
        let size = field(&drawing.tensor(0, id as u32).unwrap(), "size")
            .as_f64()
            .unwrap();
        assert!(
            requested[id] <= size && size - requested[id] < 512.0,
            "{id}"
        );
    }
    let stacks = field(&details, "stacks");
    let frames = field(&details, "frames");
    let stack =
        js_sys::Int32Array::new(&js_sys::Reflect::get(&details, &"stack".into()).unwrap()).to_vec();
    assert!(stack
        .iter()
        .all(|&s| s < stacks.as_array().unwrap().len() as i32));
    assert!(frames
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f.as_str().unwrap().contains(".py:")));
    assert!(!field(&details, "reserved").as_array().unwrap().is_empty());
    drawing.set_live_ceiling(f64::NAN);
    drawing.set_live_ceiling(1e9);

    // a graph session is no snapshot, and says so when asked for one's plans
    let mut graph = Session::new(SEED, "t.json", JsValue::UNDEFINED).unwrap();
    assert!(!graph.is_snapshot());
    let refused = graph
        .plan_snapshot("greedy-size", JsValue::UNDEFINED, None)
        .unwrap_err();
    assert!(message(refused).contains("not a PyTorch memory snapshot"));
}

/// A part of the trace opened by entry range: its details say which entries of the
/// recorded trace it holds, and a bad range is refused in words.
#[wasm_bindgen_test]
fn a_snapshot_opens_on_a_range_of_its_entries() {
    let number = |v: &JsValue, key: &str| {
        let got = js_sys::Reflect::get(v, &key.into()).unwrap();
        got.as_f64().expect(key) as u32
    };
    let whole = Session::from_snapshot(SNAPSHOT, "mlp_train.pickle.gz", "").unwrap();
    let all = whole.snapshot_details().unwrap();
    let recorded = number(&all, "steps");
    assert_eq!(
        (number(&all, "first"), number(&all, "recorded")),
        (0, recorded)
    );
    let part = Session::from_snapshot(SNAPSHOT, "mlp_train.pickle.gz", " 100..200 ").unwrap();
    let some = part.snapshot_details().unwrap();
    assert_eq!(
        (number(&some, "first"), number(&some, "recorded")),
        (100, recorded)
    );
    assert!((1..=100).contains(&number(&some, "steps")));
    let blocks = |s: &Session| {
        let info: Value = serde_json::from_str(&s.info().unwrap()).unwrap();
        info["tensors"].as_u64().unwrap()
    };
    assert!(blocks(&part) < blocks(&whole));
    let past = Session::from_snapshot(SNAPSHOT, "p", &format!("{recorded}.."));
    let text = message(past.err().expect("refused"));
    assert!(
        text.contains(&format!("the trace has {recorded} entries")),
        "{text}"
    );
    let bad = Session::from_snapshot(SNAPSHOT, "p", "ten..20");
    let text = message(bad.err().expect("refused"));
    assert!(text.contains("not a range of entries"), "{text}");
}

#[wasm_bindgen_test]
fn a_pickle_that_would_run_code_is_refused_in_words() {
    let error = Session::from_snapshot(HOSTILE_PICKLE, "evil.pickle", "")
        .err()
        .expect("refused");
    let text = message(error);
    assert!(text.contains("would import or call Python code"), "{text}");
    let cut = Session::from_snapshot(&SNAPSHOT[..SNAPSHOT.len() / 2], "cut.pickle.gz", "")
        .err()
        .expect("refused");
    assert!(!message(cut).is_empty());
}

#[wasm_bindgen_test]
fn a_snapshot_replays_under_other_settings_and_sweeps() {
    let mut session = Session::from_snapshot(SNAPSHOT, "mlp_train.pickle.gz", "").unwrap();
    let get = |v: &JsValue, key: &str| js_sys::Reflect::get(v, &key.into()).unwrap();
    // a replay needs a plan of the blocks first
    assert!(session.replay_snapshot("", "").is_err());
    session
        .plan_snapshot("greedy-size", JsValue::UNDEFINED, None)
        .unwrap();
    let answer = session.replay_snapshot("", "").unwrap();
    let replay: Value = serde_json::from_str(&get(&answer, "replay").as_string().unwrap()).unwrap();
    // the recorded settings: the recording, entry by entry (as the CLI finds)
    assert_eq!(replay["reserved_peak"], 494_927_872u64);
    assert_eq!(replay["agreement"]["entries_equal"], 257);
    assert_eq!(replay["agreement"]["blocks_equal"], 104);
    let mut drawing = super::draw::Drawing::new();
    let layout = js_sys::Uint8Array::new(&get(&answer, "layout")).to_vec();
    drawing.set_packed(2, &layout).unwrap();
    let replayed: Value = serde_json::from_str(&drawing.summary(2).unwrap()).unwrap();
    assert_eq!(replayed["strategy"], "replayed");
    assert_eq!(replayed["placed"], 104);
    assert_eq!(replayed["valid"], true, "{:?}", replayed["violations"]);
    assert!(drawing.set_packed(3, &layout).is_err(), "three slots");
    // other settings, a cap, and what a bad one says
    let other = session
        .replay_snapshot("expandable_segments:True", "400MiB")
        .unwrap();
    let other: Value = serde_json::from_str(&get(&other, "replay").as_string().unwrap()).unwrap();
    assert_eq!(other["alloc_conf"], "expandable_segments:True");
    assert_eq!(other["capacity"], 400u64 << 20);
    assert!(other["oom"]["entry"].is_u64(), "{}", other["oom"]);
    let bad = session.replay_snapshot("expandable:True", "").unwrap_err();
    let bad = message(bad);
    assert!(bad.contains("`expandable`"), "{bad}");
    assert!(session.replay_snapshot("", "six").is_err());
    let sweep: Value = serde_json::from_str(&session.sweep_snapshot("").unwrap()).unwrap();
    assert!(sweep["rows"].as_array().unwrap().len() >= 10);
    assert!(sweep["answer"].as_str().unwrap().contains("reserved peak"));
    assert_eq!(sweep["live_peak"], 489_624_064u64);
}
