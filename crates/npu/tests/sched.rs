//! NPU schedulers on the five public cases; every solution goes through the
//! independent checker, which must agree with the scheduler's own figures.

use memplan_formats::npu::read_json;
use memplan_npu::case::default_levels;
use memplan_npu::check::check_npu;
use memplan_npu::checked::solve_checked_watched;
use memplan_npu::export::contest_files;
use memplan_npu::problem::Problem;
use memplan_npu::solve::{solve, solve_placed, Method, Solution};
use memplan_npu::tiled::tiled_matmul;
use memplan_npu::watch::Watch;

fn case(name: &str) -> Option<memplan_npu::Case> {
    let path = memplan_testkit::corpus_dir("npu")?.join(format!("{name}.json"));
    Some(read_json(&std::fs::read(&path).unwrap(), name, default_levels()).unwrap())
}

/// Case and the best published Problem 1 peak.
const CASES: [(&str, u64); 5] = [
    ("Matmul_Case0", 9216),
    ("Matmul_Case1", 34816),
    ("FlashAttention_Case0", 4498),
    ("FlashAttention_Case1", 7586),
    ("Conv_Case0", 6912),
];

/// Cases whose best published Problem 1 peak `best` already matches.
const P1_MATCHED: [&str; 5] = [
    "Matmul_Case0",
    "Matmul_Case1",
    "FlashAttention_Case0",
    "FlashAttention_Case1",
    "Conv_Case0",
];

/// Best published Problem 2 movement and Problem 3 makespan, which `best` matches
/// or beats (Matmul_Case1's are claims without result files).
const BEATEN: [(&str, u64, u64); 5] = [
    ("Matmul_Case0", 12_416, 140_398),
    ("Matmul_Case1", 316_672, 1_683_725),
    ("FlashAttention_Case0", 3_584, 45_270),
    ("FlashAttention_Case1", 32_852, 225_921),
    ("Conv_Case0", 46_872, 476_530),
];

#[test]
fn problem1_is_valid_and_near_the_best_published_peak() {
    for (name, best) in CASES {
        let Some(c) = case(name) else { return };
        let s = solve(&c, Problem::Residency, Method::Best).unwrap();
        let report = check_npu(&c, Problem::Residency, &contest_files(&c, &s));
        assert!(
            report.valid,
            "{name}: {:?}",
            &report.violations[..report.violations.len().min(3)]
        );
        assert_eq!(
            report.p1_peak, s.p1_peak,
            "{name}: checker and scheduler disagree"
        );
        // within 10% of the best published schedule, at it where we reach it
        assert!(
            s.p1_peak * 10 <= best * 11,
            "{name}: peak {} vs published {best}",
            s.p1_peak
        );
        if P1_MATCHED.contains(&name) {
            assert!(s.p1_peak <= best, "{name}: peak {} above {best}", s.p1_peak);
        }
        eprintln!(
            "{name}: problem 1 peak {} (published best {best}) by {}",
            s.p1_peak, s.recipe
        );
    }
}

#[test]
fn problems_2_and_3_are_valid_and_the_checker_agrees() {
    for (name, _) in CASES {
        let Some(c) = case(name) else { return };
        let mut movement = Vec::new();
        let (best2, best3) = solve_placed(&c, Method::Best).unwrap();
        let solutions = [
            solve(&c, Problem::Movement, Method::Baseline).unwrap(),
            best2,
            best3,
        ];
        for s in solutions {
            let (problem, method) = (s.problem, s.method);
            let report = check_npu(&c, problem, &contest_files(&c, &s));
            assert!(
                report.valid,
                "{name} p{problem} {}: {:?}",
                method.name(),
                &report.violations[..report.violations.len().min(3)]
            );
            assert_eq!(report.spills, s.plan.spills.len(), "{name}");
            assert_eq!(report.extra_movement, s.extra_movement(), "{name}");
            assert_eq!(
                report.makespan,
                s.makespan(),
                "{name}: the pipe models disagree"
            );
            assert_eq!(report.p1_peak, s.p1_peak, "{name}");
            eprintln!(
                "{name} p{problem} {}: {} spills, movement {}, makespan {} by {}",
                method.name(),
                s.plan.spills.len(),
                s.extra_movement(),
                s.makespan().unwrap(),
                s.recipe
            );
            movement.push((s.extra_movement(), s.makespan().unwrap()));
        }
        let [(base, _), (best, best_span), (p3, p3_span)] = movement[..] else {
            unreachable!()
        };
        assert!(best <= base, "{name}: best moves more than the baseline");
        assert!(
            p3 <= best + best / 50,
            "{name}: problem 3 raised the movement by more than 2%"
        );
        assert!(
            p3_span <= best_span,
            "{name}: problem 3 is slower than problem 2"
        );
        if let Some(&(_, moved, span)) = BEATEN.iter().find(|b| b.0 == name) {
            assert!(
                best <= moved,
                "{name}: movement {best} above the published {moved}"
            );
            assert!(
                p3 <= moved && p3_span <= span,
                "{name}: problem 3 {p3_span} at {p3}"
            );
        }
    }
}

