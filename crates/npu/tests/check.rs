//! The independent NPU checker: every row of the published contest results and
//! hand-made broken results with the exact violation (the small case of
//! `memplan_testkit::npu`), and the solution view's JSON.

use memplan_formats::contest::{self, ContestFile, ContestFiles};
use memplan_formats::npu::read_json;
use memplan_npu::case::default_levels;
use memplan_npu::check::{check_npu, NpuReport, NpuViolation, MAX_VIOLATIONS};
use memplan_npu::problem::Problem;
use memplan_testkit::npu::{files, small, ALL_AT_ZERO, IN_ORDER};
use std::path::{Path, PathBuf};

// ---- the published results

fn corpus() -> Option<PathBuf> {
    memplan_testkit::corpus_dir("npu")
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
// ---- the small hand-made case

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

/// The visualizer's view of a solution reads back from its JSON to the same view
/// (the page draws what the worker wrote), and a method or pipe the core does not
/// know is refused, not drawn.
#[test]
fn the_solution_view_reads_back_and_refuses_unknown_names() {
    use memplan_npu::export::{view, View};
    use memplan_npu::solve::{solve, Method};
    let data =
        std::fs::read(memplan_testkit::root().join("examples/npu_tiny_matmul.json")).unwrap();
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
