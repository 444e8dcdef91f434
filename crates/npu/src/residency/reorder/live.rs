//! The cost side of the residency search: live bytes (or buffers) per op position,
//! kept up to date over the span a move touches.

use super::{Cost, OpOrder};
use crate::case::{BufferId, Case};
use crate::residency::schedule::{counted_levels, single_levels};

/// Live bytes of the counted levels and live buffers of the single-buffer levels per
/// op position, kept up to date as blocks slide.
pub(super) struct Live {
    pub(super) life: Vec<Option<(u32, u32)>>,
    /// Per level: live bytes (counted levels, all summed in the first one) or live
    /// buffers (single-buffer levels) per position; `None` for other levels.
    pub(super) profiles: Vec<Option<Vec<i64>>>,
    /// Per profile: its differences between neighbouring positions (one more
    /// position than the profile; empty for levels with no profile).
    steps: Vec<Vec<i64>>,
    /// Which profile sums the counted levels.
    pub(super) counted: Option<usize>,
    /// Per level: the profile its buffers add to and by how much per byte.
    pub(super) target: Vec<Option<(usize, bool)>>,
    /// Per node: the buffers whose lifetime it bounds.
    pub(super) bounded: Vec<Vec<BufferId>>,
    pub(super) seen: Vec<u32>,
    pub(super) epoch: u32,
    /// The counted profile's largest value and its count per block of positions.
    blocks: Blocks,
}

/// Positions per block of [`Blocks`].
const BLOCK: usize = 64;

/// Per block of [`BLOCK`] positions of the counted profile: its largest value and
/// how many positions hold it, brought up to date when asked after a change. A
/// move changes the profile inside its span only, so the peak and the steps at it
/// cost the span's blocks plus one value per block, not a pass over every step.
struct Blocks {
    max: Vec<i64>,
    count: Vec<u32>,
    stale: Vec<bool>,
    /// The stale blocks, each once.
    to_do: Vec<usize>,
}

impl Blocks {
    fn new(n: usize) -> Blocks {
        let blocks = n.div_ceil(BLOCK);
        Blocks {
            max: vec![0; blocks],
            count: vec![0; blocks],
            stale: vec![true; blocks],
            to_do: (0..blocks).collect(),
        }
    }

    /// Marks the blocks of positions `[lo, hi)` stale.
    fn touch(&mut self, lo: usize, hi: usize) {
        if lo < hi {
            for k in lo / BLOCK..=(hi - 1) / BLOCK {
                if !std::mem::replace(&mut self.stale[k], true) {
                    self.to_do.push(k);
                }
            }
        }
    }

    fn refresh(&mut self, profile: &[i64]) {
        for k in self.to_do.drain(..) {
            let part = &profile[k * BLOCK..((k + 1) * BLOCK).min(profile.len())];
            let top = part.iter().copied().max().unwrap_or(i64::MIN);
            self.max[k] = top;
            self.count[k] = part.iter().filter(|&&v| v == top).count() as u32;
            self.stale[k] = false;
        }
    }

    /// The largest value and how many positions hold it (`None`: no positions).
    fn top(&self) -> Option<(i64, usize)> {
        let top = self.max.iter().copied().max()?;
        let count = (0..self.max.len())
            .filter(|&k| self.max[k] == top)
            .map(|k| self.count[k] as usize)
            .sum();
        Some((top, count))
    }
}

impl Live {
    pub(super) fn new(order: &mut OpOrder) -> Live {
        let case = order.case;
        let life = order.lifetimes();
        let (counted, single) = (counted_levels(case), single_levels(case));
        let first = counted.iter().position(|&c| c);
        let n = order.ops.len();
        let target: Vec<Option<(usize, bool)>> = (0..case.levels.len())
            .map(|l| {
                if counted[l] {
                    first.map(|f| (f, true))
                } else {
                    single[l].then_some((l, false))
                }
            })
            .collect();
        let profiles: Vec<Option<Vec<i64>>> = (0..case.levels.len())
            .map(|l| {
                target
                    .iter()
                    .any(|t| t.map(|t| t.0) == Some(l))
                    .then(|| vec![0; n])
            })
            .collect();
        let steps = profiles
            .iter()
            .map(|p| p.as_ref().map_or(Vec::new(), |_| vec![0; n + 1]))
            .collect();
        let mut bounded = vec![Vec::new(); case.nodes.len()];
        for (b, ops) in case.buffer_ids().zip(&order.bounds) {
            for &o in ops {
                bounded[o.index()].push(b);
            }
        }
        let mut live = Live {
            life: vec![None; life.len()],
            profiles,
            steps,
            counted: first,
            target,
            bounded,
            seen: vec![0; life.len()],
            epoch: 0,
            blocks: Blocks::new(n),
        };
        for (b, l) in case.buffer_ids().zip(life) {
            live.set(case, b, l);
        }
        live.settle(0, n);
        live
    }

