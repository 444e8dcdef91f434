//! The cost side of the residency search: live bytes (or buffers) per op position,
//! kept up to date over the span a move touches.

use super::super::super::case::{BufferId, Case};
use super::super::schedule::{counted_levels, single_levels};
use super::{Cost, OpOrder};

/// Live bytes of the counted levels and live buffers of the single-buffer levels per
/// op position, kept up to date as blocks slide.
pub(super) struct Live {
    pub(super) life: Vec<Option<(u32, u32)>>,
    /// Per level: live bytes (counted levels, all summed in the first one) or live
    /// buffers (single-buffer levels) per position; `None` for other levels.
    pub(super) profiles: Vec<Option<Vec<i64>>>,
    /// Which profile sums the counted levels.
    pub(super) counted: Option<usize>,
    /// Per level: the profile its buffers add to and by how much per byte.
    pub(super) target: Vec<Option<(usize, bool)>>,
    /// Per node: the buffers whose lifetime it bounds.
    pub(super) bounded: Vec<Vec<BufferId>>,
    pub(super) seen: Vec<u32>,
    pub(super) epoch: u32,
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
        let profiles = (0..case.levels.len())
            .map(|l| {
                target
                    .iter()
                    .any(|t| t.map(|t| t.0) == Some(l))
                    .then(|| vec![0; n])
            })
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
            counted: first,
            target,
            bounded,
            seen: vec![0; life.len()],
            epoch: 0,
        };
        for (b, l) in case.buffer_ids().zip(life) {
            live.set(case, b, l, 0, n);
        }
        live
    }

    /// Gives buffer `b` the lifetime `l`, both old and new confined to `[lo, hi)`
    /// where they differ.
    pub(super) fn set(
        &mut self,
        case: &Case,
        b: BufferId,
        l: Option<(u32, u32)>,
        lo: usize,
        hi: usize,
    ) {
        let buf = case.buffer(b);
        if let Some((p, bytes)) = self.target[buf.level.index()] {
            let w = if bytes { buf.size as i64 } else { 1 };
            let profile = self.profiles[p].as_mut().unwrap();
            if let Some((s, e)) = self.life[b.index()] {
                for v in &mut profile[(s as usize).max(lo)..(e as usize + 1).min(hi)] {
                    *v -= w;
                }
            }
            if let Some((s, e)) = l {
                for v in &mut profile[(s as usize).max(lo)..(e as usize + 1).min(hi)] {
                    *v += w;
                }
            }
        }
        self.life[b.index()] = l;
    }

    /// `None` when a single-buffer level holds two buffers at once in `[lo, hi)`
    /// (the rest is unchanged).
    pub(super) fn cost(&self, lo: usize, hi: usize) -> Cost {
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
        let profile = self.profiles[c].as_ref().unwrap();
        let peak = profile.iter().copied().max().unwrap_or(0);
        let steps = profile.iter().filter(|&&v| v == peak).count();
        Some((peak.max(0) as u64, steps as u64))
    }

    /// A position at the peak, the `pick`-th modulo their number.
    pub(super) fn peak_step(&self, pick: usize, cost: Cost) -> Option<u32> {
        let (peak, _) = cost?;
        let profile = self.profiles[self.counted?].as_ref().unwrap();
        let steps = profile.iter().filter(|&&v| v == peak as i64).count();
        let k = pick % steps.max(1);
        profile
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v == peak as i64)
            .nth(k)
            .map(|(p, _)| p as u32)
    }
}
