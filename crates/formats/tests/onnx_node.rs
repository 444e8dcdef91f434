//! ONNX's own backend node tests (`../shared/corpus/onnx-node/`): memplan's
//! inference alone (`--no-declared`), fed each test's input dims, must give the
//! dims and element types of the test's outputs.

use memplan_formats::{self as formats, ReadOptions, ShapeSource};
use serde_json::Value;
use std::collections::BTreeMap;

/// At least this many of the tests whose outputs are all tensors must match:
/// every one that a static inference can know. Of the 1,403, 291 have outputs
/// decided by the values of graph inputs or by the input data, and 3 store
/// bfloat16 results as uint16 (all listed, each checked to end as listed), so
/// 1,109 is every test there is to match.
const AT_LEAST: usize = 1109;

/// Tests listed as `bound`: sizes that depend on the data, planned at a worst
/// case no smaller than the test data's (each checked).
const BOUNDED: usize = 33;

/// How a listed test must end (see `tests/data/onnx_node_dynamic.txt`).
struct Listed {
    kind: String,
    value: String,
}

/// Tests whose outputs no static inference can know (or whose test data stores
/// another element type), each with the value that decides it.
fn dynamic_list() -> BTreeMap<String, Listed> {
    let text = include_str!("data/onnx_node_dynamic.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split('\t').collect();
            assert_eq!(parts.len(), 4, "test, kind, value, reason: {l}");
            let listed = Listed {
                kind: parts[1].to_string(),
                value: parts[2].to_string(),
            };
            (parts[0].to_string(), listed)
        })
        .collect()
}

/// Whether `outcome` is how the listed test must end; `None` when it is.
fn as_listed(outcome: &Outcome, listed: &Listed, test: &Value) -> Option<String> {
    let named = format!("`{}`", listed.value);
    match (listed.kind.as_str(), outcome) {
        ("value", Outcome::Error(e))
            if e.contains(&named) && e.contains("not known before running") =>
        {
            None
        }
        ("data", Outcome::Error(e))
            if e.contains(&named) && e.contains("depends on the input values") =>
        {
            None
        }
        ("bits", Outcome::Mismatch(m)) => {
            // the declared type and the test data's dims
            let out = &test["outputs"][0];
            let want = format!(
                "{} {:?}, expected",
                out["declared"]["dtype"].as_str().unwrap_or(""),
                out["data"]["dims"]
                    .as_array()
                    .map(|d| d
                        .iter()
                        .map(|x| x.as_i64().unwrap_or(-1))
                        .collect::<Vec<_>>())
                    .unwrap_or_default()
            );
            (!m.contains(&want)).then(|| format!("not the declared type: {m}"))
        }
        (_, Outcome::Error(e)) => Some(format!(
            "the error does not name {named} as a {}: {e}",
            listed.kind
        )),
        (_, Outcome::Mismatch(m)) => Some(format!("a wrong shape: {m}")),
        (_, Outcome::Match) => Some("listed, but it matches".into()),
    }
}

enum Outcome {
    Match,
    Mismatch(String),
    Error(String),
}

/// For a test listed as `bound`: `None` when it imports with some value at its
/// worst case, and every output has the test data's element type and rank and
/// dims no smaller than the test data's; else what is wrong.
fn bound_holds(data: &[u8], test: &Value) -> Option<String> {
    let values = match formats::onnx_shapes(data, "test", &read_options(test)) {
        Ok((_, values)) => values,
        Err(e) => return Some(format!("no bound: {e}")),
    };
    if !values.iter().any(|v| v.source == ShapeSource::WorstCase) {
        return Some("no value is planned at its worst case".into());
    }
    let mut wrong = Vec::new();
    for out in test["outputs"].as_array().unwrap() {
        let name = out["name"].as_str().unwrap();
        let want = dims(&out["data"]["dims"]);
        let dtype = out["data"]["dtype"].as_str().unwrap();
        let Some(v) = values.iter().find(|v| v.name == name && v.output) else {
            wrong.push(format!("`{name}` is not an output"));
            continue;
        };
        let covers = v.dims.len() == want.len() && v.dims.iter().zip(&want).all(|(b, w)| b >= w);
        if !covers || v.dtype != dtype {
            wrong.push(format!(
                "`{name}`: {} {:?} does not cover {dtype} {want:?}",
                v.dtype, v.dims
            ));
        }
    }
    (!wrong.is_empty()).then(|| wrong.join("; "))
}

