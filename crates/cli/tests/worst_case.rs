//! `memplan plan` on models whose sizes depend on the data: each bounded value
//! listed with its bound and why, in the text report and the JSON plan (whose
//! `valid` is the checker's verdict); where nothing bounds a size, or free dims do
//! not run, the error adds the flag that gives it.

memplan_testkit::cli!();

#[test]
fn plan_lists_every_bounded_value() {
    let (code, out, err) = memplan(&["plan", "tests/data/detector.onnx"]);
    assert_eq!(code, 0, "{err}");
    let bounded: Vec<&str> = out.lines().filter(|l| l.starts_with("bounded")).collect();
    assert_eq!(bounded.len(), 4, "{out}");
    assert!(
        bounded.iter().any(|l| l
            .contains("`over_index` [3, 7680] (worst case: every element of the input nonzero)")),
        "{out}"
    );
    assert!(out.contains("the plan holds for every input"), "{out}");
    assert!(out.contains("check        valid"), "{out}");

    let (code, out, _) = memplan(&[
        "plan",
        "tests/data/detector.onnx",
        "--value-shape",
        "over_index=3x2500",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["valid"], true);
    let bounds = doc["bounds"].as_array().unwrap();
    assert_eq!(bounds.len(), 4);
    let given: Vec<&serde_json::Value> = bounds.iter().filter(|b| b["given"] == true).collect();
    assert_eq!(given.len(), 1);
    assert_eq!(given[0]["value"], "over_index");
    assert_eq!(given[0]["dims"], serde_json::json!([3, 2500]));
    assert_eq!(given[0]["worst"], serde_json::json!([3, 7680]));
    assert_eq!(given[0]["why"], "every element of the input nonzero");
}

#[test]
fn errors_add_the_flag_that_gives_what_is_missing() {
    let (code, _, err) = memplan(&["plan", "tests/data/loop_scan.onnx"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`steps`")
            && err.ends_with("give an upper bound with --value-shape steps=DIMS\n"),
        "{err}"
    );
    let (code, _, err) = memplan(&["plan", "tests/data/reshape100.onnx"]);
    assert_eq!(code, 2);
    assert!(err.contains("set free dims with --dim NAME=VALUE"), "{err}");
}
