//! PyTorch CUDA memory snapshots (`torch.cuda.memory._dump_snapshot`): the caching
//! allocator's trace of one device rebuilt as blocks at their real addresses,
//! segments over time, the reserved bytes and the `oom` moment, and the same
//! allocations as a [`Graph`] of buffers with fixed lifetimes for the planners.
//!
//! A step is a trace entry's index. A block lives from its `alloc` entry to the
//! `free_completed` entry of its address, both inclusive; a block allocated before
//! recording started (freed with no `alloc`, or active in the final `segments`
//! without one) lives from step 0, and one still allocated at the end lives to the
//! last step. Sizes are the allocator's: the request rounded up to 512 bytes, as
//! torch counts `max_memory_allocated`; the request is kept beside it.
//!
//! Frames are kept shared: each distinct frame once in [`Snapshot::frames`], each
//! distinct stack once in [`Snapshot::stacks`], and a block names its stack.

mod build;
mod entry;
mod figures;
mod layout;
mod range;
mod segments;
mod stream;
mod summary;
mod view;

pub use figures::{at_step, overlap, Figures, Holder};
pub use layout::{layout_at, regions, Region};
pub use range::Entries;
pub use stream::{read, read_source, read_stream};
pub use summary::{HolderAt, OomVerdict, Summary};
pub use view::Columns;

use memplan::error::Error;
use memplan::graph::{Graph, Role, Tensor};
use memplan::liveness::Lifetime;
use serde::Serialize;

/// The allocator's smallest block: every request is rounded up to a multiple.
pub const BLOCK_ROUND: u64 = 512;

/// One allocation of the program: a block of the caching allocator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    pub addr: u64,
    /// The block's bytes (the request rounded up to 512).
    pub size: u64,
    /// What the program asked for.
    pub requested: u64,
    pub stream: i64,
    /// The step of its `alloc` (0 when allocated before recording).
    pub start: u32,
    /// The step of its `free_completed` (the last step when never freed).
    pub end: u32,
    /// False when allocated before recording started.
    pub allocated_in_trace: bool,
    /// The step of its `free_requested`, when the program let go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_requested: Option<u32>,
    /// True when the trace frees it.
    pub freed: bool,
    /// Its stack: an index into [`Snapshot::stacks`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<u32>,
    /// The segment it lies in: an index into [`Snapshot::segments`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<u32>,
}

/// Memory reserved from the driver over a time range: a segment (`cudaMalloc`), or
/// a mapped range of an expandable segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Segment {
    pub addr: u64,
    pub size: u64,
    pub stream: i64,
    /// First and last step it is reserved (inclusive).
    pub start: u32,
    pub end: u32,
    /// Mapped into an expandable segment (`segment_map`), rather than allocated whole.
    pub expandable: bool,
    /// Its private pool (`segment_pool_id`), when not the default `(0, 0)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<(i64, i64)>,
    /// Of the small pool (`segment_type` `small`), when the final `segments` say;
    /// else guessed from its size (a small segment is 2 MiB, a small pool's page too).
    #[serde(skip)]
    pub small: bool,
}

/// One Python frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Frame {
    pub name: String,
    pub filename: String,
    pub line: i64,
}

/// An allocation that failed (an `oom` entry).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Oom {
    pub step: u32,
    /// The bytes requested.
    pub size: u64,
    /// What the driver said was free on the device.
    pub device_free: u64,
    /// Allocated (live) and reserved bytes at the failure.
    pub allocated: u64,
    pub reserved: u64,
    /// The stream of the request.
    #[serde(skip)]
    pub stream: i64,
}

/// What the allocator did to reserved memory at one trace entry: `segment_alloc`
/// (a `cudaMalloc`), `segment_free`, `segment_map` or `segment_unmap`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentEvent {
    pub step: u32,
    pub kind: SegmentAction,
    pub addr: u64,
    pub size: u64,
    pub stream: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentAction {
    Alloc,
    Free,
    Map,
    Unmap,
}

impl SegmentAction {
    /// True for the actions that add reserved bytes.
    pub fn adds(self) -> bool {
        matches!(self, SegmentAction::Alloc | SegmentAction::Map)
    }
}

