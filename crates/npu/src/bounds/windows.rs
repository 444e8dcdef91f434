//! Problem 1 by the order of one L0 level's windows (`window_bound`; see the
//! `bounds` module's documentation, "the window order").

use super::dag::{Bits, Dag};
use crate::case::{Case, Node};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Work of one search (buffers looked at) before it stops with the value reached
/// (a bound all the same, see [`least_peak`]).
const SEARCH_WORK: usize = 12_000_000;
/// Selections of windows tried per level (by the largest buffers their ops use).
const SELECTIONS: usize = 4;
/// At most this many windows take part in one search.
const MAX_WINDOWS: usize = 512;

/// What one search knows of a counted buffer `b`: its size, the windows whose
/// FREE its ALLOC reaches (`start`: once one of them is done, `b` was
/// allocated) and those whose ALLOC reaches its FREE (`end`: while one of them
/// is to come, `b` is not freed).
struct Counted {
    size: u64,
    start: Bits,
    end: Bits,
}

/// The window bound over every L0 level (see the `bounds` module): 0 where no
/// level has two windows.
pub(super) fn window_bound(case: &Case, dag: &Dag, counted: &[bool], normal: &[bool]) -> u64 {
    let list: Vec<usize> = (0..case.buffers.len())
        .filter(|&b| counted[case.buffers[b].level.index()] && case.buffers[b].size > 0)
        .collect();
    let mut best = 0;
    for l in 0..case.levels.len() {
        if !case.levels[l].name.starts_with("L0") {
            continue;
        }
        let windows: Vec<usize> = (0..case.buffers.len())
            .filter(|&b| case.buffers[b].level.index() == l && normal[b])
            .collect();
        if windows.len() < 2 {
            continue;
        }
        best = best.max(level_bound(case, dag, &list, &windows));
    }
    best
}

/// The bound of one level's `windows` (its buffers whose ALLOC reaches their
/// FREE), counting the L1/UB buffers of `list`.
fn level_bound(case: &Case, dag: &Dag, list: &[usize], windows: &[usize]) -> u64 {
    let buf = |b: usize| &case.buffers[b];
    let k = list.len();
    // ALLOC(b) ⇝ FREE(x) per counted b and window x
    let mut start = vec![vec![false; windows.len()]; k];
    for (c, chunk) in list.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&b| buf(b).alloc.0).collect();
        let w = dag.reach_from(&allocs);
        for (i, row) in start[c * 64..c * 64 + chunk.len()].iter_mut().enumerate() {
            for (x, &wb) in windows.iter().enumerate() {
                row[x] = w[buf(wb).free.index()] >> i & 1 == 1;
            }
        }
    }
    // ALLOC(x) ⇝ FREE(b) per window x and counted b; ALLOC(y) ⇝ FREE(x) between
    // windows (y comes first); the ops of a window forced inside it
    let mut end = vec![vec![false; windows.len()]; k];
    let mut first = vec![vec![false; windows.len()]; windows.len()];
    let mut inside: Vec<Vec<usize>> = vec![Vec::new(); windows.len()];
    let ops_of = {
        let mut ops: HashMap<usize, Vec<usize>> = HashMap::new();
        for (v, node) in case.nodes.iter().enumerate() {
            if let Node::Op(op) = node {
                for b in &op.bufs {
                    ops.entry(b.index()).or_default().push(v);
                }
            }
        }
        ops
    };
    let frees: Vec<u32> = windows.iter().map(|&x| buf(x).free.0).collect();
    for (c, chunk) in windows.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&x| buf(x).alloc.0).collect();
        let w = dag.reach_from(&allocs);
        let to = dag.reach_to(&frees[c * 64..c * 64 + chunk.len()]);
        for (i, &x) in chunk.iter().enumerate() {
            let xi = c * 64 + i;
            for (j, &b) in list.iter().enumerate() {
                end[j][xi] = w[buf(b).free.index()] >> i & 1 == 1;
            }
            for (y, &yb) in windows.iter().enumerate() {
                if y != xi && w[buf(yb).free.index()] >> i & 1 == 1 {
                    first[y][xi] = true;
                }
            }
            for &u in ops_of.get(&x).into_iter().flatten() {
                if w[u] >> i & 1 == 1 && to[u] >> i & 1 == 1 {
                    inside[xi].push(u);
                }
            }
        }
    }
    // each op inside a window: the counted buffers forced alive across it
    // (`ALLOC(b) ⇝ u ⇝ FREE(b)`)
    let ops: Vec<usize> = inside.iter().flatten().copied().collect();
    let mut across: HashMap<usize, Vec<u32>> = ops.iter().map(|&u| (u, Vec::new())).collect();
    for (c, chunk) in list.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&b| buf(b).alloc.0).collect();
        let frees: Vec<u32> = chunk.iter().map(|&b| buf(b).free.0).collect();
        let (fw, bw) = (dag.reach_from(&allocs), dag.reach_to(&frees));
        for &u in &ops {
            let mut alive = fw[u] & bw[u];
            let into = across.get_mut(&u).expect("every op has its list");
            while alive != 0 {
                let i = alive.trailing_zeros();
                alive &= alive - 1;
                into.push((c * 64) as u32 + i);
            }
        }
    }
    // selections: the windows whose ops use one of the largest counted buffers
    let mut sizes: Vec<u64> = list.iter().map(|&b| buf(b).size).collect();
    memplan::sort::by_key(&mut sizes, |&s| Reverse(s));
    sizes.dedup();
    let mut best = 0;
    let mut last_count = 0;
    for &least in sizes.iter().take(SELECTIONS) {
        let chosen: Vec<usize> = (0..windows.len())
            .filter(|&x| {
                inside[x].iter().any(|&u| {
                    let Node::Op(op) = &case.nodes[u] else {
                        return false;
                    };
                    op.bufs.iter().any(|b| {
                        let nb = buf(b.index());
                        list.contains(&b.index()) && nb.size >= least
                    })
                })
            })
            .collect();
        if chosen.len() < 2 || chosen.len() == last_count || chosen.len() > MAX_WINDOWS {
            continue;
        }
        last_count = chosen.len();
        let project = |row: &[bool]| {
            let mut bits = Bits::new(chosen.len());
            for (x, &g) in chosen.iter().enumerate() {
                if row[g] {
                    bits.set(x);
                }
            }
            bits
        };
        let counted: Vec<Counted> = (0..k)
            .map(|j| Counted {
                size: buf(list[j]).size,
                start: project(&start[j]),
                end: project(&end[j]),
            })
            .collect();
        let preds: Vec<Bits> = chosen.iter().map(|&g| project(&first[g])).collect();
        let moments_of: Vec<Vec<&[u32]>> = chosen
            .iter()
            .map(|&g| inside[g].iter().map(|u| &across[u][..]).collect())
            .collect();
        best = best.max(least_peak(&counted, &preds, &moments_of));
    }
    best
}

