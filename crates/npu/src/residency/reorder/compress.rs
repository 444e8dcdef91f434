//! Lifetime compressions: around a step at the peak, a set of ops closed under
//! dependencies within a span moves across that step, so that a buffer live there
//! no longer is.

use super::live::Live;
use super::OpOrder;
use crate::case::{BufferId, NodeId};
use memplan::rng::Rng;

/// One compression in this many moves a single op (with its closure) rather than
/// the ops of a live buffer.
const COMPRESS_OP_ONE_IN: usize = 4;

/// A compression reaches up to `2^k` ops past the peak step, `k` drawn uniformly
/// below this, so short reaches are as likely as long ones.
const COMPRESS_REACH_LOG: usize = 9;

impl OpOrder<'_> {
    /// A lifetime compression around the op at `hot`, the step at the peak: ops move
    /// across it as closed sets, so that a buffer live there is not. Either a buffer
    /// live there gets all the ops bounding its lifetime on one side of it (its ops
    /// from a point before `hot` move up to that point, or its ops up to a point
    /// after `hot` move down to it), or one op after `hot` moves up to it (one before
    /// moves down to it); the ops between that the moved ones depend on (that depend
    /// on them) move along. Returns the span rearranged.
    pub(super) fn compress(
        &mut self,
        rng: &mut Rng,
        live: &Live,
        hot: Option<u32>,
    ) -> Option<(usize, usize)> {
        let p = hot? as usize;
        let n = self.ops.len();
        let scale = 1 << (1 + rng.below(COMPRESS_REACH_LOG));
        let reach = 1 + rng.below(scale);
        let earlier = rng.below(2) == 0;
        self.epoch += 1;
        let epoch = self.epoch;
        let (lo, hi) = if rng.below(COMPRESS_OP_ONE_IN) == 0 {
            let q = if earlier {
                p + reach
            } else {
                p.checked_sub(reach)?
            };
            if q >= n {
                return None;
            }
            self.mark[self.ops[q].index()] = epoch;
            if earlier {
                (p, q + 1)
            } else {
                (q, p + 1)
            }
        } else {
            let b = self.live_at(live, p, rng)?;
            let (s, e) = live.life[b.index()]?;
            let (lo, hi) = if earlier {
                (p.saturating_sub(reach), e as usize + 1)
            } else {
                (s as usize, (p + reach).min(n - 1) + 1)
            };
            for k in 0..self.bounds[b.index()].len() {
                let o = self.bounds[b.index()][k].index();
                if (lo..hi).contains(&(self.pos[o] as usize)) {
                    self.mark[o] = epoch;
                }
            }
            (lo, hi)
        };
        self.regroup(lo, hi, earlier).then_some((lo, hi))
    }

    /// A random buffer of the counted levels live at position `p`.
    fn live_at(&mut self, live: &Live, p: usize, rng: &mut Rng) -> Option<BufferId> {
        let counted = live.counted?;
        let at_peak: Vec<BufferId> = self
            .case
            .buffer_ids()
            .filter(|&b| {
                live.target[self.case.buffer(b).level.index()].map(|t| t.0) == Some(counted)
                    && live.life[b.index()].is_some_and(|(s, e)| s as usize <= p && p <= e as usize)
            })
            .collect();
        self.work += live.life.len() as u64 / 8;
        (!at_peak.is_empty()).then(|| at_peak[rng.below(at_peak.len())])
    }

    /// Closes the ops of `[lo, hi)` marked in this epoch under their predecessors
    /// (`earlier`) or successors within the span and moves them, in order, to its
    /// start (end); false, changing nothing, when that moves nothing.
    fn regroup(&mut self, lo: usize, hi: usize, earlier: bool) -> bool {
        let epoch = self.epoch;
        self.work += (hi - lo) as u64;
        let mut moved = 0;
        for k in 0..hi - lo {
            let q = if earlier { hi - 1 - k } else { lo + k };
            let o = self.ops[q].index();
            if self.mark[o] != epoch {
                continue;
            }
            moved += 1;
            let next = if earlier {
                &self.pred[o]
            } else {
                &self.succ[o]
            };
            self.work += next.len() as u64;
            for &x in next {
                if (lo..hi).contains(&(self.pos[x.index()] as usize)) {
                    self.mark[x.index()] = epoch;
                }
            }
        }
        if moved == 0 || moved == hi - lo {
            return false;
        }
        self.saved.clear();
        self.saved.extend_from_slice(&self.ops[lo..hi]);
        let (first, rest): (Vec<NodeId>, Vec<NodeId>) = self
            .saved
            .iter()
            .partition(|&&o| (self.mark[o.index()] == epoch) == earlier);
        for (q, &o) in first.iter().chain(&rest).enumerate() {
            self.ops[lo + q] = o;
            self.pos[o.index()] = (lo + q) as u32;
        }
        true
    }

    /// Undoes the last compression, which rearranged the span starting at `lo`.
    pub(super) fn restore(&mut self, lo: usize) {
        for (q, &o) in self.saved.iter().enumerate() {
            self.ops[lo + q] = o;
            self.pos[o.index()] = (lo + q) as u32;
        }
    }
}