    /// Gives buffer `b` the lifetime `l`. The profiles follow only at [`Live::settle`]:
    /// until then only their differences between neighbouring positions are kept,
    /// two per lifetime, whatever its length.
    pub(super) fn set(&mut self, case: &Case, b: BufferId, l: Option<(u32, u32)>) {
        let buf = case.buffer(b);
        if let Some((p, bytes)) = self.target[buf.level.index()] {
            let w = if bytes { buf.size as i64 } else { 1 };
            let steps = &mut self.steps[p];
            let mut add = |span: Option<(u32, u32)>, w: i64| {
                if let Some((s, e)) = span {
                    steps[s as usize] += w;
                    steps[e as usize + 1] -= w;
                }
            };
            add(self.life[b.index()], -w);
            add(l, w);
        }
        self.life[b.index()] = l;
    }

    /// Brings the profiles up to date after lifetimes changed within `[lo, hi)` only
    /// (outside it every profile is as it was).
    pub(super) fn settle(&mut self, lo: usize, hi: usize) {
        for (profile, steps) in self.profiles.iter_mut().zip(&self.steps) {
            if let Some(profile) = profile {
                let mut v = if lo == 0 { 0 } else { profile[lo - 1] };
                for (x, &d) in profile[lo..hi].iter_mut().zip(&steps[lo..hi]) {
                    v += d;
                    *x = v;
                }
            }
        }
        self.blocks.touch(lo, hi);
    }

    /// `None` when a single-buffer level holds two buffers at once in `[lo, hi)`
    /// (the rest is unchanged).
    pub(super) fn cost(&mut self, lo: usize, hi: usize) -> Cost {
        for (l, p) in self.profiles.iter().enumerate() {
            if let Some(p) = p {
                if Some(l) != self.counted && p[lo..hi].iter().any(|&v| v > 1) {
                    return None;
                }
            }
        }
        let Some(c) = self.counted else {
            return Some((0, 0));
        };
        self.blocks.refresh(self.profiles[c].as_ref().unwrap());
        let (peak, steps) = self.blocks.top().unwrap_or((0, 0));
        Some((peak.max(0) as u64, steps as u64))
    }

    /// A position at the peak, the `pick`-th modulo their number.
    pub(super) fn peak_step(&mut self, pick: usize, cost: Cost) -> Option<u32> {
        let peak = cost?.0 as i64;
        let profile = self.profiles[self.counted?].as_ref().unwrap();
        self.blocks.refresh(profile);
        let at = |k: usize| k * BLOCK..((k + 1) * BLOCK).min(profile.len());
        let found = match self.blocks.top() {
            // the peak's steps lie in the blocks whose top it is
            Some((top, steps)) if top == peak => {
                let mut k = pick % steps;
                let mut found = None;
                for b in (0..self.blocks.max.len()).filter(|&b| self.blocks.max[b] == peak) {
                    let here = self.blocks.count[b] as usize;
                    if k < here {
                        found = at(b).filter(|&p| profile[p] == peak).nth(k);
                        break;
                    }
                    k -= here;
                }
                found
            }
            // the profile's top is not the cost's peak (never while the search
            // runs, which keeps them together): read the positions one by one
            _ => {
                let steps = profile.iter().filter(|&&v| v == peak).count();
                (0..profile.len())
                    .filter(|&p| profile[p] == peak)
                    .nth(pick % steps.max(1))
            }
        };
        found.map(|p| p as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::Live;
    use crate::residency::reorder::{pick_move, OpOrder};
    use crate::residency::schedule::{list_schedule, Priority};
    use crate::tiled::tiled_matmul;
    use memplan::rng::Rng;

    /// Lifetimes changed by block moves (kept or undone), each move's profiles
    /// brought up to date by `settle` over its span, equal the profiles of a
    /// `Live` made afresh from the order after every move.
    #[test]
    fn settled_profiles_equal_fresh_ones_after_every_move() {
        let case = tiled_matmul(3, 4, 3).unwrap();
        let start = list_schedule(&case, Priority::Id).unwrap();
        let mut order = OpOrder::new(&case, &start);
        let mut live = Live::new(&mut order);
        let n = order.op_count();
        let mut rng = Rng::new(7);
        let (mut moved, mut undone) = (0, 0);
        for _ in 0..6000 {
            let (a, len, to) = pick_move(&mut rng, n, None);
            if to == a || !order.slide(a, a + len, to) {
                continue;
            }
            let (lo, hi) = if to > a { (a, to + len) } else { (to, a + len) };
            let old = live.life.clone();
            let new = order.lifetimes();
            for (b, l) in case.buffer_ids().zip(&new) {
                if *l != old[b.index()] {
                    live.set(&case, b, *l);
                }
            }
            live.settle(lo, hi);
            assert_eq!(live.profiles, Live::new(&mut order).profiles);
            moved += 1;
            if rng.below(2) == 0 {
                order.unslide(a, a + len, to);
                for (b, l) in case.buffer_ids().zip(&old) {
                    if *l != live.life[b.index()] {
                        live.set(&case, b, *l);
                    }
                }
                live.settle(lo, hi);
                assert_eq!(live.profiles, Live::new(&mut order).profiles);
                undone += 1;
            }
        }
        assert!(moved > 100 && undone > 40, "{moved} moves, {undone} undone");
        // the profiles are not all flat: the test compares something
        assert!(live
            .profiles
            .iter()
            .flatten()
            .any(|p| p.iter().any(|&v| v > 1)));
    }
}
