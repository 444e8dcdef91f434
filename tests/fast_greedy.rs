//! The single-order placement (behind `first-fit`, `greedy-size`, `best-fit` and
//! the passes of `best-of` and `search`) finds each buffer's place from the union
//! of the ranges it must avoid; the plain scan over every overlapping buffer it
//! replaced is kept as the reference. Both must give the same offsets, byte for
//! byte: on random instances (any visit order, both fit rules, odd alignments,
//! empty and equal sizes); `crates/formats/tests/corpus.rs` holds them together on
//! every MiniMalloc and large corpus file. Every
//! plan is checked too: by the checker, or for raw offsets by a pairwise test.
//!
//! The colouring into pools (behind `pools` and every analysis) takes its free
//! pool from an ordered set; it must pick the pools the plain scan over every
//! free pool picked, written out again here as the reference.
//!
//! The reference colouring and the comparison of the three greedy strategies with
//! the scan are `memplan_testkit::scan`'s, shared with the corpus test.

use memplan::graph::{Graph, Lifetime, TensorId};
use memplan::liveness::Buffer;
use memplan::pack::reference::{self, Fit};
use memplan::PackOptions;
use memplan_testkit::scan::{assert_colouring_matches, assert_strategies_match};
use proptest::prelude::*;

/// Sizes with zeros, repeats (ties in the visit orders and between gaps) and a
/// wide range.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => Just(0u64),
        4 => 1u64..4,
        3 => 1u64..8,
        4 => prop::sample::select(vec![16u64, 100, 256, 4096]),
        3 => 1u64..100_000,
        1 => (1u64 << 30)..(1u64 << 36),
    ]
}

/// A lifetime: mostly short, some spanning most of the steps, starts bunched so
/// that many are equal.
fn life(steps: u32) -> impl Strategy<Value = Lifetime> {
    let len = prop_oneof![
        4 => 0u32..3,
        3 => 0u32..20,
        2 => 0u32..=steps,
    ];
    (0..steps, len).prop_map(move |(start, len)| Lifetime::new(start, start + len))
}

/// Up to `max` buffers over 4, 30 or 300 steps; half the time none is empty
/// (empty buffers change how the placement merges ranges under an alignment).
fn buffers(max: usize) -> impl Strategy<Value = Vec<Buffer>> {
    let steps = prop_oneof![Just(4u32), Just(30), Just(300)];
    (steps, any::<bool>()).prop_flat_map(move |(steps, empties)| {
        prop::collection::vec((life(steps), size()), 0..max).prop_map(move |v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (life, size))| Buffer {
                    tensor: TensorId(i as u32),
                    size: if empties { size } else { size.max(1) },
                    life,
                })
                .collect()
        })
    })
}

fn align() -> impl Strategy<Value = u64> {
    prop::sample::select(vec![1u64, 1, 3, 64, 4096])
}

fn fit() -> impl Strategy<Value = Fit> {
    prop_oneof![Just(Fit::Lowest), Just(Fit::Best)]
}

/// A permutation of `0..n` from `seed` (Fisher-Yates on a linear congruence).
fn shuffled(n: usize, mut seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, (seed >> 33) as usize % (i + 1));
    }
    v
}

/// Independently of the planner: offsets aligned, and no two buffers with bytes
/// that share a step share a byte.
fn assert_valid(buffers: &[Buffer], offsets: &[u64], align: u64) -> Result<(), TestCaseError> {
    prop_assert_eq!(offsets.len(), buffers.len());
    for (i, a) in buffers.iter().enumerate() {
        prop_assert!(offsets[i].is_multiple_of(align), "buffer {} misaligned", i);
        for (j, b) in buffers.iter().enumerate().skip(i + 1) {
            if a.size == 0 || b.size == 0 || a.life.is_disjoint(&b.life) {
                continue;
            }
            let (x, y) = (offsets[i], offsets[j]);
            prop_assert!(
                x + a.size <= y || y + b.size <= x,
                "buffers {} and {} overlap: [{}, {}) and [{}, {})",
                i,
                j,
                x,
                x + a.size,
                y,
                y + b.size
            );
        }
    }
    Ok(())
}

