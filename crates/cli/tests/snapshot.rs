//! `memplan plan` and `export` of a PyTorch memory snapshot, through the binary.

memplan_testkit::cli!();

#[test]
fn a_snapshot_plans_beside_its_real_layout_and_its_plan_checks() {
    let (code, out, err) = memplan(&["plan", "tests/data/mlp_train.pickle.gz", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let snap = &doc["snapshot"];
    assert_eq!(snap["live_peak"], 489_624_064u64);
    assert_eq!(snap["reserved_peak"], 494_927_872u64);
    assert_eq!(doc["valid"], true);
    assert!(snap["plan_peak"].as_u64().unwrap() >= 489_624_064);
    assert!(snap["holders"][0]["bytes"].as_u64().unwrap() > 0);
    // the plan is a plan file of the snapshot's blocks
    let plan = memplan_testkit::temp_dir("cli-snapshot").join("mlp_plan.json");
    std::fs::write(&plan, &out).unwrap();
    let (code, out, err) = memplan(&[
        "check",
        "tests/data/mlp_train.pickle",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 violation(s)"), "{out}");
    let svg = std::env::temp_dir().join(format!("memplan-snap-{}.svg", std::process::id()));
    let (code, out, _) = memplan(&[
        "plan",
        "tests/data/mlp_train.pickle",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("live peak    466.94 MiB (489624064 B)"),
        "{out}"
    );
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.contains("mlp_train: pytorch") && doc.contains("mlp_train: auto"));
    let (code, _, err) = memplan(&["plan", "tests/data/mlp_train.pickle", "--device", "2"]);
    assert_ne!(code, 0);
    assert!(err.contains("device 2 is not in the snapshot"), "{err}");
}

#[test]
fn a_snapshot_exports_as_minimalloc_csv_with_the_same_buffers() {
    let (code, csv, err) = memplan(&[
        "export",
        "tests/data/mlp_train.pickle",
        "--format",
        "minimalloc",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(csv.starts_with("id,lower,upper,size\n"), "{csv}");
    let back = memplan_formats::read(csv.as_bytes(), None, "csv").unwrap();
    let snap = memplan_formats::snapshot::read(
        std::fs::read(memplan_testkit::root().join("tests/data/mlp_train.pickle")).unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(back.tensors.len(), snap.blocks.len());
    for (t, b) in back.tensors.iter().zip(&snap.blocks) {
        assert_eq!(
            (t.size, t.lifetime.map(|l| (l.start, l.end))),
            (b.size, Some((b.start, b.end)))
        );
    }
    let (code, _, err) = memplan(&["export", "tests/data/mlp_train.pickle", "--format", "yaml"]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown output format `yaml`"), "{err}");
}

/// `--entries A..B`: plan, check and replay one part of a trace; a range past the
/// end or empty is a clear error.
#[test]
fn a_part_of_a_trace_plans_checks_and_replays() {
    let file = "tests/data/mlp_train.pickle";
    let (code, out, err) = memplan(&["plan", file, "--entries", "100..200", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["valid"], true);
    assert_eq!(doc["snapshot"]["steps"], 100, "{}", doc["snapshot"]);
    let notes = doc["notes"].to_string();
    assert!(notes.contains("entries 100..200 of 257"), "{notes}");
    // the plan file of the part checks against the part
    let plan = memplan_testkit::temp_dir("cli-entries").join("part.json");
    std::fs::write(&plan, &out).unwrap();
    let (code, out, err) = memplan(&[
        "check",
        file,
        plan.to_str().unwrap(),
        "--entries",
        "100..200",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = memplan(&["replay", file, "--entries", "100..200"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("100 of 100 entries equal"), "{out}");
    for (range, says) in [
        ("300..", "the trace has 257 entries"),
        ("9..9", "the range is empty"),
        ("x", "is not a range of entries"),
    ] {
        let (code, _, err) = memplan(&["plan", file, "--entries", range]);
        assert_eq!(code, 2, "{range}: {err}");
        assert!(err.contains(says), "{range}: {err}");
    }
}
