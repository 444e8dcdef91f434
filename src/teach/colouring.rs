//! The greedy colouring one buffer at a time, with its reasons: which pools are busy
//! (and with which live member), which are free, which one the buffer takes or that
//! it opens a new one, and the running pool count and bytes.
//!
//! The pool each buffer takes is read from the core's own [`Colouring`]; the reasons
//! are rebuilt beside it, and the rule they imply ([`ColourMove::rule_pool`]) must
//! name the same pool (a test checks it on every corpus graph and on random graphs).

use crate::interference::Colouring;
use crate::liveness::Buffer;
use serde::{Deserialize, Serialize};

/// Why a buffer went where it went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PoolRule {
    /// The smallest free pool at least as large as the buffer.
    SmallestFit,
    /// No free pool was large enough: the largest free one, which grows.
    LargestFree,
    /// Every pool was busy (or there was none): a new pool.
    NewPool,
}

/// A pool as the buffer being coloured finds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolLook {
    pub pool: u32,
    /// The pool's size so far: its largest member.
    pub size: u64,
    /// The member still live at the buffer's first step (tensor id), if busy.
    pub busy_with: Option<u32>,
    /// Its last step, when busy.
    pub busy_until: Option<u32>,
}

/// One buffer coloured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColourMove {
    /// Tensor id of the buffer.
    pub tensor: u32,
    pub size: u64,
    pub start: u32,
    pub end: u32,
    /// Every pool opened before this buffer, in pool order.
    pub pools: Vec<PoolLook>,
    /// The pool the core's colouring gave the buffer.
    pub pool: u32,
    pub rule: PoolRule,
    /// The pool the rule picks from `pools`; equal to `pool` when the reasons are right.
    pub rule_pool: u32,
    /// The pool's size before and after, when the buffer makes it grow.
    pub grows: Option<(u64, u64)>,
    /// Pools after this move and their bytes in all.
    pub pools_after: u32,
    pub pooled_after: u64,
}

/// The colouring of `buffers` replayed in its visit order, one move per buffer.
pub fn trace(buffers: &[Buffer], colouring: &Colouring) -> Vec<ColourMove> {
    let mut sizes: Vec<u64> = Vec::new();
    // the latest member of each pool (buffer index)
    let mut last: Vec<u32> = Vec::new();
    let mut moves = Vec::with_capacity(buffers.len());
    for &i in &colouring.visit {
        let b = &buffers[i as usize];
        let pools: Vec<PoolLook> = (0..sizes.len())
            .map(|p| {
                let member = &buffers[last[p] as usize];
                let busy = member.life.end >= b.life.start;
                PoolLook {
                    pool: p as u32,
                    size: sizes[p],
                    busy_with: busy.then_some(member.tensor.0),
                    busy_until: busy.then_some(member.life.end),
                }
            })
            .collect();
        let (rule, rule_pool) = rule(&pools, b.size);
        let pool = colouring.pool_of[i as usize];
        let p = pool as usize;
        let existed = p < pools.len();
        if p == sizes.len() {
            sizes.push(0);
            last.push(i);
        }
        let before = sizes[p];
        sizes[p] = before.max(b.size);
        last[p] = i;
        moves.push(ColourMove {
            tensor: b.tensor.0,
            size: b.size,
            start: b.life.start,
            end: b.life.end,
            pools,
            pool,
            rule,
            rule_pool,
            grows: (existed && sizes[p] > before).then_some((before, sizes[p])),
            pools_after: sizes.len() as u32,
            pooled_after: sizes.iter().fold(0u64, |a, &s| a.saturating_add(s)),
        });
    }
    moves
}

/// The colouring rule over `pools` for a buffer of `size` bytes: the smallest free
/// pool at least as large, else the largest free one (lowest pool on ties), else new.
fn rule(pools: &[PoolLook], size: u64) -> (PoolRule, u32) {
    let free = pools.iter().filter(|p| p.busy_with.is_none());
    let fitting = free
        .clone()
        .filter(|p| p.size >= size)
        .min_by_key(|p| (p.size, p.pool));
    if let Some(p) = fitting {
        return (PoolRule::SmallestFit, p.pool);
    }
    match free.min_by_key(|p| (std::cmp::Reverse(p.size), p.pool)) {
        Some(p) => (PoolRule::LargestFree, p.pool),
        None => (PoolRule::NewPool, pools.len() as u32),
    }
}
