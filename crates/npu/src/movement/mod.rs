//! Problem 2: offsets and spills with the least extra data movement.
//!
//! - `spill/`: the allocator, which places and spills along a given order;
//! - `tasks/`: orders searched at the level of tasks against a fast spill model;
//! - `respill.rs`: op orders searched against the allocator itself.

pub(super) mod respill;
pub mod spill;
pub(super) mod tasks;
