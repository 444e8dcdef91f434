//! Sizes that grow with time, as a generated sequence's cache does token by token:
//! each layer makes a slightly larger cache at every token and frees the previous
//! one a step later. `greedy-size`'s order visits the sizes backward in time but
//! each group of equal sizes (one token's caches) forward, so every cache takes a
//! slot of its own beside its successor's: two slots per layer, far above the
//! lower bound (`best-fit`'s ties, by index, do the same). Greedy-size's backward
//! twin packs the caches at the bound, and `auto` makes its pass whatever the
//! budget. Every plan is checked.

use memplan::{check, Analysis, Budget, Graph, Options, Plan, Strategy};

/// `layers` caches per token for `tokens` tokens, the first of `first` bytes,
/// each token's `growth` bytes larger; a scratch buffer per layer and token; and
/// weights alive from the first step to the last.
fn generation(layers: u32, tokens: u32, first: u64, growth: u64) -> Graph {
    // the step at which layer `y` of token `t` makes its cache
    let at = move |t: u32, y: u32| 4 * (t * layers + y);
    let caches = (0..tokens).flat_map(move |t| {
        (0..layers).flat_map(move |y| {
            let start = at(t, y);
            // alive until a step after the same layer's next cache is made
            let end = if t + 1 < tokens {
                at(t + 1, y) + 1
            } else {
                start + 1
            };
            let size = first + u64::from(t) * growth;
            [(start, end, size), (start, start + 2, first / 4)]
        })
    });
    let weights = (0, at(tokens, 0), 8 * first);
    memplan_testkit::intervals("generation", caches.chain([weights]))
}

/// The checked plan of `strategy` on `units` work units, and the units spent.
fn plan(g: &Graph, a: &Analysis, strategy: Strategy, units: u64) -> (Plan, u64) {
    let mut budget = Budget::work(units);
    let plan = a.plan_within(g, strategy, &mut budget);
    assert_eq!(check::check(g, &plan), vec![], "{}", strategy.name());
    (plan, budget.spent())
}

fn ratio(plan: &Plan) -> f64 {
    plan.peak_bytes as f64 / plan.lower_bound as f64
}

#[test]
fn growing_caches_pack_at_the_bound_backward() {
    let g = generation(8, 60, 4096, 16);
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    for strategy in [Strategy::GreedySize, Strategy::BestFit] {
        let (plan, _) = plan(&g, &a, strategy, 0);
        assert!(
            ratio(&plan) > 1.2,
            "{} at {:.4}x the bound: the instance no longer shows the slots of its own",
            strategy.name(),
            ratio(&plan)
        );
    }
    // no budget at all: only the passes `auto` makes whatever the budget
    let (plan, spent) = plan(&g, &a, Strategy::Auto, 0);
    assert!(
        ratio(&plan) <= 1.005,
        "auto on no budget at {:.4}x the bound",
        ratio(&plan)
    );
    assert!(spent > 0, "the passes are charged");
}
