//! The placed buffers whose lifetimes overlap a given buffer's, found without
//! scanning every placed buffer. A placed buffer `j` overlaps `i` when it starts
//! inside `i`'s lifetime (a range of starts, kept in a map) or starts before it and
//! covers its first step (a stabbing query on a segment tree over the steps).
//! Each query costs O(log n) plus the overlaps it reports.
//!
//! Only the reference placement (`place_in_order_scan` in `fit.rs`) lists them
//! now: the placement itself needs only the union of their ranges
//! (`busy.rs`), much shorter in a dense packing.

use crate::liveness::Buffer;
use std::collections::BTreeMap;

pub(super) struct Overlaps<'b> {
    buffers: &'b [Buffer],
    /// Placed buffers by start step.
    by_start: BTreeMap<u32, Vec<u32>>,
    /// Distinct start and end steps, sorted: the segment tree's leaves.
    steps: Vec<u32>,
    /// Bottom-up segment tree over `steps`: each placed buffer sits on the nodes
    /// that exactly cover its lifetime.
    tree: Vec<Vec<u32>>,
    leaves: usize,
}

impl<'b> Overlaps<'b> {
    pub(super) fn new(buffers: &'b [Buffer]) -> Overlaps<'b> {
        let mut steps: Vec<u32> = buffers
            .iter()
            .flat_map(|b| [b.life.start, b.life.end])
            .collect();
        steps.sort_unstable();
        steps.dedup();
        let leaves = steps.len().max(1).next_power_of_two();
        Overlaps {
            buffers,
            by_start: BTreeMap::new(),
            steps,
            tree: vec![Vec::new(); 2 * leaves],
            leaves,
        }
    }

    fn leaf(&self, step: u32) -> usize {
        self.steps.partition_point(|&s| s < step)
    }

    /// Records buffer `j` as placed.
    pub(super) fn insert(&mut self, j: u32) {
        let life = self.buffers[j as usize].life;
        self.by_start.entry(life.start).or_default().push(j);
        let (mut lo, mut hi) = (
            self.leaf(life.start) + self.leaves,
            self.leaf(life.end) + self.leaves + 1,
        );
        while lo < hi {
            if lo & 1 == 1 {
                self.tree[lo].push(j);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                self.tree[hi].push(j);
            }
            lo >>= 1;
            hi >>= 1;
        }
    }

    /// Calls `found` once for every placed buffer overlapping buffer `i`'s lifetime.
    pub(super) fn each(&self, i: u32, mut found: impl FnMut(u32)) {
        let life = self.buffers[i as usize].life;
        for list in self.by_start.range(life.start..=life.end).map(|(_, l)| l) {
            list.iter().for_each(|&j| found(j));
        }
        let mut node = self.leaf(life.start) + self.leaves;
        while node >= 1 {
            for &j in &self.tree[node] {
                if self.buffers[j as usize].life.start < life.start {
                    found(j);
                }
            }
            node >>= 1;
        }
    }
}
