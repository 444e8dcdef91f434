//! Placement among time-overlapping neighbours, and the two single-order strategies
//! built on it:
//! - `first-fit`: buffers in birth order, each at the lowest free address;
//! - `greedy-size`: largest first (ties: earlier birth), each in the smallest gap
//!   that fits between the buffers it overlaps in time, else on top of them.
//!
//! A whole pass over many buffers of which few live across some step near the
//! middle is placed in two halves side by side (`split`), with the same offsets.

use super::budget::Budget;
use super::overlap::Overlaps;
use super::placing::{choose, settle, Placing};
pub(super) use super::placing::{Cut, Pass};
use super::split;
use super::{Fit, PackOptions};
use crate::interference::birth_order;
use crate::liveness::Buffer;

/// A placement of `buffers` in a visit order under a fit rule, offsets by buffer.
pub type Place = fn(&[Buffer], &[u32], Fit, PackOptions) -> Vec<u64>;

/// Places `buffers` one at a time in `visit` order; returns offsets by buffer index.
/// Each goes where `choose` puts it among the placed buffers overlapping it in
/// time, found as the union of their ranges (`busy::Busy`).
pub fn place_in_order(buffers: &[Buffer], visit: &[u32], fit: Fit, opts: PackOptions) -> Vec<u64> {
    place(buffers, visit, fit, opts, None, Pass::Whole, Head::NONE).expect("a whole pass ends")
}

/// [`place_in_order`] charging its work to `budget` as it goes; None when the
/// pass was `Within` and the budget ran out before the last buffer.
pub(super) fn place_charged(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
    budget: &mut Budget,
    pass: Pass,
) -> Option<Vec<u64>> {
    if pass == Pass::Within && budget.exhausted() {
        return None;
    }
    place(buffers, visit, fit, opts, Some(budget), pass, Head::NONE).ok()
}

/// Where a placement begins: the first `kept` buffers of the visit order keep
/// their offsets in `known`, and no buffer placed may end above `ceiling`.
#[derive(Clone, Copy)]
pub(super) struct Head<'k> {
    pub known: &'k [u64],
    pub kept: usize,
    pub ceiling: u64,
}

impl Head<'_> {
    /// Every buffer placed, with no ceiling.
    const NONE: Head<'static> = Head {
        known: &[],
        kept: 0,
        ceiling: u64::MAX,
    };
}

/// [`place_charged`] (a `Within` pass) of a visit order whose first `head.kept`
/// buffers are those of an earlier placement `head.known` of the same fit rule, in
/// the same order: they keep their offsets, recorded without a search, and the
/// rest are placed. Gives up with [`Cut::Ceiling`] as soon as a buffer it places
/// would end above `head.ceiling`. The offsets are those of a whole pass when it
/// ends.
pub(super) fn place_again(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
    budget: &mut Budget,
    head: Head,
) -> Result<Vec<u64>, Cut> {
    if budget.exhausted() {
        return Err(Cut::Budget);
    }
    place(buffers, visit, fit, opts, Some(budget), Pass::Within, head)
}

fn place(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
    budget: Option<&mut Budget>,
    pass: Pass,
    Head {
        known,
        kept,
        ceiling,
    }: Head,
) -> Result<Vec<u64>, Cut> {
    if kept == 0 && ceiling == u64::MAX && pass == Pass::Whole {
        if let Some(mid) = split::step(buffers, visit) {
            return Ok(split::place(buffers, visit, fit, opts, mid, budget));
        }
    }
    let mut budget = budget;
    let mut placing = Placing::new(buffers, visit, fit, opts, pass, ceiling);
    for &i in &visit[..kept] {
        let (b, at) = (&buffers[i as usize], known[i as usize]);
        placing.offsets[i as usize] = at;
        if b.size > 0 {
            placing.placed.insert(b, at);
        }
    }
    let mut charged = 0;
    placing.run_all(kept..visit.len(), budget.as_deref_mut(), &mut charged)?;
    if let Some(budget) = budget {
        settle(budget, placing.placed.steps(), charged);
    }
    Ok(placing.offsets)
}

