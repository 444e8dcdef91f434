//! The task search proper: simulated annealing over the task permutation (swaps,
//! moves, reversals; with groups, moves of whole groups too), judged by the spill
//! model of `replay.rs`, on a budget in replayed accesses.

use super::Tasks;
use memplan::rng::Rng;

/// Starting temperature of the annealing, in units of the largest buffer.
const HEAT: f64 = 0.75;

impl Tasks<'_> {
    /// Simulated annealing over the task order from `start`, until `budget`
    /// accesses have been replayed (or `stop`, asked before every move, says yes):
    /// the best permutation found and its cost.
    pub fn anneal(
        &mut self,
        start: &[u32],
        budget: u64,
        seed: u64,
        stop: &mut dyn FnMut() -> bool,
    ) -> (Vec<u32>, u64) {
        let mut rng = Rng::new(seed);
        let mut perm = start.to_vec();
        let mut cost = self.cost(&perm);
        let (mut best, mut best_cost) = (perm.clone(), cost);
        let len = perm.len();
        let typical = self.case.buffers.iter().map(|b| b.size).max().unwrap_or(1) as f64;
        let first = self.work;
        while self.work - first < budget && len > 1 && !stop() {
            let progress = (self.work - first) as f64 / budget as f64;
            let temperature = typical * HEAT * (1.0 - progress).powi(2);
            let mut next = perm.clone();
            // with groups, half of the moves take whole groups: they keep the
            // pairings the other half try
            let g = self.width;
            if g > 1 && len >= 2 * g && rng.below(2) == 0 {
                let groups = len / g;
                let (a, b) = (rng.below(groups), rng.below(groups));
                if a == b {
                    continue;
                }
                let (lo, hi) = (a.min(b), a.max(b));
                match rng.below(3) {
                    0 => {
                        let (left, right) = next.split_at_mut(hi * g);
                        left[lo * g..(lo + 1) * g].swap_with_slice(&mut right[..g]);
                    }
                    1 if a < b => next[a * g..(b + 1) * g].rotate_left(g),
                    1 => next[b * g..(a + 1) * g].rotate_right(g),
                    _ => next[lo * g..(hi + 1) * g].reverse(),
                }
            } else {
                let i = rng.below(len);
                let j = rng.below(len);
                if i == j {
                    continue;
                }
                match rng.below(3) {
                    0 => next.swap(i, j),
                    1 => {
                        let t = next.remove(i);
                        next.insert(j, t);
                    }
                    _ => next[i.min(j)..=i.max(j)].reverse(),
                }
            }
            let c = self.cost(&next);
            let accept = c <= cost
                || (temperature > 0.0 && rng.unit() < (-((c - cost) as f64) / temperature).exp());
            if accept {
                self.take();
                perm = next;
                cost = c;
                if cost < best_cost {
                    best_cost = cost;
                    best = perm.clone();
                }
            }
        }
        (best, best_cost)
    }
}
