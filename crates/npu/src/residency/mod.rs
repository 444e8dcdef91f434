//! Problem 1: an order of all nodes whose peak L1+UB residency is smallest, with
//! at most one live buffer per L0 level.
//!
//! - `schedule.rs`: the list schedulers, and the peak of an order;
//! - `cache.rs`: a capacity model that estimates a schedule's spills, for the
//!   capacity-aware list schedules;
//! - `reorder/`: local search over the order of the ops (block moves and lifetime
//!   compressions), also the move set of problem 2's allocator search;
//! - `windows.rs`: list schedules led by an order of an L0 level's buffers.

mod cache;
pub(super) mod reorder;
pub mod schedule;
pub mod windows;
