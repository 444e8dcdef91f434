//! The independent NPU checker: every row of the published contest results, hand-made
//! broken results with the exact violation, the case readers (JSON, the CSV pair and
//! their errors), the contest file readers and `memplan npu-check` end to end.
//!
//! Why one long file: one small hand-made case (`small_json`, `small`, `files`) serves
//! every section (the checker's violations, the case readers, the contest files and
//! the CLI), and the CSV pair and temporary directories serve both the readers and
//! the CLI; the published rows are one short test each. Splitting would move that
//! case into `tests/common/`, away from the tests that edit it.

mod common;

use common::memplan;
use memplan::check::npu::{check_npu, NpuReport, NpuViolation, MAX_VIOLATIONS};
use memplan::npu::case::{default_levels, Case};
use memplan::npu::problem::Problem;
use memplan_formats::contest::{self, ContestFile, ContestFiles};
use memplan_formats::npu::{read_csv, read_json, write_json};
use std::path::{Path, PathBuf};

// ---- the published results

fn corpus() -> Option<PathBuf> {
    common::corpus_dir("npu")
}

fn read_results(dir: &Path, case: &str, problem: u8) -> ContestFiles {
    let read = |file: ContestFile| std::fs::read(dir.join(file.file_name(case))).ok();
    let schedule = read(ContestFile::Schedule).expect("a schedule file");
    let memory = if problem == 1 {
        None
    } else {
        read(ContestFile::Memory)
    };
    contest::parse(
        &schedule,
        memory.as_deref(),
        read(ContestFile::Spill).as_deref(),
    )
    .unwrap()
}

/// Checks one published folder; `None` when the corpus is absent.
fn published(folder: &str, case: &str, problem: u8) -> Option<NpuReport> {
    let root = corpus()?;
    let data = std::fs::read(root.join(format!("{case}.json"))).unwrap();
    let case_model = read_json(&data, case, default_levels()).unwrap();
    let files = read_results(&root.join("published").join(folder), case, problem);
    Some(check_npu(
        &case_model,
        Problem::from_number(problem).unwrap(),
        &files,
    ))
}

fn problem1_row(folder: &str, case: &str, peak: u64) {
    let Some(r) = published(folder, case, 1) else {
        return;
    };
    assert!(r.valid, "{:?}", r.violations);
    assert_eq!(r.p1_peak, peak);
    assert_eq!((r.spills, r.extra_movement, r.makespan), (0, 0, None));
}

fn problem2_row(folder: &str, case: &str, peak: u64, spills: usize, extra: u64, makespan: u64) {
    let Some(r) = published(folder, case, 2) else {
        return;
    };
    assert!(r.valid, "{:?}", r.violations);
    assert_eq!(r.p1_peak, peak);
    assert_eq!(r.spills, spills);
    assert_eq!(r.extra_movement, extra);
    assert_eq!(r.makespan, Some(makespan));
}

/// An invalid problem 1 row: the first violation is the two-buffers rule at `node`.
fn invalid_row(folder: &str, case: &str, reason: &str, peak: u64) {
    let Some(r) = published(folder, case, 1) else {
        return;
    };
    assert!(!r.valid);
    assert_eq!(r.p1_peak, peak);
    let first = r.violations[0].to_string();
    assert!(first.starts_with(reason), "{first}");
    // the other L0 levels clash too; nothing else is wrong
    assert!(r
        .violations
        .iter()
        .all(|v| matches!(v, NpuViolation::L0Shared { .. })));
}

#[test]
fn p1_a_matmul_case0() {
    problem1_row("p1-a", "Matmul_Case0", 9216);
}

#[test]
fn p1_b_conv_case0() {
    problem1_row("p1-b", "Conv_Case0", 6912);
}

#[test]
fn p1_b_flash_attention_case0() {
    problem1_row("p1-b", "FlashAttention_Case0", 4498);
}

#[test]
fn p1_b_flash_attention_case1() {
    problem1_row("p1-b", "FlashAttention_Case1", 7586);
}

#[test]
fn p1_b_matmul_case0() {
    problem1_row("p1-b", "Matmul_Case0", 11264);
}

#[test]
fn p1_c_flash_attention_case0() {
    problem1_row("p1-c", "FlashAttention_Case0", 26728);
}

