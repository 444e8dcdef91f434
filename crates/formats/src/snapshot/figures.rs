//! What a snapshot says about memory: the live and reserved peaks, what was
//! reserved but unallocated at the reserved peak and the largest hole in it, and
//! what holds the memory at a step, grouped by allocating frame.

use super::segments::gaps;
use super::{Block, Snapshot};
use serde::Serialize;
use std::collections::HashMap;

/// The headline figures of a snapshot (the plan's come from the planner).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub device: u32,
    pub steps: u32,
    pub blocks: usize,
    pub segments: usize,
    /// Of the segments, those mapped into expandable segments and those of a
    /// private pool (a CUDA graph's, say).
    pub expandable_segments: usize,
    pub private_pool_segments: usize,
    /// Distinct frames and stacks.
    pub frames: usize,
    pub stacks: usize,
    /// Bytes of the blocks allocated before recording started (weights and inputs,
    /// when recording starts after they are on the device).
    pub before_recording: u64,
    /// The most bytes allocated at once (torch's `max_memory_allocated`) and when.
    pub live_peak: u64,
    pub live_peak_step: u32,
    /// The most bytes reserved at once (torch's `max_memory_reserved`) and when.
    pub reserved_peak: u64,
    pub reserved_peak_step: u32,
    /// Reserved minus allocated at the reserved peak.
    pub unused_at_reserved_peak: u64,
    /// The largest address range reserved but unallocated at the reserved peak.
    pub largest_gap_at_reserved_peak: u64,
    /// From the first entry to the last.
    pub duration_us: i64,
}

/// What one allocating frame holds at a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Holder {
    /// The innermost frame of the blocks' stacks (an index into
    /// [`Snapshot::frames`]); `None` for blocks recorded without a stack.
    pub frame: Option<u32>,
    pub bytes: u64,
    pub blocks: usize,
}

impl Snapshot {
    /// Allocated bytes at every step.
    pub fn live_bytes(&self) -> Vec<u64> {
        let n = self.steps as usize;
        let mut delta = vec![0i128; n + 1];
        for b in &self.blocks {
            delta[b.start as usize] += i128::from(b.size);
            delta[(b.end as usize + 1).min(n)] -= i128::from(b.size);
        }
        let mut at = 0i128;
        delta[..n]
            .iter()
            .map(|d| {
                at += d;
                at as u64
            })
            .collect()
    }

    /// Allocated bytes at `step`.
    pub fn live_at(&self, step: u32) -> u64 {
        self.alive(step).map(|b| b.size).sum()
    }

    /// Reserved bytes at `step`.
    pub fn reserved_at(&self, step: u32) -> u64 {
        at_step(&self.reserved, step)
    }

    fn alive(&self, step: u32) -> impl Iterator<Item = &Block> {
        (self.blocks.iter()).filter(move |b| b.start <= step && step <= b.end)
    }

    pub fn figures(&self) -> Figures {
        let live = self.live_bytes();
        let (live_peak_step, live_peak) = peak(live.iter().copied().enumerate());
        let (reserved_peak_step, reserved_peak) =
            peak(self.reserved.iter().map(|&(s, b)| (s as usize, b)));
        let at = reserved_peak_step as u32;
        let allocated = live.get(at as usize).copied().unwrap_or(0);
        Figures {
            device: self.device,
            steps: self.steps,
            blocks: self.blocks.len(),
            segments: self.segments.len(),
            expandable_segments: self.segments.iter().filter(|s| s.expandable).count(),
            private_pool_segments: self.segments.iter().filter(|s| s.pool.is_some()).count(),
            frames: self.frames.len(),
            stacks: self.stacks.len(),
            before_recording: (self.blocks.iter())
                .filter(|b| !b.allocated_in_trace)
                .map(|b| b.size)
                .sum(),
            live_peak,
            live_peak_step: live_peak_step as u32,
            reserved_peak,
            reserved_peak_step: at,
            unused_at_reserved_peak: reserved_peak.saturating_sub(allocated),
            largest_gap_at_reserved_peak: self.largest_gap(at),
            duration_us: self.time_us(self.steps.saturating_sub(1)),
        }
    }

