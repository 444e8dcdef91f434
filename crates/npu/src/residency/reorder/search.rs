//! The residency search: block moves and lifetime compressions of the ops, kept
//! when the cost does not rise (or, by an annealing schedule, when they add steps
//! at the same peak), the best order found kept.

use super::live::Live;
use super::{pick_move, Cost, OpOrder};
use crate::case::BufferId;
use memplan::rng::Rng;

/// Starting temperature of the residency search, in steps at the peak.
const HEAT: f64 = 1.0;

/// One move in this many is a lifetime compression.
const COMPRESS_ONE_IN: usize = 16;

impl OpOrder<'_> {
    /// Block moves and lifetime compressions until `budget` more work units are spent: the best order found
    /// is kept, and its cost returned. A move is kept when it leaves the peak and the
    /// steps at it as they were or lower, or (by an annealing schedule) when it adds
    /// steps at the same peak. `stop` is asked before every move; once it says yes
    /// the search ends with the best order so far.
    pub fn improve(&mut self, budget: u64, seed: u64, stop: &mut dyn FnMut() -> bool) -> Cost {
        let mut rng = Rng::new(seed);
        let mut live = Live::new(self);
        let n = self.ops.len();
        let mut cost = live.cost(0, n);
        if cost.is_none() || n < 2 {
            return cost;
        }
        let end = self.work + budget;
        let (mut best, mut best_cost) = (self.ops.clone(), cost);
        let mut changed: Vec<(BufferId, Option<(u32, u32)>)> = Vec::new();
        while self.work < end && !stop() {
            self.work += 1;
            let hot = live.peak_step(rng.below(1 << 20), cost);
            let (lo, hi, block) = if rng.below(COMPRESS_ONE_IN) == 0 {
                match self.compress(&mut rng, &live, hot) {
                    Some((lo, hi)) => (lo, hi, None),
                    None => continue,
                }
            } else {
                let (a, len, to) = pick_move(&mut rng, n, hot);
                if to == a || !self.slide(a, a + len, to) {
                    continue;
                }
                let (lo, hi) = if to > a { (a, to + len) } else { (to, a + len) };
                (lo, hi, Some((a, len, to)))
            };
            live.epoch += 1;
            changed.clear();
            for p in lo..hi {
                let op = self.ops[p].index();
                for k in 0..live.bounded[op].len() {
                    let b = live.bounded[op][k];
                    if live.seen[b.index()] == live.epoch {
                        continue;
                    }
                    live.seen[b.index()] = live.epoch;
                    let bounds = &self.bounds[b.index()];
                    self.work += bounds.len() as u64 + 1;
                    let (mut s, mut e) = (u32::MAX, 0);
                    for &o in bounds {
                        let q = self.pos[o.index()];
                        s = s.min(q);
                        e = e.max(q);
                    }
                    let new = Some((s, e));
                    if new != live.life[b.index()] {
                        changed.push((b, live.life[b.index()]));
                        live.set(self.case, b, new);
                    }
                }
            }
            self.work += n as u64 / 8 + (hi - lo) as u64;
            live.settle(lo, hi);
            let next = live.cost(lo, hi);
            let progress = (self.work + budget - end) as f64 / budget as f64;
            let heat = HEAT * (1.0 - progress);
            let accept = match (next, cost) {
                (Some(x), Some(c)) => {
                    x <= c
                        || (x.0 == c.0
                            && heat > 0.0
                            && rng.unit() < (-((x.1 - c.1) as f64) / heat).exp())
                }
                _ => false,
            };
            if accept {
                cost = next;
                if cost < best_cost {
                    best_cost = cost;
                    best.copy_from_slice(&self.ops);
                }
            } else {
                for &(b, old) in changed.iter().rev() {
                    live.set(self.case, b, old);
                }
                live.settle(lo, hi);
                match block {
                    Some((a, len, to)) => self.unslide(a, a + len, to),
                    None => self.restore(lo),
                }
            }
        }
        self.ops = best;
        for (p, &o) in self.ops.iter().enumerate() {
            self.pos[o.index()] = p as u32;
        }
        best_cost
    }
}
