//! Problem 1: the peak bound ([`p1_bound`]): implied L0 edges, then the heaviest
//! clique of forced overlaps, and the tile grid's (see the `bounds` module's
//! documentation).

use super::dag::{alloc_reaches_free, case_edges, Bits, Dag};
use super::grid::tile_grid_bound;
use super::windows::window_bound;
use crate::case::{Case, Node};
use std::collections::HashSet;

/// The rounds of implied L0 edges tried before stopping (each adds only edges that
/// every valid schedule respects, so stopping early keeps the bound valid).
const IMPLIED_ROUNDS: usize = 32;

/// Adds to `edges` the orders the one-buffer-per-L0-level rule forces (step 1 of
/// Problem 1 above). `None` when they close a cycle: no valid schedule exists.
fn add_l0_orders(case: &Case, edges: &mut Vec<(u32, u32)>) -> Option<Dag> {
    let n = case.nodes.len();
    let mut known: HashSet<(u32, u32)> = edges.iter().copied().collect();
    let mut dag = Dag::new(n, edges)?;
    let normal = alloc_reaches_free(case, &dag);
    let per_level: Vec<Vec<usize>> = (0..case.levels.len())
        .filter(|&l| case.levels[l].name.starts_with("L0"))
        .map(|l| {
            (0..case.buffers.len())
                .filter(|&b| case.buffers[b].level.index() == l && normal[b])
                .collect()
        })
        .collect();
    for _ in 0..IMPLIED_ROUNDS {
        let mut added = Vec::new();
        for bufs in &per_level {
            for chunk in bufs.chunks(64) {
                let allocs: Vec<u32> = chunk.iter().map(|&a| case.buffers[a].alloc.0).collect();
                let w = dag.reach_from(&allocs);
                for (i, &a) in chunk.iter().enumerate() {
                    for &b in bufs {
                        let (ab, bb) = (&case.buffers[a], &case.buffers[b]);
                        // ALLOC(a) ⇝ FREE(b): a must end before b starts
                        if a != b
                            && w[bb.free.index()] >> i & 1 == 1
                            && known.insert((ab.free.0, bb.alloc.0))
                        {
                            added.push((ab.free.0, bb.alloc.0));
                        }
                    }
                }
            }
        }
        if added.is_empty() {
            break;
        }
        edges.extend(added);
        dag = Dag::new(n, edges)?;
    }
    Some(dag)
}

/// Seeds grown into cliques: this many heaviest node sets, and as many largest buffers.
const SEEDS: usize = 64;
/// Above this many L1/UB buffers the clique growth (a square bit matrix) is skipped
/// and only the per-node sets count.
const MAX_CLIQUE_BUFFERS: usize = 20_000;

/// A lower bound on the Problem 1 peak (L1 + UB) of every valid schedule of `case`:
/// the heaviest set of buffers found that must all be alive at once (see the
/// `bounds` module's documentation for the proof). `None` when no valid schedule exists,
/// when an L1/UB buffer's ALLOC does not reach its FREE, or when nothing is forced
/// (no L1/UB buffer has a size).
pub fn p1_bound(case: &Case) -> Option<u64> {
    let counted: Vec<bool> = case
        .levels
        .iter()
        .map(|l| l.name == "L1" || l.name == "UB")
        .collect();
    let mut edges = case_edges(case);
    let dag = add_l0_orders(case, &mut edges)?;
    let normal = alloc_reaches_free(case, &dag);
    let list: Vec<usize> = (0..case.buffers.len())
        .filter(|&b| counted[case.buffers[b].level.index()] && case.buffers[b].size > 0)
        .collect();
    if list.is_empty() || list.iter().any(|&b| !normal[b]) {
        return None;
    }
    let size = |i: usize| case.buffers[list[i]].size;
    let k = list.len();
    let n = case.nodes.len();
    // the weight of the buffers forced alive right after each node
    let mut weight = vec![0u64; n];
    for (c, chunk) in list.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
        let frees: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].free.0).collect();
        let (fw, bw) = (dag.reach_from(&allocs), dag.reach_to(&frees));
        for v in 0..n {
            let mut alive = fw[v] & bw[v];
            // a buffer's own FREE ends it
            if let Node::Free(b) = &case.nodes[v] {
                if let Some(i) = chunk.iter().position(|&x| x == b.index()) {
                    alive &= !(1u64 << i);
                }
            }
            while alive != 0 {
                let i = alive.trailing_zeros() as usize;
                alive &= alive - 1;
                weight[v] += size(c * 64 + i);
            }
        }
    }
    let mut best = weight.iter().copied().max().unwrap_or(0);
    if k <= MAX_CLIQUE_BUFFERS {
        best = best.max(grow_cliques(case, &dag, &list, &weight));
    }
    best = best.max(tile_grid_bound(case, &dag, &counted).unwrap_or(0));
    best = best.max(window_bound(case, &dag, &counted, &normal));
    (best > 0).then_some(best)
}

