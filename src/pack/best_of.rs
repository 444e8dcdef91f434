//! `best-of`: several visit orders (size, duration, area, birth, end, conflicts;
//! those of `greedy-size` and `best-fit` among them) under both fit rules, then a local search on the best visit order: a buffer
//! touching the peak is moved earlier or swapped with another, and the change is
//! kept when the peak (then the sum of tops) does not grow. Deterministic for a
//! seed and a work budget.

use super::budget::{Budget, Rng};
use super::fit::place_in_order;
use super::Fit;
use super::{peak, PackOptions};
use crate::liveness::{max_live_bytes, Buffer};
use std::cmp::Reverse;

/// A packing with the visit order and fit rule that produced it.
pub(super) struct Found {
    pub offsets: Vec<u64>,
    pub peak: u64,
    visit: Vec<u32>,
    fit: Fit,
    tops: u128,
}

/// Stops as soon as the peak reaches `target` (the lower bound, or a capacity).
pub(super) fn pack(buffers: &[Buffer], opts: PackOptions, budget: &mut Budget) -> Found {
    let target = opts.capacity.unwrap_or(0).max(max_live_bytes(buffers));
    let mut best = greedy(buffers, opts, target, budget);
    if best.peak > target {
        improve(buffers, opts, target, &mut best, budget);
    }
    best
}

fn evaluate(buffers: &[Buffer], visit: Vec<u32>, fit: Fit, opts: PackOptions) -> Found {
    let offsets = place_in_order(buffers, &visit, fit, opts);
    let tops = buffers
        .iter()
        .zip(&offsets)
        .map(|(b, &o)| u128::from(o + b.size))
        .sum();
    Found {
        peak: peak(buffers, &offsets),
        offsets,
        visit,
        fit,
        tops,
    }
}

fn better(a: &Found, b: &Found) -> bool {
    (a.peak, a.tops) < (b.peak, b.tops)
}

/// Every visit order under both fit rules; the best packing.
fn greedy(buffers: &[Buffer], opts: PackOptions, target: u64, budget: &mut Budget) -> Found {
    let n = buffers.len() as u64;
    let mut best: Option<Found> = None;
    for visit in visit_orders(buffers) {
        for fit in [Fit::Best, Fit::Lowest] {
            let found = evaluate(buffers, visit.clone(), fit, opts);
            budget.spend(n);
            if best.as_ref().is_none_or(|b| better(&found, b)) {
                budget.report("best-of: greedy", found.peak, target);
                best = Some(found);
            }
            // every order runs, whatever the budget: never worse than greedy-size
            // or best-fit, whose orders are among them
            if best.as_ref().is_some_and(|b| b.peak <= target) {
                return best.expect("one order at least");
            }
        }
    }
    best.expect("one order at least")
}

fn visit_orders(buffers: &[Buffer]) -> Vec<Vec<u32>> {
    let conflict = conflicts(buffers);
    let by = |key: &dyn Fn(&Buffer, usize) -> (u128, u128)| {
        let mut v: Vec<u32> = (0..buffers.len() as u32).collect();
        v.sort_by_key(|&i| (Reverse(key(&buffers[i as usize], i as usize)), i));
        v
    };
    let size = |b: &Buffer| u128::from(b.size);
    let len = |b: &Buffer| u128::from(b.life.duration());
    let mut greedy_size: Vec<u32> = (0..buffers.len() as u32).collect();
    greedy_size.sort_by_key(|&i| {
        (
            Reverse(buffers[i as usize].size),
            buffers[i as usize].life.start,
            i,
        )
    });
    vec![
        greedy_size,
        by(&|b, _| (size(b), len(b))),
        by(&|b, _| (len(b), size(b))),
        by(&|b, _| (size(b) * len(b), size(b))),
        by(&|_, i| (conflict[i], 0)),
        by(&|b, i| (conflict[i], size(b))),
        by(&|b, _| (u128::from(u32::MAX - b.life.start), size(b))),
        by(&|b, _| (u128::from(b.life.end), size(b))),
    ]
}

/// The most bytes live at any step of each buffer's life.
fn conflicts(buffers: &[Buffer]) -> Vec<u128> {
    let profile = crate::liveness::profile(buffers);
    buffers
        .iter()
        .map(|b| {
            let k = profile.partition_point(|&(s, _)| s <= b.life.start) - 1;
            profile[k..]
                .iter()
                .take_while(|&&(s, _)| s <= b.life.end)
                .map(|&(_, bytes)| u128::from(bytes))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Moves buffers at the peak earlier in the visit order, or swaps them.
fn improve(
    buffers: &[Buffer],
    opts: PackOptions,
    target: u64,
    best: &mut Found,
    budget: &mut Budget,
) {
    let n = buffers.len();
    if n < 2 {
        return;
    }
    let mut rng = Rng::new(opts.seed);
    let mut position = vec![0usize; n];
    while !budget.exhausted() && best.peak > target {
        let at_peak: Vec<u32> = (0..n as u32)
            .filter(|&i| best.offsets[i as usize] + buffers[i as usize].size == best.peak)
            .collect();
        for (k, &i) in best.visit.iter().enumerate() {
            position[i as usize] = k;
        }
        let moved = at_peak[rng.below(at_peak.len())];
        let from = position[moved as usize];
        let mut visit = best.visit.clone();
        let to = rng.below(n);
        if rng.below(2) == 0 && from > 0 {
            let to = rng.below(from);
            visit.remove(from);
            visit.insert(to, moved);
        } else {
            visit.swap(from, to);
        }
        let fit = if rng.below(8) == 0 {
            match best.fit {
                Fit::Best => Fit::Lowest,
                Fit::Lowest => Fit::Best,
            }
        } else {
            best.fit
        };
        let found = evaluate(buffers, visit, fit, opts);
        budget.spend(n as u64);
        if (found.peak, found.tops) <= (best.peak, best.tops) {
            if found.peak < best.peak {
                budget.report("best-of: moves", found.peak, target);
            }
            *best = found;
        }
    }
}
