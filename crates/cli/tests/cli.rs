//! The `memplan` binary end to end: reports, JSON plans, check, and errors.

memplan_testkit::cli!();

fn temp(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn plan_reports_the_seed_example() {
    let (code, out, _) = memplan(&["plan", "examples/transformer_layer.json"]);
    assert_eq!(code, 0);
    assert!(out.contains("naive        896 MiB (939524096 B)"), "{out}");
    assert!(out.contains("lower bound  384 MiB (402653184 B)"), "{out}");
    assert!(out.contains("peak         384 MiB (402653184 B)"), "{out}");
    assert!(
        out.contains("1.0000x the lower bound, 57.1% less than naive"),
        "{out}"
    );
    assert!(out.contains("check        valid"), "{out}");
}

#[test]
fn json_plan_round_trips_through_check() {
    let (code, out, _) = memplan(&[
        "plan",
        "examples/transformer_layer.json",
        "--strategy",
        "pools",
        "--align",
        "64",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "strategy",
        "lower_bound",
        "naive_bytes",
        "peak_bytes",
        "valid",
        "violations",
        "profile",
        "ratio",
        "tensors",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    // the profile is the plan's live bytes per step, its highest the lower bound
    let most = doc["profile"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .max();
    assert_eq!(most, doc["lower_bound"].as_u64());
    assert_eq!(doc["strategy"], "pools");
    assert_eq!(doc["valid"], true);
    let t = &doc["tensors"][0];
    for key in ["name", "size", "start", "end", "offset"] {
        assert!(t.get(key).is_some(), "tensor missing {key}");
    }
    let path = temp("plan.json", &out);
    let (code, out, _) = memplan(&[
        "check",
        "examples/transformer_layer.json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("0 violation(s)\n"), "{out}");
    // break it: move T1_Q onto T0_QKV_Proj while both are live at step 1
    let mut doc = doc;
    doc["tensors"][1]["offset"] = doc["tensors"][0]["offset"].clone();
    let path = temp("broken.json", &doc.to_string());
    let (code, out, _) = memplan(&[
        "check",
        "examples/transformer_layer.json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("tensors `T0_QKV_Proj` and `T1_Q` are both live at step 1"),
        "{out}"
    );
}

#[test]
fn bad_input_is_one_line_and_non_zero() {
    let cases = [
        (
            "cycle.json",
            r#"{"tensors": [{"name": "x", "size": 1}], "ops": [{"name": "f", "inputs": ["x"], "outputs": ["x"]}]}"#,
            "the graph has a cycle: `f` -> `x` -> `f`",
        ),
        (
            "trunc.json",
            r#"{"tensors": [{"name": "x","#,
            "json: line 1",
        ),
        ("garbage.bin", "\u{1}\u{2}\u{3}", "unrecognised input"),
    ];
    for (name, content, expect) in cases {
        let path = temp(name, content);
        let (code, out, err) = memplan(&["plan", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("memplan: error: "), "{err}");
        assert!(err.contains(expect), "{name}: {err}");
    }
    let (code, _, err) = memplan(&[
        "plan",
        "examples/transformer_layer.json",
        "--strategy",
        "magic",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown strategy `magic`"), "{err}");
    let (code, _, err) = memplan(&["plan", "does/not/exist.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read does/not/exist.json"), "{err}");
}

#[test]
fn npu_writes_contest_files_that_npu_check_accepts() {
    let dir = std::env::temp_dir().join(format!("memplan-npu-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let json = dir.join("view.json");
    let (code, out, err) = memplan(&[
        "npu",
        "examples/npu_tiny_matmul.json",
        "--problem",
        "2",
        "--levels",
        "L1=200",
        "--out",
        d,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("spills          1"), "{out}");
    assert!(out.contains("extra movement  192"), "{out}");
    assert!(out.contains("check           valid"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.join("npu_tiny_matmul_spill.txt"))
            .unwrap()
            .lines()
            .count(),
        1
    );
    let view: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let l1 = view["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "L1")
        .unwrap();
    assert_eq!(l1["capacity"], 200);
    assert_eq!(l1["spills"].as_array().unwrap().len(), 1);
    assert!(view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["op"] == "SPILL_IN" && n["pipe"] == "MTE2"));
    let (code, out, _) = memplan(&[
        "npu-check",
        "examples/npu_tiny_matmul.json",
        d,
        "--problem",
        "2",
        "--levels",
        "L1=200",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("extra movement: 192"), "{out}");
    // the default 4096-unit L1 needs no spill; the charts go to SVG
    let svg = dir.join("npu.svg");
    let (code, out, _) = memplan(&[
        "npu",
        "examples/npu_tiny_matmul.json",
        "--problem",
        "3",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("spills          0"), "{out}");
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    for level in ["L1", "L0A", "L0B", "L0C", "MTE1", "CUBE"] {
        assert!(svg.contains(level), "the SVG does not name {level}");
    }
    let (code, _, err) = memplan(&[
        "npu",
        "examples/npu_tiny_matmul.json",
        "--problem",
        "2",
        "--levels",
        "L1=100",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("buffer 0 needs 192 units but L1 holds only 100"),
        "{err}"
    );
}

#[test]
fn deterministic_budget_is_the_library_work_budget() {
    let Some(dir) = memplan_testkit::corpus_dir("minimalloc") else {
        return;
    };
    let file = dir.join("A.1048576.csv");
    let (code, out, err) = memplan(&[
        "plan",
        file.to_str().unwrap(),
        "--strategy",
        "search",
        "--deterministic",
        "--budget",
        "30",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let graph = memplan_formats::read(&std::fs::read(&file).unwrap(), None, "A").unwrap();
    let analysis = memplan::analyse(&graph, &memplan::Options::default()).unwrap();
    let units = 30 * memplan::pack::budget::WORK_PER_MS;
    let mut budget = memplan::Budget::work(units);
    let plan = analysis.plan_within(&graph, memplan::Strategy::Search, &mut budget);
    assert!(
        plan.peak_bytes > plan.lower_bound,
        "the budget should stop the search"
    );
    assert_eq!(doc["peak_bytes"], plan.peak_bytes);
    let offsets: Vec<u64> = doc["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["offset"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = plan.tensors.iter().map(|t| t.offset).collect();
    assert_eq!(offsets, expected);
    assert_eq!(doc["valid"], true);
}

/// `memplan shapes` on a model with an `If`: every value with dims, element type,
/// bytes and the source of its shape, graph inputs and outputs marked; `plan`
/// lists the branches as nested arenas, each checked.
#[test]
fn shapes_lists_every_value_and_plan_the_nested_arenas() {
    let Some(dir) = memplan_testkit::corpus_dir("models") else {
        return;
    };
    let model = dir.join("ctrl_cond.dy_fixed.onnx");
    let model = model.to_str().unwrap();
    let (code, out, err) = memplan(&["shapes", model, "--json", "-", "--no-declared"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let values = doc["values"].as_array().unwrap();
    let find = |name: &str| values.iter().find(|v| v["name"] == name).unwrap();
    let x = find("x");
    assert_eq!(
        (x["kind"].as_str(), x["dtype"].as_str()),
        (Some("input"), Some("float32"))
    );
    let linear = find("linear");
    assert_eq!(linear["dims"], serde_json::json!([16, 64]));
    assert_eq!(
        (linear["bytes"].as_u64(), linear["source"].as_str()),
        (Some(4096), Some("inferred"))
    );
    assert_eq!(find("gt")["dtype"], "bool");
    assert_eq!(find("y")["kind"], "output");
    assert_eq!(find("fc.weight")["source"], "initializer");

    let (code, out, err) = memplan(&["plan", model]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("subgraphs    2 bodies"), "{out}");
    assert!(
        out.contains("If `node_cond__0` then_branch: 2 tensors"),
        "{out}"
    );
    assert!(out.contains("else_branch: 1 tensors"), "{out}");
    assert!(!out.contains("INVALID"), "{out}");
    let (code, out, _) = memplan(&["plan", model, "--json", "-"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["subgraphs"].as_array().unwrap().len(), 2);
    assert!(doc["subgraphs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["valid"] == true));
}

#[test]
fn shapes_errors_name_the_model_and_unknown_inputs() {
    let Some(dir) = memplan_testkit::corpus_dir("models") else {
        return;
    };
    let model = dir.join("ctrl_loop.ts_script.onnx");
    let (code, _, err) = memplan(&["shapes", model.to_str().unwrap(), "--input-shape", "nope=3"]);
    assert_eq!(code, 2);
    assert!(err.contains("`nope`") && err.contains("x, n"), "{err}");
}

/// `memplan plan BIG --json - | head -c 10`: the reader closes the pipe early and
/// memplan ends by SIGPIPE, as Unix tools do, without a panic.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let tensors: Vec<String> = (0..4000)
        .map(|i| format!(r#"{{"name": "t{i}", "size": 64}}"#))
        .collect();
    let ops: Vec<String> = (1..4000)
        .map(|i| {
            format!(
                r#"{{"name": "o{i}", "inputs": ["t{}"], "outputs": ["t{i}"]}}"#,
                i - 1
            )
        })
        .collect();
    let graph = format!(
        r#"{{"tensors": [{}], "ops": [{{"name": "o0", "outputs": ["t0"]}}, {}]}}"#,
        tensors.join(","),
        ops.join(",")
    );
    let path = temp("chain4000.json", &graph);
    let mut child = std::process::Command::new(memplan_binary())
        .args(["plan", path.to_str().unwrap(), "--json", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // the read end is dropped here: the rest of the JSON has nowhere to go
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        out.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?} {err}",
        out.status
    );
    assert_eq!(&head[..1], b"{");
}

/// `npu --progress` prints every better plan as it is found, the first before any
/// search; `--budget` with `--deterministic` scales the work and gives the same
/// plan twice; a wall-clock budget still returns a checked plan.
#[test]
fn npu_progress_and_budgets() {
    let Some(cases) = memplan_testkit::corpus_files("npu", "json", 5) else {
        return;
    };
    let flash = cases
        .into_iter()
        .find(|p| p.ends_with("FlashAttention_Case0.json"))
        .expect("FlashAttention_Case0.json in the corpus");
    let flash = flash.to_str().unwrap();
    let (code, out, err) = memplan(&[
        "npu",
        flash,
        "--problem",
        "2",
        "--progress",
        "--deterministic",
        "--budget",
        "500",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("valid (independent checker)"), "{out}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" s  movement "))
        .collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(
        lines[0].contains("dfs order, first fit, furthest next use"),
        "{err}"
    );
    // strictly less movement (or as much, sooner done) down the list
    let moved = |l: &str| -> (u64, u64) {
        let w: Vec<&str> = l.split_whitespace().collect();
        (w[3].parse().unwrap(), w[5].parse().unwrap())
    };
    for pair in lines.windows(2) {
        assert!(moved(pair[1]) < moved(pair[0]), "{err}");
    }
    let last = moved(lines[lines.len() - 1]);
    assert!(
        out.contains(&format!("extra movement  {}", last.0)),
        "{out}"
    );
    let json = |args: &[&str]| {
        let (code, out, err) = memplan(args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let deterministic = [
        "npu",
        flash,
        "--problem",
        "2",
        "--deterministic",
        "--budget",
        "300",
        "--json",
        "-",
    ];
    let (a, b) = (json(&deterministic), json(&deterministic));
    assert_eq!(a, b, "a deterministic budget gives the same plan");
    let (code, out, err) = memplan(&["npu", flash, "--problem", "3", "--budget", "200"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("valid (independent checker)"), "{out}");
}

/// `memplan npu-matmul` writes a tiled matmul case that `memplan npu` solves, and
/// says what is wrong with a bad size.
#[test]
fn npu_matmul_writes_a_case_npu_solves() {
    let path = temp("tiled_3x4x5.json", "");
    let out = path.to_str().unwrap();
    let (code, _, err) = memplan(&["npu-matmul", "3x4x5", "--out", out]);
    assert_eq!(code, 0, "{err}");
    let (code, text, err) = memplan(&["npu", out, "--problem", "2"]);
    assert_eq!(code, 0, "{err}");
    // 60 products of 3 ops, 12 + 20 COPY_INs, 15 COPY_OUTs: 227 ops; 167 buffers twice
    assert!(text.contains("(561 nodes, 167 buffers)"), "{text}");
    assert!(text.contains("valid (independent checker)"), "{text}");
    let (code, json, err) = memplan(&["npu-matmul", "1x1x1"]);
    assert_eq!(code, 0, "{err}");
    assert!(json.starts_with(r#"{"Nodes":["#), "{json}");
    for bad in ["3x4", "0x2x2", "ax2x2", "1000x1000x2"] {
        let (code, _, err) = memplan(&["npu-matmul", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(
            err.contains("npu-matmul") || err.contains("tiled matmul"),
            "{err}"
        );
    }
}