/// The heaviest clique of forced overlaps grown from the seeds (see the `bounds` module).
fn grow_cliques(case: &Case, dag: &Dag, list: &[usize], weight: &[u64]) -> u64 {
    let k = list.len();
    let size = |i: usize| case.buffers[list[i]].size;
    // before[a] holds b when ALLOC(a) ⇝ FREE(b)
    let mut before: Vec<Bits> = vec![Bits::new(k); k];
    for (c, chunk) in list.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
        let w = dag.reach_from(&allocs);
        for (i, row) in before[c * 64..c * 64 + chunk.len()].iter_mut().enumerate() {
            for (j, &b) in list.iter().enumerate() {
                if w[case.buffers[b].free.index()] >> i & 1 == 1 {
                    row.set(j);
                }
            }
        }
    }
    let mut overlap: Vec<Bits> = vec![Bits::new(k); k];
    for a in 0..k {
        for b in before[a].ones() {
            if a != b && before[b].get(a) {
                overlap[a].set(b);
            }
        }
    }
    // seeds: the sets forced across the heaviest nodes, then single large buffers
    let mut nodes: Vec<usize> = (0..weight.len()).filter(|&v| weight[v] > 0).collect();
    memplan::sort::by_key(&mut nodes, |&v| std::cmp::Reverse(weight[v]));
    nodes.truncate(SEEDS);
    let mut seeds: Vec<Vec<usize>> = Vec::new();
    if !nodes.is_empty() {
        let mut sets: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (c, chunk) in list.chunks(64).enumerate() {
            let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
            let frees: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].free.0).collect();
            let (fw, bw) = (dag.reach_from(&allocs), dag.reach_to(&frees));
            for (s, &v) in nodes.iter().enumerate() {
                for (i, &b) in chunk.iter().enumerate() {
                    let own_free = case.buffers[b].free.index() == v;
                    if (fw[v] & bw[v]) >> i & 1 == 1 && !own_free {
                        sets[s].push(c * 64 + i);
                    }
                }
            }
        }
        seeds.extend(sets);
    }
    let mut largest: Vec<usize> = (0..k).collect();
    memplan::sort::by_key(&mut largest, |&i| std::cmp::Reverse(size(i)));
    seeds.extend(largest.into_iter().take(SEEDS).map(|i| vec![i]));
    let mut best = 0;
    for seed in seeds {
        let mut open = Bits(vec![u64::MAX; k.div_ceil(64)]);
        let mut total = 0;
        for &m in &seed {
            open.and(&overlap[m]);
            total += size(m);
        }
        // members are not in their own overlap rows, so `open` excludes them
        loop {
            let pick = open.ones().filter(|&i| i < k).max_by_key(|&i| (size(i), i));
            let Some(p) = pick else { break };
            total += size(p);
            open.and(&overlap[p]);
        }
        best = best.max(total);
    }
    best
}