/// The least, over the orders of the windows (each after its `preds`), of the
/// most bytes alive at a moment the argument sees: between two windows, and at
/// each op inside one (`moments`: the buffers forced alive across each). A
/// minimax search over the sets of windows done (each closed under `preds`), in
/// order of the value reached; stopped after [`SEARCH_WORK`], the value of the
/// set popped last is still a bound (every order passes through a set not yet
/// popped, whose value is at least that).
fn least_peak(counted: &[Counted], preds: &[Bits], moments: &[Vec<&[u32]>]) -> u64 {
    let n = preds.len();
    let words = n.div_ceil(64);
    let meets = |a: &Bits, s: &[u64]| a.0.iter().zip(s).any(|(x, y)| x & y != 0);
    let within = |a: &Bits, s: &[u64]| a.0.iter().zip(s).all(|(x, y)| x & !y == 0);
    let has = |s: &[u64], x: usize| s[x / 64] >> (x % 64) & 1 == 1;
    // per window, the buffers it may start (allocated before it ends) and end
    let mut starts_at: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut ends_at: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (j, c) in counted.iter().enumerate() {
        for x in c.start.ones().filter(|&x| x < n) {
            starts_at[x].push(j as u32);
        }
        for x in c.end.ones().filter(|&x| x < n) {
            ends_at[x].push(j as u32);
        }
    }
    // a state: the windows done, and the bytes alive between windows there
    let mut seen: HashMap<Vec<u64>, u64> = HashMap::new();
    let mut heap = BinaryHeap::new();
    let empty = vec![0u64; words];
    seen.insert(empty.clone(), 0);
    heap.push(Reverse((0u64, 0u64, empty)));
    let mut work = 0usize;
    let mut reached = 0;
    while let Some(Reverse((value, alive, s))) = heap.pop() {
        if seen.get(&s).is_some_and(|&v| v < value) {
            continue;
        }
        reached = value;
        if (0..n).all(|x| has(&s, x)) {
            return value;
        }
        if work > SEARCH_WORK {
            return reached;
        }
        for w in 0..n {
            work += words;
            if has(&s, w) || !within(&preds[w], &s) {
                continue;
            }
            let mut t = s.clone();
            t[w / 64] |= 1 << (w % 64);
            // alive at t; `kept`: alive both before w's ops and after w
            let (mut now, mut kept) = (alive, alive);
            for &j in &starts_at[w] {
                let c = &counted[j as usize];
                if !meets(&c.start, &s) && !within(&c.end, &t) {
                    now += c.size;
                }
            }
            for &j in &ends_at[w] {
                let c = &counted[j as usize];
                if meets(&c.start, &s) && within(&c.end, &t) {
                    now -= c.size;
                    kept -= c.size;
                }
            }
            let mut next = value.max(now);
            for across in &moments[w] {
                let extra: u64 = across
                    .iter()
                    .map(|&j| &counted[j as usize])
                    .filter(|c| !meets(&c.start, &s) || within(&c.end, &t))
                    .map(|c| c.size)
                    .sum();
                next = next.max(kept + extra);
                work += across.len();
            }
            work += starts_at[w].len() + ends_at[w].len() + 2 * words;
            if seen.get(&t).is_none_or(|&v| next < v) {
                seen.insert(t.clone(), next);
                heap.push(Reverse((next, now, t)));
            }
        }
    }
    reached
}
