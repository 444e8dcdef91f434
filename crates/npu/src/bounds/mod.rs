//! Lower bounds for the three NPU problems (`docs/npu-scheduling.md`), computed from
//! the case alone (and, for Problem 3, the spills of a plan). They share no code
//! with the solvers: only the case model and std. Every bound is the value that
//! **every** valid result is proven to reach; where the argument gives nothing (a
//! bound of 0 or of no use) the functions say so with `None` instead of a number.
//!
//! All three rest on *forced orders*: if the graph has a path `x ⇝ y`, then `x`
//! comes before `y` in every topological order. Reachability is computed 64 sources
//! at a time, one bit per source in a word per node.
//!
//! # Problem 1: [`p1_bound`]
//!
//! In Problem 1 a buffer is alive from its ALLOC to its FREE, and at most one
//! buffer of each L0 level (name starting `L0`, as the checker reads it) is alive at
//! a time. Two steps:
//!
//! 1. *Implied edges.* For two buffers `a`, `b` of the same L0 level, their
//!    lifetimes must be disjoint: `FREE(a)` before `ALLOC(b)` or `FREE(b)` before
//!    `ALLOC(a)`. If `ALLOC(a) ⇝ FREE(b)`, the second is impossible, so every valid
//!    schedule has `FREE(a)` before `ALLOC(b)`: the edge `FREE(a) -> ALLOC(b)` may be
//!    added without losing a valid schedule. Edges are added until none is new (a
//!    cycle would mean no valid schedule exists, and then the bound is `None`).
//!    Only buffers whose ALLOC reaches their FREE take part (the others have no
//!    interval to reason about).
//! 2. *Forced overlaps.* Two L1/UB buffers `a`, `b` must overlap in every valid
//!    schedule when `ALLOC(a) ⇝ FREE(b)` and `ALLOC(b) ⇝ FREE(a)` (in the graph with
//!    the implied edges). Lifetimes are intervals of the order, and intervals that
//!    pairwise intersect share a point (Helly's property on a line): right after
//!    the latest of their ALLOCs, all of them are allocated and none is freed, so
//!    the measured L1+UB sum there is at least their total size. Any clique of the
//!    forced-overlap relation is therefore a lower bound. Seeds: the set of
//!    buffers forced alive across one node `v` (`ALLOC(b) ⪯ v ⇝ FREE(b)`), which is
//!    a clique, and single buffers; each is grown greedily by the largest buffer
//!    that overlaps all members. The bound is the heaviest clique found (any
//!    clique is valid; the search only decides how good it is).
//!
//! Assumes every L1/UB buffer's ALLOC reaches its FREE in the graph (true of the
//! contest cases: each buffer's users lie between them). If not, a FREE could run
//! before its ALLOC and the measured sum (which saturates at 0) has no such
//! bound: `None`.
//!
//! 3. *The tile grid* (matmul-like cases; `tile_grid_bound`). A *product* is an
//!    op with one L0C buffer (its *C tile*), one L0A and one L0B buffer; every
//!    other op that uses one of those L0A/L0B buffers brings tiles (its L1/UB
//!    buffers) in for that product. Checked on the graph, else no bound: each
//!    L0A/L0B buffer serves one product, `ALLOC(x) ⇝ W ⇝ M ⇝ FREE(x)` for such a
//!    buffer `x`, an op `W` bringing data into it and its product `M`;
//!    `ALLOC(c) ⇝ M ⇝ FREE(c)` for its C tile `c`; `ALLOC(t) ⇝ W ⇝ FREE(t)` for
//!    the tiles `t` of `W`. With one L0C buffer alive at a time, the C tiles are
//!    done one after the other, each product inside its C tile's life; with one
//!    L0A (L0B) buffer at a time, the windows `ALLOC(x)..FREE(x)` follow one
//!    another in the order of their products. So right after the last product
//!    `M` of the h-th C tile, every tile brought in for a C tile done by then was
//!    allocated (its `W` came before `M`), and every tile brought in for a later
//!    C tile is not yet freed (its `W` comes after the window of `M`'s L0A or L0B
//!    buffer, which ends after `M`). A tile needed on both sides is alive there.
//!
//!    When the C tiles form a grid (each tile's set of C tiles is a whole *row*
//!    or a whole *column*, every C tile in one row and one column, each row
//!    meeting each column in one C tile: `rows x cols`, as a tiled matmul's A
//!    tiles serve a row of C and its B tiles a column), the h C tiles done touch
//!    `a` rows and `b` columns with `a * b >= h`, of which at most `h / cols`
//!    rows and `h / rows` columns are whole: the others are *open*, and all
//!    their tiles alive. The bound is the largest over `h` of the least, over
//!    the possible `a`, of the open rows times a row's least tile bytes plus the
//!    open columns times a column's (Matmul_Case1: 16 x 16 C tiles, 16 tiles of
//!    128 per line: 20,480).
//!
//! # Problem 2: [`movement_bound`]
//!
//! Between its ALLOC and its FREE a buffer is either resident (in one residency,
//! ALLOC or SPILL_IN to SPILL_OUT or FREE) or in DDR (between a SPILL_OUT and its
//! SPILL_IN). At an op `v`, the buffers of a level `L` that must be alive there
//! (`ALLOC(b) ⇝ v ⇝ FREE(b)`), with the buffers `v` uses (resident by rule), hold
//! `need` units; the residencies spanning `v` have disjoint addresses inside the
//! level, so at least `need - capacity(L)` units of those buffers, none of them
//! used by `v`, are in DDR while `v` runs. Each such buffer is in one spill then,
//! a distinct spill per buffer, costing `size` (COPY_IN buffers) or `2 * size`.
//! The cheapest way to cover the excess, even fractionally (COPY_IN units first,
//! at 1 per unit, then others at 2), is a lower bound on the movement of the spills
//! in progress at `v`; levels hold distinct buffers, so their covers add up.
//! That *overflow* part is the largest such sum over the ops. It assumes nothing
//! about the case's structure. Fragmentation and the many points in time a plan
//! must cover are not counted, so it is weak: it does not see that tiles of a
//! matmul are reloaded, since no order is forced there. The bound is the larger
//! of it and the reload bound below, and `None` when both are 0 (then the only
//! bound known here is the trivial 0).
//!
//! *The reload bound* (matmul-like cases; `bounds/reloads.rs`), in the manner of
//! Hong and Kung's I/O bound for matrix products. Products as in Problem 1's tile
//! grid; here each product's L0A (L0B) buffer must be filled by exactly one other
//! op `W` that uses one other buffer, its A (B) tile, outside the L0 levels, and
//! the graph must give `ALLOC(x) ⇝ W ⇝ M ⇝ FREE(x)`, `ALLOC(t) ⇝ W ⇝ FREE(t)` and
//! `ALLOC(c) ⇝ M ⇝ FREE(c)`. Rows are the classes of A and C tiles joined by a
//! product, columns those of B and C tiles, depths those of A and B tiles; no
//! two products may share a row, column and depth (a tiled matmul's `(i, j, k)`).
//! Else no reload bound. The argument:
//! - An *arrival* of A/B data is the ALLOC or SPILL_IN of a tile, or the SPILL_IN
//!   of a product's L0A/L0B buffer; a C arrival the ALLOC or SPILL_IN of a C tile.
//!   Each tile's ALLOC is free; every other arrival is a spill, costing at least
//!   the least spill cost of those buffers (`size` for COPY_IN buffers, else
//!   `2 * size`).
//! - Cut the schedule into `n` segments of `t` A/B arrivals each (the last of at
//!   most `t`). A product `M` in a segment needs its L0A buffer resident: either
//!   it was resident at the segment's start, or it arrived in the segment, or it
//!   was allocated in it and then `W` ran in it too, with its tile resident, so
//!   the tile was resident at the start or arrived. The same for B, and its C tile
//!   was resident at the start or arrived. At the start at most `S` tiles and
//!   L0A/L0B buffers are resident (per level, capacity over the least size), and
//!   at most `c0` C tiles.
//! - So the products of a segment have at most `a + b <= S + t` distinct (row,
//!   depth) and (column, depth) pairs and `g <= c0 + arrivals` (row, column)
//!   pairs; by the Loomis-Whitney inequality they number at most
//!   `sqrt(a b g) <= (S + t) / 2 * sqrt(g)`, and at most `K g` (`K` products per
//!   C tile at most). Both are concave in `g`, so over the segments
//!   `P <= n min((S + t) / 2 * sqrt(G / n), K G / n)` with `G = n c0 + C + s`
//!   (`C` C tiles, `s` C spills), which gives the least `n`, hence at least
//!   `(n - 1) t + 1` A/B arrivals, all but one per tile a spill.
//! - Every `t` gives a bound for every plan (up to 256 sizes from 1 to `4 S` are
//!   tried); the bound is the least, over the counts of C spills, of their cost
//!   plus the reloads they leave. Matmul_Case1 (16 x 16 x 16 tiles, `S` = 32 L1
//!   tiles + 2 + 2): 118,400; the best plan moves 230,400. On small grids
//!   (Matmul_Case0's 8 x 8 x 8) it gives nothing: the constants of the argument
//!   outweigh the few reloads.
//!
//! # Problem 3: [`makespan_bound`]
//!
//! For a plan given by its schedule and the buffer of each spill (in spill order),
//! the pipe model of the rules: durations (ops their cycles, ALLOC/FREE 0,
//! SPILL_IN `2 * size + 150`, SPILL_OUT the same or 0 for a COPY_IN buffer), and the
//! case edges with the spill edges (`ALLOC -> SPILL_OUT -> SPILL_IN -> FREE` and each
//! user of the buffer, its ops and its earlier spill nodes, before SPILL_OUT or
//! after SPILL_IN by their positions). Address-reuse edges are left out: fewer
//! edges can only shorten the paths. Two bounds, the larger is returned:
//! - the critical path: a node starts after all its predecessors finish, so its
//!   finish is at least the heaviest path ending at it;
//! - per pipe, `min head + total + min tail`: a pipe runs its nodes one at a time,
//!   its first node cannot start before the longest path into it (head), and after
//!   its last node finishes the longest path out of it (tail) still has to run.
//!
//! With no spills ([`makespan_bound_any`]) the same is a bound on every plan of the
//! case, since a plan only adds nodes and edges.

