//! `first-fit` as a sweep over time: buffers in birth order, each at the lowest
//! free address among the placed buffers still alive at its start.
//!
//! In birth order every placed buffer started at or before the one being placed,
//! so it overlaps it in time exactly when it has not ended before its start: the
//! buffers that stand in the way are those alive at that step. They all share
//! that step, so their ranges are disjoint, and they are kept as one list of
//! ranges by address, a buffer leaving it when the sweep passes its end. A
//! placement reads the list from address 0 up to the first gap that fits: the
//! same rule on the same ranges as the placement in any visit order
//! (`fit::place_in_order` over `busy::Busy`), so the same offsets
//! (`tests/fast_greedy.rs` holds `first-fit` to the plain scan), without its
//! tree over time.

use super::{align_up, PackOptions};
use crate::interference::birth_order;
use crate::liveness::Buffer;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Offsets by buffer index.
pub(super) fn first_fit(buffers: &[Buffer], opts: PackOptions) -> Vec<u64> {
    let mut offsets = vec![0u64; buffers.len()];
    let mut live = Live::default();
    // when each live buffer ends, and where it is
    let mut ends: BinaryHeap<Reverse<(u32, u64)>> = BinaryHeap::new();
    for i in birth_order(buffers) {
        let b = &buffers[i as usize];
        while let Some(&Reverse((end, from))) = ends.peek() {
            if end >= b.life.start {
                break;
            }
            ends.pop();
            live.remove(from);
        }
        let at = live.lowest(b.size, opts.align);
        offsets[i as usize] = at;
        // empty buffers never stand in anyone's way
        if b.size > 0 {
            live.insert((at, at + b.size));
            ends.push(Reverse((b.life.end, at)));
        }
    }
    offsets
}

/// Ranges of the list per block, for [`Live::widest`].
const BLOCK: usize = 32;

/// The live buffers' ranges by address (disjoint), and for each block of
/// [`BLOCK`] of them the widest gap just below one of its ranges, so that a
/// search for a gap passes a block with none wide enough in one step. A block's
/// widest gap is brought up to date when a search reaches it: only those below
/// the first range taken or freed since have it right.
#[derive(Default)]
struct Live {
    ranges: Vec<(u64, u64)>,
    widest: Vec<u64>,
    /// Blocks whose `widest` is right.
    known: usize,
}

impl Live {
    fn insert(&mut self, range: (u64, u64)) {
        let k = self.ranges.partition_point(|&(f, _)| f < range.0);
        self.ranges.insert(k, range);
        self.known = self.known.min(k / BLOCK);
    }

    /// Removes the range that begins at `from`.
    fn remove(&mut self, from: u64) {
        let k = self.ranges.partition_point(|&(f, _)| f < from);
        self.ranges.remove(k);
        self.known = self.known.min(k / BLOCK);
    }

    /// The lowest aligned offset for `size` bytes in a gap, else the aligned top:
    /// `fit::choose`'s `Lowest` rule on the ranges.
    fn lowest(&mut self, size: u64, align: u64) -> u64 {
        let mut cursor = 0u64;
        for (b, block) in self.ranges.chunks(BLOCK).enumerate() {
            if b < self.known && self.widest[b] < size.max(1) {
                // no gap here fits (a gap must be wide enough even unaligned)
                cursor = block[block.len() - 1].1;
                continue;
            }
            let mut widest = 0;
            for &(from, to) in block {
                let at = align_up(cursor, align);
                if from > cursor && at + size <= from {
                    return at;
                }
                widest = widest.max(from - cursor);
                cursor = to;
            }
            if b == self.known {
                self.widest.truncate(b);
                self.widest.push(widest);
                self.known = b + 1;
            }
        }
        align_up(cursor, align)
    }
}
