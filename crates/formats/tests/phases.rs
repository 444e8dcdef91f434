//! Unit tests per phase: order, liveness, interference, packing with alignment.

use memplan::interference::{colour, edges, max_clique};
use memplan::liveness::{analyse, LiveOptions};
use memplan::order::{topological, OrderKind};
use memplan::{PackOptions, Strategy};
use memplan_testkit::graph;

/// A diamond with a side branch, listed out of order:
/// a -> x; b: x -> y; c: x -> z; d: y, z -> w; e: x -> v (side branch).
fn diamond() -> memplan::Graph {
    graph(
        &[("x", 10), ("y", 20), ("z", 30), ("w", 40), ("v", 5)],
        &[
            ("d", &[1, 2], &[3]),
            ("c", &[0], &[2]),
            ("a", &[], &[0]),
            ("b", &[0], &[1]),
            ("e", &[0], &[4]),
        ],
    )
}

fn names(g: &memplan::Graph, order: &[memplan::graph::OpId]) -> Vec<String> {
    order.iter().map(|o| g.op(*o).name.clone()).collect()
}

#[test]
fn kahn_takes_the_lowest_ready_index() {
    let g = diamond();
    let order = topological(&g, OrderKind::Kahn).unwrap();
    // ready after a: c(1), b(3), e(4); then d once b and c ran
    assert_eq!(names(&g, &order), ["a", "c", "b", "d", "e"]);
}

/// Two chains from one root, listed interleaved: a; p, r (first links); q, s.
fn two_chains() -> memplan::Graph {
    graph(
        &[("x", 1), ("p1", 1), ("r1", 1), ("p2", 1), ("r2", 1)],
        &[
            ("a", &[], &[0]),
            ("p", &[0], &[1]),
            ("r", &[0], &[2]),
            ("q", &[1], &[3]),
            ("s", &[2], &[4]),
        ],
    )
}

#[test]
fn dfs_finishes_a_branch_before_the_next() {
    let g = two_chains();
    assert_eq!(
        names(&g, &topological(&g, OrderKind::Kahn).unwrap()),
        ["a", "p", "r", "q", "s"]
    );
    assert_eq!(
        names(&g, &topological(&g, OrderKind::Dfs).unwrap()),
        ["a", "p", "q", "r", "s"]
    );
}

#[test]
fn a_cycle_is_named_along_the_data_flow() {
    // a: c -> x; b: x -> y; c: y -> z (and z feeds a): a -> x -> b -> y -> c -> z -> a
    let g = graph(
        &[("x", 1), ("y", 1), ("z", 1), ("w", 1)],
        &[("a", &[2], &[0]), ("b", &[0], &[1]), ("c", &[1], &[2, 3])],
    );
    let err = topological(&g, OrderKind::Kahn).unwrap_err();
    assert!(err.is_cycle());
    let msg = err.to_string();
    assert!(msg.starts_with("the graph has a cycle: "), "{msg}");
    // the cycle may start at any op on it, but follows producer -> tensor -> consumer
    let ring = ["`a`", "`x`", "`b`", "`y`", "`c`", "`z`"];
    let path: Vec<&str> = msg["the graph has a cycle: ".len()..]
        .split(" -> ")
        .collect();
    assert_eq!(path.len(), 7, "{msg}");
    assert_eq!(path[0], path[6]);
    let at = ring.iter().position(|r| *r == path[0]).unwrap();
    for (k, name) in path.iter().enumerate() {
        assert_eq!(*name, ring[(at + k) % 6], "{msg}");
    }
    assert!(topological(&g, OrderKind::Dfs).unwrap_err().is_cycle());
}

#[test]
fn a_self_loop_is_a_cycle() {
    let g = graph(&[("x", 1)], &[("a", &[0], &[0])]);
    assert_eq!(
        topological(&g, OrderKind::Kahn).unwrap_err().to_string(),
        "the graph has a cycle: `a` -> `x` -> `a`"
    );
}