mod reloads;

use super::case::{BufferId, Case, Node, NodeId, OpNode, Pipe};
use super::problem::Problem;
use std::collections::{HashMap, HashSet};

/// A DAG over `n` nodes in compressed form, with one topological order.
struct Dag {
    start: Vec<u32>,
    succ: Vec<u32>,
    topo: Vec<u32>,
}

impl Dag {
    /// `None` when the edges form a cycle.
    fn new(n: usize, edges: &[(u32, u32)]) -> Option<Dag> {
        let mut start = vec![0u32; n + 1];
        for &(a, _) in edges {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut succ = vec![0u32; edges.len()];
        let mut indegree = vec![0u32; n];
        for &(a, b) in edges {
            succ[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
            indegree[b as usize] += 1;
        }
        let mut topo: Vec<u32> = (0..n as u32)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut head = 0;
        while head < topo.len() {
            let v = topo[head] as usize;
            head += 1;
            for &s in &succ[start[v] as usize..start[v + 1] as usize] {
                indegree[s as usize] -= 1;
                if indegree[s as usize] == 0 {
                    topo.push(s);
                }
            }
        }
        (topo.len() == n).then_some(Dag { start, succ, topo })
    }

    fn succ(&self, v: usize) -> &[u32] {
        &self.succ[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// Bit `i` of word `v` is set when `sources[i] ⪯ v` (a path, or the node itself).
    fn reach_from(&self, sources: &[u32]) -> Vec<u64> {
        let mut w = vec![0u64; self.topo.len()];
        for (i, &s) in sources.iter().enumerate() {
            w[s as usize] |= 1 << i;
        }
        for &v in &self.topo {
            let bits = w[v as usize];
            if bits != 0 {
                for &s in self.succ(v as usize) {
                    w[s as usize] |= bits;
                }
            }
        }
        w
    }

    /// Bit `i` of word `v` is set when `v ⪯ targets[i]`.
    fn reach_to(&self, targets: &[u32]) -> Vec<u64> {
        let mut w = vec![0u64; self.topo.len()];
        for (i, &t) in targets.iter().enumerate() {
            w[t as usize] |= 1 << i;
        }
        for &v in self.topo.iter().rev() {
            let mut bits = w[v as usize];
            for &s in self.succ(v as usize) {
                bits |= w[s as usize];
            }
            w[v as usize] = bits;
        }
        w
    }
}

fn case_edges(case: &Case) -> Vec<(u32, u32)> {
    case.edges.iter().map(|&(a, b)| (a.0, b.0)).collect()
}

/// For each buffer, whether its ALLOC reaches its FREE in `dag`.
fn alloc_reaches_free(case: &Case, dag: &Dag) -> Vec<bool> {
    let mut out = vec![false; case.buffers.len()];
    let all: Vec<usize> = (0..case.buffers.len()).collect();
    for chunk in all.chunks(64) {
        let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
        let w = dag.reach_from(&allocs);
        for (i, &b) in chunk.iter().enumerate() {
            out[b] = w[case.buffers[b].free.index()] >> i & 1 == 1;
        }
    }
    out
}

/// A set of buffers (indices into a list) as bits.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn and(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |i| word >> i & 1 == 1)
                .map(move |i| w * 64 + i)
        })
    }
}

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
/// module's documentation for the proof). `None` when no valid schedule exists,
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
    (best > 0).then_some(best)
}

