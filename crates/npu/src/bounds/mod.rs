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
//! One file per argument: `dag` (forced orders), `peak`, `grid` and `windows`
//! (Problem 1), `products` (what the tile grid and the reload bound start from),
//! `movement` and `reloads` (Problem 2), `makespan` (Problem 3). This module holds [`Bounds`]: which
//! bound goes with which problem.
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
//!    *The first whole line* (`first_whole_line_bound`) looks at the order of
//!    the C tiles as a whole. With `R` rows and `C` columns, `ρ` and `γ` the
//!    least tile bytes of a row and of a column, every order of the C tiles has
//!    a moment with at least `min(C γ + ρ, R ρ + γ)` bytes open when `R, C >= 3`:
//!    let step `h` be the first at which some line is whole, say a row `i`
//!    (columns are the same with the roles swapped). At `h - 1` no line is
//!    whole, so every line touched is open, and row `i` holds `C - 1` done C
//!    tiles. If all `C` columns are touched at `h - 1`, they and row `i` are
//!    open: `C γ + ρ`. Else the missing column is the one of the `h`-th C tile;
//!    after step `h` all `C` columns are touched and none is whole (the new one
//!    has one done C tile of `R >= 2`, the others are unchanged), so any other
//!    touched row gives `C γ + ρ` at `h`; if row `i` was the only
//!    one, the next C tile opens a new row and leaves every column open (`R >=
//!    3`: two done of at least three): `C γ + ρ` at `h + 1`. When `R` or `C` is 1
//!    or 2 (the closed form then needs more terms: `(R - 1) ρ + (C - 1) γ` and
//!    two more), the bound is the exact minimax over the orders of the open
//!    lines' count, a path through the counts of columns with none, the top, the
//!    bottom or both C tiles done (a few thousand states). A unit test checks
//!    both against every order of every grid up to 4 x 4 (and some wider ones):
//!    equal each time. Matmul_Case0 (8 x 8, `ρ = γ = 1,024`): 9,216; Matmul_Case1
//!    (16 x 16, 2,048): 34,816, both the results: proven optimal.
//!
//! 4. *The window order* (any case with an L0 level; `bounds/windows.rs`). With
//!    one buffer of an L0 level alive at a time, the *windows* `ALLOC(x)..FREE(x)`
//!    of that level's buffers (those whose ALLOC reaches their FREE) follow one
//!    another, in an order that puts `y` before `x` when `ALLOC(y) ⇝ FREE(x)`.
//!    Take an L1/UB buffer `b`, its *start* windows (`ALLOC(b) ⇝ FREE(x)`) and
//!    its *end* windows (`ALLOC(x) ⇝ FREE(b)`). Right after the last FREE of the
//!    first `k` windows of the order, `b` is alive if one of its start windows is
//!    among them (ALLOC(b) came before that FREE) and one of its end windows is
//!    not (FREE(b) comes after that window's ALLOC, which is still to come). And
//!    right before an op `u` inside a window `w` (`ALLOC(w) ⇝ u ⇝ FREE(w)`), `b`
//!    is alive if it is forced across `u` (`ALLOC(b) ⇝ u ⇝ FREE(b)`), or alive
//!    both after the windows before `w` by the first rule and after `w` by the
//!    second. Both depend only on the *set* of windows done, so the least, over
//!    the orders, of the most bytes alive at those moments is a minimax path
//!    through the sets of windows closed under the forced order: a search in
//!    order of the value reached (Dijkstra's, with `max` for `+`). When it runs
//!    out of work (`SEARCH_WORK`) the value it reached is still a bound: every
//!    order passes through a set not yet reached, whose value is at least that.
//!    A subset of a level's windows is still ordered, so the search may keep
//!    only the windows whose ops use the largest buffers (a few selections are
//!    tried). Conv_Case0 (300 L0B windows): 6,912 in 0.2 s, its result: proven
//!    optimal. A ring of four windows sharing a 16-byte buffer with each
//!    neighbour has 48 bytes alive in every order (the second window's two and
//!    the one reaching over it) though no three buffers share a window: the
//!    cliques see 32.
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
//! matmul are reloaded, since no order is forced there. The bound is the largest
//! of it, the op order and the reload bound below, and `None` when all are 0
//! (then the only bound known here is the trivial 0).
//!
//! *The op order* (`op_order_movement` in `bounds/windows.rs`): the search of
//! Problem 1's window order, with single ops for windows (each op its own
//! ALLOC, FREE and only op: the ops of a schedule are totally ordered, in any
//! problem) and the ops that use an L0 buffer and an L1/UB buffer for items
//! (those whose ops use the largest buffers, a few selections, at most 512). At
//! each moment the search sees, the L1 (UB) buffers alive there are resident
//! or in DDR, so at least what they exceed the capacity is in DDR, each such
//! buffer in a spill of its own then: the value of a moment is the cheapest
//! cover of each level's excess as above (COPY_IN bytes first, at 1; the op's
//! own buffers, resident, left out), and the least, over the orders, of the
//! most of it bounds the movement of every plan. It runs on the graph's own
//! edges (Problem 2 has no one-buffer rule of L0, so no implied edges).
//! Conv_Case0: 5,632; a ring of four ops sharing a 40-unit buffer with each
//! neighbour in 100 units of L1: 40, where no op alone overflows.
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

mod dag;
mod grid;
mod makespan;
mod movement;
mod peak;
mod products;
mod reloads;
mod windows;

pub use makespan::{makespan_bound, makespan_bound_any, MakespanBound};
pub use movement::movement_bound;
pub use peak::p1_bound;

use crate::case::{BufferId, Case, NodeId};
use crate::problem::Problem;

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
    use super::makespan::transfer;
    use super::*;
    use crate::case::{default_levels, RawNode};

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