/// A graph whose tensors are `buffers` (given lifetimes, no ops), for the checker.
fn graph_of(buffers: &[Buffer]) -> Graph {
    let spec = buffers.iter().map(|b| (b.life.start, b.life.end, b.size));
    memplan_testkit::intervals("random", spec)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_visit_order_places_as_the_scan(
        bufs in buffers(60),
        seed in any::<u64>(),
        fit in fit(),
        align in align(),
    ) {
        let visit = shuffled(bufs.len(), seed);
        let opts = PackOptions::new(align).unwrap();
        let fast = reference::place_in_order(&bufs, &visit, fit, opts);
        let scan = reference::place_in_order_scan(&bufs, &visit, fit, opts);
        prop_assert_eq!(&fast, &scan);
        assert_valid(&bufs, &fast, align)?;
    }

    #[test]
    fn greedy_strategies_place_as_the_scan(bufs in buffers(60), align in align()) {
        let g = graph_of(&bufs);
        assert_strategies_match(&g, align, "random");
    }
}

proptest! {
    // deeper trees and longer range lists
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn large_random_instances_place_as_the_scan(
        bufs in buffers(2500),
        seed in any::<u64>(),
        fit in fit(),
        align in align(),
    ) {
        assert_colouring_matches(&bufs, "random");
        let opts = PackOptions::new(align).unwrap();
        for visit in [shuffled(bufs.len(), seed), (0..bufs.len() as u32).collect()] {
            let fast = reference::place_in_order(&bufs, &visit, fit, opts);
            let scan = reference::place_in_order_scan(&bufs, &visit, fit, opts);
            prop_assert_eq!(&fast, &scan);
            assert_valid(&bufs, &fast, align)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// A placement split at a step (the halves apart, each crossing buffer joining
    /// them) gives the one placement's offsets, at any step.
    #[test]
    fn a_placement_split_at_any_step_places_as_the_scan(
        bufs in buffers(80),
        seed in any::<u64>(),
        fit in fit(),
        align in align(),
        at in any::<u32>(),
    ) {
        let visit = shuffled(bufs.len(), seed);
        let opts = PackOptions::new(align).unwrap();
        let last = bufs.iter().map(|b| b.life.end).max().unwrap_or(0);
        let mid = 1 + at % (last + 2);
        let split = reference::place_split_at(&bufs, &visit, fit, opts, mid);
        let scan = reference::place_in_order_scan(&bufs, &visit, fit, opts);
        prop_assert_eq!(&split, &scan);
        assert_valid(&bufs, &split, align)?;
    }
}

/// `n` buffers over a quarter as many steps, most living a few steps and one in
/// five hundred long, sizes on a log scale (like the page's million-tensor test
/// instance): a kind of instance whose placements are split.
fn short_lives(n: usize, seed: u64) -> Vec<Buffer> {
    let mut state = seed;
    let mut next = move |below: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % below
    };
    let steps = (n / 4) as u64;
    (0..n)
        .map(|i| {
            let start = next(steps);
            let len = if next(500) == 0 {
                1 + next(steps / 20)
            } else {
                1 + next(12)
            };
            let size = 64u64 << next(14);
            Buffer {
                tensor: TensorId(i as u32),
                size: size + next(size),
                life: Lifetime::new(start as u32, (start + len).min(steps) as u32),
            }
        })
        .collect()
}

/// Large enough to be split: the three greedy strategies, placed split, equal the
/// scan and pass the checker.
#[test]
fn split_placements_place_as_the_scan() {
    let bufs = short_lives(40_000, 7);
    let greedy = reference::greedy_order(&bufs);
    assert!(
        reference::split_step(&bufs, &greedy).is_some(),
        "greedy-size's pass is meant to be split"
    );
    let g = graph_of(&bufs);
    for align in [1, 64] {
        assert_strategies_match(&g, align, "short lives");
    }
}

/// Every buffer alive at every step: one gap never opens, all stack up.
#[test]
fn a_clique_stacks_in_visit_order() {
    let bufs: Vec<Buffer> = (0..50u32)
        .map(|i| Buffer {
            tensor: TensorId(i),
            size: u64::from(i % 7) * 10,
            life: Lifetime::new(0, 9),
        })
        .collect();
    for align in [1, 3, 64, 4096] {
        for fit in [Fit::Lowest, Fit::Best] {
            let visit = shuffled(bufs.len(), align);
            let opts = PackOptions::new(align).unwrap();
            let fast = reference::place_in_order(&bufs, &visit, fit, opts);
            let scan = reference::place_in_order_scan(&bufs, &visit, fit, opts);
            assert_eq!(fast, scan);
            assert_valid(&bufs, &fast, align).unwrap();
        }
    }
}