/// Whether `dag` has a path `u ⇝ v` for every pair: 64 sources at a time.
fn all_reach(dag: &Dag, pairs: &mut [(u32, u32)]) -> bool {
    memplan::sort::by(pairs, Ord::cmp);
    let mut sources: Vec<u32> = pairs.iter().map(|p| p.0).collect();
    sources.dedup();
    let mut at = 0;
    for chunk in sources.chunks(64) {
        let words = dag.reach_from(chunk);
        while let Some(&(u, v)) = pairs.get(at) {
            let Some(i) = chunk.iter().position(|&x| x == u) else {
                break;
            };
            if words[v as usize] >> i & 1 == 0 {
                return false;
            }
            at += 1;
        }
    }
    at == pairs.len()
}

/// A product op of a matmul-like case: the op, its C tile (L0C buffer) and its
/// L0A and L0B buffers.
type Product = (u32, BufferId, [BufferId; 2]);

/// The products of `case` (ops with one L0C, one L0A and one L0B buffer) and, per
/// buffer, the index of the product whose L0A or L0B buffer it is (`u32::MAX` for
/// none). `None` when the case has no L0 levels or no products, when an op uses
/// L0C otherwise than alone or as one product, or when an L0A/L0B buffer serves
/// two products.
fn find_products(case: &Case) -> Option<(Vec<Product>, Vec<u32>)> {
    let level = |name: &str| case.level_index(name).map(|l| l.index());
    let (l0a, l0b, l0c) = (level("L0A")?, level("L0B")?, level("L0C")?);
    let level_of = |b: BufferId| case.buffers[b.index()].level.index();
    let mut products: Vec<Product> = Vec::new();
    let mut product_of = vec![u32::MAX; case.buffers.len()];
    for (v, node) in case.nodes.iter().enumerate() {
        let Node::Op(op) = node else { continue };
        let of = |l: usize| op.bufs.iter().copied().filter(move |&b| level_of(b) == l);
        let (c, a, b) = (of(l0c).count(), of(l0a).count(), of(l0b).count());
        if c == 0 || (c == 1 && a == 0 && b == 0) {
            continue;
        }
        if c != 1 || a != 1 || b != 1 {
            return None;
        }
        let (a, b) = (of(l0a).next()?, of(l0b).next()?);
        for x in [a, b] {
            if product_of[x.index()] != u32::MAX {
                return None;
            }
            product_of[x.index()] = products.len() as u32;
        }
        products.push((v as u32, of(l0c).next()?, [a, b]));
    }
    (!products.is_empty()).then_some((products, product_of))
}

