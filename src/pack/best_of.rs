//! `best-of`: several visit orders (size, duration, area, birth, end, conflicts;
//! those of `greedy-size` and `best-fit` among them) under both fit rules, then a
//! local search on the best visit order: a buffer touching the peak is moved
//! earlier or swapped with another, and the change is kept when the peak (then the
//! sum of tops) does not grow. Deterministic for a seed and a work budget.
//!
//! `greedy-size`'s pass always runs to its end, whatever the budget, so no plan of
//! `best-of` (or of `search` and `auto`, which start here) is above `greedy-size`'s.
//! `auto`'s start also runs greedy-size's backward twin (see [`Orders`]) to its
//! end, side by side (see [`Start`]).

use super::budget::{Budget, Rng};
use super::fit::{greedy_order, place_again, place_charged, Cut, Head, Pass};
use super::Fit;
use super::{peak, PackOptions};
use crate::liveness::{max_live_bytes, Buffer};
use crate::pool;
use std::cmp::Reverse;

/// A packing with the visit order and fit rule that produced it.
pub(super) struct Found {
    pub offsets: Vec<u64>,
    pub peak: u64,
    visit: Vec<u32>,
    fit: Fit,
    tops: u128,
}

/// The passes that run to their end whatever the budget, under the best fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// `greedy-size`'s alone (`best-of`, `search`).
    Greedy,
    /// `greedy-size`'s and its backward twin's, side by side where there is a
    /// core for the second, whose work is charged all the same (`auto`).
    Twins,
}

/// Stops as soon as the peak reaches `target` (the lower bound, or a capacity).
pub(super) fn pack(
    buffers: &[Buffer],
    opts: PackOptions,
    budget: &mut Budget,
    start: Start,
) -> Found {
    pack_sharing(buffers, opts, budget, start, 1.0, u64::MAX)
}

/// [`pack`], the `start` and the first candidates on all of `budget`, the rest
/// on `share` of what remains and at most `units` (a search's start).
pub(super) fn pack_sharing(
    buffers: &[Buffer],
    opts: PackOptions,
    budget: &mut Budget,
    start: Start,
    share: f64,
    units: u64,
) -> Found {
    let target = opts.capacity.unwrap_or(0).max(max_live_bytes(buffers));
    let mut orders = Orders::new(buffers);
    let best = whole_passes(buffers, opts, budget, &mut orders, start, target);
    budget.report("best-of: greedy", best.peak, target);
    let mut rest = candidates();
    let first: Vec<(usize, Fit)> = rest.drain(..FIRST).collect();
    let best = greedy(buffers, opts, target, budget, &mut orders, first, best);
    if best.peak <= target {
        return best;
    }
    budget.share_at_most(share, units, |budget| {
        let mut best = greedy(buffers, opts, target, budget, &mut orders, rest, best);
        if best.peak > target {
            improve(buffers, opts, target, &mut best, budget);
        }
        best
    })
}

/// Buffers up to which `auto`'s twin runs beside greedy-size's pass when a core
/// is spare. Beyond, it runs after it, only when needed: a pass over millions of
/// buffers holds its step trees (gigabytes), and two side by side held twice that
/// (a 1 GB snapshot of 4.2 M blocks: 4.3 GB resident, against 2.6 GB for
/// greedy-size alone).
const BESIDE_AT_MOST: usize = 1 << 20;

/// The passes of `start`, each to its end; the better, `greedy-size`'s on ties
/// and whenever it reaches `target`. The twin runs beside greedy-size's pass where
/// a core is spare (and the buffers are at most [`BESIDE_AT_MOST`]), else after it
/// and only when greedy-size's did not reach `target`: the same plan and the same
/// work charged either way, and a page (no threads) saves a whole pass where
/// greedy-size reaches the bound.
fn whole_passes(
    buffers: &[Buffer],
    opts: PackOptions,
    budget: &mut Budget,
    orders: &mut Orders,
    start: Start,
    target: u64,
) -> Found {
    let whole = |visit, budget: &mut Budget| {
        evaluate(buffers, visit, Fit::Best, opts, budget, Pass::Whole).expect("a whole pass ends")
    };
    let greedy = orders.get(0);
    if start == Start::Greedy {
        return whole(greedy, budget);
    }
    let twin = orders.get(BACKWARD);
    let twin = || {
        let mut own = Budget::work(u64::MAX);
        (whole(twin, &mut own), own.spent())
    };
    let beside = (buffers.len() <= BESIDE_AT_MOST)
        .then(pool::spare_core)
        .flatten();
    let (first, second) = match beside {
        Some(core) => {
            let (first, second) = pool::beside(core, || whole(greedy, budget), twin);
            (first, Some(second))
        }
        None => {
            let first = whole(greedy, budget);
            let second = (first.peak > target).then(twin);
            (first, second)
        }
    };
    // a twin beside a greedy-size pass that reached `target` is neither taken
    // nor charged, as when it never ran
    match second {
        Some((second, work)) if first.peak > target => {
            budget.spend(work);
            if better(&second, &first) {
                second
            } else {
                first
            }
        }
        _ => first,
    }
}

