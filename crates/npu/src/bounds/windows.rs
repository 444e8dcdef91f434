//! Problem 1 by the order of one L0 level's windows (`window_bound`; see the
//! `bounds` module's documentation, "the window order").

use super::dag::{Bits, Dag};
use crate::case::{Case, Node};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Work of one search (buffers looked at) before it stops with the value reached
/// (a bound all the same, see [`least_peak`]).
const SEARCH_WORK: usize = 12_000_000;
/// Work of all the searches of one bound together (the levels with the fewest
/// windows first).
const TOTAL_WORK: usize = 2 * SEARCH_WORK;
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
    /// Which sum of [`Sums`] the buffer adds to.
    class: usize,
    start: Bits,
    end: Bits,
}

/// Bytes alive per class of buffers (P1: one class; P2: per level, COPY_IN
/// buffers or not).
type Sums = [u64; 4];

/// A moment inside an item: the buffers forced alive across its op, and those
/// of them the op uses (resident there).
struct Moment {
    across: Vec<u32>,
    used: Vec<u32>,
}

/// The items one search orders: each with the node that starts it, the node that
/// ends it, and its ops (windows: ALLOC, FREE and the ops of the L0 buffer; a
/// single op: itself thrice).
struct Item {
    first: u32,
    last: u32,
    ops: Vec<usize>,
}

/// The window bound over every L0 level (see the `bounds` module): 0 where no
/// level has two windows.
pub(super) fn window_bound(case: &Case, dag: &Dag, counted: &[bool], normal: &[bool]) -> u64 {
    let list: Vec<usize> = (0..case.buffers.len())
        .filter(|&b| counted[case.buffers[b].level.index()] && case.buffers[b].size > 0)
        .collect();
    let mut levels: Vec<Vec<usize>> = (0..case.levels.len())
        .filter(|&l| case.levels[l].name.starts_with("L0"))
        .map(|l| {
            (0..case.buffers.len())
                .filter(|&b| case.buffers[b].level.index() == l && normal[b])
                .collect()
        })
        .filter(|w: &Vec<usize>| w.len() >= 2)
        .collect();
    memplan::sort::by_key(&mut levels, Vec::len);
    let mut best = 0;
    let mut budget = TOTAL_WORK;
    for windows in levels {
        let mut ops_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (v, node) in case.nodes.iter().enumerate() {
            if let Node::Op(op) = node {
                for b in &op.bufs {
                    ops_of.entry(b.index()).or_default().push(v);
                }
            }
        }
        let items: Vec<Item> = windows
            .iter()
            .map(|&x| Item {
                first: case.buffers[x].alloc.0,
                last: case.buffers[x].free.0,
                ops: ops_of.remove(&x).unwrap_or_default(),
            })
            .collect();
        let total = |alive: &Sums, _: &Sums| alive.iter().sum();
        let found = order_bound(case, dag, &list, &items, &|_| 0, &total, &mut budget);
        best = best.max(found);
    }
    best
}