/// The ops that bring data into the products' L0A/L0B buffers: `(op index, the
/// op, the buffer, its product's index)`, for every such use by an op other than
/// the product itself.
fn fills<'c>(
    case: &'c Case,
    products: &'c [Product],
    product_of: &'c [u32],
) -> impl Iterator<Item = (u32, &'c OpNode, BufferId, usize)> + 'c {
    let ops = case
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(v, node)| match node {
            Node::Op(op) => Some((v as u32, op)),
            _ => None,
        });
    ops.flat_map(move |(v, op)| {
        op.bufs.iter().filter_map(move |&x| {
            let p = product_of[x.index()];
            (p != u32::MAX && products[p as usize].0 != v).then_some((v, op, x, p as usize))
        })
    })
}

/// The tile-grid bound of Problem 1 (see the module): `None` when the case is
/// not a grid of products, or the bound is 0.
fn tile_grid_bound(case: &Case, dag: &Dag, counted: &[bool]) -> Option<u64> {
    let level_of = |b: BufferId| case.buffers[b.index()].level.index();
    let (products, product_of) = find_products(case)?;
    // the C tiles, numbered; each tile's set of C tiles (those whose products
    // take it in through an L0A or L0B buffer); the paths the argument needs
    let mut tile_no = vec![u32::MAX; case.buffers.len()];
    let mut tiles = 0u32;
    for &(_, c, _) in &products {
        if tile_no[c.index()] == u32::MAX {
            tile_no[c.index()] = tiles;
            tiles += 1;
        }
    }
    let mut sets: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let free = |b: BufferId| case.buffers[b.index()].free.0;
    for (v, op, x, p) in fills(case, &products, &product_of) {
        // `v` brings data into x for product p: ALLOC(x) ⇝ v ⇝ M ⇝ FREE(x)
        let (m, c, _) = products[p];
        let x_alloc = case.buffers[x.index()].alloc.0;
        pairs.extend([(x_alloc, v), (v, m), (m, free(x))]);
        for &t in &op.bufs {
            if counted[level_of(t)] && case.buffers[t.index()].size > 0 {
                // ALLOC(t) ⇝ v ⇝ FREE(t)
                pairs.extend([(case.buffers[t.index()].alloc.0, v), (v, free(t))]);
                sets[t.index()].push(tile_no[c.index()]);
            }
        }
    }
    for &(m, c, _) in &products {
        pairs.extend([(case.buffers[c.index()].alloc.0, m), (m, free(c))]);
    }
    // the grid: every C tile in exactly one row and one column, each row meeting
    // each column in exactly one C tile
    let mut lines: Vec<Vec<u32>> = Vec::new();
    let mut line_no: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut line_of = vec![usize::MAX; case.buffers.len()];
    for (t, set) in sets.iter_mut().enumerate() {
        if set.is_empty() {
            continue;
        }
        memplan::sort::by(set, Ord::cmp);
        set.dedup();
        line_of[t] = *line_no
            .entry(std::mem::take(set))
            .or_insert_with_key(|set| {
                lines.push(set.clone());
                lines.len() - 1
            });
    }
    let mut two = vec![Vec::new(); tiles as usize];
    for (k, line) in lines.iter().enumerate() {
        for &c in line {
            two[c as usize].push(k);
        }
    }
    if two.iter().any(|l| l.len() != 2) {
        return None;
    }
    // rows and columns: the two lines of a C tile are of different kinds
    let mut kind = vec![u8::MAX; lines.len()];
    for start in 0..lines.len() {
        if kind[start] != u8::MAX {
            continue;
        }
        kind[start] = 0;
        let mut stack = vec![start];
        while let Some(k) = stack.pop() {
            for &c in &lines[k] {
                let other = two[c as usize][usize::from(two[c as usize][0] == k)];
                if kind[other] == u8::MAX {
                    kind[other] = 1 - kind[k];
                    stack.push(other);
                } else if kind[other] == kind[k] {
                    return None;
                }
            }
        }
    }
    let rows = kind.iter().filter(|&&k| k == 0).count() as u64;
    let cols = lines.len() as u64 - rows;
    let mut cells: Vec<(usize, usize)> = two
        .iter()
        .map(|l| (l[0].min(l[1]), l[0].max(l[1])))
        .collect();
    memplan::sort::by(&mut cells, Ord::cmp);
    cells.dedup();
    if rows * cols != u64::from(tiles) || cells.len() as u64 != u64::from(tiles) {
        return None;
    }
    // the bytes of each line's tiles; the least of a row's, of a column's
    let mut bytes = vec![0u64; lines.len()];
    for (t, &k) in line_of.iter().enumerate() {
        if k != usize::MAX {
            bytes[k] += case.buffers[t].size;
        }
    }
    let least = |want: u8| {
        (0..lines.len())
            .filter(|&k| kind[k] == want)
            .map(|k| bytes[k])
            .min()
            .unwrap_or(0)
    };
    let (row_bytes, col_bytes) = (least(0), least(1));
    if !all_reach(dag, &mut pairs) {
        return None;
    }
    let best = open_lines_bound(rows, cols, row_bytes, col_bytes);
    (best > 0).then_some(best)
}