#[test]
fn duplicate_producers_and_unknown_tensors_are_errors() {
    use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
    let t = |n: &str| Tensor {
        name: n.into(),
        size: 1,
        role: Role::Arena,
        level: None,
        lifetime: None,
    };
    let op = |n: &str, o: u32| Op {
        name: n.into(),
        kind: String::new(),
        inputs: vec![],
        outputs: vec![TensorId(o)],
    };
    let err = Graph::new("g".into(), vec![t("x")], vec![op("a", 0), op("b", 0)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `x` is produced by both op `a` and op `b`"
    );
    let err = Graph::new("g".into(), vec![t("x")], vec![op("a", 3)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "op `a` names tensor #3 but the graph has 1 tensors"
    );
    let err = Graph::new("g".into(), vec![t("x"), t("x")], vec![]).unwrap_err();
    assert_eq!(err.to_string(), "tensor `x` is declared twice");
}

#[test]
fn lifetimes_run_from_producer_to_last_consumer() {
    let g = diamond();
    let order = topological(&g, OrderKind::Kahn).unwrap(); // a c b d e
    let live = analyse(&g, &order, LiveOptions::default()).unwrap();
    let spans: Vec<(u32, u32)> = live
        .buffers
        .iter()
        .map(|b| (b.life.start, b.life.end))
        .collect();
    // x: a(0)..e(4); y: b(2)..d(3); z: c(1)..d(3); w: d(3) only; v: e(4) only
    assert_eq!(spans, [(0, 4), (2, 3), (1, 3), (3, 3), (4, 4)]);
    assert_eq!(live.lower_bound, 10 + 20 + 30 + 40);
    let keep = analyse(&g, &order, LiveOptions { keep_outputs: true }).unwrap();
    let spans: Vec<(u32, u32)> = keep
        .buffers
        .iter()
        .map(|b| (b.life.start, b.life.end))
        .collect();
    assert_eq!(spans, [(0, 4), (2, 3), (1, 3), (3, 4), (4, 4)]);
    assert_eq!(
        memplan::liveness::live_bytes(&keep.buffers, keep.steps),
        [10, 40, 60, 100, 55]
    );
    assert_eq!(
        memplan::liveness::live_bytes(&live.buffers, live.steps),
        [10, 40, 60, 100, 15]
    );
}

#[test]
fn a_tensor_consumed_but_never_produced_is_named() {
    let g = graph(&[("x", 1), ("y", 1)], &[("a", &[0], &[1])]);
    let order = topological(&g, OrderKind::Kahn).unwrap();
    let err = analyse(&g, &order, LiveOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(err, "tensor `x` is consumed at step 0 (op `a`) but never produced; declare it as an input or a constant");
}

#[test]
fn colouring_reuses_pools_and_counts_cliques() {
    let g = diamond();
    let order = topological(&g, OrderKind::Kahn).unwrap();
    let live = analyse(&g, &order, LiveOptions::default()).unwrap();
    let c = colour(&live.buffers);
    // x, z, y are live together at step 2; w reuses z's or y's pool, v reuses one freed at 3
    assert_eq!(c.pools(), 4);
    assert_eq!(max_clique(&live.buffers), 4);
    let (e, truncated) = edges(&live.buffers, usize::MAX);
    assert!(!truncated);
    assert_eq!(e.len(), 7); // x-y x-z x-w x-v y-z y-w z-w
    let (e, truncated) = edges(&live.buffers, 3);
    assert!(truncated && e.len() == 3);
}

#[test]
fn alignment_applies_to_every_strategy() {
    let g = diamond();
    for strategy in Strategy::ALL {
        let opts = memplan::Options {
            pack: PackOptions::new(64).unwrap(),
            ..Default::default()
        };
        let plan = memplan::plan(&g, strategy, &opts).unwrap();
        assert!(
            plan.tensors.iter().all(|t| t.offset % 64 == 0),
            "{}",
            strategy.name()
        );
        assert_eq!(memplan::check::check(&g, &plan), vec![]);
    }
    assert!(PackOptions::new(0).is_err());
    assert!(PackOptions::new(1 << 31).is_err());
}

/// `reorder` on two branches: the memory-aware order's bound (102 B) instead of the
/// stored order's (201 B), and the plan's live-bytes profile is its own order's.
#[test]
fn a_reordered_plan_profiles_its_own_order() {
    let data = std::fs::read(memplan_testkit::root().join("tests/data/two_branches.json")).unwrap();
    let g = memplan_formats::read(&data, None, "two_branches").unwrap();
    let opts = memplan::Options::default();
    let most = |plan: &memplan::Plan| plan.profile().iter().map(|p| p.1).max().unwrap();
    let kahn = memplan::plan(&g, memplan::Strategy::GreedySize, &opts).unwrap();
    assert_eq!((kahn.lower_bound, most(&kahn)), (201, 201));
    let reordered = memplan::plan(&g, memplan::Strategy::Reorder, &opts).unwrap();
    assert_eq!(reordered.order_kind, "memory");
    assert_eq!((reordered.lower_bound, most(&reordered)), (102, 102));
    assert!(memplan::check::check(&g, &reordered).is_empty());
    assert_eq!(reordered.peak_bytes, 102);
}

/// The one plan report: made where the plan is, checked by the independent checker,
/// profiled over the plan's own order, and as JSON a plan file again.
#[test]
fn the_plan_report_checks_profiles_and_reads_back_as_a_plan() {
    let data = std::fs::read(memplan_testkit::root().join("tests/data/two_branches.json")).unwrap();
    let g = memplan_formats::read(&data, None, "two_branches").unwrap();
    let analysis = memplan::analyse(&g, &memplan::Options::default()).unwrap();
    let mut budget = memplan::Budget::work_for_ms(50);
    let report = analysis.report(&g, memplan::Strategy::Reorder, &mut budget);
    assert!(report.valid && report.violations.is_empty());
    assert_eq!(report.profile, report.plan.profile());
    assert_eq!(report.profile.iter().map(|p| p.1).max(), Some(102));
    assert_eq!(report.ratio, report.plan.ratio());
    assert_eq!(report.capacity, None);
    let text = serde_json::to_string(&report).unwrap();
    let as_plan: memplan::Plan = serde_json::from_str(&text).unwrap();
    assert_eq!(as_plan, report.plan);
    let back: memplan::PlanReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back.violations, report.violations);
    // a plan with two live tensors on the same bytes is reported invalid
    let mut broken = report.plan.clone();
    let (a, b) = (0..broken.tensors.len())
        .flat_map(|i| (0..broken.tensors.len()).map(move |j| (i, j)))
        .find(|&(i, j)| {
            let (x, y) = (&broken.tensors[i], &broken.tensors[j]);
            i < j && x.start <= y.end && y.start <= x.end
        })
        .expect("two tensors live together");
    broken.tensors[b].offset = broken.tensors[a].offset;
    let bad = memplan::PlanReport::new(&g, broken, Some(64));
    assert!(!bad.valid && !bad.violations.is_empty());
    assert_eq!(bad.capacity, Some(64));
}
