//! Typed indices of an NPU case, made as the graph's `TensorId` and `OpId` are (by
//! `define_id!` in `src/id.rs`): a `u32` newtype each, compared and hashed as the
//! number, serialised as it, and turned back into a `Vec` index with `.index()`.
//!
//! - [`NodeId`]: a node of the schedule. `0..N` are the case's nodes (their ids in
//!   the files are exactly these), `N + 2k` and `N + 2k + 1` the SPILL_OUT and
//!   SPILL_IN of spill `k`.
//! - [`BufferId`]: the index of a buffer in [`Case::buffers`](super::Case). It is
//!   not the `BufId` of the files, an arbitrary number kept as
//!   [`NpuBuffer::buf_id`](super::NpuBuffer).
//! - [`LevelId`]: the index of a memory level in [`Case::levels`](super::Case).

use memplan::define_id;

define_id!(
    /// A node of the schedule: a case node (`0..N`) or a spill node (`N..`).
    NodeId
);

define_id!(
    /// Index of a buffer in `Case::buffers` (not its `BufId` in the files).
    BufferId
);

define_id!(
    /// Index of a memory level in `Case::levels`.
    LevelId
);