/// The largest, over the counts `h` of C tiles done, of the least bytes of the
/// lines open then: `rows` x `cols` C tiles, at least `row_bytes` per row and
/// `col_bytes` per column (see the module). At most [`GRID_STEPS`] counts are
/// tried, spread evenly (any of them is a bound).
fn open_lines_bound(rows: u64, cols: u64, row_bytes: u64, col_bytes: u64) -> u64 {
    let cells = rows * cols;
    let stride = (cells * rows / GRID_STEPS).max(1);
    let mut best = 0;
    let mut h = 1;
    while h < cells {
        // `a` rows and `b` columns touched hold the h done: a * b >= h
        let least = (h.div_ceil(cols)..=rows.min(h))
            .map(|a| {
                let b = h.div_ceil(a);
                row_bytes * a.saturating_sub(h / cols) + col_bytes * b.saturating_sub(h / rows)
            })
            .min()
            .unwrap_or(0);
        best = best.max(least);
        h += stride;
    }
    best
}

/// Work of [`open_lines_bound`]: counts of C tiles times rows tried.
const GRID_STEPS: u64 = 20_000_000;

/// The heaviest clique of forced overlaps grown from the seeds (see above).
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

/// A lower bound on the extra data movement of every valid Problem 2 (or 3) plan of
/// `case`: the largest, over the ops, of the cheapest cover of what the buffers
/// forced alive across the op exceed in each level (see the module's
/// documentation). `None` when that is 0 everywhere, or when some op forces more
/// than can ever be resident (no valid plan).
pub fn movement_bound(case: &Case) -> Option<u64> {
    let dag = Dag::new(case.nodes.len(), &case_edges(case))?;
    let overflow = overflow_bound(case, &dag)?;
    let best = overflow.max(reloads::reload_bound(case, &dag).unwrap_or(0));
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

/// The two parts of a Problem 3 bound, and the larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakespanBound {
    /// The heaviest path of the dependencies (case and spill edges).
    pub critical_path: u64,
    /// The largest, over the pipes, of least head + total cycles + least tail.
    pub busiest_pipe: u64,
    /// That pipe (`None` when no node runs on a pipe).
    pub pipe: Option<Pipe>,
}

