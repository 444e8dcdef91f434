//! A whole placement split in two at a step, the halves placed side by side.
//!
//! At a step `mid`, a buffer ends before it (left), starts at or after it (right)
//! or lives across it (crossing). A left buffer never meets a right one in time,
//! so where each goes depends only on the left and crossing buffers placed before
//! it (or the right and crossing ones). Between two crossing buffers of the visit
//! order, the left buffers and the right ones are placed independently, each side
//! in its own `Busy` over its own steps (on two threads where a core is free, see
//! `pool::both`; one after the other otherwise, with the same work counted); a
//! crossing buffer then waits for both, takes its place from the union of
//! both sides' ranges, and is recorded on both, cut at the step. The offsets are
//! those of the one placement in the visit order: each buffer meets the same
//! placed buffers (tests/fast_greedy.rs holds them to the plain scan's, split at
//! every step of random instances).
//!
//! Where few buffers cross a step near the middle (the million-buffer instance of
//! the page's tests: 90 of 1,000,000), the halves are nearly the whole work.

use super::budget::Budget;
use super::placing::{choose, settle, Pass, Placing, STEPS_PER_UNIT};
use super::{Fit, PackOptions};
use crate::graph::Lifetime;
use crate::liveness::Buffer;
use crate::pool;

/// A placement is split only from this many buffers: below, two threads cost more
/// than they save.
const MIN_BUFFERS: usize = 1 << 14;

/// ... and only when at most one buffer in this many crosses the step: each
/// crossing buffer joins the two sides.
const CROSSING_SHARE: usize = 1024;

/// What a crossing buffer costs, in buffers placed on a side: the two sides
/// wait for it, and its query gathers the ranges of both.
const JOIN: usize = 64;

/// The step to split a whole placement of `buffers` in `visit` order at, if any:
/// among those with between 3/8 and 5/8 of the buffers starting before them and
/// few living across them, the first with the least work on its larger side;
/// none when the halves would save less than a quarter of the time, as when
/// `visit` goes by time (`first-fit`: one side's buffers all come first).
pub fn step(buffers: &[Buffer], visit: &[u32]) -> Option<u32> {
    let n = buffers.len();
    if n < MIN_BUFFERS {
        return None;
    }
    let mut starts: Vec<u32> = buffers.iter().map(|b| b.life.start).collect();
    let mut ends: Vec<u32> = buffers.iter().map(|b| b.life.end).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    // `k` buffers start before starts[k] (its first occurrence), `left` end before it
    let mut left = 0usize;
    let mut best: Option<(usize, u32)> = None;
    for k in 3 * n / 8..5 * n / 8 {
        if k == 0 || starts[k - 1] == starts[k] {
            continue;
        }
        let mid = starts[k];
        while left < n && ends[left] < mid {
            left += 1;
        }
        let crossing = k - left;
        if crossing > n / CROSSING_SHARE {
            continue;
        }
        // the larger side, a crossing buffer counted as JOIN buffers placed
        let cost = left.max(n - k) + JOIN * crossing;
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, mid));
        }
    }
    let (_, mid) = best?;
    // only where `visit` takes turns between the sides: between two crossing
    // buffers, the threads take as long as the longer side's run
    let (mut run, mut left, mut right) = (0usize, 0usize, 0usize);
    for &i in visit {
        let b = &buffers[i as usize];
        if b.life.end < mid {
            left += 1;
        } else if b.life.start >= mid {
            right += 1;
        } else {
            run += left.max(right) + JOIN;
            (left, right) = (0, 0);
        }
    }
    run += left.max(right);
    (run <= n * 3 / 4).then_some(mid)
}

/// One side's buffers in visit order (its own visit order is 0, 1, ...), then
/// those crossing cut at the step; the index in the whole list of each but those.
#[derive(Default)]
struct Side {
    buffers: Vec<Buffer>,
    whole: Vec<u32>,
}

/// In `joins`, the end of both sides' visit orders, where no buffer crosses.
const NONE: u32 = u32::MAX;

/// The whole placement of `buffers` in `visit` order, split at `mid` (see the
/// module), its work charged to `budget`.
pub(super) fn place(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
    mid: u32,
    mut budget: Option<&mut Budget>,
) -> Vec<u64> {
    let n = buffers.len();
    let cut = |b: &Buffer| {
        let before = Lifetime::new(b.life.start, mid - 1);
        let after = Lifetime::new(mid, b.life.end);
        (Buffer { life: before, ..*b }, Buffer { life: after, ..*b })
    };
    // each side's buffers in visit order (so its own visit order is 0, 1, ...),
    // then the crossing ones cut at the step (for the steps of its tree)
    let (mut left, mut right) = (Side::default(), Side::default());
    // the crossing buffers in visit order, each with the number of buffers of
    // both sides before it
    let mut joins: Vec<(usize, usize, u32)> = Vec::new();
    for &i in visit {
        let b = &buffers[i as usize];
        let side = if b.life.end < mid {
            &mut left
        } else if b.life.start >= mid {
            &mut right
        } else {
            joins.push((left.whole.len(), right.whole.len(), i));
            continue;
        };
        side.buffers.push(*b);
        side.whole.push(i);
    }
    joins.push((left.whole.len(), right.whole.len(), NONE));
    for &(_, _, i) in &joins[..joins.len() - 1] {
        let (before, after) = cut(&buffers[i as usize]);
        left.buffers.push(before);
        right.buffers.push(after);
    }

    // both sides' visit orders: the first buffers of this one
    let order: Vec<u32> = (0..left.whole.len().max(right.whole.len()) as u32).collect();
    let [mut l, mut r] = [&left, &right].map(|side| {
        let visit = &order[..side.whole.len()];
        Placing::new(&side.buffers, visit, fit, opts, Pass::Whole, u64::MAX)
    });
    let mut offsets = vec![0u64; n];
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    let mut charged = 0u64;
    // where each side's visit order has got to
    let (mut at_l, mut at_r) = (0, 0);
    for (to_l, to_r, i) in joins {
        let run =
            |p: &mut Placing, range| p.run_all(range, None, &mut 0).expect("a whole pass ends");
        pool::both(|| run(&mut l, at_l..to_l), || run(&mut r, at_r..to_r));
        (at_l, at_r) = (to_l, to_r);
        if i != NONE {
            let b = &buffers[i as usize];
            let (before, after) = cut(b);
            ranges.clear();
            l.placed.ranges(&before, &mut ranges);
            r.placed.ranges(&after, &mut ranges);
            let at = choose(&mut ranges, b.size, fit, opts.align);
            offsets[i as usize] = at;
            if b.size > 0 {
                l.placed.insert(&before, at);
                r.placed.insert(&after, at);
            }
        }
        if let Some(budget) = budget.as_deref_mut() {
            let steps = l.placed.steps() + r.placed.steps();
            budget.charge(steps, STEPS_PER_UNIT, &mut charged);
        }
    }
    if let Some(budget) = budget {
        settle(budget, l.placed.steps() + r.placed.steps(), charged);
    }
    for (side, p) in [(&left, &l), (&right, &r)] {
        for (&i, &at) in side.whole.iter().zip(&p.offsets) {
            offsets[i as usize] = at;
        }
    }
    offsets
}

/// [`place`] split at `mid` whatever the size and the number crossing (`mid`
/// above 0), for the tests that hold it to the plain scan.
#[doc(hidden)]
pub fn place_split_at(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
    mid: u32,
) -> Vec<u64> {
    assert!(mid > 0, "a split step above 0");
    place(buffers, visit, fit, opts, mid, None)
}