/// The packing of one visit order and fit rule, its work charged to `budget`;
/// None when a `Within` pass ran out of budget.
fn evaluate(
    buffers: &[Buffer],
    visit: Vec<u32>,
    fit: Fit,
    opts: PackOptions,
    budget: &mut Budget,
    pass: Pass,
) -> Option<Found> {
    let offsets = place_charged(buffers, &visit, fit, opts, budget, pass)?;
    Some(found(buffers, offsets, visit, fit))
}

/// The packing `offsets` of `visit` under `fit`, with its peak and tops.
fn found(buffers: &[Buffer], offsets: Vec<u64>, visit: Vec<u32>, fit: Fit) -> Found {
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

/// The `candidates` (see there) while the budget lasts and no plan reaches
/// `target`, after `best`; the best packing.
fn greedy(
    buffers: &[Buffer],
    opts: PackOptions,
    target: u64,
    budget: &mut Budget,
    orders: &mut Orders,
    candidates: Vec<(usize, Fit)>,
    mut best: Found,
) -> Found {
    for (order, fit) in candidates {
        if best.peak <= target || budget.exhausted() {
            break; // the next not even sorted
        }
        let visit = orders.get(order);
        let Some(found) = evaluate(buffers, visit, fit, opts, budget, Pass::Within) else {
            break;
        };
        if better(&found, &best) {
            budget.report("best-of: greedy", found.peak, target);
            best = found;
        }
    }
    best
}

/// The (visit order, fit rule) pairs tried after the passes of the start, in
/// order, orders by number (see [`Orders`]; the backward twin is not among
/// them): first one peak-first order and the two passes of `best-fit` (all under
/// the best fit), so that a short budget still gives the best of those; then the
/// other peak-first order; then every order under the lowest fit, then the other
/// orders under the best fit. On long instances whose bytes crowd one stretch of
/// time, such as S_1 and Y_1, one peak-first pass comes within 0.3% of the bound
/// where every other order is 0.4-2.5% above it: it is the first tried.
fn candidates() -> Vec<(usize, Fit)> {
    let [by_length, by_start] = PEAK_FIRST;
    let mut out = vec![(by_length, Fit::Best)];
    out.extend((1..SIZE_ORDERS).map(|k| (k, Fit::Best)));
    out.push((by_start, Fit::Best));
    out.extend((0..TRIED).map(|k| (k, Fit::Lowest)));
    out.extend(
        (SIZE_ORDERS..TRIED)
            .filter(|k| !PEAK_FIRST.contains(k))
            .map(|k| (k, Fit::Best)),
    );
    out
}

/// The orders of `greedy-size` (0) and `best-fit` (1 and 2).
const SIZE_ORDERS: usize = 3;

/// The first candidates, given the whole budget in a search (see
/// [`pack_sharing`]): the first peak-first pass and the passes of `best-fit`.
const FIRST: usize = SIZE_ORDERS;

/// The orders that place the buffers of the most crowded steps first, each
/// group stacked by its lifetimes: by conflict, then longest first; by
/// conflict, then earliest start first.
const PEAK_FIRST: [usize; 2] = [8, 9];

/// Number of visit orders tried as candidates (see [`candidates`]): all but the
/// backward twin.
const TRIED: usize = 10;

/// `greedy-size`'s order with its ties swept backward in time (see [`Orders`]),
/// made only in `auto`'s start.
const BACKWARD: usize = TRIED;

/// Number of visit orders.
const ORDERS: usize = TRIED + 1;

/// The visit orders, each sorted when a pass first asks for it (a short budget
/// runs few of them): greedy-size's; by size then duration; by duration then
/// size; by area; by conflict; by conflict then size; by birth, latest first;
/// by end, latest first; by conflict then duration then size; by conflict then
/// birth, earliest first, then size; greedy-size's swept backward in time (all
/// decreasing unless said, ties by index). A buffer's conflict is the most bytes
/// live at any step of its life: those alive at the step of the lower bound come
/// first.
///
/// Greedy-size's backward twin: first the buffers alive at every step, from the
/// first step of all to the last (they meet every other buffer, so stacked at
/// the bottom they take nothing a packing of the rest could use), then by size,
/// ties by end, latest first. Where sizes grow with time, as a generated
/// sequence's cache does token by token, the size order visits time backward,
/// but greedy-size's ties (by birth, earliest first) visit each group of equal
/// sizes forward: each cache then meets the larger ones placed after it in time
/// and takes a slot of its own beside them, two slots per chain, about twice the
/// chains' live bytes. Visited backward throughout, each buffer takes the slot
/// its successors left, and the chains pack as tight as their live bytes.
struct Orders<'b> {
    buffers: &'b [Buffer],
    sorted: Vec<Option<Vec<u32>>>,
    conflict: Option<Vec<u128>>,
}