impl MakespanBound {
    pub fn value(&self) -> u64 {
        self.critical_path.max(self.busiest_pipe)
    }
}

/// Cycles of a spill transfer of `size` units, by the rules.
fn transfer(size: u64) -> u64 {
    2 * size + 150
}

/// A lower bound on the makespan of the plan whose schedule is `schedule` (node
/// ids, spill nodes `N + 2k` and `N + 2k + 1` included) and whose `k`-th spill moves
/// `spilled[k]` (see the module's documentation). A node missing from the schedule
/// only loses the spill edges its position decides.
pub fn makespan_bound(case: &Case, schedule: &[NodeId], spilled: &[BufferId]) -> MakespanBound {
    let n = case.nodes.len();
    let total = n + 2 * spilled.len();
    let mut pos: Vec<Option<usize>> = vec![None; total];
    for (p, id) in schedule.iter().enumerate() {
        if let Some(slot) = pos.get_mut(id.index()) {
            slot.get_or_insert(p);
        }
    }
    let mut duration = vec![0u64; total];
    let mut pipe: Vec<Option<Pipe>> = vec![None; total];
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
    for (v, node) in case.nodes.iter().enumerate() {
        if let Node::Op(op) = node {
            duration[v] = op.cycles;
            pipe[v] = Some(op.pipe);
            for &b in &op.bufs {
                if users[b.index()].last() != Some(&(v as u32)) {
                    users[b.index()].push(v as u32);
                }
            }
        }
    }
    let mut edges = case_edges(case);
    for (k, &b) in spilled.iter().enumerate() {
        let buf = case.buffer(b);
        let (out, back) = ((n + 2 * k) as u32, (n + 2 * k + 1) as u32);
        duration[out as usize] = if buf.copy_in { 0 } else { transfer(buf.size) };
        duration[back as usize] = transfer(buf.size);
        pipe[out as usize] = Some(Pipe::Mte3);
        pipe[back as usize] = Some(Pipe::Mte2);
        edges.extend([(buf.alloc.0, out), (out, back), (back, buf.free.0)]);
        if let Some(out_at) = pos[out as usize] {
            for &u in &users[b.index()] {
                match pos[u as usize] {
                    Some(at) if at < out_at => edges.push((u, out)),
                    Some(_) => edges.push((back, u)),
                    None => {}
                }
            }
        }
        users[b.index()].extend([out, back]);
    }
    // a plan whose edges close a cycle has no timing; keep the case's alone then
    let dag = Dag::new(total, &edges)
        .unwrap_or_else(|| Dag::new(total, &case_edges(case)).expect("the case is acyclic"));
    // head: longest path finishing before the node starts; tail: after it finishes
    let mut head = vec![0u64; total];
    for &v in &dag.topo {
        let done = head[v as usize] + duration[v as usize];
        for &s in dag.succ(v as usize) {
            head[s as usize] = head[s as usize].max(done);
        }
    }
    let mut tail = vec![0u64; total];
    for &v in dag.topo.iter().rev() {
        tail[v as usize] = dag
            .succ(v as usize)
            .iter()
            .map(|&s| tail[s as usize] + duration[s as usize])
            .max()
            .unwrap_or(0);
    }
    let critical_path = (0..total)
        .map(|v| head[v] + duration[v] + tail[v])
        .max()
        .unwrap_or(0);
    let mut bound = MakespanBound {
        critical_path,
        busiest_pipe: 0,
        pipe: None,
    };
    for p in Pipe::ALL {
        let on: Vec<usize> = (0..total).filter(|&v| pipe[v] == Some(p)).collect();
        if on.is_empty() {
            continue;
        }
        let busy: u64 = on.iter().map(|&v| duration[v]).sum();
        let first = on.iter().map(|&v| head[v]).min().unwrap_or(0);
        let last = on.iter().map(|&v| tail[v]).min().unwrap_or(0);
        if first + busy + last > bound.busiest_pipe || bound.pipe.is_none() {
            bound.busiest_pipe = first + busy + last;
            bound.pipe = Some(p);
        }
    }
    bound
}