/// Builds a contest JSON case from buffers `(id, size, level)` and a chain of ops
/// `(op name, bufs)` run in the given order (each op depends on the previous one).
/// Every buffer is allocated just before its first user and freed after its last.
fn chain_case(buffers: &[(u64, u64, &str)], ops: &[(&str, &[u64])]) -> memplan_npu::Case {
    let mut nodes: Vec<String> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut alloc = std::collections::HashMap::new();
    for &(b, size, level) in buffers {
        alloc.insert(b, nodes.len());
        nodes.push(format!(
            r#"{{"Id": {}, "Op": "ALLOC", "BufId": {b}, "Size": {size}, "Type": "{level}"}}"#,
            nodes.len()
        ));
    }
    let mut last_user = std::collections::HashMap::new();
    let mut prev: Option<usize> = None;
    for &(op, bufs) in ops {
        let id = nodes.len();
        let list: Vec<String> = bufs.iter().map(|b| b.to_string()).collect();
        nodes.push(format!(
            r#"{{"Id": {id}, "Op": "{op}", "Pipe": "VECTOR", "Cycles": 10, "Bufs": [{}]}}"#,
            list.join(", ")
        ));
        for b in bufs {
            if !last_user.contains_key(b) {
                edges.push((alloc[b], id));
            }
            last_user.insert(*b, id);
        }
        if let Some(p) = prev {
            edges.push((p, id));
        }
        prev = Some(id);
    }
    for &(b, size, level) in buffers {
        let id = nodes.len();
        nodes.push(format!(
            r#"{{"Id": {id}, "Op": "FREE", "BufId": {b}, "Size": {size}, "Type": "{level}"}}"#
        ));
        edges.push((last_user[&b], id));
    }
    let edges: Vec<String> = edges.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    let json = format!(
        r#"{{"Nodes": [{}], "Edges": [{}]}}"#,
        nodes.join(", "),
        edges.join(", ")
    );
    let levels = vec![
        memplan_npu::Level {
            name: "L1".into(),
            capacity: 250,
        },
        memplan_npu::Level {
            name: "UB".into(),
            capacity: 1024,
        },
    ];
    read_json(json.as_bytes(), "hand", levels).unwrap()
}

fn solved(c: &memplan_npu::Case, method: Method) -> memplan_npu::solve::Solution {
    let s = solve(c, Problem::Movement, method).unwrap();
    let report = check_npu(c, Problem::Movement, &contest_files(c, &s));
    assert!(report.valid, "{:?}", report.violations);
    assert_eq!(report.extra_movement, s.extra_movement());
    s
}

#[test]
fn a_spill_is_needed_and_costs_half_for_a_copy_in_buffer() {
    // x (150) is loaded by COPY_IN and read again after y (150) is used: 300 > 250,
    // so x must leave once while y is in; its data is still in DDR, so it costs 150
    let c = chain_case(
        &[(0, 150, "L1"), (1, 150, "L1")],
        &[("COPY_IN", &[0]), ("ADD", &[1]), ("COPY_OUT", &[0])],
    );
    let best = solved(&c, Method::Best);
    assert_eq!((best.plan.spills.len(), best.extra_movement()), (1, 150));
    // the depth-first order allocates both roots up front, so the baseline pays more
    assert!(solved(&c, Method::Baseline).extra_movement() >= 150);
}

