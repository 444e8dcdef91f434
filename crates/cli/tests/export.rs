//! `memplan export` end to end through the binary: a model with its free dims and
//! bodies, text that plans like the JSON, models with input shapes, and the same
//! plan and NPU files written twice.

memplan_testkit::cli!();

#[test]
fn the_cli_exports_a_model_with_its_free_dims_and_bodies() {
    let Some(dir) = memplan_testkit::corpus_dir("models") else {
        return;
    };
    let model = dir.join("bert.dy_dyn.onnx");
    let (code, out, err) = memplan(&[
        "export",
        model.to_str().unwrap(),
        "--dim",
        "seq=128",
        "--out",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dims = doc["free_dims"].as_array().unwrap();
    assert!(
        dims.iter()
            .any(|d| d["name"] == "seq" && d["value"] == 128 && d["given"] == true),
        "{dims:?}"
    );
    // the same plan from the model and from its export
    let path = std::env::temp_dir().join(format!("memplan-export-{}.json", std::process::id()));
    std::fs::write(&path, &out).unwrap();
    let (_, from_model, _) = memplan(&[
        "plan",
        model.to_str().unwrap(),
        "--dim",
        "seq=128",
        "--json",
        "-",
    ]);
    let (_, from_export, _) = memplan(&["plan", path.to_str().unwrap(), "--json", "-"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(from_model, from_export);
    let cond = dir.join("ctrl_cond.dy_fixed.onnx");
    let (code, out, _) = memplan(&["export", cond.to_str().unwrap(), "--out", "-"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["subgraphs"].as_array().unwrap().len(), 2);
}

#[test]
fn the_cli_exports_text_that_plans_like_the_json() {
    let (code, text, err) = memplan(&["export", "examples/teach/chain.json", "--text"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.starts_with("graph ping_pong_chain\ninput image 32MiB\n"),
        "{text}"
    );
    let dir = std::env::temp_dir().join(format!("memplan-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("chain.mgraph");
    std::fs::write(&path, &text).unwrap();
    let peak = |file: &str| {
        let (code, out, err) = memplan(&["plan", file, "--json", "-"]);
        assert_eq!(code, 0, "{file}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["valid"], true, "{file}");
        (doc["peak_bytes"].as_u64().unwrap(), doc["tensors"].clone())
    };
    let from_text = peak(path.to_str().unwrap());
    let from_json = peak("examples/teach/chain.json");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(from_text, from_json);
    // the same text through --out
    let out = std::env::temp_dir().join(format!("memplan-text-{}.mgraph", std::process::id()));
    let (code, _, err) = memplan(&[
        "export",
        "examples/teach/chain.json",
        "--text",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    std::fs::remove_file(&out).ok();
}

#[test]
fn cli_plans_models_and_takes_input_shapes() {
    let Some(dir) = memplan_testkit::corpus_dir("onnx") else {
        return;
    };
    let run = |args: &[&str]| {
        let out = std::process::Command::new(memplan_binary())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let squeezenet = dir.join("light_squeezenet.onnx");
    let (code, text) = run(&["plan", squeezenet.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("6308352"), "{text}");
    let (code, text) = run(&[
        "plan",
        squeezenet.to_str().unwrap(),
        "--input-shape",
        "data_0=2x3x224x224",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("12616704"), "{text}");
    let tflite = dir.join("../tflite/hand_recrop.tflite");
    let (code, text) = run(&["plan", tflite.to_str().unwrap(), "--format", "tflite"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1572864"), "{text}");
}

#[test]
fn the_cli_writes_the_same_plan_and_npu_files_twice() {
    let dir = std::env::temp_dir().join(format!("memplan-determinism-{}", std::process::id()));
    let mut outputs = Vec::new();
    for run in 0..2 {
        let out = dir.join(run.to_string());
        std::fs::create_dir_all(&out).unwrap();
        let (code, plan, err) = memplan(&[
            "plan",
            "examples/transformer_layer.json",
            "--strategy",
            "search",
            "--json",
            "-",
        ]);
        assert_eq!(code, 0, "{err}");
        let out_dir = out.to_str().unwrap();
        let (code, npu, err) = memplan(&[
            "npu",
            "examples/npu_tiny_matmul.json",
            "--problem",
            "2",
            "--out",
            out_dir,
            "--json",
            "-",
        ]);
        assert_eq!(code, 0, "{err}");
        let mut files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let contents: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert!(!contents.is_empty());
        outputs.push((plan, npu, contents));
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(outputs[0], outputs[1]);
}