/// A lower bound on the makespan of every plan of `case`: [`makespan_bound`] with
/// no spills (spills only add nodes, cycles and edges).
pub fn makespan_bound_any(case: &Case) -> MakespanBound {
    let order: Vec<NodeId> = case.node_ids().collect();
    makespan_bound(case, &order, &[])
}

/// The lower bounds that go beside a result of one problem, `None` where none is
/// useful: a Problem 1 schedule's peak; a placed plan's movement and makespan.
/// The one rule of which bound goes with which problem, for every front end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    pub p1_peak: Option<u64>,
    pub extra_movement: Option<u64>,
    pub makespan: Option<MakespanBound>,
}

impl Bounds {
    /// The bounds of `problem` that hold for every plan of `case` (Problem 3's
    /// whatever the spills).
    pub fn of(case: &Case, problem: Problem) -> Bounds {
        if !problem.places() {
            return Bounds {
                p1_peak: p1_bound(case),
                ..Bounds::default()
            };
        }
        Bounds {
            p1_peak: None,
            extra_movement: movement_bound(case),
            makespan: Some(makespan_bound_any(case)).filter(|b| b.value() > 0),
        }
    }

    /// The same beside one plan (its `schedule`, and `spilled[k]` the buffer of
    /// its `k`-th spill): Problem 3's bound counts that plan's spills, so it is
    /// tighter, but it holds for that plan only.
    pub fn of_plan(
        case: &Case,
        problem: Problem,
        schedule: &[NodeId],
        spilled: &[BufferId],
    ) -> Bounds {
        if !problem.places() {
            return Bounds::of(case, problem);
        }
        Bounds {
            p1_peak: None,
            extra_movement: movement_bound(case),
            makespan: Some(makespan_bound(case, schedule, spilled)).filter(|b| b.value() > 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{default_levels, RawNode};

    /// Hand-counted grids: in 2 x 2, one C tile done leaves its row and its
    /// column open (and three leave the other two); a single row stays open
    /// from its first C tile to its last, the columns each done at once.
    #[test]
    fn open_lines_of_small_grids() {
        assert_eq!(open_lines_bound(2, 2, 1, 1), 2);
        assert_eq!(open_lines_bound(2, 2, 10, 1), 11);
        assert_eq!(open_lines_bound(1, 3, 5, 7), 5);
        assert_eq!(open_lines_bound(1, 1, 5, 7), 0);
    }

    fn raw(id: u64, op: &str, buf: Option<(u64, u64, &str)>, bufs: &[u64]) -> RawNode {
        RawNode {
            id,
            op: op.to_string(),
            buf_id: buf.map(|b| b.0),
            size: buf.map(|b| b.1),
            level: buf.map(|b| b.2.to_string()),
            pipe: (op != "ALLOC" && op != "FREE").then(|| "VECTOR".to_string()),
            cycles: Some(10),
            bufs: bufs.to_vec(),
        }
    }

    /// Buffers 0, 1, 2 of L1 with an op `o_pq` after ALLOC(p) and before FREE(q)
    /// for every pair: no node has more than one buffer forced across it, but each
    /// pair must overlap, so all three are alive together (Helly).
    #[test]
    fn pairwise_forced_overlaps_add_up() {
        let sizes = [100u64, 200, 300];
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for (b, &s) in sizes.iter().enumerate() {
            nodes.push(raw(b as u64, "ALLOC", Some((b as u64, s, "L1")), &[]));
            nodes.push(raw(3 + b as u64, "FREE", Some((b as u64, s, "L1")), &[]));
        }
        let mut id = 6;
        for p in 0..3u64 {
            // (and `o_pp`, so that each ALLOC reaches its own FREE)
            for q in 0..3u64 {
                nodes.push(raw(id, "ADD", None, &[p, q]));
                edges.push((p, id));
                edges.push((id, 3 + q));
                id += 1;
            }
        }
        let case = Case::new("helly".into(), nodes, edges, default_levels()).unwrap();
        assert_eq!(p1_bound(&case), Some(600));
    }

    #[test]
    fn the_critical_path_and_a_pipe_bound_a_chain() {
        // ALLOC, two VECTOR ops of 10 cycles in a chain, FREE: 20 cycles
        let nodes = vec![
            raw(0, "ALLOC", Some((7, 50, "UB")), &[]),
            raw(1, "ADD", None, &[7]),
            raw(2, "MUL", None, &[7]),
            raw(3, "FREE", Some((7, 50, "UB")), &[]),
        ];
        let case = Case::new(
            "chain".into(),
            nodes,
            vec![(0, 1), (1, 2), (2, 3)],
            default_levels(),
        )
        .unwrap();
        let b = makespan_bound_any(&case);
        assert_eq!((b.critical_path, b.busiest_pipe), (20, 20));
        assert_eq!(p1_bound(&case), Some(50));
        assert_eq!(movement_bound(&case), None);
        // a spill of the buffer between the two ops: 250 + 250 cycles on the path
        let order: Vec<NodeId> = [0, 1, 4, 5, 2, 3].into_iter().map(NodeId).collect();
        let b = makespan_bound(&case, &order, &[BufferId::new(0)]);
        assert_eq!(b.critical_path, 20 + 2 * transfer(50));
    }
}
