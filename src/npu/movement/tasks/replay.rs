//! The spill model of the task search: an access sequence replayed at the levels'
//! capacities with furthest-next-use eviction, counting the data it moves.

use super::super::super::case::{BufferId, Case};
use std::collections::BinaryHeap;

/// Data moved replaying `seq` with furthest-next-use eviction at `capacity`; a
/// buffer leaves for good after its last access.
pub(super) fn replay(
    case: &Case,
    capacity: &[u64],
    seq: &[BufferId],
    scratch: &mut Scratch,
) -> u64 {
    let Scratch {
        seq: _,
        next,
        later,
        resident,
        seen,
        heaps,
    } = scratch;
    next.clear();
    next.resize(seq.len(), u32::MAX);
    for &b in seq {
        later[b.index()] = u32::MAX;
        resident[b.index()] = NOT_RESIDENT;
        seen[b.index()] = false;
    }
    for p in (0..seq.len()).rev() {
        let b = seq[p].index();
        next[p] = later[b];
        later[b] = p as u32;
    }
    let mut used = vec![0u64; case.levels.len()];
    heaps.iter_mut().for_each(|h| h.clear());
    let mut limit = vec![STALE_LIMIT; heaps.len()];
    let mut moved = 0u64;
    for (p, &b) in seq.iter().enumerate() {
        let buf = case.buffer(b);
        let level = buf.level.index();
        if resident[b.index()] == NOT_RESIDENT {
            if std::mem::replace(&mut seen[b.index()], true) {
                moved += case.buffer(b).spill_cost();
            }
            while used[level] + buf.size > capacity[level] {
                let Some(entry) = heaps[level].pop() else {
                    break;
                };
                let (at, v) = ((entry >> 32) as u32, BufferId(entry as u32));
                if resident[v.index()] == at {
                    resident[v.index()] = NOT_RESIDENT;
                    used[level] -= case.buffer(v).size;
                }
            }
            used[level] += buf.size;
        }
        if next[p] == u32::MAX {
            resident[b.index()] = NOT_RESIDENT;
            used[level] -= buf.size;
        } else {
            resident[b.index()] = next[p];
            let heap = &mut heaps[level];
            heap.push((next[p] as u64) << 32 | u64::from(b.0));
            // drop stale entries now and then, so the heap stays near the residents
            if heap.len() > limit[level] {
                heap.retain(|&e| resident[BufferId(e as u32).index()] == (e >> 32) as u32);
                limit[level] = (2 * heap.len()).max(STALE_LIMIT);
            }
        }
    }
    moved
}

const NOT_RESIDENT: u32 = u32::MAX;

/// Entries a heap of [`replay`] may hold before its stale ones are dropped.
const STALE_LIMIT: usize = 1024;

/// Working memory of [`replay`], kept between calls.
pub(super) struct Scratch {
    /// The access sequence of [`Tasks::cost`](super::Tasks::cost).
    pub(super) seq: Vec<BufferId>,
    next: Vec<u32>,
    /// Per buffer: the next access while walking backwards.
    later: Vec<u32>,
    /// Per buffer: the next access while resident, else [`NOT_RESIDENT`].
    resident: Vec<u32>,
    seen: Vec<bool>,
    /// Per level: resident buffers by next access (stale entries skipped).
    /// Entries are `next access << 32 | buffer`.
    heaps: Vec<BinaryHeap<u64>>,
}

impl Scratch {
    pub(super) fn new(case: &Case) -> Scratch {
        let buffers = case.buffers.len();
        Scratch {
            seq: Vec::new(),
            next: Vec::new(),
            later: vec![u32::MAX; buffers],
            resident: vec![NOT_RESIDENT; buffers],
            seen: vec![false; buffers],
            heaps: vec![BinaryHeap::new(); case.levels.len()],
        }
    }
}