#[test]
fn p1_invalid_a_matmul_case0() {
    invalid_row(
        "p1-invalid-a",
        "Matmul_Case0",
        "two L0A buffers alive at once (first at node 77,",
        4096,
    );
}

#[test]
fn p1_invalid_b_flash_attention_case0() {
    invalid_row(
        "p1-invalid-b",
        "FlashAttention_Case0",
        "two L0A buffers alive at once (first at node 14,",
        25608,
    );
}

#[test]
fn p2_a_conv_case0() {
    problem2_row("p2-a", "Conv_Case0", 6912, 58, 46872, 476530);
}

#[test]
fn p2_a_flash_attention_case0() {
    problem2_row("p2-a", "FlashAttention_Case0", 4498, 23, 3620, 51934);
}

#[test]
fn p2_a_flash_attention_case1() {
    problem2_row("p2-a", "FlashAttention_Case1", 7586, 212, 32852, 225921);
}

#[test]
fn p2_a_matmul_case0() {
    problem2_row("p2-a", "Matmul_Case0", 11264, 97, 12416, 140398);
}

#[test]
fn p2_b_flash_attention_case0() {
    problem2_row("p2-b", "FlashAttention_Case0", 4500, 14, 3584, 45270);
}

// ---- a small hand-made case

/// Two L1 tiles (buffer 0 copied in, then buffer 2 copied in) moved into buffer 1
/// (L0A) and buffer 3 (`ty3`, L0B unless changed), multiplied into buffer 4 (L0C).
fn small_json(ty3: &str) -> String {
    r#"{"Nodes": [
  {"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 100, "Type": "L1"},
  {"Id": 1, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [0]},
  {"Id": 2, "Op": "ALLOC", "BufId": 1, "Size": 64, "Type": "L0A"},
  {"Id": 3, "Op": "MOVE", "Pipe": "MTE1", "Cycles": 5, "Bufs": [1, 0]},
  {"Id": 4, "Op": "FREE", "BufId": 0, "Size": 100, "Type": "L1"},
  {"Id": 5, "Op": "ALLOC", "BufId": 2, "Size": 200, "Type": "L1"},
  {"Id": 6, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [2]},
  {"Id": 7, "Op": "ALLOC", "BufId": 3, "Size": 64, "Type": "TYPE3"},
  {"Id": 8, "Op": "MOVE", "Pipe": "MTE1", "Cycles": 5, "Bufs": [3, 2]},
  {"Id": 9, "Op": "FREE", "BufId": 2, "Size": 200, "Type": "L1"},
  {"Id": 10, "Op": "ALLOC", "BufId": 4, "Size": 128, "Type": "L0C"},
  {"Id": 11, "Op": "MATMUL", "Pipe": "CUBE", "Cycles": 20, "Bufs": [4, 1, 3]},
  {"Id": 12, "Op": "FREE", "BufId": 1, "Size": 64, "Type": "L0A"},
  {"Id": 13, "Op": "FREE", "BufId": 3, "Size": 64, "Type": "TYPE3"},
  {"Id": 14, "Op": "COPY_OUT", "Pipe": "FIXP", "Cycles": 8, "Bufs": [4]},
  {"Id": 15, "Op": "FREE", "BufId": 4, "Size": 128, "Type": "L0C"}
],
"Edges": [[0, 1], [1, 3], [2, 3], [3, 4], [5, 6], [6, 8], [7, 8], [8, 9],
          [3, 11], [8, 11], [10, 11], [11, 12], [11, 13], [11, 14], [14, 15]]}"#
        .replace("TYPE3", ty3)
}

fn small(ty3: &str) -> Case {
    read_json(small_json(ty3).as_bytes(), "small", default_levels()).unwrap()
}

fn files(schedule: &[u64], memory: &[(u64, u64)], spills: &[(u64, u64)]) -> ContestFiles {
    ContestFiles {
        schedule: schedule.to_vec(),
        memory: memory.to_vec(),
        spills: spills.to_vec(),
    }
}

const IN_ORDER: [u64; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const ALL_AT_ZERO: [(u64, u64); 5] = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)];

