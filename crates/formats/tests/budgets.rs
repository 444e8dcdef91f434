//! Budgets hold: a searching strategy given a deterministic budget of work units
//! spends at most that plus a tenth, plus the one greedy pass it always makes to
//! the end (one per order for `reorder`, which plans on two orders; two for
//! `auto`, whose second, greedy-size's backward twin, costs within a quarter of
//! the first). Counted in work units, not wall time, so the test is exact on any
//! machine. Every large instance and every MiniMalloc instance; every plan is
//! checked.
//!
//! The first passes are those of `greedy-size` and `best-fit`: a budget of a few
//! passes already gives a plan no worse than either.
//!
//! The large files take seconds in a release build (`cargo test --release`).

use memplan::pack::Budget;
use memplan::{check, Analysis, Graph, Options, Plan, Strategy};
use std::path::Path;

const SEARCHING: [Strategy; 4] = [
    Strategy::BestOf,
    Strategy::Search,
    Strategy::Reorder,
    Strategy::Auto,
];

/// What `strategy` may spend past its budget, for greedy passes of `pass` units:
/// the passes it makes to the end whatever the budget.
fn whole_passes(strategy: Strategy, pass: u64) -> u64 {
    match strategy {
        Strategy::Reorder => 2 * pass,
        Strategy::Auto => 2 * pass + pass / 4,
        _ => pass,
    }
}

/// Plans with `strategy` on `units` work units; the plan and the units spent.
fn plan(g: &Graph, a: &Analysis, strategy: Strategy, units: u64) -> (Plan, u64) {
    let mut budget = Budget::work(units);
    let plan = a.plan_within(g, strategy, &mut budget);
    assert_eq!(
        check::check(g, &plan),
        vec![],
        "{} {units}",
        strategy.name()
    );
    (plan, budget.spent())
}

fn holds(file: &Path, budgets: &[u64]) {
    let name = file.file_name().unwrap().to_string_lossy();
    let g = memplan_testkit::read_graph(file);
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    // what one pass costs: greedy-size's, the pass every search makes first
    let (_, pass) = plan(&g, &a, Strategy::GreedySize, u64::MAX);
    assert!(pass > 0, "{name}: a greedy pass costs work");
    for strategy in SEARCHING {
        for &units in budgets {
            let (_, spent) = plan(&g, &a, strategy, units);
            let allowed = units + units / 10 + whole_passes(strategy, pass);
            assert!(
                spent <= allowed,
                "{name} {}: spent {spent} units of a budget of {units} (one pass: {pass})",
                strategy.name()
            );
        }
    }
    // a few passes' worth: the passes of greedy-size and best-fit have run
    let (few, _) = plan(&g, &a, Strategy::BestOf, 6 * pass);
    for single in [Strategy::GreedySize, Strategy::BestFit] {
        let p = a.plan(&g, single);
        assert!(
            few.peak_bytes <= p.peak_bytes,
            "{name}: best-of on six passes' budget {} above {} {}",
            few.peak_bytes,
            single.name(),
            p.peak_bytes
        );
    }
}

#[test]
fn budgets_hold_on_the_large_instances() {
    let Some(files) = memplan_testkit::corpus_files("large", "csv", 5) else {
        return;
    };
    for file in files {
        holds(&file, &[1, 20_000, 100_000]);
    }
}

#[test]
fn budgets_hold_on_the_minimalloc_instances() {
    let Some(files) = memplan_testkit::corpus_files("minimalloc", "csv", 11) else {
        return;
    };
    for file in files {
        holds(&file, &[1, 20_000, 200_000]);
    }
}

/// A budget counts from where it is made: the same units give the same plan.
#[test]
fn a_deterministic_budget_gives_the_same_plan_twice() {
    let Some(files) = memplan_testkit::corpus_files("minimalloc", "csv", 11) else {
        return;
    };
    let file = &files[0];
    let g = memplan_testkit::read_graph(file);
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    for strategy in SEARCHING {
        let (p, s) = plan(&g, &a, strategy, 50_000);
        let (q, t) = plan(&g, &a, strategy, 50_000);
        assert_eq!((p.tensors, s), (q.tensors, t), "{}", strategy.name());
    }
}

/// On the large instances whose bytes crowd one stretch of time (S_1, Y_1), the
/// orders that place the most crowded steps' buffers first bring `best-of` within
/// 0.3% of the lower bound on three passes' work (the second pass is one of them:
/// S_1 1.0026x, Y_1 at the bound) and within 0.2% on thirty (S_1 1.0010x after
/// the moves), where the size orders of greedy-size and best-fit end 0.4-2.5%
/// above it and the moves from them stayed at 1.0061x or more on S_1.
#[test]
fn peak_first_orders_come_near_the_bound_on_crowded_large_instances() {
    let Some(files) = memplan_testkit::corpus_files("large", "csv", 5) else {
        return;
    };
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if !["S_1.csv", "Y_1.csv"].contains(&name.as_str()) {
            continue;
        }
        let g = memplan_testkit::read_graph(&file);
        let a = memplan::analyse(&g, &Options::default()).unwrap();
        let (_, pass) = plan(&g, &a, Strategy::GreedySize, u64::MAX);
        for (passes, most) in [(3, 1.003), (30, 1.002)] {
            let (p, _) = plan(&g, &a, Strategy::BestOf, passes * pass);
            let ratio = p.peak_bytes as f64 / p.lower_bound as f64;
            assert!(
                ratio <= most,
                "{name}: best-of on {passes} passes' work at {ratio:.5}x the bound"
            );
        }
    }
}
