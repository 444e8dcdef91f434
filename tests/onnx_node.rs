//! ONNX's own backend node tests (`../shared/corpus/onnx-node/`): memplan's
//! inference alone (`--no-declared`), fed each test's input dims, must give the
//! dims and element types of the test's outputs.

mod common;

use memplan::formats::{self, ReadOptions};
use serde_json::Value;
use std::collections::BTreeMap;

/// At least this many of the tests whose outputs are all tensors must match.
const AT_LEAST: usize = 1150;

/// Tests whose outputs no static inference can know, with the input whose value
/// decides them (listed in `tests/data/onnx_node_dynamic.txt`).
fn dynamic_list() -> BTreeMap<String, (String, String)> {
    let text = include_str!("data/onnx_node_dynamic.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let test = parts.next().unwrap().to_string();
            let name = parts.next().expect("an input name").to_string();
            let why = parts.next().expect("a reason").to_string();
            (test, (name, why))
        })
        .collect()
}

enum Outcome {
    Match,
    Mismatch(String),
    Error(String),
}

fn run_one(data: &[u8], test: &Value) -> Outcome {
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
    let (_, values) = match formats::onnx_shapes(data, "test", &opts) {
        Ok(v) => v,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    let mut wrong = Vec::new();
    for out in test["outputs"].as_array().unwrap() {
        let name = out["name"].as_str().unwrap();
        let want: Vec<i64> = out["data"]["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
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
    let Some(dir) = common::corpus_dir("onnx-node") else {
        return;
    };
    let expected: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let dynamic = dynamic_list();
    let (mut matched, mut total) = (0, 0);
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
        match (outcome, dynamic.get(stem)) {
            (Outcome::Match, None) => matched += 1,
            (Outcome::Match, Some(_)) => {
                failures.push(format!("{stem}: listed as dynamic but matches"))
            }
            (Outcome::Error(e), Some((input, _))) => {
                if !e.contains(&format!("`{input}`")) {
                    failures.push(format!("{stem}: the error does not name `{input}`: {e}"));
                }
            }
            (Outcome::Error(e), None) => {
                if e == "PANIC" {
                    failures.push(format!("{stem}: panicked"));
                }
                report.push(format!("{stem}\terror\t{e}"));
            }
            (Outcome::Mismatch(m), _) => report.push(format!("{stem}\tmismatch\t{m}")),
        }
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("onnx-node-report.txt");
    std::fs::write(&path, report.join("\n") + "\n").unwrap();
    eprintln!(
        "{matched} of {total} node tests match; {} listed as dynamic; {} others fail (listed in {})",
        dynamic.len(),
        report.len(),
        path.display()
    );
    for r in &report {
        eprintln!("  {r}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        matched >= AT_LEAST,
        "only {matched} of {total} node tests match (at least {AT_LEAST} must)"
    );
}
