//! Offset strategies: each assigns every buffer an address so that buffers alive
//! at a common step never overlap. The peak is the highest `offset + size`.
//!
//! Every strategy is a [`Strategy`] variant with a name, a one-line description and
//! a `pack` function from buffers to offsets (one per buffer, in buffer order).
//! Alignment applies to every offset.

mod best_fit;
mod fit;
mod naive;
mod pools;

use crate::error::Error;
use crate::liveness::Buffer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    Naive,
    Pools,
    FirstFit,
    GreedySize,
    BestFit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackOptions {
    /// Every offset is a multiple of this (1 = none).
    pub align: u64,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions { align: 1 }
    }
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
        Ok(PackOptions { align })
    }
}

impl Strategy {
    pub const ALL: [Strategy; 5] = [
        Strategy::Naive,
        Strategy::Pools,
        Strategy::FirstFit,
        Strategy::GreedySize,
        Strategy::BestFit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::Pools => "pools",
            Strategy::FirstFit => "first-fit",
            Strategy::GreedySize => "greedy-size",
            Strategy::BestFit => "best-fit",
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

    /// Offsets for `buffers`, one per buffer.
    pub fn pack(self, buffers: &[Buffer], opts: PackOptions) -> Vec<u64> {
        match self {
            Strategy::Naive => naive::pack(buffers, opts),
            Strategy::Pools => pools::pack(buffers, opts),
            Strategy::FirstFit => fit::first_fit(buffers, opts),
            Strategy::GreedySize => fit::greedy_size(buffers, opts),
            Strategy::BestFit => best_fit::pack(buffers, opts),
        }
    }
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

pub(crate) fn align_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align) * align
}
