//! Offset strategies: each assigns every buffer an address so that buffers alive
//! at a common step never overlap. The peak is the highest `offset + size`.
//!
//! Every strategy is a [`Strategy`] variant with a name, a one-line description and
//! a `pack` function from buffers to offsets (one per buffer, in buffer order).
//! Alignment applies to every offset.
//!
//! `best-of`, `search`, `reorder` and `auto` search within a [`Budget`]: time on
//! a clock the caller supplies, or work units (deterministic) when
//! [`Strategy::pack`] is called without one.

mod best_fit;
mod best_of;
pub mod budget;
mod busy;
mod canon;
mod fit;
mod naive;
mod overlap;
mod placing;
mod pools;
#[doc(hidden)]
pub mod reference;
mod run;
mod search;
mod sections;
mod split;
mod sweep;

pub use budget::{Budget, Progress};

use crate::error::Error;
use crate::liveness::Buffer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    Naive,
    Pools,
    FirstFit,
    GreedySize,
    BestFit,
    BestOf,
    Search,
    Reorder,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackOptions {
    /// Every offset is a multiple of this (1 = none).
    pub align: u64,
    /// Effort of the searching strategies in milliseconds; without a clock,
    /// `budget_ms * WORK_PER_MS` work units.
    pub budget_ms: u64,
    /// Seed of the randomised moves of `best-of`.
    pub seed: u64,
    /// Stop as soon as a plan fits in this many bytes.
    pub capacity: Option<u64>,
}

/// Default effort of the searching strategies.
pub const DEFAULT_BUDGET_MS: u64 = 50;

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            align: 1,
            budget_ms: DEFAULT_BUDGET_MS,
            seed: 0,
            capacity: None,
        }
    }
}

/// Offsets (one per buffer) and what is proven about them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    pub offsets: Vec<u64>,
    /// No packing has a peak below this: the lower bound, or more when the
    /// search proved lower capacities infeasible.
    pub proven_bound: u64,
}

/// Largest alignment accepted.
pub const MAX_ALIGN: u64 = 1 << 30;

impl PackOptions {
    pub fn new(align: u64) -> Result<PackOptions, Error> {
        if align == 0 {
            return Err(Error::usage("alignment must be at least 1"));
        }
        if align > MAX_ALIGN {
            return Err(Error::limit("alignment", align, MAX_ALIGN));
        }
        Ok(PackOptions {
            align,
            ..PackOptions::default()
        })
    }
}

impl Strategy {
    pub const ALL: [Strategy; 9] = [
        Strategy::Naive,
        Strategy::Pools,
        Strategy::FirstFit,
        Strategy::GreedySize,
        Strategy::BestFit,
        Strategy::BestOf,
        Strategy::Search,
        Strategy::Reorder,
        Strategy::Auto,
    ];

    /// True for the strategies that search within a budget.
    pub fn searches(self) -> bool {
        matches!(
            self,
            Strategy::BestOf | Strategy::Search | Strategy::Reorder | Strategy::Auto
        )
    }

    /// This strategy, run on `budget`, used more than it plus a tenth (see
    /// [`Budget::overran`]); never for the strategies that do not search, which
    /// make their passes whatever the budget.
    pub fn overran(self, budget: &Budget) -> bool {
        self.searches() && budget.overran()
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::Pools => "pools",
            Strategy::FirstFit => "first-fit",
            Strategy::GreedySize => "greedy-size",
            Strategy::BestFit => "best-fit",
            Strategy::BestOf => "best-of",
            Strategy::Search => "search",
            Strategy::Reorder => "reorder",
            Strategy::Auto => "auto",
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            Strategy::Naive => "no reuse: every tensor gets its own bytes",
            Strategy::Pools => {
                "greedy colouring in birth order; pools sized by their largest member, end to end"
            }
            Strategy::FirstFit => "execution order, each tensor at the lowest free address",
            Strategy::GreedySize => {
                "largest first, smallest fitting gap else on top (TFLite arena planner)"
            }
            Strategy::BestFit => {
                "best fit by size and by duration, the better kept (XLA heap simulator)"
            }
            Strategy::BestOf => {
                "ten orders x two fit rules, then moves of the buffers at the peak (budget)"
            }
            Strategy::Search => {
                "best-of, then exact search over canonical packings; proves optimality (budget)"
            }
            Strategy::Reorder => {
                "memory-aware op order (never a higher bound), then search on it (budget)"
            }
            Strategy::Auto => {
                "greedy-size and its twin swept backward in time, both always, then search (budget)"
            }
        }
    }

    pub fn from_name(name: &str) -> Result<Strategy, Error> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                Error::usage(format!(
                    "unknown strategy `{name}` (expected one of: {})",
                    known.join(", ")
                ))
            })
    }
}

/// Where a greedy placement puts a buffer among the gaps left by the placed
/// buffers that overlap it in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The lowest address that fits.
    Lowest,
    /// The smallest gap that fits, else the top.
    Best,
}

/// Highest `offset + size` over all buffers.
pub fn peak(buffers: &[Buffer], offsets: &[u64]) -> u64 {
    buffers
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0)
}

/// `x` rounded up to a multiple of `align` (an alignment of 0 counts as 1).
/// Without a division where the alignment is 1 or a power of two: the placements
/// round every gap they look at, and a division there was 4% of their time.
#[inline]
pub(crate) fn align_up(x: u64, align: u64) -> u64 {
    if align <= 1 {
        x
    } else if align.is_power_of_two() {
        (x + (align - 1)) & !(align - 1)
    } else {
        x.div_ceil(align) * align
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligning_up_without_a_division_rounds_as_one_does() {
        let far = u64::MAX / 4;
        for align in 0..=130u64 {
            for x in (0..300).chain(far - 300..far + 300) {
                let a = align.max(1);
                assert_eq!(super::align_up(x, align), x.div_ceil(a) * a, "{x} {align}");
            }
        }
    }
}

/// Random instances for the unit tests of the placements.
#[cfg(test)]
pub(crate) mod testing {
    use crate::graph::{Lifetime, TensorId};
    use crate::liveness::Buffer;
    use crate::rng::Rng;

    /// `n` buffers, each starting below step `starts`, of fewer than `sizes`
    /// bytes (some empty), living up to `longer` steps past its start.
    pub fn random_buffers(
        rng: &mut Rng,
        n: usize,
        starts: usize,
        sizes: usize,
        longer: usize,
    ) -> Vec<Buffer> {
        (0..n)
            .map(|k| {
                let start = rng.below(starts) as u32;
                Buffer {
                    tensor: TensorId(k as u32),
                    size: rng.below(sizes) as u64,
                    life: Lifetime::new(start, start + rng.below(longer + 1) as u32),
                }
            })
            .collect()
    }
}