fn messages(r: &NpuReport) -> Vec<String> {
    r.violations.iter().map(|v| v.to_string()).collect()
}

#[test]
fn small_problem1_is_valid() {
    let r = check_npu(
        &small("L0B"),
        Problem::Residency,
        &files(&IN_ORDER, &[], &[]),
    );
    assert_eq!(messages(&r), Vec::<String>::new());
    assert_eq!(r.p1_peak, 200);
    assert_eq!(r.makespan, None);
}

#[test]
fn small_problem2_waits_for_address_reuse() {
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&IN_ORDER, &ALL_AT_ZERO, &[]),
    );
    assert!(r.valid, "{:?}", messages(&r));
    assert_eq!((r.p1_peak, r.spills, r.extra_movement), (200, 0, 0));
    // buffer 2 reuses buffer 0's L1 addresses: its ALLOC waits for FREE(0) at 15,
    // so COPY_IN 6 runs 15..25, MOVE 8 25..30, MATMUL 30..50, COPY_OUT 50..58
    assert_eq!(r.makespan, Some(58));
    let apart = [(0, 0), (1, 0), (2, 100), (3, 0), (4, 0)];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&IN_ORDER, &apart, &[]),
    );
    assert_eq!(r.makespan, Some(53));
}

#[test]
fn small_problem2_with_spills() {
    // spill 0: buffer 0 (copied in: SPILL_OUT free, cost 100) out and back after MOVE 3;
    // spill 1: buffer 1 (cost 128) out after MOVE 3, back to offset 128 before MATMUL
    let schedule = [
        0, 1, 2, 3, 16, 17, 18, 4, 5, 6, 7, 8, 9, 19, 10, 11, 12, 13, 14, 15,
    ];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[(0, 0), (1, 128)]),
    );
    assert!(r.valid, "{:?}", messages(&r));
    assert_eq!((r.spills, r.extra_movement, r.p1_peak), (2, 228, 200));
    // SPILL_IN 17 runs 15..365 (MTE2, 2*100+150); ALLOC 5 reuses buffer 0's addresses
    // so waits for FREE 4 at 365; COPY_IN 6 365..375, MOVE 8 375..380; SPILL_OUT 18
    // runs 15..293 (MTE3, 2*64+150), SPILL_IN 19 375..653 after COPY_IN 6 on MTE2;
    // MATMUL 653..673, COPY_OUT 673..681
    assert_eq!(r.makespan, Some(681));
}

#[test]
fn schedule_missing_a_node() {
    let schedule: Vec<u64> = IN_ORDER.iter().copied().filter(|&n| n != 14).collect();
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[]),
    );
    assert!(!r.valid);
    assert_eq!(
        messages(&r),
        ["node 14 (COPY_OUT) is missing from the schedule"]
    );
    assert_eq!(r.makespan, None);
}

#[test]
fn schedule_not_topological() {
    let schedule = [0, 2, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[]),
    );
    assert_eq!(
        messages(&r),
        [
            "node 3 (MOVE) at position 2 runs before node 1 (COPY_IN) at position 3, \
          which must precede it (an edge of the case)"
        ]
    );
    assert_eq!(r.makespan, None);
}

#[test]
fn schedule_with_unknown_and_repeated_nodes() {
    let mut schedule = IN_ORDER.to_vec();
    schedule.insert(3, 16);
    schedule.push(2);
    let r = check_npu(
        &small("L0B"),
        Problem::Residency,
        &files(&schedule, &[], &[]),
    );
    assert_eq!(
        messages(&r),
        [
            "schedule position 3 holds node 16, which does not exist (nodes are 0..16, \
             spill nodes included)",
            "node 2 (ALLOC buffer 1) is scheduled twice (positions 2 and 17)",
        ]
    );
}

#[test]
fn overlapping_offsets() {
    let schedule = [0, 1, 2, 3, 5, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[]),
    );
    assert_eq!(
        messages(&r),
        [
            "node 5 (ALLOC buffer 2) places buffer 2 at L1 [0, 200) while buffer 0 holds \
          [0, 100) (resident since node 0 (ALLOC buffer 0))"
        ]
    );
    assert_eq!(r.p1_peak, 300);
}

