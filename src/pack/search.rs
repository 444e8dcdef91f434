//! `search`: the best `best-of` plan as a start, then the exact search of
//! [`canon`](super::canon) for lower capacities. With a capacity it stops as soon
//! as a plan fits (or proves none does); without one it first tries the lower
//! bound, then bisects between the lowest capacity not yet excluded and the best
//! peak found. The plan is proven optimal when its peak is the lower bound or the
//! capacity one byte below it was proven infeasible. An instance too large for
//! the exact search (see [`SIZE_LIMIT`]) gets `best-of` with the whole budget.

use super::budget::Budget;
use super::canon::{decide, Decision};
use super::sections::Sections;
use super::{best_of, PackOptions, Packed};
use crate::liveness::{max_live_bytes, Buffer};

/// Largest number of (buffer, section) and overlap entries the search accepts.
const SIZE_LIMIT: usize = 4_000_000;

/// Share of the budget for the greedy start, and its most work in passes over
/// the buffers.
const START_SHARE: f64 = 0.15;
const START_PASSES: u64 = 100;

pub(super) fn pack(buffers: &[Buffer], opts: PackOptions, budget: &mut Budget) -> Packed {
    let bound = max_live_bytes(buffers);
    let Some(problem) = Sections::new(buffers, SIZE_LIMIT) else {
        // too large for the exact search: all of the budget goes to best-of
        return Packed {
            offsets: best_of::pack(buffers, opts, budget).offsets,
            proven_bound: bound,
        };
    };
    let passes = START_PASSES.saturating_mul(buffers.len() as u64);
    let start = best_of::pack_sharing(buffers, opts, budget, START_SHARE, passes);
    let mut best = Packed {
        offsets: start.offsets,
        proven_bound: bound,
    };
    let mut best_peak = start.peak;
    if best_peak == bound || opts.capacity.is_some_and(|c| best_peak <= c) {
        return best;
    }
    let start_peak = best_peak;
    let mut adopt = |fit: Vec<u64>, best: &mut Packed, budget: &mut Budget| {
        let mut offsets = vec![0u64; buffers.len()];
        for (k, &i) in problem.id.iter().enumerate() {
            offsets[i as usize] = fit[k];
        }
        let peak = super::peak(buffers, &offsets);
        if peak < best_peak {
            best_peak = peak;
            best.offsets = offsets;
            budget.report("search", peak, bound);
        }
        best_peak
    };
    if let Some(capacity) = opts.capacity {
        match decide(&problem, capacity, opts.align, budget) {
            Decision::Fits(fit) => {
                adopt(fit, &mut best, budget);
            }
            Decision::Infeasible => best.proven_bound = capacity + 1,
            Decision::Unknown => {}
        }
        return best;
    }
    // `lo`: every capacity below it is proven infeasible; `hi`: best peak.
    let (mut lo, mut hi, mut lo_proven) = (bound, start_peak, true);
    let mut first = true;
    while lo < hi && !budget.exhausted() {
        let cap = if first { lo } else { lo + (hi - lo) / 2 };
        let share = if first { 0.8 } else { 0.5 };
        first = false;
        match budget.share(share, |b| decide(&problem, cap, opts.align, b)) {
            Decision::Fits(fit) => hi = adopt(fit, &mut best, budget),
            Decision::Infeasible => lo = cap + 1,
            Decision::Unknown => {
                lo = cap + 1;
                lo_proven = false;
            }
        }
    }
    if lo_proven {
        best.proven_bound = lo.min(hi);
    }
    best
}
