//! Problem 1 orders led by the windows of a single-buffer level.
//!
//! In Problem 1 each L0 level holds one buffer at a time, so the buffers of one
//! such level (its *windows*: a buffer's lifetime, with the ops that use it) run
//! one after another in every schedule. An order of the windows leads a list
//! schedule ([`ranked_schedule`]): an op takes the place of the first window that
//! needs it (it is that window's op or an ancestor of one), and an op no window
//! needs the place of the last window it needs (so it runs as soon as its inputs
//! are made); ops that add no L1/UB bytes and open no L0 buffer run at once.
//!
//! The window order is *layered*: the windows that need no other window first,
//! then those that need only those, and so on, each layer in the case's order. On
//! attention-shaped graphs (a score window per query x key/value cell, whose
//! result feeds the cell's output windows) this runs every score window first,
//! keeping one small score tile per cell, then the output windows one key/value
//! column at a time: FlashAttention_Case0 peaks at 3,968 bytes this way, where the
//! other list schedules and the search from them stop at 4,498. Where the windows
//! are independent (tiled matmuls) the layered order is the case's own.
//!
//! The windows of a level are contracted into one node each; when that graph has
//! a cycle (no Problem 1 schedule runs them one at a time) the level gives no
//! order.

use super::schedule::{ranked_schedule, single_levels};
use crate::case::{Case, LevelId, Node, NodeId};

/// The layered window order of `case` with its recipe, led by the windows of its
/// coarsest single-buffer level ([`window_level`]); `None` when there is no such
/// level or its schedule fails.
pub fn window_order(case: &Case) -> Option<(Vec<NodeId>, String)> {
    let level = window_level(case)?;
    let rank = layered_ranks(case, level)?;
    let order = ranked_schedule(case, &rank).ok()?;
    let name = &case.level(level).name;
    Some((order, format!("{name} windows in layers")))
}

/// The single-buffer level with the fewest buffers, at least two (ties to the
/// first): the coarsest windows, those of the accumulator (L0C) on the contest's
/// cases, whose windows hold the L0A and L0B ones. The finer levels' orders were
/// never better there, and their schedules cost far more (2 s each on
/// Matmul_Case1, against 0.03 s for L0C's), most of it passing over ops that wait
/// for a level.
pub fn window_level(case: &Case) -> Option<LevelId> {
    let single = single_levels(case);
    let mut count = vec![0usize; case.levels.len()];
    for b in &case.buffers {
        count[b.level.index()] += 1;
    }
    (0..case.levels.len())
        .filter(|&l| single[l] && count[l] >= 2)
        .min_by_key(|&l| count[l])
        .map(LevelId::new)
}

/// The rank of every node when the windows of `level` run in layers (see the
/// module's notes); `None` when the level has fewer than two windows or its
/// windows cannot run one at a time.
pub fn layered_ranks(case: &Case, level: LevelId) -> Option<Vec<u32>> {
    let n = case.nodes.len();
    // the window of each node: the buffer of `level` an op uses, or the buffer an
    // ALLOC or FREE of that level makes or ends
    let windows: Vec<usize> = case
        .buffer_ids()
        .filter(|&b| case.buffer(b).level == level)
        .map(|b| b.index())
        .collect();
    if windows.len() < 2 {
        return None;
    }
    let mut window_of_buffer = vec![usize::MAX; case.buffers.len()];
    for (w, &b) in windows.iter().enumerate() {
        window_of_buffer[b] = w;
    }
    let window_of = |v: NodeId| -> Option<usize> {
        let w = match case.node(v) {
            Node::Alloc(b) | Node::Free(b) => window_of_buffer[b.index()],
            Node::Op(op) => op
                .bufs
                .iter()
                .map(|b| window_of_buffer[b.index()])
                .find(|&w| w != usize::MAX)?,
        };
        (w != usize::MAX).then_some(w)
    };
    // groups: windows 0..W, then one per other node
    let nw = windows.len();
    let group: Vec<usize> = case
        .node_ids()
        .map(|v| window_of(v).unwrap_or(nw + v.index()))
        .collect();
    let groups = nw + n;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); groups];
    for &(a, b) in &case.edges {
        let (ga, gb) = (group[a.index()], group[b.index()]);
        if ga != gb {
            succ[ga].push(gb);
        }
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    let mut indegree = vec![0u32; groups];
    for s in &succ {
        for &g in s {
            indegree[g] += 1;
        }
    }
    let mut topo: Vec<usize> = (0..groups).filter(|&g| indegree[g] == 0).collect();
    let mut k = 0;
    while k < topo.len() {
        let g = topo[k];
        k += 1;
        for &s in &succ[g] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                topo.push(s);
            }
        }
    }
    if topo.len() < groups {
        return None;
    }
    // layer of each window: the most windows on a path into it
    let mut above = vec![0u32; groups];
    for &g in &topo {
        let out = above[g] + u32::from(g < nw);
        for &s in &succ[g] {
            above[s] = above[s].max(out);
        }
    }
    // the case's order within a layer: the window's first node
    let mut first = vec![usize::MAX; nw];
    for v in case.node_ids() {
        if let Some(w) = window_of(v) {
            first[w] = first[w].min(v.index());
        }
    }
    let mut seq: Vec<usize> = (0..nw).collect();
    memplan::sort::by_key(&mut seq, |&w| (above[w], first[w]));
    let mut place = vec![0u32; nw];
    for (p, &w) in seq.iter().enumerate() {
        place[w] = p as u32;
    }
    Some(ranks(&succ, &topo, &place, &group))
}

/// The rank of every node, given each window's `place` in the window order: the
/// first place among the windows a group leads to (itself included), or, when it
/// leads to none, the last among those that lead to it.
fn ranks(succ: &[Vec<usize>], topo: &[usize], place: &[u32], group: &[usize]) -> Vec<u32> {
    let nw = place.len();
    let groups = succ.len();
    let own = |g: usize| (g < nw).then(|| place[g]);
    // first window needed, walking back
    let mut need: Vec<Option<u32>> = vec![None; groups];
    for &g in topo.iter().rev() {
        let mut best = own(g);
        for &s in &succ[g] {
            best = match (best, need[s]) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        need[g] = best;
    }
    // last window needed on the way in, walking forward
    let mut after: Vec<Option<u32>> = (0..groups).map(own).collect();
    for &g in topo {
        if let Some(a) = after[g] {
            for &s in &succ[g] {
                after[s] = Some(after[s].map_or(a, |b| b.max(a)));
            }
        }
    }
    group
        .iter()
        .map(|&g| need[g].or(after[g]).unwrap_or(0))
        .collect()
}