/// [`place_in_order`] by listing every placed buffer overlapping each one and
/// scanning their ranges: the reference the tests hold it to (O(k log k) for k
/// overlapping buffers, where `busy::Busy` costs about the gaps of their union).
pub fn place_in_order_scan(
    buffers: &[Buffer],
    visit: &[u32],
    fit: Fit,
    opts: PackOptions,
) -> Vec<u64> {
    let mut offsets = vec![0u64; buffers.len()];
    let mut placed = Overlaps::new(buffers);
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for &i in visit {
        let b = &buffers[i as usize];
        busy.clear();
        placed.each(i, |j| {
            let at = offsets[j as usize];
            busy.push((at, at + buffers[j as usize].size));
        });
        offsets[i as usize] = choose(&mut busy, b.size, fit, opts.align);
        // empty buffers never stand in anyone's way
        if b.size > 0 {
            placed.insert(i);
        }
    }
    offsets
}

pub fn first_fit(buffers: &[Buffer], opts: PackOptions, place: Place) -> Vec<u64> {
    place(buffers, &birth_order(buffers), Fit::Lowest, opts)
}

/// The visit order of `greedy-size`: largest first, ties by earlier birth, then
/// by index.
pub fn greedy_order(buffers: &[Buffer]) -> Vec<u32> {
    // the key and the index in one number: no two equal, no lookups while sorting
    let mut keys: Vec<u128> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| (u128::from(!b.size) << 64) | (u128::from(b.life.start) << 32) | i as u128)
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| k as u32).collect()
}

pub fn greedy_size(buffers: &[Buffer], opts: PackOptions, place: Place) -> Vec<u64> {
    place(buffers, &greedy_order(buffers), Fit::Best, opts)
}

#[cfg(test)]
mod tests {
    use super::{place_again, place_in_order, Cut, Head};
    use crate::pack::budget::Budget;
    use crate::pack::testing::random_buffers;
    use crate::pack::{peak, Fit, PackOptions};
    use crate::rng::Rng;

    #[test]
    fn placing_again_after_a_kept_head_is_a_whole_pass_or_stops_at_the_ceiling() {
        let mut rng = Rng::new(11);
        let opts = PackOptions::new(1).unwrap();
        for round in 0..200 {
            let n = 2 + rng.below(60);
            let buffers = random_buffers(&mut rng, n, 30, 100, 7);
            let fit = if round % 2 == 0 {
                Fit::Best
            } else {
                Fit::Lowest
            };
            let before: Vec<u32> = (0..n as u32).collect();
            let known = place_in_order(&buffers, &before, fit, opts);
            // a visit order that keeps the first `kept` positions
            let kept = rng.below(n);
            let mut visit = before.clone();
            let (a, b) = (kept + rng.below(n - kept), kept + rng.below(n - kept));
            visit.swap(a, b);
            let whole = place_in_order(&buffers, &visit, fit, opts);
            let top = peak(&buffers, &whole);
            let mut budget = Budget::work(u64::MAX / 2);
            let head = |ceiling| Head {
                known: &known,
                kept,
                ceiling,
            };
            let again = place_again(&buffers, &visit, fit, opts, &mut budget, head(top));
            assert_eq!(again.as_ref(), Ok(&whole), "round {round}");
            // a ceiling below the top of a buffer it places (the head's are known)
            let placed_top = visit[kept..]
                .iter()
                .map(|&i| whole[i as usize] + buffers[i as usize].size)
                .max()
                .unwrap_or(0);
            if placed_top > 0 {
                let head = head(placed_top - 1);
                let below = place_again(&buffers, &visit, fit, opts, &mut budget, head);
                assert_eq!(below, Err(Cut::Ceiling), "round {round}");
            }
        }
    }
}
