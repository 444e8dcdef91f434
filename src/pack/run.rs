//! [`Strategy::pack`] and [`Strategy::pack_within`]: each strategy run by the
//! module that makes it. Apart from `mod.rs` so that the module of the shared
//! options and helpers imports none of the strategies that use them.

use super::best_of::Start;
use super::{best_fit, best_of, fit, naive, pools, search, sweep};
use super::{Budget, Fit, PackOptions, Packed, Strategy};
use crate::liveness::{max_live_bytes, Buffer};

impl Strategy {
    /// Offsets for `buffers`, one per buffer; the searching strategies run on a
    /// deterministic work budget of `opts.budget_ms`.
    pub fn pack(self, buffers: &[Buffer], opts: PackOptions) -> Vec<u64> {
        let mut budget = Budget::work_for_ms(opts.budget_ms);
        self.pack_within(buffers, opts, &mut budget).offsets
    }

    /// Offsets for `buffers` within `budget`, with what is proven about them.
    /// `reorder` packs like `search` here: its new order is chosen by the caller
    /// (see [`crate::Analysis::plan_within`]).
    pub fn pack_within(self, buffers: &[Buffer], opts: PackOptions, budget: &mut Budget) -> Packed {
        let offsets = match self {
            Strategy::Naive => naive::pack(buffers, opts),
            Strategy::Pools => pools::pack(buffers, opts),
            Strategy::FirstFit => sweep::first_fit(buffers, opts),
            // charged (never stopped), so a caller can tell what one pass costs
            Strategy::GreedySize => {
                let visit = fit::greedy_order(buffers);
                fit::place_charged(buffers, &visit, Fit::Best, opts, budget, fit::Pass::Whole)
                    .expect("a whole pass ends")
            }
            Strategy::BestFit => best_fit::pack(buffers, opts, fit::place_in_order),
            Strategy::BestOf => best_of::pack(buffers, opts, budget, Start::Greedy).offsets,
            Strategy::Search | Strategy::Reorder => {
                return search::pack(buffers, opts, budget, Start::Greedy)
            }
            Strategy::Auto => return search::pack(buffers, opts, budget, Start::Twins),
        };
        Packed {
            offsets,
            proven_bound: max_live_bytes(buffers),
        }
    }
}
