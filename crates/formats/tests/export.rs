//! Any input written as memplan's JSON (`memplan export`) reads back to the same
//! graph, and so plans the same: a model without its weights.

use memplan::{check, Options, Strategy};
use memplan_formats::{self as formats, ReadOptions};

/// The input dims of a model of `models/` (those of its reference), else none.
fn input_dims(path: &std::path::Path, dir: &str, stem: &str) -> ReadOptions {
    let mut opts = ReadOptions::default();
    if dir != "models" {
        return opts;
    }
    let text = std::fs::read(path.join(format!("ref/{stem}.json"))).unwrap();
    let reference: serde_json::Value = serde_json::from_slice(&text).unwrap();
    for t in reference["tensors"].as_array().unwrap() {
        if t["kind"] == "input" {
            let dims = t["shape"].as_array().unwrap();
            let dims = dims.iter().map(|d| d.as_u64().unwrap()).collect();
            opts.input_shapes
                .push((t["name"].as_str().unwrap().to_string(), dims));
        }
    }
    opts
}

#[test]
fn every_corpus_file_round_trips_through_the_native_json() {
    let mut seen = 0;
    for (dir, exts) in [
        ("graphs", &["json"][..]),
        ("minimalloc", &["csv"]),
        ("tflite", &["tflite"]),
        ("onnx", &["onnx"]),
        ("models", &["onnx"]),
        ("large", &["csv"]),
    ] {
        let Some(path) = memplan_testkit::corpus_dir(dir) else {
            return;
        };
        for ext in exts {
            for file in memplan_testkit::files(&path, ext) {
                let data = std::fs::read(&file).unwrap();
                let stem = file.file_stem().unwrap().to_str().unwrap();
                let g = formats::read_with(&data, None, stem, &input_dims(&path, dir, stem))
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                let text = formats::write_native(&g);
                let back = formats::read(text.as_bytes(), None, "other")
                    .unwrap_or_else(|e| panic!("{} exported: {e}", file.display()));
                assert_eq!(back, g, "{}", file.display());
                let plan = memplan::plan(&back, Strategy::GreedySize, &Options::default()).unwrap();
                assert_eq!(check::check(&g, &plan), vec![], "{}", file.display());
                if data.len() > 1 << 20 && ext == &"onnx" {
                    assert!(
                        text.len() < data.len() / 4,
                        "{}: {} bytes exported",
                        file.display(),
                        text.len()
                    );
                }
                seen += 1;
            }
        }
    }
    assert!(seen > 50, "{seen} files");
}
