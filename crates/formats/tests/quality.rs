//! Plan quality: the exact search against brute force on small instances, the
//! capacity mode, determinism of `best-of`, and the memory-aware order on the
//! corpus (never a higher bound). Every plan goes through the checker.

use memplan::graph::Graph;
use memplan::liveness::Buffer;
use memplan::order::OrderKind;
use memplan::{check, Budget, Options, PackOptions, Plan, Strategy};
use memplan_formats as formats;

/// Buffers with given lifetimes, as a graph without ops.
fn intervals(spec: &[(u32, u32, u64)]) -> Graph {
    memplan_testkit::intervals("intervals", spec.iter().copied())
}

/// Small random interval sets from a seed.
fn random_instance(mut seed: u64) -> Graph {
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let count = 4 + next(4) as usize;
    let spec: Vec<(u32, u32, u64)> = (0..count)
        .map(|_| {
            let start = next(6) as u32;
            (start, start + next(4) as u32, 1 + next(12))
        })
        .collect();
    intervals(&spec)
}

/// The optimum by brute force: the lowest peak of first fit (offsets multiples of
/// `align`) over every order of the buffers (first fit in offset order rebuilds
/// any packing, no higher).
fn brute_force(buffers: &[Buffer], align: u64) -> u64 {
    fn first_fit(buffers: &[Buffer], order: &[usize], align: u64) -> u64 {
        let mut placed: Vec<(usize, u64)> = Vec::new();
        let mut peak = 0;
        for &i in order {
            let b = &buffers[i];
            let mut busy: Vec<(u64, u64)> = placed
                .iter()
                .filter(|&&(j, _)| !buffers[j].life.is_disjoint(&b.life))
                .map(|&(j, at)| (at, at + buffers[j].size))
                .collect();
            busy.sort_unstable();
            let mut at = 0;
            for (from, to) in busy {
                if at + b.size <= from {
                    break;
                }
                at = at.max(to).div_ceil(align) * align;
            }
            placed.push((i, at));
            peak = peak.max(at + b.size);
        }
        peak
    }
    fn permute(buffers: &[Buffer], order: &mut Vec<usize>, k: usize, align: u64, best: &mut u64) {
        if k == order.len() {
            *best = (*best).min(first_fit(buffers, order, align));
            return;
        }
        for i in k..order.len() {
            order.swap(k, i);
            permute(buffers, order, k + 1, align, best);
            order.swap(k, i);
        }
    }
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    let mut best = u64::MAX;
    permute(buffers, &mut order, 0, align, &mut best);
    best
}

fn plan_with(g: &Graph, strategy: Strategy, pack: PackOptions) -> Plan {
    let opts = Options {
        pack,
        ..Options::default()
    };
    let plan = memplan::plan(g, strategy, &opts).unwrap();
    assert_eq!(check::check(g, &plan), vec![], "{}", strategy.name());
    plan
}

fn generous(align: u64) -> PackOptions {
    PackOptions {
        budget_ms: 200,
        ..PackOptions::new(align).unwrap()
    }
}

#[test]
fn search_is_optimal_and_proves_it_on_small_instances() {
    // aligned offsets make the bound unreachable on some, so lower capacities
    // must be refuted by the search itself
    let (mut above_bound, mut greedy_beaten) = (0, 0);
    for seed in 0..300 {
        let g = random_instance(seed);
        let align = if seed % 2 == 0 { 1 } else { 8 };
        let a = memplan::analyse(&g, &Options::default()).unwrap();
        let optimum = brute_force(&a.liveness.buffers, align);
        let plan = plan_with(&g, Strategy::Search, generous(align));
        assert_eq!(plan.peak_bytes, optimum, "seed {seed}");
        assert!(plan.proven_optimal, "seed {seed}: {optimum} not proven");
        above_bound += usize::from(optimum > plan.lower_bound);
        let greedy = plan_with(&g, Strategy::GreedySize, generous(align));
        greedy_beaten += usize::from(greedy.peak_bytes > optimum);
    }
    assert!(
        above_bound > 20,
        "only {above_bound} optima above the bound"
    );
    assert!(
        greedy_beaten > 5,
        "greedy was optimal on all but {greedy_beaten}"
    );
}

#[test]
fn capacity_mode_says_fit_and_no_fit() {
    for seed in 0..100 {
        let g = random_instance(seed);
        let a = memplan::analyse(&g, &Options::default()).unwrap();
        let align = if seed % 2 == 0 { 1 } else { 8 };
        let optimum = brute_force(&a.liveness.buffers, align);
        let at = |capacity| PackOptions {
            capacity: Some(capacity),
            ..generous(align)
        };
        let fits = plan_with(&g, Strategy::Search, at(optimum));
        assert!(
            fits.peak_bytes <= optimum,
            "seed {seed}: should fit {optimum}"
        );
        let tight = plan_with(&g, Strategy::Search, at(optimum - 1));
        assert!(tight.peak_bytes > optimum - 1, "seed {seed}");
        assert!(
            tight.proven_bound >= optimum,
            "seed {seed}: no fit below {optimum} not proven ({})",
            tight.proven_bound
        );
    }
}

