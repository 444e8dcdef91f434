//! Typed indices of an NPU case, in the style of the graph's `TensorId` and `OpId`:
//! a `u32` newtype each, compared and hashed as the number, serialised as it, and
//! turned back into a `Vec` index with `.index()`.
//!
//! - [`NodeId`]: a node of the schedule. `0..N` are the case's nodes (their ids in
//!   the files are exactly these), `N + 2k` and `N + 2k + 1` the SPILL_OUT and
//!   SPILL_IN of spill `k`.
//! - [`BufferId`]: the index of a buffer in [`Case::buffers`](super::Case). It is
//!   not the `BufId` of the files, an arbitrary number kept as
//!   [`NpuBuffer::buf_id`](super::NpuBuffer).
//! - [`LevelId`]: the index of a memory level in [`Case::levels`](super::Case).

/// Defines `pub struct $name(pub u32)`, an index newtype with `new` and `index`.
macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id of index `index`, which must fit in a `u32`.
            pub fn new(index: usize) -> $name {
                debug_assert!(u32::try_from(index).is_ok());
                $name(index as u32)
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

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
