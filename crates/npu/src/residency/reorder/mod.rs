//! Problem 1: local search over the order of the ops against the residency peak.
//!
//! An order of all nodes is held as the order of its ops: each buffer is allocated
//! just before the first op bounding its lifetime (its ALLOC's op successors and its
//! users) and freed right after the last (its FREE's op predecessors and its users),
//! which never raises the residency of any step. A move takes a block of consecutive
//! ops and slides it earlier or later past ops it does not depend on (or that do not
//! depend on it), so every order visited stays topological. One move in
//! `COMPRESS_ONE_IN` is a lifetime compression instead: around a step at the peak,
//! a set of ops closed under dependencies within a span moves across that step, so
//! that a buffer live there no longer is (all ops bounding a live buffer's lifetime
//! to one side of it, or one op from beyond it together with what it depends on, or
//! what depends on it). These reach far further than block moves and carry whole
//! dependency chains, which the last steps at a peak often need (`compress.rs`).
//!
//! The cost is the peak of the counted levels (L1+UB), then the number of steps at
//! that peak, with at most one live buffer per single-buffer level (L0). Moves that
//! do not raise it are kept, so the search walks plateaus of equal cost; an annealing
//! schedule also lets a move add steps at the peak early on. Half of the blocks are
//! picked near a step at the peak. Live bytes per step are kept up to date over the
//! span a move touches only, so a move costs about that span plus one pass over the
//! steps (`live.rs`). The search itself is in `search.rs`; this file holds the
//! order and its block moves, which problem 2's allocator search reuses.

use crate::case::{BufferId, Case, Node, NodeId};
use crate::deps::node_deps;
use memplan::rng::Rng;

mod compress;
mod live;
mod search;

/// Longest block a move slides.
const BLOCK: usize = 24;

/// Farthest a block slides, in ops.
const REACH: usize = 400;

pub struct OpOrder<'a> {
    case: &'a Case,
    /// The op nodes in order.
    ops: Vec<NodeId>,
    /// Position of each op node in `ops`.
    pos: Vec<u32>,
    /// Op predecessors and successors of each node (ops only).
    pred: Vec<Vec<NodeId>>,
    succ: Vec<Vec<NodeId>>,
    /// Per buffer, the ops bounding its lifetime.
    bounds: Vec<Vec<NodeId>>,
    /// Node visits so far: the cost of the search.
    pub work: u64,
    /// The ops a lifetime compression replaced, to undo it.
    saved: Vec<NodeId>,
    /// Per node: the compression that last marked it.
    mark: Vec<u32>,
    epoch: u32,
}

/// The peak L1+UB residency of an order and the steps at it, compared
/// lexicographically; `None` when a single-buffer level holds two buffers at once.
pub type Cost = Option<(u64, u64)>;