/// The least, over the orders of `items` (totally ordered in every schedule,
/// each an interval of it), of the most `value` of the bytes of `list` alive at
/// a moment the argument sees (see the `bounds` module), the bytes summed per
/// `class` of buffer; `value` also gets the bytes of those the op uses.
fn order_bound(
    case: &Case,
    dag: &Dag,
    list: &[usize],
    items: &[Item],
    class: &dyn Fn(usize) -> usize,
    value: &dyn Fn(&Sums, &Sums) -> u64,
    budget: &mut usize,
) -> u64 {
    let windows = items;
    let buf = |b: usize| &case.buffers[b];
    let k = list.len();
    // ALLOC(b) ⇝ FREE(x) per counted b and window x
    let mut start = vec![vec![false; windows.len()]; k];
    for (c, chunk) in list.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|&b| buf(b).alloc.0).collect();
        let w = dag.reach_from(&allocs);
        for (i, row) in start[c * 64..c * 64 + chunk.len()].iter_mut().enumerate() {
            for (x, item) in windows.iter().enumerate() {
                row[x] = w[item.last as usize] >> i & 1 == 1;
            }
        }
    }
    // ALLOC(x) ⇝ FREE(b) per window x and counted b; ALLOC(y) ⇝ FREE(x) between
    // windows (y comes first); the ops of a window forced inside it
    let mut end = vec![vec![false; windows.len()]; k];
    let mut first = vec![vec![false; windows.len()]; windows.len()];
    let mut inside: Vec<Vec<usize>> = vec![Vec::new(); windows.len()];
    let frees: Vec<u32> = windows.iter().map(|x| x.last).collect();
    for (c, chunk) in windows.chunks(64).enumerate() {
        let allocs: Vec<u32> = chunk.iter().map(|x| x.first).collect();
        let w = dag.reach_from(&allocs);
        let to = dag.reach_to(&frees[c * 64..c * 64 + chunk.len()]);
        for (i, x) in chunk.iter().enumerate() {
            let xi = c * 64 + i;
            for (j, &b) in list.iter().enumerate() {
                end[j][xi] = w[buf(b).free.index()] >> i & 1 == 1;
            }
            for (y, other) in windows.iter().enumerate() {
                if y != xi && w[other.last as usize] >> i & 1 == 1 {
                    first[y][xi] = true;
                }
            }
            for &u in &x.ops {
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
    let moments: HashMap<usize, Moment> = across
        .into_iter()
        .map(|(u, across)| {
            let Node::Op(op) = &case.nodes[u] else {
                unreachable!("an item's ops are ops")
            };
            let used = (across.iter().copied())
                .filter(|&j| op.bufs.iter().any(|b| b.index() == list[j as usize]))
                .collect();
            (u, Moment { across, used })
        })
        .collect();
    // selections: the items whose ops use one of the largest counted buffers
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
                class: class(list[j]),
                start: project(&start[j]),
                end: project(&end[j]),
            })
            .collect();
        let preds: Vec<Bits> = chosen.iter().map(|&g| project(&first[g])).collect();
        let moments_of: Vec<Vec<&Moment>> = chosen
            .iter()
            .map(|&g| inside[g].iter().map(|u| &moments[u]).collect())
            .collect();
        best = best.max(least_peak(&counted, &preds, &moments_of, value, budget));
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
fn least_peak(
    counted: &[Counted],
    preds: &[Bits],
    moments: &[Vec<&Moment>],
    value: &dyn Fn(&Sums, &Sums) -> u64,
    budget: &mut usize,
) -> u64 {
    let limit = SEARCH_WORK.min(*budget);
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
    heap.push(Reverse((0u64, [0u64; 4], empty)));
    let mut work = 0usize;
    let mut reached = 0;
    while let Some(Reverse((got, alive, s))) = heap.pop() {
        if seen.get(&s).is_some_and(|&v| v < got) {
            continue;
        }
        reached = got;
        if (0..n).all(|x| has(&s, x)) {
            *budget -= work.min(*budget);
            return got;
        }
        if work > limit {
            *budget -= limit;
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
                    now[c.class] += c.size;
                }
            }
            for &j in &ends_at[w] {
                let c = &counted[j as usize];
                if meets(&c.start, &s) && within(&c.end, &t) {
                    now[c.class] -= c.size;
                    kept[c.class] -= c.size;
                }
            }
            let mut next = reached.max(value(&now, &[0; 4]));
            for m in &moments[w] {
                let mut at = kept;
                let in_kept = |c: &Counted| meets(&c.start, &s) && !within(&c.end, &t);
                for &j in &m.across {
                    let c = &counted[j as usize];
                    if !in_kept(c) {
                        at[c.class] += c.size;
                    }
                }
                let mut used = [0u64; 4];
                for &j in &m.used {
                    let c = &counted[j as usize];
                    used[c.class] += c.size;
                }
                next = next.max(value(&at, &used));
                work += m.across.len();
            }
            work += starts_at[w].len() + ends_at[w].len() + 2 * words;
            if seen.get(&t).is_none_or(|&v| next < v) {
                seen.insert(t.clone(), next);
                heap.push(Reverse((next, now, t)));
            }
        }
    }
    *budget -= work.min(*budget);
    reached
}

/// Problem 2 by the order of ops (see the `bounds` module, "the op order"): the
/// least, over the orders of the ops that use an L0 buffer and an L1/UB buffer,
/// of the most the L1/UB bytes alive at a moment exceed each level's capacity,
/// priced as the cheapest cover by whole-buffer spills (fractional: COPY_IN
/// bytes at 1, others at 2; the op's own buffers stay resident). 0 where no
/// order needs a spill.
pub(super) fn op_order_movement(case: &Case, dag: &Dag) -> u64 {
    let (Some(l1), Some(ub)) = (case.level_index("L1"), case.level_index("UB")) else {
        return 0;
    };
    let side = |b: usize| -> Option<usize> {
        let level = case.buffers[b].level;
        (level == l1).then_some(0).or((level == ub).then_some(1))
    };
    let list: Vec<usize> = (0..case.buffers.len())
        .filter(|&b| side(b).is_some() && case.buffers[b].size > 0)
        .collect();
    let l0 = |b: usize| {
        case.levels[case.buffers[b].level.index()]
            .name
            .starts_with("L0")
    };
    let items: Vec<Item> = (0..case.nodes.len())
        .filter(|&v| match &case.nodes[v] {
            Node::Op(op) => {
                op.bufs.iter().any(|b| l0(b.index()))
                    && op.bufs.iter().any(|b| side(b.index()).is_some())
            }
            _ => false,
        })
        .map(|v| Item {
            first: v as u32,
            last: v as u32,
            ops: vec![v],
        })
        .collect();
    if items.len() < 2 {
        return 0;
    }
    let class = |b: usize| 2 * side(b).unwrap_or(0) + usize::from(!case.buffers[b].copy_in);
    let caps = [l1, ub].map(|l| case.levels[l.index()].capacity);
    let cover = |alive: &Sums, used: &Sums| -> u64 {
        let mut cost = 0;
        for (s, &cap) in caps.iter().enumerate() {
            let (copied, other) = (alive[2 * s], alive[2 * s + 1]);
            let excess = (copied + other).saturating_sub(cap);
            // the units of COPY_IN buffers not used here go first, at 1 each
            let cheap = excess.min(copied - used[2 * s].min(copied));
            cost += cheap + 2 * (excess - cheap);
        }
        cost
    };
    let mut budget = TOTAL_WORK;
    order_bound(case, dag, &list, &items, &class, &cover, &mut budget)
}
