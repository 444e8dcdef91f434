//! `memplan replay`, `replay --sweep` and `compare`, through the binary, on the
//! copy of `mlp_train` in `tests/data` (and the corpus's gpt2 pair when present).

memplan_testkit::cli!();

const MLP: &str = "tests/data/mlp_train.pickle";

#[test]
fn replay_writes_the_fields_other_tools_read() {
    let (code, out, err) = memplan(&["replay", MLP, "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["alloc_conf"], "");
    assert_eq!(doc["capacity"], serde_json::Value::Null);
    assert_eq!(doc["reserved_peak"], 494_927_872u64);
    assert_eq!(doc["oom"], serde_json::Value::Null);
    assert_eq!(doc["segments"], 11);
    let reserved = doc["reserved"].as_array().unwrap();
    assert_eq!(reserved[0][0], 0);
    let peak = reserved
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(peak, 494_927_872);
    let a = &doc["agreement"];
    assert_eq!(a["entries_equal"], a["entries"]);
    assert_eq!(a["largest_difference"], 0);

    // under other settings, with a cap: the settings and the cap are echoed
    let (code, out, err) = memplan(&[
        "replay",
        MLP,
        "--alloc-conf",
        "expandable_segments:True, roundup_power2_divisions:4",
        "--capacity",
        "300MiB",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["alloc_conf"],
        "expandable_segments:True,roundup_power2_divisions:4"
    );
    assert_eq!(doc["capacity"], 300u64 << 20);
    let oom = &doc["oom"];
    assert!(
        oom["entry"].as_u64().is_some(),
        "300 MiB is too little: {oom}"
    );
    assert!(oom["reserved"].as_u64().unwrap() <= 300 << 20);
    assert!(oom["request"].as_u64().unwrap() > 0);
    // the agreement is the recorded settings' replay
    assert_eq!(
        doc["agreement"]["entries_equal"],
        doc["agreement"]["entries"]
    );
}

#[test]
fn replay_says_what_it_found_in_words() {
    let (code, out, err) = memplan(&["replay", MLP]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "settings     torch's defaults (as recorded)",
        "reserved     peak 472 MiB (494927872 B)",
        "oom          none: the run finishes",
        "agreement    under the recorded settings: 257 of 257 entries equal; cudaMalloc/map sizes equal (11 calls, 11 recorded)",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
}

#[test]
fn a_bad_setting_names_the_key_and_those_that_exist() {
    let (code, _, err) = memplan(&["replay", MLP, "--alloc-conf", "max_split_mb:128"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`max_split_mb`") && err.contains("max_split_size_mb"),
        "{err}"
    );
    let (code, _, err) = memplan(&["replay", MLP, "--alloc-conf", "max_split_size_mb:8"]);
    assert_eq!(code, 2);
    assert!(err.contains("max_split_size_mb is 8"), "{err}");
    let (code, _, err) = memplan(&[
        "replay",
        MLP,
        "--sweep",
        "--alloc-conf",
        "expandable_segments:True",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--sweep"), "{err}");
    let (code, _, err) = memplan(&["replay", "tests/data/overlap.pickle"]);
    assert_eq!(code, 2);
    assert!(err.contains("overlaps"), "{err}");
}

#[test]
fn the_sweep_gives_a_row_per_setting_and_one_answer() {
    let (code, out, err) = memplan(&["replay", MLP, "--sweep", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.len() >= 10);
    assert_eq!(rows[0]["recorded_settings"], true);
    assert!(rows.iter().all(|r| r.get("reserved").is_none()));
    let confs: Vec<&str> = rows
        .iter()
        .map(|r| r["alloc_conf"].as_str().unwrap())
        .collect();
    for want in [
        "expandable_segments:True",
        "max_split_size_mb:128",
        "roundup_power2_divisions:4",
    ] {
        assert!(confs.contains(&want), "{confs:?}");
    }
    let plan = doc["plan_peak"].as_u64().unwrap();
    assert!(plan >= doc["live_peak"].as_u64().unwrap());
    assert!(rows
        .iter()
        .all(|r| r["reserved_peak"].as_u64().unwrap() >= doc["live_peak"].as_u64().unwrap()));
    assert!(!doc["answer"].as_str().unwrap().is_empty());
    let (code, out, _) = memplan(&["replay", MLP, "--sweep"]);
    assert_eq!(code, 0);
    assert!(out.contains("answer       "), "{out}");
    assert!(out.contains("floor        live peak"), "{out}");
}

#[test]
fn compare_puts_two_runs_side_by_side() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else {
        return;
    };
    let a = dir.join("gpt2_train.pickle");
    let b = dir.join("gpt2_train_expandable.pickle");
    let (code, out, err) = memplan(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["a"]["reserved_peak"], 8_082_423_808u64);
    assert_eq!(doc["b"]["reserved_peak"], 8_269_070_336u64);
    assert_eq!(doc["b"]["settings"], "expandable_segments:True");
    assert!(doc["frames"].as_array().is_some());
    let (code, out, _) = memplan(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("reserved peak") && out.contains("7.70 GiB"),
        "{out}"
    );
    let (code, _, err) = memplan(&["compare", a.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("two snapshots"), "{err}");
}
