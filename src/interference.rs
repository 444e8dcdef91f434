//! The interference graph (buffers whose lifetimes share a step) and its greedy
//! colouring into pools, the register-allocation view of memory reuse.
//!
//! Colouring visits buffers in birth order (ties by declaration). A buffer takes a
//! free pool (one whose members are all dead) or opens a new one; among free pools
//! it takes the smallest at least as large as itself, else the largest (which grows
//! least). On an interval graph this uses exactly as many pools as the largest set
//! of buffers alive together. Each pool is as large as its largest member.

use crate::liveness::Buffer;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Colouring {
    /// Pool of each buffer, by buffer index.
    pub pool_of: Vec<u32>,
    /// Size of each pool: its largest member.
    pub pool_sizes: Vec<u64>,
    /// Buffer indices in the order they were coloured.
    pub visit: Vec<u32>,
}

impl Colouring {
    pub fn pools(&self) -> usize {
        self.pool_sizes.len()
    }

    /// Sum of pool sizes: the arena when pools are laid end to end.
    pub fn pooled_bytes(&self) -> u64 {
        self.pool_sizes
            .iter()
            .fold(0u64, |a, &b| a.saturating_add(b))
    }
}

/// Buffer indices sorted by birth, ties by index.
pub fn birth_order(buffers: &[Buffer]) -> Vec<u32> {
    // (start, index) in one word: unique keys, so an unstable sort gives the
    // stable order, and comparisons read no buffer
    let mut keys: Vec<u64> = buffers
        .iter()
        .zip(0u32..)
        .map(|(b, i)| u64::from(b.life.start) << 32 | u64::from(i))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| k as u32).collect()
}

pub fn colour(buffers: &[Buffer]) -> Colouring {
    let visit = birth_order(buffers);
    let mut pool_of = vec![0u32; buffers.len()];
    let mut pool_sizes: Vec<u64> = Vec::new();
    let mut busy: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new(); // (last step, pool)
                                                                       // Free pools as (size, pool): a pool's size only changes while it is taken.
    let mut free: BTreeSet<(u64, u32)> = BTreeSet::new();
    for &i in &visit {
        let b = &buffers[i as usize];
        while let Some(&Reverse((end, pool))) = busy.peek() {
            if end >= b.life.start {
                break;
            }
            busy.pop();
            free.insert((pool_sizes[pool as usize], pool));
        }
        let pool = match pick_free(&free, b.size) {
            Some(taken) => {
                free.remove(&taken);
                taken.1
            }
            None => {
                pool_sizes.push(0);
                pool_sizes.len() as u32 - 1
            }
        };
        pool_sizes[pool as usize] = pool_sizes[pool as usize].max(b.size);
        pool_of[i as usize] = pool;
        busy.push(Reverse((b.life.end, pool)));
    }
    Colouring {
        pool_of,
        pool_sizes,
        visit,
    }
}

/// The free pool to take: the smallest at least `size` bytes, else the largest;
/// ties go to the lowest pool number.
fn pick_free(free: &BTreeSet<(u64, u32)>, size: u64) -> Option<(u64, u32)> {
    if let Some(&fits) = free.range((size, 0)..).next() {
        return Some(fits);
    }
    let &(largest, _) = free.last()?;
    free.range((largest, 0)..).next().copied()
}

/// Edges `(a, b)`, `a < b`, between buffers whose lifetimes share a step; stops
/// after `limit` edges and says whether it did.
pub fn edges(buffers: &[Buffer], limit: usize) -> (Vec<(u32, u32)>, bool) {
    let order = birth_order(buffers);
    let mut out = Vec::new();
    let mut active: Vec<u32> = Vec::new();
    for &i in &order {
        let start = buffers[i as usize].life.start;
        active.retain(|&a| buffers[a as usize].life.end >= start);
        for &a in &active {
            if out.len() == limit {
                return (out, true);
            }
            out.push((a.min(i), a.max(i)));
        }
        active.push(i);
    }
    (out, false)
}

/// The largest number of buffers alive at one step (the clique number).
pub fn max_clique(buffers: &[Buffer]) -> usize {
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(buffers.len() * 2);
    for b in buffers {
        events.push((u64::from(b.life.start), 1));
        events.push((u64::from(b.life.end) + 1, -1));
    }
    events.sort_unstable(); // ends (-1) before starts at the same step
    let (mut live, mut best) = (0i64, 0i64);
    for (_, d) in events {
        live += i64::from(d);
        best = best.max(live);
    }
    best as usize
}
