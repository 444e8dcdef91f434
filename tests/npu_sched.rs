//! NPU schedulers on the five public cases; every solution goes through the
//! independent checker, which must agree with the scheduler's own figures.

use memplan::check::npu::check_npu;
use memplan::formats::npu::read_json;
use memplan::npu::case::default_levels;
use memplan::npu::export::contest_files;
use memplan::npu::solve::{solve, Method};

fn case(name: &str) -> Option<memplan::npu::Case> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/npu")
        .join(format!("{name}.json"));
    if !path.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the shared corpus is missing at {} (required in CI)",
            path.display()
        );
        eprintln!("SKIPPED: {} is missing", path.display());
        return None;
    }
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

#[test]
fn problem1_is_valid_and_near_the_best_published_peak() {
    for (name, best) in CASES {
        let Some(c) = case(name) else { return };
        let s = solve(&c, 1, Method::Best).unwrap();
        let report = check_npu(&c, 1, &contest_files(&c, &s));
        assert!(
            report.valid,
            "{name}: {:?}",
            &report.violations[..report.violations.len().min(3)]
        );
        assert_eq!(
            report.p1_peak, s.p1_peak,
            "{name}: checker and scheduler disagree"
        );
        // within 10% of the best published schedule
        assert!(
            s.p1_peak * 10 <= best * 11,
            "{name}: peak {} vs published {best}",
            s.p1_peak
        );
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
        for (problem, method) in [(2, Method::Baseline), (2, Method::Best), (3, Method::Best)] {
            let s = solve(&c, problem, method).unwrap();
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
    }
}
