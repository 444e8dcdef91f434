//! Problem 2: offsets and spills on a given order of the original nodes.
//!
//! The allocator walks the order. An ALLOC places its buffer in its level; an op
//! first reloads any of its buffers that were spilled; a FREE of a spilled buffer
//! reloads it first (the rules put `SPILL_IN -> FREE`). When no gap fits, victims
//! leave for DDR one at a time until one does: a SPILL_OUT goes into the schedule
//! just before the node that needed the room, and the matching SPILL_IN just
//! before the buffer's next use. Buffers the current node uses are never victims.
//!
//! This module holds the plan and the allocator's state; `place` sets the allocator
//! up and drives it, `walk` is its step along the order, `victims` its choice of
//! what leaves, `uses` the next-use lists it reads, and `reuse` the repair of an
//! earlier placement that a search hands it.

mod place;
mod reuse;
mod uses;
mod victims;
mod walk;

pub use place::{place, place_reusing, place_within, Scratch};

use crate::case::{BufferId, Case, LevelId, Node, NodeId};
use memplan::Error;

/// Where a buffer goes among the free gaps of its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The lowest address that fits.
    First,
    /// The smallest gap that fits.
    Best,
}

/// Which resident buffer leaves when room is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// Furthest next use (Belady).
    Furthest,
    /// Furthest next use per unit of data moved: a COPY_IN buffer costs half.
    FurthestPerCost,
    /// The cheapest contiguous window: every resident buffer overlapping it leaves
    /// at once, the window chosen for the least data moved (ties: the latest next
    /// use among them). Aimed at levels fragmented around pinned buffers.
    Window,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillOptions {
    pub fit: Fit,
    pub victim: Victim,
}

/// One stay of a buffer in its level, between output positions `start..=end`
/// (ALLOC or SPILL_IN to SPILL_OUT or FREE).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    pub buffer: BufferId,
    pub offset: u64,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spill {
    pub buffer: BufferId,
    /// Output positions of SPILL_OUT and SPILL_IN.
    pub out_pos: u32,
    pub in_pos: u32,
    /// Offset the buffer is reloaded to.
    pub new_offset: u64,
    /// Data moved: `size`, or `2 * size` unless the buffer came from a COPY_IN.
    pub cost: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpuPlan {
    /// Node ids in order, spill nodes included (`N + 2k` out, `N + 2k + 1` in).
    pub schedule: Vec<NodeId>,
    /// First offset of each buffer (by [`BufferId`] index).
    pub offsets: Vec<u64>,
    pub spills: Vec<Spill>,
    pub residencies: Vec<Residency>,
}

impl NpuPlan {
    pub fn extra_movement(&self) -> u64 {
        self.spills.iter().map(|s| s.cost).sum()
    }

    /// The buffer of each spill, in spill order.
    pub fn spilled(&self) -> Vec<BufferId> {
        self.spills.iter().map(|s| s.buffer).collect()
    }
}

/// How a window ranks: the data it moves, then the soonest next use among its
/// buffers, later first.
type WindowKey = (u64, std::cmp::Reverse<u32>);

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unallocated,
    /// Resident; index of its open residency.
    Resident(usize),
    /// In DDR; index of its open spill.
    Spilled(usize),
    Freed,
}

struct Allocator<'a> {
    case: &'a Case,
    opts: SpillOptions,
    /// Per level: resident `(offset, size, buffer)`, sorted by offset.
    resident: Vec<Vec<(u64, u64, BufferId)>>,
    state: Vec<State>,
    next: NextUse,
    plan: NpuPlan,
    /// The data the spills so far move.
    moved: u64,
    trace: Trace,
    /// The victims of the decision being made.
    victims: Vec<BufferId>,
    /// A hash of the residents of every level ([`resident_hash`] of each, XORed).
    print: u64,
}

/// One resident's share of [`Allocator::print`]: XORed in when it settles and out
/// when it leaves, so equal resident sets hash alike whatever the way there.
fn resident_hash(level: usize, offset: u64, b: BufferId) -> u64 {
    let mut z = ((level as u64) << 48 ^ offset << 20 ^ b.index() as u64)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The next use of each buffer along the input order.
struct NextUse {
    /// Positions in the input order where each buffer is used (ops, then its
    /// FREE): those of buffer `b` are `uses[first[b]..first[b + 1]]`, increasing.
    uses: Vec<u32>,
    first: Vec<u32>,
    /// Index into `uses` of the next use of each buffer at or after the last
    /// position asked about (positions asked only grow).
    cursor: Vec<u32>,
}

impl NextUse {
    /// Input position of the next use of `b` at or after `i`.
    fn at(&mut self, b: BufferId, i: u32) -> u32 {
        let end = self.first[b.index() + 1];
        let c = &mut self.cursor[b.index()];
        while *c < end && self.uses[*c as usize] < i {
            *c += 1;
        }
        if *c < end {
            self.uses[*c as usize]
        } else {
            u32::MAX
        }
    }
}

/// What a placement decided that depends on more than the order so far: each
/// choice of victims, with what it was chosen from. A placement of an order
/// that shares a prefix with this one's starts where the first of these would
/// come out otherwise (see [`place_reusing`]).
#[derive(Default)]
pub struct Trace {
    /// Output position at which each input step began.
    step_at: Vec<u32>,
    /// [`Allocator::print`] as each input step began.
    prints: Vec<u64>,
    decisions: Vec<Decision>,
    /// The decisions' level lists, pinned buffers and victims, one after another.
    lists: Vec<(u64, u64, BufferId)>,
    pinned: Vec<BufferId>,
    victims: Vec<BufferId>,
}

/// One choice of victims: at input step `i`, room for `size` units in `level`,
/// whose residents were `lists[list]`, with `pinned[pinned]` staying; the
/// victims `victims[victims]`, in the order they left.
#[derive(Clone)]
struct Decision {
    i: u32,
    level: LevelId,
    size: u64,
    list: std::ops::Range<u32>,
    pinned: std::ops::Range<u32>,
    victims: std::ops::Range<u32>,
}

/// A plan and the trace of its placement.
pub struct Traced {
    pub plan: NpuPlan,
    trace: Trace,
    /// The input step the placement began at (0 unless taken over).
    from: usize,
    /// The input step from which the rest was the earlier placement's (the
    /// order's length when none was).
    joined: usize,
    /// The uses of every buffer along the order placed ([`NextUse`]'s `uses`
    /// and `first`), which the next placement takes over outside the span where
    /// the orders differ.
    uses: Vec<u32>,
    first: Vec<u32>,
}