/// The allocator's settings as the snapshot recorded them (`allocator_settings`,
/// torch 2.1 and later): each field as found, `None` where the key is absent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RecordedSettings {
    /// `PYTORCH_CUDA_ALLOC_CONF` as the run saw it.
    pub conf: Option<String>,
    pub expandable_segments: Option<bool>,
    /// Bytes; torch writes -1 (or 2^64 - 1) for no limit.
    pub max_split_size: Option<i128>,
    pub max_non_split_rounding_size: Option<i128>,
    pub garbage_collection_threshold: Option<f64>,
    /// `roundup_power2_divisions`: (interval start in MiB, divisions), as listed.
    pub roundup_power2_divisions: Option<Vec<(u64, u64)>>,
}

/// A snapshot's trace of one device, rebuilt.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Snapshot {
    pub device: u32,
    /// The number of trace entries of every device.
    pub devices: Vec<u32>,
    /// Trace entries on this device: the steps.
    pub steps: u32,
    /// The entry of the recorded trace that step 0 is: 0, or `A` of a part opened
    /// with `--entries A..B` ([`Snapshot::entries`]).
    #[serde(skip)]
    pub first: u32,
    /// Each entry's `time_us`.
    #[serde(skip)]
    pub times_us: Vec<i64>,
    pub blocks: Vec<Block>,
    pub segments: Vec<Segment>,
    pub frames: Vec<Frame>,
    /// Each distinct stack: frame indices, innermost first.
    pub stacks: Vec<Vec<u32>>,
    /// Reserved bytes from each step on, at each change: `(step, bytes)`.
    pub reserved: Vec<(u32, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oom: Option<Oom>,
    /// Every segment entry of the trace, in order: what the allocator really asked
    /// of the driver.
    #[serde(skip)]
    pub segment_events: Vec<SegmentEvent>,
    /// The allocator's settings, when the snapshot holds them.
    #[serde(skip)]
    pub settings: Option<RecordedSettings>,
    /// Every `oom` entry, `(step, bytes requested, stream)`: a program that catches
    /// the error goes on, and may fail again.
    #[serde(skip)]
    pub failed_requests: Vec<(u32, u64, i64)>,
    /// Two blocks alive at once over the same bytes, in words ([`overlap`]), when
    /// the trace has them: no allocator made it.
    #[serde(skip)]
    pub overlap: Option<String>,
    pub notes: Vec<String>,
}

/// True when `data` starts like a snapshot file: a pickle, or gzip (whose content
/// is checked when read).
pub fn is_snapshot(data: &[u8]) -> bool {
    crate::is_snapshot(data)
}

pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&[0x1f, 0x8b])
}

/// A request rounded up as the allocator does.
pub fn round(size: u64) -> u64 {
    size.max(1).div_ceil(BLOCK_ROUND) * BLOCK_ROUND
}

impl Snapshot {
    /// The blocks as buffers with fixed lifetimes, in block order: tensor `i` is
    /// block `i`.
    pub fn graph(&self, name: &str) -> Result<Graph, Error> {
        self.graph_with(name, None)
    }

    /// [`Snapshot::graph`] plus the failed request of the `oom` entry as a last
    /// buffer, live from the failure to the end: would a plan fit it?
    pub fn graph_with_request(&self, name: &str) -> Result<Option<Graph>, Error> {
        match &self.oom {
            Some(oom) => self.graph_with(name, Some(oom)).map(Some),
            None => Ok(None),
        }
    }

    fn graph_with(&self, name: &str, oom: Option<&Oom>) -> Result<Graph, Error> {
        let last = self.steps.saturating_sub(1);
        let buffer = |name: String, size: u64, start: u32, end: u32| Tensor {
            name,
            size,
            role: Role::Arena,
            level: None,
            lifetime: Some(Lifetime::new(start, end)),
        };
        let mut tensors: Vec<Tensor> = (self.blocks.iter().enumerate())
            .map(|(i, b)| buffer(format!("b{i}"), b.size, b.start, b.end))
            .collect();
        if let Some(oom) = oom {
            tensors.push(buffer(
                "failed request".into(),
                round(oom.size),
                oom.step,
                last.max(oom.step),
            ));
        }
        let mut graph = Graph::new(name.to_string(), tensors, Vec::new())?;
        graph.notes = self.notes.clone();
        Ok(graph)
    }

    /// The time of step `step` in microseconds from the first entry.
    pub fn time_us(&self, step: u32) -> i64 {
        let first = self.times_us.first().copied().unwrap_or(0);
        self.times_us.get(step as usize).map_or(0, |t| t - first)
    }

    /// The innermost frame of block `b`'s stack.
    pub fn top_frame(&self, b: &Block) -> Option<&Frame> {
        let stack = &self.stacks[b.stack? as usize];
        stack.first().map(|&f| &self.frames[f as usize])
    }
}
