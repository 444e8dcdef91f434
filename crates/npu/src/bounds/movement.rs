//! Problem 2: the movement bound ([`movement_bound`]): the overflow part here, the
//! larger of it and the reload bound of `reloads`.

use super::dag::{case_edges, Dag};
use super::reloads;
use crate::case::{BufferId, Case, Node};

/// A lower bound on the extra data movement of every valid Problem 2 (or 3) plan of
/// `case`: the largest, over the ops, of the cheapest cover of what the buffers
/// forced alive across the op exceed in each level (see the `bounds` module's
/// documentation). `None` when that is 0 everywhere, or when some op forces
/// more than can ever be resident (no valid plan).
pub fn movement_bound(case: &Case) -> Option<u64> {
    let dag = Dag::new(case.nodes.len(), &case_edges(case))?;
    let overflow = overflow_bound(case, &dag)?;
    let best = overflow
        .max(reloads::reload_bound(case, &dag).unwrap_or(0))
        .max(super::windows::op_order_movement(case, &dag));
    (best > 0).then_some(best)
}

/// The overflow part of [`movement_bound`]: 0 when no op forces more than a level
/// holds, `None` when some op forces more than can ever be resident.
fn overflow_bound(case: &Case, dag: &Dag) -> Option<u64> {
    let n = case.nodes.len();
    let mut cost = vec![0u64; n];
    for level in 0..case.levels.len() {
        let cap = case.levels[level].capacity;
        let bufs: Vec<usize> = (0..case.buffers.len())
            .filter(|&b| case.buffers[b].level.index() == level)
            .collect();
        // pass 1: the units that must be in the level or in DDR at each op
        let mut need = vec![0u64; n];
        let mut sets: Vec<(usize, Vec<u64>)> = Vec::new();
        let chunks: Vec<&[usize]> = bufs.chunks(64).collect();
        // each buffer of the level: its chunk and its bit there
        let mut place = vec![(usize::MAX, 0u32); case.buffers.len()];
        for (k, &b) in bufs.iter().enumerate() {
            place[b] = (k / 64, (k % 64) as u32);
        }
        for pass in 0..2 {
            for (c, chunk) in chunks.iter().enumerate() {
                let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
                let frees: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].free.0).collect();
                let (fw, bw) = (dag.reach_from(&allocs), dag.reach_to(&frees));
                let visit = |v: usize, mut word: u64| {
                    let Node::Op(op) = &case.nodes[v] else {
                        return 0u64;
                    };
                    for b in &op.bufs {
                        // used: resident at `v`, whether forced alive or not
                        let (at, bit) = place[b.index()];
                        if at == c {
                            word |= 1 << bit;
                        }
                    }
                    word
                };
                if pass == 0 {
                    for (v, need) in need.iter_mut().enumerate() {
                        let mut alive = visit(v, fw[v] & bw[v]);
                        while alive != 0 {
                            let i = alive.trailing_zeros() as usize;
                            alive &= alive - 1;
                            *need += case.buffers[chunk[i]].size;
                        }
                    }
                } else {
                    for (v, words) in sets.iter_mut() {
                        words[c] = visit(*v, fw[*v] & bw[*v]);
                    }
                }
            }
            if pass == 0 {
                sets = (0..n)
                    .filter(|&v| need[v] > cap)
                    .map(|v| (v, vec![0u64; chunks.len()]))
                    .collect();
                if sets.is_empty() {
                    break;
                }
            }
        }
        // pass 2 kept the sets of the ops where the level overflows
        for (v, words) in &sets {
            let Node::Op(op) = &case.nodes[*v] else {
                continue;
            };
            let mut items: Vec<(u64, u64)> = Vec::new();
            for (c, &word) in words.iter().enumerate() {
                for (i, &id) in chunks[c].iter().enumerate() {
                    if word >> i & 1 == 1 {
                        let b = &case.buffers[id];
                        if !op.bufs.contains(&BufferId::new(id)) && b.size > 0 {
                            items.push((b.size, b.spill_cost()));
                        }
                    }
                }
            }
            cost[*v] += cheapest_cover(&items, need[*v] - cap)?;
        }
    }
    Some(cost.into_iter().max().unwrap_or(0))
}

/// Above this many item-units the cover is bounded fractionally instead of exactly.
const EXACT_COVER: u64 = 4_000_000;

/// A lower bound on the least total cost of items `(size, cost)` whose sizes sum to
/// at least `excess` (exact by a knapsack when small enough; else the larger of the
/// fractional optimum and the cheapest single item). `None` when even all the
/// items fall short.
fn cheapest_cover(items: &[(u64, u64)], excess: u64) -> Option<u64> {
    if items.iter().map(|i| i.0).sum::<u64>() < excess {
        return None;
    }
    if excess == 0 {
        return Some(0);
    }
    if items.len() as u64 * excess <= EXACT_COVER {
        // best[j]: least cost of a subset holding at least j units
        let mut best = vec![u64::MAX; excess as usize + 1];
        best[0] = 0;
        for &(size, cost) in items {
            for j in (1..=excess as usize).rev() {
                let from = best[j.saturating_sub(size as usize)];
                if from != u64::MAX {
                    best[j] = best[j].min(from + cost);
                }
            }
        }
        return Some(best[excess as usize]);
    }
    let mut sorted: Vec<(u64, u64)> = items.to_vec();
    // cheapest per unit first; cost / size is 1 or 2, compared without division
    memplan::sort::by(&mut sorted, |a, b| (a.1 * b.0).cmp(&(b.1 * a.0)));
    let (mut left, mut fractional) = (excess, 0u64);
    for (size, cost) in sorted {
        let take = left.min(size);
        // a part of an item costs its share, rounded down
        fractional += cost * take / size;
        left -= take;
        if left == 0 {
            break;
        }
    }
    let single = items.iter().map(|i| i.1).min().unwrap_or(0);
    Some(fractional.max(single))
}