impl<'b> Orders<'b> {
    fn new(buffers: &'b [Buffer]) -> Orders<'b> {
        Orders {
            buffers,
            sorted: vec![None; ORDERS],
            conflict: None,
        }
    }

    /// Order `k` (`k < ORDERS`).
    fn get(&mut self, k: usize) -> Vec<u32> {
        if self.sorted[k].is_none() {
            let order = self.sort(k);
            self.sorted[k] = Some(order);
        }
        self.sorted[k].clone().expect("sorted above")
    }

    fn sort(&mut self, k: usize) -> Vec<u32> {
        let buffers = self.buffers;
        if k == 0 {
            return greedy_order(buffers);
        }
        if matches!(k, 4 | 5 | 8 | 9) && self.conflict.is_none() {
            self.conflict = Some(conflicts(buffers));
        }
        let conflict = self.conflict.as_deref().unwrap_or(&[]);
        let size = |b: &Buffer| u128::from(b.size);
        let len = |b: &Buffer| u128::from(b.life.duration());
        // greedy-size's backward twin: the buffers alive at every step first
        let (first, last) = (
            buffers.iter().map(|b| b.life.start).min(),
            buffers.iter().map(|b| b.life.end).max(),
        );
        let whole =
            |b: &Buffer| u128::from(Some(b.life.start) == first && Some(b.life.end) == last);
        let key = |b: &Buffer, i: usize| -> (u128, u128) {
            match k {
                1 => (size(b), len(b)),
                2 => (len(b), size(b)),
                3 => (size(b) * len(b), size(b)),
                4 => (conflict[i], 0),
                5 => (conflict[i], size(b)),
                6 => (u128::from(u32::MAX - b.life.start), size(b)),
                7 => (u128::from(b.life.end), size(b)),
                8 => (conflict[i], len(b) << 64 | size(b)),
                BACKWARD => (whole(b) << 64 | size(b), u128::from(b.life.end)),
                _ => (
                    conflict[i],
                    u128::from(u32::MAX - b.life.start) << 64 | size(b),
                ),
            }
        };
        let mut v: Vec<u32> = (0..buffers.len() as u32).collect();
        // the key ends with the index, so an unstable sort gives the stable order
        v.sort_unstable_by_key(|&i| (Reverse(key(&buffers[i as usize], i as usize)), i));
        v
    }
}

/// The most bytes live at any step of each buffer's life: a range maximum over
/// the live-bytes profile, O(log p) per buffer for p changes of the profile.
fn conflicts(buffers: &[Buffer]) -> Vec<u128> {
    let profile = crate::liveness::profile(buffers);
    // a bottom-up tree of maxima over the profile's pieces
    let p = profile.len();
    let mut tree = vec![0u64; 2 * p];
    for (k, &(_, bytes)) in profile.iter().enumerate() {
        tree[p + k] = bytes;
    }
    for v in (1..p).rev() {
        tree[v] = tree[2 * v].max(tree[2 * v + 1]);
    }
    buffers
        .iter()
        .map(|b| {
            // the pieces from the one holding its start to the last starting by its end
            let mut lo = profile.partition_point(|&(s, _)| s <= b.life.start) - 1 + p;
            let mut hi = profile.partition_point(|&(s, _)| s <= b.life.end) + p;
            let mut most = 0;
            while lo < hi {
                if lo & 1 == 1 {
                    most = most.max(tree[lo]);
                    lo += 1;
                }
                if hi & 1 == 1 {
                    hi -= 1;
                    most = most.max(tree[hi]);
                }
                lo >>= 1;
                hi >>= 1;
            }
            u128::from(most)
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
    let mut at_peak: Vec<u32> = Vec::new();
    // whether `position` and `at_peak` are those of `best`
    let mut fresh = false;
    while !budget.exhausted() && best.peak > target {
        if !fresh {
            at_peak = (0..n as u32)
                .filter(|&i| best.offsets[i as usize] + buffers[i as usize].size == best.peak)
                .collect();
            for (k, &i) in best.visit.iter().enumerate() {
                position[i as usize] = k;
            }
            fresh = true;
        }
        let moved = at_peak[rng.below(at_peak.len())];
        let from = position[moved as usize];
        let mut visit = best.visit.clone();
        let to = rng.below(n);
        // the visit order is the same as before up to `kept`
        let kept = if rng.below(2) == 0 && from > 0 {
            let to = rng.below(from);
            visit.remove(from);
            visit.insert(to, moved);
            to
        } else {
            visit.swap(from, to);
            from.min(to)
        };
        let (fit, kept) = if rng.below(8) == 0 {
            let other = match best.fit {
                Fit::Best => Fit::Lowest,
                Fit::Lowest => Fit::Best,
            };
            (other, 0)
        } else {
            (best.fit, kept)
        };
        // a plan with a higher peak is never kept: given up as soon as it has one
        let head = Head {
            known: &best.offsets,
            kept,
            ceiling: best.peak,
        };
        let offsets = match place_again(buffers, &visit, fit, opts, budget, head) {
            Ok(offsets) => offsets,
            Err(Cut::Ceiling) => continue,
            Err(Cut::Budget) => break,
        };
        let found = found(buffers, offsets, visit, fit);
        if (found.peak, found.tops) <= (best.peak, best.tops) {
            if found.peak < best.peak {
                budget.report("best-of: moves", found.peak, target);
            }
            *best = found;
            fresh = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{conflicts, Orders, BACKWARD};
    use crate::graph::{Lifetime, TensorId};
    use crate::liveness::Buffer;
    use crate::pack::testing::random_buffers;
    use crate::rng::Rng;

    #[test]
    fn the_backward_twin_puts_whole_lives_first_then_sizes_with_the_latest_end_first() {
        // (start, end, size)
        let spec = [
            (2, 5, 10),
            (0, 9, 1),
            (4, 9, 10),
            (1, 3, 20),
            (0, 1, 10),
            (0, 8, 7),
        ];
        let buffers: Vec<Buffer> = spec
            .iter()
            .enumerate()
            .map(|(k, &(start, end, size))| Buffer {
                tensor: TensorId(k as u32),
                size,
                life: Lifetime::new(start, end),
            })
            .collect();
        // 1 lives from the first step to the last; then 3 is the largest; of the
        // three of 10 bytes, 2 ends last and 4 first; 5 (0 to 8) is not whole
        assert_eq!(Orders::new(&buffers).get(BACKWARD), [1, 3, 2, 0, 4, 5]);
    }

    #[test]
    fn a_conflict_is_the_most_bytes_live_at_a_step_of_the_life() {
        let mut rng = Rng::new(5);
        for round in 0..300 {
            let n = 1 + rng.below(40);
            let buffers = random_buffers(&mut rng, n, 50, 1000, 19);
            // live bytes step by step, summed over the buffers alive there
            let live = |t: u32| -> u128 {
                let alive = buffers
                    .iter()
                    .filter(|b| b.life.start <= t && t <= b.life.end);
                alive.map(|b| u128::from(b.size)).sum()
            };
            let direct: Vec<u128> = buffers
                .iter()
                .map(|b| (b.life.start..=b.life.end).map(live).max().unwrap_or(0))
                .collect();
            assert_eq!(conflicts(&buffers), direct, "round {round}");
        }
    }
}