fn dims(list: &Value) -> Vec<i64> {
    let list = list.as_array().unwrap();
    list.iter().map(|d| d.as_i64().unwrap()).collect()
}

/// The test's input dims, and memplan's inference alone.
fn read_options(test: &Value) -> ReadOptions {
    let mut opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    for input in test["inputs"].as_array().unwrap() {
        if input["data"]["type"] == "tensor" {
            let dims = input["data"]["dims"].as_array().unwrap();
            let dims = dims.iter().map(|d| d.as_u64().unwrap()).collect();
            opts.input_shapes
                .push((input["name"].as_str().unwrap().to_string(), dims));
        }
    }
    opts
}

fn run_one(data: &[u8], test: &Value) -> Outcome {
    let (_, values) = match formats::onnx_shapes(data, "test", &read_options(test)) {
        Ok(v) => v,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    let mut wrong = Vec::new();
    for out in test["outputs"].as_array().unwrap() {
        let name = out["name"].as_str().unwrap();
        let want = dims(&out["data"]["dims"]);
        let dtype = out["data"]["dtype"].as_str().unwrap();
        match values.iter().find(|v| v.name == name && v.output) {
            Some(v) if v.dims == want && v.dtype == dtype => {}
            Some(v) => wrong.push(format!(
                "`{name}`: {} {:?}, expected {dtype} {want:?}",
                v.dtype, v.dims
            )),
            None => wrong.push(format!("`{name}` is not an output")),
        }
    }
    if wrong.is_empty() {
        Outcome::Match
    } else {
        Outcome::Mismatch(wrong.join("; "))
    }
}

#[test]
fn node_tests_infer_their_output_shapes() {
    let Some(dir) = memplan_testkit::corpus_dir("onnx-node") else {
        return;
    };
    let expected: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let dynamic = dynamic_list();
    let (mut matched, mut total, mut bounded) = (0, 0, 0);
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (file, test) in expected["tests"].as_object().unwrap() {
        let outputs = test["outputs"].as_array().unwrap();
        if !outputs.iter().all(|o| o["data"]["type"] == "tensor") {
            continue;
        }
        total += 1;
        let data = std::fs::read(dir.join(file)).unwrap();
        let outcome = std::panic::catch_unwind(|| run_one(&data, test))
            .unwrap_or_else(|_| Outcome::Error("PANIC".into()));
        let stem = file.trim_end_matches(".onnx");
        if matches!(&outcome, Outcome::Error(e) if e == "PANIC") {
            failures.push(format!("{stem}: panicked"));
        }
        match &outcome {
            Outcome::Match => {}
            Outcome::Error(e) => report.push(format!("{stem}\terror\t{e}")),
            Outcome::Mismatch(m) => report.push(format!("{stem}\tmismatch\t{m}")),
        }
        match (dynamic.get(stem), &outcome) {
            (None, Outcome::Match) => matched += 1,
            (None, _) => failures.push(format!("{stem}: {}", report.last().unwrap())),
            (Some(listed), _) if listed.kind == "bound" => {
                bounded += 1;
                if let Some(why) = std::panic::catch_unwind(|| bound_holds(&data, test))
                    .unwrap_or_else(|_| Some("panicked".into()))
                {
                    failures.push(format!("{stem} (listed as bound): {why}"));
                }
            }
            (Some(listed), _) => {
                if let Some(why) = as_listed(&outcome, listed, test) {
                    failures.push(format!("{stem} (listed as {}): {why}", listed.kind));
                }
            }
        }
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("onnx-node-report.txt");
    std::fs::write(&path, report.join("\n") + "\n").unwrap();
    eprintln!(
        "{matched} of {total} node tests match; {bounded} planned at a worst case that covers the test data; {} listed in tests/data/onnx_node_dynamic.txt; every test that does not match is in {}",
        dynamic.len(),
        path.display()
    );
    assert!(
        failures.is_empty(),
        "{} node tests neither match nor end as listed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(bounded, BOUNDED, "node tests listed as bound and checked");
    assert!(
        matched >= AT_LEAST,
        "only {matched} of {total} node tests match (at least {AT_LEAST} must)"
    );
}