impl<'a> OpOrder<'a> {
    /// The ops of `order` (a topological order of all nodes) in that order.
    pub fn new(case: &'a Case, order: &[NodeId]) -> OpOrder<'a> {
        let deps = node_deps(case);
        let n = case.nodes.len();
        let ops: Vec<NodeId> = order.iter().copied().filter(|&i| case.is_op(i)).collect();
        let mut pos = vec![u32::MAX; n];
        for (p, &o) in ops.iter().enumerate() {
            pos[o.index()] = p as u32;
        }
        let only_ops = |l: &Vec<NodeId>| l.iter().copied().filter(|&i| case.is_op(i)).collect();
        let pred: Vec<Vec<NodeId>> = deps.pred.iter().map(only_ops).collect();
        let succ: Vec<Vec<NodeId>> = deps.succ.iter().map(only_ops).collect();
        let mut bounds: Vec<Vec<NodeId>> = case
            .buffers
            .iter()
            .map(|b| {
                let mut v: Vec<NodeId> = succ[b.alloc.index()].clone();
                v.extend(&pred[b.free.index()]);
                v
            })
            .collect();
        for (i, node) in case.node_ids().zip(&case.nodes) {
            if let Node::Op(op) = node {
                for &b in &op.bufs {
                    bounds[b.index()].push(i);
                }
            }
        }
        for v in &mut bounds {
            v.sort_unstable();
            v.dedup();
        }
        OpOrder {
            case,
            ops,
            pos,
            pred,
            succ,
            bounds,
            work: 0,
            saved: Vec::new(),
            mark: vec![0; n],
            epoch: 0,
        }
    }

    /// Lifetime of each buffer in op positions, `None` for buffers no op bounds.
    fn lifetimes(&mut self) -> Vec<Option<(u32, u32)>> {
        self.work += self.ops.len() as u64;
        self.bounds
            .iter()
            .map(|v| {
                self.work += v.len() as u64;
                let mut it = v.iter().map(|&o| self.pos[o.index()]);
                let first = it.next()?;
                Some(it.fold((first, first), |(a, b), p| (a.min(p), b.max(p))))
            })
            .collect()
    }

    /// Every node in order: ALLOCs just before the first op of their lifetime,
    /// FREEs right after the last; buffers no op bounds at the end.
    pub fn order(&mut self) -> Vec<NodeId> {
        let life = self.lifetimes();
        let len = self.ops.len();
        // the buffers opening and closing at each op position, by counting: those
        // of position p are `opens[at[p]..at[p + 1]]` (likewise `closes`), in
        // buffer order
        let bucket = |key: &dyn Fn((u32, u32)) -> u32| {
            let mut at = vec![0u32; len + 1];
            for &(s, e) in life.iter().flatten() {
                at[key((s, e)) as usize + 1] += 1;
            }
            for p in 0..len {
                at[p + 1] += at[p];
            }
            let mut fill = at.clone();
            let mut list = vec![BufferId(0); at[len] as usize];
            for (b, l) in self.case.buffer_ids().zip(&life) {
                if let Some(l) = l {
                    let k = &mut fill[key(*l) as usize];
                    list[*k as usize] = b;
                    *k += 1;
                }
            }
            (at, list)
        };
        let (open_at, opens) = bucket(&|(s, _)| s);
        let (close_at, closes) = bucket(&|(_, e)| e);
        let mut out = Vec::with_capacity(self.case.nodes.len());
        for (p, &op) in self.ops.iter().enumerate() {
            let (o, c) = (
                open_at[p] as usize..open_at[p + 1] as usize,
                close_at[p] as usize..close_at[p + 1] as usize,
            );
            out.extend(opens[o].iter().map(|&b| self.case.buffer(b).alloc));
            out.push(op);
            out.extend(closes[c].iter().map(|&b| self.case.buffer(b).free));
        }
        for (b, l) in self.case.buffer_ids().zip(&life) {
            if l.is_none() {
                out.push(self.case.buffer(b).alloc);
                out.push(self.case.buffer(b).free);
            }
        }
        out
    }

    /// Number of ops in the order.
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }

    /// Slides the block `[a, b)` so it starts at `to`, if no dependency forbids it.
    pub fn slide(&mut self, a: usize, b: usize, to: usize) -> bool {
        self.work += (b - a) as u64;
        let block = &self.ops[a..b];
        let ok = if to > a {
            // the block passes the ops at [b, to + len)
            let last = (to + b - a - 1) as u32;
            block.iter().all(|&o| {
                self.succ[o.index()].iter().all(|&s| {
                    let q = self.pos[s.index()];
                    q < b as u32 || q > last
                })
            })
        } else {
            block.iter().all(|&o| {
                self.pred[o.index()].iter().all(|&p| {
                    let q = self.pos[p.index()];
                    q < to as u32 || q >= a as u32
                })
            })
        };
        if !ok {
            return false;
        }
        let (lo, hi) = if to > a {
            self.ops[a..to + b - a].rotate_left(b - a);
            (a, to + b - a)
        } else {
            self.ops[to..b].rotate_right(b - a);
            (to, b)
        };
        for p in lo..hi {
            self.pos[self.ops[p].index()] = p as u32;
        }
        true
    }

    /// Undoes `slide(a, b, to)`.
    pub fn unslide(&mut self, a: usize, b: usize, to: usize) {
        let len = b - a;
        let (lo, hi) = if to > a {
            self.ops[a..to + len].rotate_right(len);
            (a, to + len)
        } else {
            self.ops[to..b].rotate_left(len);
            (to, b)
        };
        for p in lo..hi {
            self.pos[self.ops[p].index()] = p as u32;
        }
    }
}

/// A block `[a, a + len)` and where it should start, near `hot` when given.
pub fn pick_move(rng: &mut Rng, n: usize, hot: Option<u32>) -> (usize, usize, usize) {
    let len = 1 + rng.below(BLOCK.min(n - 1)).min(rng.below(BLOCK.min(n - 1)));
    let a = match hot {
        Some(h) if rng.below(2) == 0 => {
            let lo = (h as usize).saturating_sub(REACH / 4);
            (lo + rng.below(REACH / 2)).min(n - len)
        }
        _ => rng.below(n - len + 1),
    };
    let reach = 1 + rng.below(REACH);
    let to = if rng.below(2) == 0 {
        a.saturating_sub(reach)
    } else {
        (a + reach).min(n - len)
    };
    (a, len, to)
}
