//! A trace entry as the snapshot reader keeps it: 32 bytes, folded from the
//! entry's dict as the pickle is read (`build.rs`), replayed for the segments
//! (`segments.rs`) and the blocks.

/// One trace entry's fields, in 32 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    /// The address; for an `oom`, which has none, the bytes the device had free.
    pub addr: u64,
    pub size: u64,
    pub time_us: i64,
    /// The node of its frame list, or [`NO_FRAMES`].
    pub(super) frames: u32,
    /// An index into the reader's distinct streams.
    pub(super) stream: u16,
    pub action: Action,
}

pub(super) const NO_FRAMES: u32 = u32::MAX;

impl Entry {
    pub fn stream(&self) -> usize {
        self.stream as usize
    }

    pub fn frames(&self) -> Option<u32> {
        (self.frames != NO_FRAMES).then_some(self.frames)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Action {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Oom,
    Snapshot,
    #[default]
    Other,
}

impl Action {
    pub(super) fn from_name(name: &str) -> Action {
        match name {
            "alloc" => Action::Alloc,
            "free_requested" => Action::FreeRequested,
            "free_completed" => Action::FreeCompleted,
            "segment_alloc" => Action::SegmentAlloc,
            "segment_free" => Action::SegmentFree,
            "segment_map" => Action::SegmentMap,
            "segment_unmap" => Action::SegmentUnmap,
            "oom" => Action::Oom,
            "snapshot" => Action::Snapshot,
            _ => Action::Other,
        }
    }
}