#[test]
fn offset_past_capacity() {
    let memory = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 400)];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&IN_ORDER, &memory, &[]),
    );
    assert_eq!(
        messages(&r),
        ["node 10 (ALLOC buffer 4) places buffer 4 at [400, 528), past L0C's capacity of 512"]
    );
}

#[test]
fn memory_lines_missing_repeated_or_unknown() {
    let memory = [(0, 0), (1, 0), (1, 64), (2, 0), (3, 0), (9, 0)];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&IN_ORDER, &memory, &[]),
    );
    assert_eq!(
        messages(&r),
        [
            "buffer 1 has two memory lines (offsets 0 and 64)",
            "the memory file places buffer 9, which does not exist",
            "buffer 4 (L0C) has no memory line",
        ]
    );
}

#[test]
fn use_while_spilled_out() {
    let schedule = [0, 1, 2, 16, 3, 17, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[(1, 0)]),
    );
    assert_eq!(
        messages(&r),
        [
            "node 3 (MOVE) at position 4 runs before node 17 (SPILL_IN buffer 1, spill 0) \
             at position 5, which must precede it (an edge added by spill 0 of buffer 1)",
            "node 3 (MOVE) uses buffer 1 while it is spilled out (since node 16 \
             (SPILL_OUT buffer 1, spill 0))",
        ]
    );
    assert_eq!(r.makespan, None);
}

#[test]
fn spill_out_while_already_out() {
    // spill 1 of buffer 1 nests inside spill 0: the edges allow it, the walk does not
    let schedule = [
        0, 1, 2, 3, 16, 18, 19, 17, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[(1, 0), (1, 0)]),
    );
    assert_eq!(
        messages(&r),
        [
            "node 18 (SPILL_OUT buffer 1, spill 1) uses buffer 1 while it is spilled out \
             (since node 16 (SPILL_OUT buffer 1, spill 0))",
            "node 19 (SPILL_IN buffer 1, spill 1) reloads buffer 1 while it is spilled out \
             (since node 16 (SPILL_OUT buffer 1, spill 0))",
            "node 17 (SPILL_IN buffer 1, spill 0) reloads buffer 1 while it is resident \
             (since node 19 (SPILL_IN buffer 1, spill 1))",
        ]
    );
}

#[test]
fn unknown_spill_buffer() {
    let schedule = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
    let r = check_npu(
        &small("L0B"),
        Problem::Movement,
        &files(&schedule, &ALL_AT_ZERO, &[(7, 0)]),
    );
    assert_eq!(
        messages(&r),
        ["spill 0 names buffer 7, which does not exist"]
    );
    assert_eq!((r.spills, r.extra_movement, r.makespan), (1, 0, None));
}

#[test]
fn two_l0a_buffers_alive_in_problem1() {
    let r = check_npu(
        &small("L0A"),
        Problem::Residency,
        &files(&IN_ORDER, &[], &[]),
    );
    assert_eq!(
        r.violations,
        [NpuViolation::L0Shared {
            level: "L0A".into(),
            first_node: 7,
            buf: 3,
            other: 1,
            count: 1,
        }]
    );
    assert_eq!(
        r.violations[0].to_string(),
        "two L0A buffers alive at once (first at node 7, which allocates buffer 3 while \
         buffer 1 is alive; 1 such allocation(s) in all)"
    );
    // problem 2 has no such rule: both fit in L0A side by side
    let memory = [(0, 0), (1, 0), (2, 0), (3, 64), (4, 0)];
    let r = check_npu(
        &small("L0A"),
        Problem::Movement,
        &files(&IN_ORDER, &memory, &[]),
    );
    assert!(r.valid, "{:?}", messages(&r));
}

#[test]
fn spills_in_problem1() {
    let r = check_npu(
        &small("L0B"),
        Problem::Residency,
        &files(&IN_ORDER, &[], &[(0, 0)]),
    );
    assert_eq!(
        messages(&r),
        ["problem 1 allows no spills, but the spill file lists 1"]
    );
}

#[test]
fn violations_are_capped_and_counted() {
    let schedule = vec![99; 1500];
    let r = check_npu(
        &small("L0B"),
        Problem::Residency,
        &files(&schedule, &[], &[]),
    );
    assert_eq!(r.violations.len(), MAX_VIOLATIONS);
    assert_eq!(r.violation_count, 1500 + 16);
}

