//! The single-order placement of `first-fit`, `greedy-size`, `best-fit` and
//! `best-of` beside the plain scan it replaced, for the tests that hold the two to
//! the same offsets (`tests/fast_greedy.rs`); not part of the API.

pub use super::fit::{greedy_order, place_in_order, place_in_order_scan};
pub use super::split::{place_split_at, step as split_step};
pub use super::Fit;
use super::{best_fit, fit, PackOptions, Strategy};
use crate::liveness::Buffer;

/// `first-fit`, `greedy-size` or `best-fit` placed by the plain scan; None
/// for the other strategies.
pub fn pack_scan(strategy: Strategy, buffers: &[Buffer], opts: PackOptions) -> Option<Vec<u64>> {
    let place = fit::place_in_order_scan;
    match strategy {
        Strategy::FirstFit => Some(fit::first_fit(buffers, opts, place)),
        Strategy::GreedySize => Some(fit::greedy_size(buffers, opts, place)),
        Strategy::BestFit => Some(best_fit::pack(buffers, opts, place)),
        _ => None,
    }
}