#[test]
fn best_of_is_deterministic_for_a_seed() {
    let g = random_dense_instance();
    let pack = PackOptions {
        seed: 7,
        budget_ms: 20,
        ..PackOptions::default()
    };
    let first = plan_with(&g, Strategy::BestOf, pack);
    let again = plan_with(&g, Strategy::BestOf, pack);
    assert_eq!(first.tensors, again.tensors);
    let greedy = plan_with(&g, Strategy::GreedySize, pack);
    assert!(first.peak_bytes <= greedy.peak_bytes);
}

/// Sixty overlapping buffers where greedy leaves room for moves.
fn random_dense_instance() -> Graph {
    let mut seed = 11u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let spec: Vec<(u32, u32, u64)> = (0..60)
        .map(|_| {
            let start = next(40) as u32;
            (start, start + next(12) as u32, 1 + next(1000))
        })
        .collect();
    intervals(&spec)
}

#[test]
fn a_clock_budget_and_progress_reports() {
    let g = random_dense_instance();
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    let start = std::time::Instant::now();
    let clock = move || start.elapsed().as_secs_f64() * 1e3;
    let mut reports = 0;
    let mut count = |_: &memplan::pack::Progress| reports += 1;
    let mut budget = Budget::timed(&clock, 100.0).with_progress(&mut count);
    let plan = a.plan_within(&g, Strategy::Search, &mut budget);
    assert_eq!(check::check(&g, &plan), vec![]);
    assert!(start.elapsed().as_millis() < 2000);
    assert!(reports > 0);
}

#[test]
fn minimalloc_c_fits_one_mib() {
    let Some(dir) = memplan_testkit::corpus_dir("minimalloc") else {
        return;
    };
    let g = formats::read(
        &std::fs::read(dir.join("C.1048576.csv")).unwrap(),
        None,
        "C",
    )
    .unwrap();
    let pack = PackOptions {
        capacity: Some(1 << 20),
        budget_ms: 4000,
        ..PackOptions::default()
    };
    let plan = plan_with(&g, Strategy::Search, pack);
    assert!(plan.peak_bytes <= 1 << 20, "peak {}", plan.peak_bytes);
}

#[test]
fn every_corpus_graph_reaches_its_bound() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    for file in memplan_testkit::files(&dir, "json") {
        let g = formats::read(&std::fs::read(&file).unwrap(), None, "g").unwrap();
        let plan = plan_with(&g, Strategy::Search, PackOptions::default());
        assert_eq!(plan.peak_bytes, plan.lower_bound, "{}", file.display());
        assert!(plan.proven_optimal);
    }
}

#[test]
fn the_memory_order_never_raises_the_bound_of_a_corpus_graph() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    let mut lower = 0;
    for file in memplan_testkit::files(&dir, "json") {
        let g = formats::read(&std::fs::read(&file).unwrap(), None, "g").unwrap();
        let at = |order| {
            let opts = Options {
                order,
                ..Options::default()
            };
            memplan::analyse(&g, &opts).unwrap()
        };
        let (kahn, memory) = (at(OrderKind::Kahn), at(OrderKind::Memory));
        let (was, now) = (kahn.liveness.lower_bound, memory.liveness.lower_bound);
        assert!(now <= was, "{}: {now} > {was}", file.display());
        lower += usize::from(now < was);
        let plan = kahn.plan(&g, Strategy::Reorder);
        assert_eq!(check::check(&g, &plan), vec![], "{}", file.display());
        assert!(plan.peak_bytes <= was, "{}", file.display());
    }
    assert!(lower >= 2, "the memory order lowered only {lower} bounds");
}

#[test]
fn minimising_reaches_what_the_capacity_search_fits_where_the_bound_is_out_of_reach() {
    // MiniMalloc's D and J: their lower bounds (986,112 and 989,184 bytes) are
    // below any packing found, and `--capacity 1MiB` (6.3% and 6.0% above them)
    // fits both. Without a capacity, a decision at the bound with most of the
    // budget and then a bisection stopped at 1,084,416 and 1,058,816 with this
    // budget (1.100x and 1.070x). The probes taking turns with the decision at
    // the bound depend on luck (the seed of the start): over three seeds, J must
    // fit 1 MiB with each, D with two, and every run end within 7% of the bound.
    let Some(files) = memplan_testkit::corpus_files("minimalloc", "csv", 11) else {
        return;
    };
    for (name, fits_needed) in [("D.", 2), ("J.", 3)] {
        let file = files
            .iter()
            .find(|f| f.file_name().unwrap().to_string_lossy().starts_with(name))
            .unwrap_or_else(|| panic!("{name} is missing from the corpus"));
        let g = memplan_testkit::read_graph(file);
        let at = file.display();
        let mut fits = 0;
        for seed in 1..=3 {
            let pack = PackOptions {
                budget_ms: 15_000,
                seed,
                ..PackOptions::default()
            };
            let plan = plan_with(&g, Strategy::Search, pack);
            let (peak, bound) = (plan.peak_bytes, plan.lower_bound);
            assert!(peak * 100 <= bound * 107, "{at}, seed {seed}: peak {peak}");
            assert!(bound < peak && !plan.proven_optimal);
            fits += usize::from(peak <= 1 << 20);
        }
        assert!(
            fits >= fits_needed,
            "{at}: 1 MiB fitted with {fits} of 3 seeds"
        );
    }
}
