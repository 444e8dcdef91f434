//! `memplan npu-check` and `memplan export` of NPU cases, end to end through the
//! binary, on the small case of `memplan_testkit::npu`.

use memplan_formats::npu::read_json;
use memplan_npu::case::default_levels;
use memplan_testkit::npu::{
    csv_pair, files, small, small_json, write_results, ALL_AT_ZERO, IN_ORDER,
};
use memplan_testkit::temp_dir;

memplan_testkit::cli!();

/// `memplan export` of the CSV pair writes the JSON of the same case.
#[test]
fn cli_exports_the_csv_pair_as_json() {
    let dir = temp_dir("export-csv");
    let (nodes, edges) = csv_pair(&small_json("L0B"));
    std::fs::write(dir.join("small_Nodes.csv"), nodes).unwrap();
    std::fs::write(dir.join("small_Edges.csv"), edges).unwrap();
    let (code, out, err) = memplan(&["export", dir.join("small_Nodes.csv").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        read_json(out.as_bytes(), "small", default_levels()).unwrap(),
        small("L0B")
    );
    let (code, _, err) = memplan(&[
        "export",
        dir.join("small_Nodes.csv").to_str().unwrap(),
        "--text",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("contest JSON, not as text"), "{err}");
}

// ---- the command line

#[test]
fn cli_reports_valid_and_invalid_results() {
    let dir = temp_dir("cli");
    std::fs::write(dir.join("small.json"), small_json("L0B")).unwrap();
    let case = dir.join("small.json");
    let (case, dir_arg) = (case.to_str().unwrap(), dir.to_str().unwrap());
    write_results(&dir, &files(&IN_ORDER, &ALL_AT_ZERO, &[]));
    let (code, out, _) = memplan(&["npu-check", case, dir_arg, "--problem", "2"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "small, problem 2: valid\np1 peak (L1+UB): 200\nspills: 0\nextra movement: 0\nmakespan: 58\n"
    );
    write_results(&dir, &files(&IN_ORDER[..15], &ALL_AT_ZERO, &[]));
    let (code, out, _) = memplan(&["npu-check", case, dir_arg, "--problem", "2"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with(
        "small, problem 2: invalid, 1 violation(s)\nviolation: node 15 (FREE buffer 4) is missing from the schedule\n"
    ), "{out}");
    assert!(out.contains("makespan: not computed"), "{out}");
}

#[test]
fn cli_reads_the_csv_pair_and_levels() {
    let dir = temp_dir("cli-csv");
    let (nodes, edges) = csv_pair(&small_json("L0B"));
    std::fs::write(dir.join("small_Nodes.csv"), nodes).unwrap();
    std::fs::write(dir.join("small_Edges.csv"), edges).unwrap();
    write_results(
        &dir,
        &files(&IN_ORDER, &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 400)], &[]),
    );
    let nodes = dir.join("small_Nodes.csv");
    let (nodes, dir_arg) = (nodes.to_str().unwrap(), dir.to_str().unwrap());
    let (code, out, _) = memplan(&["npu-check", nodes, dir_arg, "--problem", "3"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("past L0C's capacity of 512"), "{out}");
    let (code, out, _) = memplan(&[
        "npu-check",
        nodes,
        dir_arg,
        "--problem",
        "3",
        "--levels",
        "L0C=1024",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn cli_bad_input_is_one_line_and_exit_2() {
    let dir = temp_dir("cli-bad");
    std::fs::write(dir.join("small.json"), small_json("L0B")).unwrap();
    std::fs::write(dir.join("small_schedule.txt"), "0\n1\nseven\n").unwrap();
    let case = dir.join("small.json");
    let (case, dir_arg) = (case.to_str().unwrap(), dir.to_str().unwrap());
    let (code, _, err) = memplan(&["npu-check", case, dir_arg, "--problem", "1"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.ends_with("small_schedule.txt: contest schedule: line 3: `seven` is not a node id\n"),
        "{err}"
    );
    let (code, _, err) = memplan(&["npu-check", case, dir_arg]);
    assert_eq!(
        (code, err.as_str()),
        (2, "memplan: error: npu-check: missing --problem 1|2|3\n")
    );
    let (code, _, err) = memplan(&["npu-check", case, dir_arg, "--problem", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("small_memory.txt"), "{err}");
}

#[test]
fn bench_npu_prints_a_checked_row_beside_the_published_numbers() {
    let Some(dir) = memplan_testkit::corpus_dir("npu") else {
        return;
    };
    let file = dir.join("FlashAttention_Case0.json");
    let (code, out, err) = memplan(&["bench-npu", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("FlashAttention_Case0 "))
        .unwrap_or_else(|| panic!("no row for the case in:\n{out}"));
    assert!(row.ends_with("  valid"), "{row}");
    // the published README gives 4,498 for Problem 1 and 3,584 for Problem 2
    assert!(row.contains("(4,498)") && row.contains("(3,584)"), "{row}");
    assert!(!out.contains("INVALID"), "{out}");
}

/// Where the result meets its lower bound, `npu` says it is proven optimal
/// (Matmul_Case0: the refined grid bound meets the solver's peak).
#[test]
fn npu_says_when_a_result_is_proven_optimal() {
    let Some(dir) = memplan_testkit::corpus_dir("npu") else {
        return;
    };
    let file = dir.join("Matmul_Case0.json");
    let (code, out, err) = memplan(&["npu", file.to_str().unwrap(), "--problem", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with("peak L1+UB")).unwrap();
    let figures: Vec<&str> = line.split_whitespace().collect();
    // `peak L1+UB  RESULT   (lower bound BOUND: proven optimal)`
    assert_eq!(figures[2], figures[5].trim_end_matches(':'), "{line}");
    assert!(line.ends_with("proven optimal)"), "{line}");
}