    /// The largest reserved range without a block at `step`.
    pub fn largest_gap(&self, step: u32) -> u64 {
        let mut taken: Vec<(u64, u64)> = self
            .alive(step)
            .map(|b| (b.addr, b.addr + b.size))
            .collect();
        taken.sort_unstable();
        let live = |s: &&super::Segment| s.start <= step && step <= s.end;
        (self.segments.iter().filter(live))
            .flat_map(|s| {
                let (lo, hi) = (s.addr, s.addr + s.size);
                let first = taken.partition_point(|&(_, end)| end <= lo);
                let inside = taken[first..].iter().take_while(|&&(a, _)| a < hi).copied();
                gaps(lo, hi, inside.collect())
            })
            .map(|(_, size)| size)
            .max()
            .unwrap_or(0)
    }

    /// What is alive at `step`, grouped by the innermost frame of each block's
    /// stack, largest first.
    pub fn holders(&self, step: u32) -> Vec<Holder> {
        let mut by: HashMap<Option<u32>, (u64, usize)> = HashMap::new();
        for b in self.alive(step) {
            let frame = b
                .stack
                .and_then(|s| self.stacks[s as usize].first().copied());
            let e = by.entry(frame).or_default();
            e.0 += b.size;
            e.1 += 1;
        }
        let mut out: Vec<Holder> = (by.into_iter())
            .map(|(frame, (bytes, blocks))| Holder {
                frame,
                bytes,
                blocks,
            })
            .collect();
        out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.frame.cmp(&b.frame)));
        out
    }
}

/// The first maximum of `(step, bytes)`.
fn peak(values: impl Iterator<Item = (usize, u64)>) -> (usize, u64) {
    values.fold(
        (0, 0),
        |best, (s, b)| if b > best.1 { (s, b) } else { best },
    )
}

/// The value at `step` of a curve given at each change, `(step, value)` in step
/// order (0 before its first change).
pub fn at_step(curve: &[(u32, u64)], step: u32) -> u64 {
    let i = curve.partition_point(|&(s, _)| s <= step);
    i.checked_sub(1).map_or(0, |i| curve[i].1)
}

/// The first two blocks alive at once over the same bytes, said in words (entries
/// and addresses); `None` for a trace a real allocator could have made. A block is
/// taken from its `alloc` to just before its `free_completed`.
pub fn overlap(snap: &Snapshot) -> Option<String> {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};
    let mut order: Vec<usize> = (0..snap.blocks.len())
        .filter(|&i| snap.blocks[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (snap.blocks[i].start, i));
    let mut active: BTreeMap<u64, usize> = BTreeMap::new();
    let mut ends: BinaryHeap<Reverse<(u32, u64, usize)>> = BinaryHeap::new();
    let gone = |b: &Block| b.freed && b.end <= b.start;
    let say = |i: usize| {
        let b = &snap.blocks[i];
        let when = match b.allocated_in_trace {
            true => format!("allocated at entry {}", b.start),
            false => "alive before recording".to_string(),
        };
        format!("the block at address {} ({} B, {when})", b.addr, b.size)
    };
    for i in order {
        let b = &snap.blocks[i];
        while let Some(&Reverse((end, addr, j))) = ends.peek() {
            if end > b.start {
                break;
            }
            ends.pop();
            if active.get(&addr) == Some(&j) {
                active.remove(&addr);
            }
        }
        if gone(b) {
            continue;
        }
        let end = b.addr.saturating_add(b.size);
        let before = active.range(..=b.addr).next_back().map(|(_, &j)| j);
        let after = active.range(b.addr..end).next().map(|(_, &j)| j);
        for j in [before, after].into_iter().flatten() {
            let o = &snap.blocks[j];
            if o.addr < end && b.addr < o.addr.saturating_add(o.size) {
                return Some(format!("{} overlaps {}", say(i), say(j)));
            }
        }
        active.insert(b.addr, i);
        // a block the reader ended at a second alloc of its address ends there too
        let last = if b.freed || b.end + 1 < snap.steps {
            b.end
        } else {
            u32::MAX
        };
        ends.push(Reverse((last, b.addr, i)));
    }
    None
}