#[test]
fn the_copy_in_discount_decides_the_victim() {
    // x (100, COPY_IN) and z (100, computed) are both live when w (100) arrives at
    // 250 units: one must go. x returns two ops later and z three; furthest next use
    // evicts z (200 moved), the cost-aware rule evicts x (100 moved): the optimum.
    let c = chain_case(
        &[
            (0, 100, "L1"),
            (1, 100, "L1"),
            (2, 100, "L1"),
            (3, 10, "UB"),
        ],
        &[
            ("COPY_IN", &[0]),
            ("MUL", &[1]),
            ("ADD", &[2]),
            ("EXP", &[3]),
            ("SUB", &[0]),
            ("MAX", &[1]),
        ],
    );
    assert_eq!(solved(&c, Method::Baseline).extra_movement(), 200);
    let best = solved(&c, Method::Best);
    assert_eq!((best.plan.spills.len(), best.extra_movement()), (1, 100));
    assert_eq!(
        c.buffer(best.plan.spills[0].buffer).buf_id,
        0,
        "x leaves, not z"
    );
}

#[test]
fn fragmentation_alone_can_force_a_spill() {
    // a, b, c (80 each) fill 240 of 250 units; a and c die, b stays in the middle;
    // d needs 150: 170 units are free but no gap holds 150, so something must move
    let c = chain_case(
        &[(0, 80, "L1"), (1, 80, "L1"), (2, 80, "L1"), (3, 150, "L1")],
        &[
            ("COPY_IN", &[0]),
            ("COPY_IN", &[1]),
            ("COPY_IN", &[2]),
            ("ADD", &[0, 2]),
            ("MUL", &[3]),
            ("SUB", &[1]),
        ],
    );
    let live_peak = 240; // a, b, c; later b and d: 230
    assert!(live_peak <= 250);
    let s = solved(&c, Method::Baseline);
    let b = &s
        .plan
        .residencies
        .iter()
        .find(|r| c.buffer(r.buffer).buf_id == 1)
        .unwrap();
    assert_eq!(b.offset, 80, "first fit puts b between a and c");
    assert_eq!(
        (s.plan.spills.len(), s.extra_movement()),
        (1, 80),
        "b leaves once so d fits"
    );
    assert!(solved(&c, Method::Best).extra_movement() <= 80);
}

/// Matmuls of other shapes than the corpus's: the best method runs two C tiles
/// side by side, so each step of the pair loads one tile of the operand they
/// share, and it moves no more than sweeping the pairs across the other operand
/// would (which reloads the unshared operand once per pair of rows or columns).
#[test]
fn tiled_matmuls_of_other_shapes_run_tiles_in_pairs() {
    // 2k < 32 tiles of L1: the shared operand of a pair of sweeps stays resident
    for (m, k, n) in [(6, 12, 10), (9, 14, 5)] {
        let c = tiled_matmul(m, k, n).unwrap();
        let best = solved(&c, Method::Best).extra_movement();
        let base = solved(&c, Method::Baseline).extra_movement();
        let (m, k, n) = (m as u64, k as u64, n as u64);
        // reloads of A when column pairs sweep the rows, or of B when row pairs
        // sweep the columns (an odd row or column out runs alone)
        let sweep = ((n.div_ceil(2) - 1) * m * k).min((m.div_ceil(2) - 1) * k * n);
        eprintln!(
            "{m}x{k}x{n}: best {best}, baseline {base}, sweep {}",
            128 * sweep
        );
        assert!(best <= 128 * sweep, "{m}x{k}x{n}: best {best}");
    }
}

/// Movement of Problem 2's best plan for the 20x20x20-tile matmul with the code of
/// session 9 before its threads (the bar the issue set: no more than that code).
const TILED_20_BEFORE: u64 = 656_640;

/// At scale: the 59,600-node tiled matmul of 20x20x20 tiles solves Problem 2 (on
/// two threads, as the CLI would on this machine) with a plan the checker accepts,
/// moving no more than the code before the threads did nor than the baseline.
/// How long it takes is `memplan bench-npu`'s business (README: Scale).
#[test]
fn a_59600_node_tiled_matmul_moves_no_more_than_before() {
    let case = tiled_matmul(20, 20, 20).unwrap();
    assert_eq!(case.nodes.len(), 59_600);
    let mut shown = Vec::new();
    let mut better = |s: &Solution| shown.push(s.extra_movement());
    let mut watch = Watch::improvements(&mut better).with_threads(2);
    let checked =
        solve_checked_watched(&case, Problem::Movement, Method::Best, &mut watch).unwrap();
    assert!(
        checked.agrees(Problem::Movement),
        "{:?}",
        checked.report.violations
    );
    let best = checked.solution.extra_movement();
    let first = shown[0];
    eprintln!(
        "20x20x20: best {best}, first plan {first}, {} shown",
        shown.len()
    );
    assert!(best <= TILED_20_BEFORE, "20x20x20: best {best}");
    assert!(best < first, "the search improved on the first plan");
}