// ---- the case readers

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-npu-check-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The CSV pair for a JSON case, written from the JSON's values.
fn csv_pair(json: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut nodes = String::from("Id,Op,BufId,Size,Type,Pipe,Cycles,Bufs\n");
    for n in v["Nodes"].as_array().unwrap() {
        let field = |k: &str| match &n[k] {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) => {
                let ids: Vec<String> = a.iter().map(|x| x.to_string()).collect();
                format!("\"{}\"", ids.join(","))
            }
            other => other.to_string(),
        };
        let row: Vec<String> = [
            "Id", "Op", "BufId", "Size", "Type", "Pipe", "Cycles", "Bufs",
        ]
        .iter()
        .map(|k| field(k))
        .collect();
        nodes += &(row.join(",") + "\n");
    }
    let mut edges = String::from("StartNodeId,EndNodeId\n");
    for e in v["Edges"].as_array().unwrap() {
        edges += &format!("{},{}\n", e[0], e[1]);
    }
    (nodes, edges)
}

#[test]
fn csv_pair_and_json_read_the_same_case() {
    let json = small_json("L0B");
    let (nodes, edges) = csv_pair(&json);
    let dir = temp_dir("csv");
    std::fs::write(dir.join("small_Nodes.csv"), &nodes).unwrap();
    std::fs::write(dir.join("small_Edges.csv"), &edges).unwrap();
    let from_csv = read_csv(
        &std::fs::read(dir.join("small_Nodes.csv")).unwrap(),
        &std::fs::read(dir.join("small_Edges.csv")).unwrap(),
        "small",
        default_levels(),
    )
    .unwrap();
    assert_eq!(from_csv, small("L0B"));
    assert!(from_csv.buffers[0].copy_in && !from_csv.buffers[1].copy_in);
}

/// `write_json` (how `memplan export` and a demo write a case) reads back to the
/// same case, for every corpus case and the example.
#[test]
fn written_cases_read_back_the_same() {
    let mut files = vec![PathBuf::from("examples/npu_tiny_matmul.json")];
    if let Some(dir) = corpus() {
        files.extend(common::files(&dir, "json"));
    }
    for file in &files {
        let case = read_json(&std::fs::read(file).unwrap(), "c", default_levels()).unwrap();
        let back = read_json(write_json(&case).as_bytes(), "c", default_levels()).unwrap();
        assert_eq!(back, case, "{}", file.display());
    }
    assert!(
        files.len() >= 6 || corpus().is_none(),
        "{} cases",
        files.len()
    );
}

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

fn json_error(json: &str) -> String {
    read_json(json.as_bytes(), "bad", default_levels())
        .unwrap_err()
        .to_string()
}

#[test]
fn reader_rejects_a_buffer_without_free() {
    let json = small_json("L0B")
        .replace(
            ",\n  {\"Id\": 15, \"Op\": \"FREE\", \"BufId\": 4, \"Size\": 128, \"Type\": \"L0C\"}",
            "",
        )
        .replace(", [14, 15]", "");
    assert_eq!(
        json_error(&json),
        "buffer 4 is allocated at node 10 but never freed"
    );
}

#[test]
fn reader_rejects_an_unknown_memory_type() {
    assert_eq!(
        json_error(&small_json("L2")),
        "buffer 3 has memory type `L2`, which is none of L1, UB, L0A, L0B, L0C"
    );
}

#[test]
fn reader_rejects_a_bufs_entry_naming_no_buffer() {
    let json = small_json("L0B").replace("\"Bufs\": [4, 1, 3]", "\"Bufs\": [4, 1, 9]");
    assert_eq!(
        json_error(&json),
        "node 11 (MATMUL) uses buffer 9, which has no ALLOC"
    );
}

#[test]
fn reader_rejects_a_cycle() {
    let json = small_json("L0B").replace("[14, 15]]", "[14, 15], [11, 8]]");
    assert_eq!(
        json_error(&json),
        "the graph has a cycle: `node 8 (MOVE)` -> `node 11 (MATMUL)` -> `node 8 (MOVE)`"
    );
}

#[test]
fn reader_rejects_a_size_larger_than_its_level() {
    let json = small_json("L0B").replace(
        "\"BufId\": 1, \"Size\": 64, \"Type\": \"L0A\"}",
        "\"BufId\": 1, \"Size\": 300, \"Type\": \"L0A\"}",
    );
    assert_eq!(
        json_error(&json),
        "buffer 1 needs 300 units but L0A holds only 256"
    );
}

// ---- the contest files

#[test]
fn contest_files_round_trip() {
    let f = files(&[2, 0, 1], &[(0, 16), (1, 0)], &[(1, 128)]);
    let parsed = contest::parse(
        contest::render(&f, ContestFile::Schedule).as_bytes(),
        Some(contest::render(&f, ContestFile::Memory).as_bytes()),
        Some(contest::render(&f, ContestFile::Spill).as_bytes()),
    )
    .unwrap();
    assert_eq!(parsed, f);
    assert_eq!(contest::render(&f, ContestFile::Memory), "0:16\n1:0\n");
    // blank lines, spaces, CRLF and a missing last newline are accepted
    let loose = contest::parse(b"2\r\n\r\n 0 \n1", Some(b"0 : 16\n1:0\n\n"), None).unwrap();
    assert_eq!(loose.schedule, [2, 0, 1]);
    assert_eq!(loose.memory, [(0, 16), (1, 0)]);
    assert!(loose.spills.is_empty());
    assert_eq!(
        ContestFile::Spill.file_name("Conv_Case0"),
        "Conv_Case0_spill.txt"
    );
}

#[test]
fn contest_files_name_the_bad_line() {
    let err = |s: &[u8], m: Option<&[u8]>, p: Option<&[u8]>| {
        contest::parse(s, m, p).unwrap_err().to_string()
    };
    assert_eq!(
        err(b"0\n1\nx2\n", None, None),
        "contest schedule: line 3: `x2` is not a node id"
    );
    assert_eq!(
        err(b"0\n", Some(b"0:1\n5\n"), None),
        "contest memory: line 2: `5` is not of the form BufId:Offset"
    );
    assert_eq!(
        err(b"0\n", None, Some(b"a:1\n")),
        "contest spill: line 1: `a` is not a buffer id"
    );
    assert_eq!(
        err(b"0\n", None, Some(b"\n3:-1\n")),
        "contest spill: line 2: `-1` is not an offset"
    );
}

// ---- the command line

fn write_results(dir: &Path, f: &ContestFiles) {
    for file in ContestFile::ALL {
        std::fs::write(dir.join(file.file_name("small")), contest::render(f, file)).unwrap();
    }
}

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

/// The visualizer's view of a solution reads back from its JSON to the same view
/// (the page draws what the worker wrote), and a method or pipe the core does not
/// know is refused, not drawn.
#[test]
fn the_solution_view_reads_back_and_refuses_unknown_names() {
    use memplan::npu::export::{view, View};
    use memplan::npu::solve::{solve, Method};
    let data = std::fs::read(common::root().join("examples/npu_tiny_matmul.json")).unwrap();
    let case = read_json(&data, "tiny", default_levels()).unwrap();
    let solution = solve(&case, Problem::Makespan, Method::Best).unwrap();
    let shown = view(&case, &solution);
    let text = serde_json::to_string(&shown).unwrap();
    let back: View = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    assert!(back.nodes.iter().any(|n| n.pipe.is_some()));
    assert!(text.contains("\"method\":\"best\"") && text.contains("\"problem\":3"));
    let bad_method = text.replace("\"method\":\"best\"", "\"method\":\"fastest\"");
    let e = serde_json::from_str::<View>(&bad_method)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown NPU method `fastest`"), "{e}");
    let pipe = serde_json::to_string(&back.nodes.iter().find_map(|n| n.pipe)).unwrap();
    let bad_pipe = text.replacen(&format!("\"pipe\":{pipe}"), "\"pipe\":\"WARP\"", 1);
    let e = serde_json::from_str::<View>(&bad_pipe)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown pipe `WARP`"), "{e}");
    let bad_problem = text.replace("\"problem\":3", "\"problem\":4");
    assert!(serde_json::from_str::<View>(&bad_problem).is_err());
}
