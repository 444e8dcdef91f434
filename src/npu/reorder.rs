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
//! dependency chains, which the last steps at a peak often need.
//!
//! The cost is the peak of the counted levels (L1+UB), then the number of steps at
//! that peak, with at most one live buffer per single-buffer level (L0). Moves that
//! do not raise it are kept, so the search walks plateaus of equal cost; an annealing
//! schedule also lets a move add steps at the peak early on. Half of the blocks are
//! picked near a step at the peak. Live bytes per step are kept up to date over the
//! span a move touches only, so a move costs about that span plus one pass over the
//! steps.

use super::case::{Case, Node};
use super::schedule::{counted_levels, single_levels};
use super::tasks::XorShift;
use crate::order::Deps;

/// Starting temperature of the residency search, in steps at the peak.
const HEAT: f64 = 1.0;

/// One move in this many is a lifetime compression.
const COMPRESS_ONE_IN: usize = 16;

/// One compression in this many moves a single op (with its closure) rather than
/// the ops of a live buffer.
const COMPRESS_OP_ONE_IN: usize = 4;

/// A compression reaches up to `2^k` ops past the peak step, `k` drawn uniformly
/// below this, so short reaches are as likely as long ones.
const COMPRESS_REACH_LOG: usize = 9;

/// Longest block a move slides.
const BLOCK: usize = 24;

/// Farthest a block slides, in ops.
const REACH: usize = 400;

pub struct OpOrder<'a> {
    case: &'a Case,
    /// The op nodes in order.
    ops: Vec<u32>,
    /// Position of each op node in `ops`.
    pos: Vec<u32>,
    /// Op predecessors and successors of each node (ops only).
    pred: Vec<Vec<u32>>,
    succ: Vec<Vec<u32>>,
    /// Per buffer, the ops bounding its lifetime.
    bounds: Vec<Vec<u32>>,
    /// Node visits so far: the cost of the search.
    pub work: u64,
    /// The ops a lifetime compression replaced, to undo it.
    saved: Vec<u32>,
    /// Per node: the compression that last marked it.
    mark: Vec<u32>,
    epoch: u32,
}

/// The peak L1+UB residency of an order and the steps at it, compared
/// lexicographically; `None` when a single-buffer level holds two buffers at once.
pub type Cost = Option<(u64, u64)>;

impl<'a> OpOrder<'a> {
    /// The ops of `order` (a topological order of all nodes) in that order.
    pub fn new(case: &'a Case, order: &[u32]) -> OpOrder<'a> {
        let deps = Deps::from_edges(case.nodes.len(), &case.edges);
        let n = case.nodes.len();
        let is_op = |i: u32| matches!(case.nodes[i as usize], Node::Op(_));
        let ops: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&i| (i as usize) < n && is_op(i))
            .collect();
        let mut pos = vec![u32::MAX; n];
        for (p, &o) in ops.iter().enumerate() {
            pos[o as usize] = p as u32;
        }
        let only_ops = |l: &Vec<u32>| l.iter().copied().filter(|&i| is_op(i)).collect();
        let pred: Vec<Vec<u32>> = deps.pred.iter().map(only_ops).collect();
        let succ: Vec<Vec<u32>> = deps.succ.iter().map(only_ops).collect();
        let mut bounds: Vec<Vec<u32>> = case
            .buffers
            .iter()
            .map(|b| {
                let mut v: Vec<u32> = succ[b.alloc as usize].clone();
                v.extend(&pred[b.free as usize]);
                v
            })
            .collect();
        for (i, node) in case.nodes.iter().enumerate() {
            if let Node::Op(op) = node {
                for &b in &op.bufs {
                    bounds[b as usize].push(i as u32);
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
                let mut it = v.iter().map(|&o| self.pos[o as usize]);
                let first = it.next()?;
                Some(it.fold((first, first), |(a, b), p| (a.min(p), b.max(p))))
            })
            .collect()
    }

    /// Every node in order: ALLOCs just before the first op of their lifetime,
    /// FREEs right after the last; buffers no op bounds at the end.
    pub fn order(&mut self) -> Vec<u32> {
        let life = self.lifetimes();
        let len = self.ops.len();
        let (mut starts, mut ends) = (vec![Vec::new(); len], vec![Vec::new(); len]);
        let mut unused = Vec::new();
        for (b, l) in life.iter().enumerate() {
            match l {
                Some((s, e)) => {
                    starts[*s as usize].push(b);
                    ends[*e as usize].push(b);
                }
                None => unused.push(b),
            }
        }
        let mut out = Vec::with_capacity(self.case.nodes.len());
        for (p, &op) in self.ops.iter().enumerate() {
            out.extend(starts[p].iter().map(|&b| self.case.buffers[b].alloc));
            out.push(op);
            out.extend(ends[p].iter().map(|&b| self.case.buffers[b].free));
        }
        for b in unused {
            out.push(self.case.buffers[b].alloc);
            out.push(self.case.buffers[b].free);
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
                self.succ[o as usize]
                    .iter()
                    .all(|&s| self.pos[s as usize] < b as u32 || self.pos[s as usize] > last)
            })
        } else {
            block.iter().all(|&o| {
                self.pred[o as usize]
                    .iter()
                    .all(|&p| self.pos[p as usize] < to as u32 || self.pos[p as usize] >= a as u32)
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
            self.pos[self.ops[p] as usize] = p as u32;
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
            self.pos[self.ops[p] as usize] = p as u32;
        }
    }

    /// Block moves and lifetime compressions until `budget` more work units are spent: the best order found
    /// is kept, and its cost returned. A move is kept when it leaves the peak and the
    /// steps at it as they were or lower, or (by an annealing schedule) when it adds
    /// steps at the same peak.
    pub fn improve(&mut self, budget: u64, seed: u64) -> Cost {
        let mut rng = XorShift(seed | 1);
        let mut live = Live::new(self);
        let n = self.ops.len();
        let mut cost = live.cost(0, n);
        if cost.is_none() || n < 2 {
            return cost;
        }
        let stop = self.work + budget;
        let (mut best, mut best_cost) = (self.ops.clone(), cost);
        let mut changed: Vec<(usize, Option<(u32, u32)>)> = Vec::new();
        while self.work < stop {
            self.work += 1;
            let hot = live.peak_step(rng.below(1 << 20), cost);
            let (lo, hi, block) = if rng.below(COMPRESS_ONE_IN) == 0 {
                match self.compress(&mut rng, &live, hot) {
                    Some((lo, hi)) => (lo, hi, None),
                    None => continue,
                }
            } else {
                let (a, len, to) = pick_move(&mut rng, n, hot);
                if to == a || !self.slide(a, a + len, to) {
                    continue;
                }
                let (lo, hi) = if to > a { (a, to + len) } else { (to, a + len) };
                (lo, hi, Some((a, len, to)))
            };
            live.epoch += 1;
            changed.clear();
            for p in lo..hi {
                let op = self.ops[p] as usize;
                for k in 0..live.bounded[op].len() {
                    let b = live.bounded[op][k] as usize;
                    if live.seen[b] == live.epoch {
                        continue;
                    }
                    live.seen[b] = live.epoch;
                    let bounds = &self.bounds[b];
                    self.work += bounds.len() as u64 + 1;
                    let (mut s, mut e) = (u32::MAX, 0);
                    for &o in bounds {
                        let q = self.pos[o as usize];
                        s = s.min(q);
                        e = e.max(q);
                    }
                    let new = Some((s, e));
                    if new != live.life[b] {
                        changed.push((b, live.life[b]));
                        live.set(self.case, b, new, lo, hi);
                    }
                }
            }
            self.work += n as u64 / 8 + (hi - lo) as u64;
            let next = live.cost(lo, hi);
            let progress = (self.work + budget - stop) as f64 / budget as f64;
            let heat = HEAT * (1.0 - progress);
            let accept = match (next, cost) {
                (Some(x), Some(c)) => {
                    x <= c
                        || (x.0 == c.0
                            && heat > 0.0
                            && rng.unit() < (-((x.1 - c.1) as f64) / heat).exp())
                }
                _ => false,
            };
            if accept {
                cost = next;
                if cost < best_cost {
                    best_cost = cost;
                    best.copy_from_slice(&self.ops);
                }
            } else {
                for &(b, old) in changed.iter().rev() {
                    live.set(self.case, b, old, lo, hi);
                }
                match block {
                    Some((a, len, to)) => self.unslide(a, a + len, to),
                    None => self.restore(lo),
                }
            }
        }
        self.ops = best;
        for (p, &o) in self.ops.iter().enumerate() {
            self.pos[o as usize] = p as u32;
        }
        best_cost
    }
}

impl OpOrder<'_> {
    /// A lifetime compression around the op at `hot`, the step at the peak: ops move
    /// across it as closed sets, so that a buffer live there is not. Either a buffer
    /// live there gets all the ops bounding its lifetime on one side of it (its ops
    /// from a point before `hot` move up to that point, or its ops up to a point
    /// after `hot` move down to it), or one op after `hot` moves up to it (one before
    /// moves down to it); the ops between that the moved ones depend on (that depend
    /// on them) move along. Returns the span rearranged.
    fn compress(
        &mut self,
        rng: &mut XorShift,
        live: &Live,
        hot: Option<u32>,
    ) -> Option<(usize, usize)> {
        let p = hot? as usize;
        let n = self.ops.len();
        let scale = 1 << (1 + rng.below(COMPRESS_REACH_LOG));
        let reach = 1 + rng.below(scale);
        let earlier = rng.below(2) == 0;
        self.epoch += 1;
        let epoch = self.epoch;
        let (lo, hi) = if rng.below(COMPRESS_OP_ONE_IN) == 0 {
            let q = if earlier {
                p + reach
            } else {
                p.checked_sub(reach)?
            };
            if q >= n {
                return None;
            }
            self.mark[self.ops[q] as usize] = epoch;
            if earlier {
                (p, q + 1)
            } else {
                (q, p + 1)
            }
        } else {
            let b = self.live_at(live, p, rng)?;
            let (s, e) = live.life[b]?;
            let (lo, hi) = if earlier {
                (p.saturating_sub(reach), e as usize + 1)
            } else {
                (s as usize, (p + reach).min(n - 1) + 1)
            };
            for k in 0..self.bounds[b].len() {
                let o = self.bounds[b][k] as usize;
                if (lo..hi).contains(&(self.pos[o] as usize)) {
                    self.mark[o] = epoch;
                }
            }
            (lo, hi)
        };
        self.regroup(lo, hi, earlier).then_some((lo, hi))
    }

    /// A random buffer of the counted levels live at position `p`.
    fn live_at(&mut self, live: &Live, p: usize, rng: &mut XorShift) -> Option<usize> {
        let counted = live.counted?;
        let at_peak: Vec<usize> = (0..live.life.len())
            .filter(|&b| {
                live.target[self.case.buffers[b].level].map(|t| t.0) == Some(counted)
                    && live.life[b].is_some_and(|(s, e)| s as usize <= p && p <= e as usize)
            })
            .collect();
        self.work += live.life.len() as u64 / 8;
        (!at_peak.is_empty()).then(|| at_peak[rng.below(at_peak.len())])
    }

    /// Closes the ops of `[lo, hi)` marked in this epoch under their predecessors
    /// (`earlier`) or successors within the span and moves them, in order, to its
    /// start (end); false, changing nothing, when that moves nothing.
    fn regroup(&mut self, lo: usize, hi: usize, earlier: bool) -> bool {
        let epoch = self.epoch;
        self.work += (hi - lo) as u64;
        let mut moved = 0;
        for k in 0..hi - lo {
            let q = if earlier { hi - 1 - k } else { lo + k };
            let o = self.ops[q] as usize;
            if self.mark[o] != epoch {
                continue;
            }
            moved += 1;
            let next = if earlier {
                &self.pred[o]
            } else {
                &self.succ[o]
            };
            self.work += next.len() as u64;
            for &x in next {
                if (lo..hi).contains(&(self.pos[x as usize] as usize)) {
                    self.mark[x as usize] = epoch;
                }
            }
        }
        if moved == 0 || moved == hi - lo {
            return false;
        }
        self.saved.clear();
        self.saved.extend_from_slice(&self.ops[lo..hi]);
        let (first, rest): (Vec<u32>, Vec<u32>) = self
            .saved
            .iter()
            .partition(|&&o| (self.mark[o as usize] == epoch) == earlier);
        for (q, &o) in first.iter().chain(&rest).enumerate() {
            self.ops[lo + q] = o;
            self.pos[o as usize] = (lo + q) as u32;
        }
        true
    }

    /// Undoes the last compression, which rearranged the span starting at `lo`.
    fn restore(&mut self, lo: usize) {
        for (q, &o) in self.saved.iter().enumerate() {
            self.ops[lo + q] = o;
            self.pos[o as usize] = (lo + q) as u32;
        }
    }
}

/// A block `[a, a + len)` and where it should start, near `hot` when given.
pub(super) fn pick_move(rng: &mut XorShift, n: usize, hot: Option<u32>) -> (usize, usize, usize) {
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

/// Live bytes of the counted levels and live buffers of the single-buffer levels per
/// op position, kept up to date as blocks slide.
struct Live {
    life: Vec<Option<(u32, u32)>>,
    /// Per level: live bytes (counted levels, all summed in the first one) or live
    /// buffers (single-buffer levels) per position; `None` for other levels.
    profiles: Vec<Option<Vec<i64>>>,
    /// Which profile sums the counted levels.
    counted: Option<usize>,
    /// Per level: the profile its buffers add to and by how much per byte.
    target: Vec<Option<(usize, bool)>>,
    /// Per node: the buffers whose lifetime it bounds.
    bounded: Vec<Vec<u32>>,
    seen: Vec<u32>,
    epoch: u32,
}

impl Live {
    fn new(order: &mut OpOrder) -> Live {
        let case = order.case;
        let life = order.lifetimes();
        let (counted, single) = (counted_levels(case), single_levels(case));
        let first = counted.iter().position(|&c| c);
        let n = order.ops.len();
        let target: Vec<Option<(usize, bool)>> = (0..case.levels.len())
            .map(|l| {
                if counted[l] {
                    first.map(|f| (f, true))
                } else {
                    single[l].then_some((l, false))
                }
            })
            .collect();
        let profiles = (0..case.levels.len())
            .map(|l| {
                target
                    .iter()
                    .any(|t| t.map(|t| t.0) == Some(l))
                    .then(|| vec![0; n])
            })
            .collect();
        let mut bounded = vec![Vec::new(); case.nodes.len()];
        for (b, ops) in order.bounds.iter().enumerate() {
            for &o in ops {
                bounded[o as usize].push(b as u32);
            }
        }
        let mut live = Live {
            life: vec![None; life.len()],
            profiles,
            counted: first,
            target,
            bounded,
            seen: vec![0; life.len()],
            epoch: 0,
        };
        for (b, l) in life.into_iter().enumerate() {
            live.set(case, b, l, 0, n);
        }
        live
    }

    /// Gives buffer `b` the lifetime `l`, both old and new confined to `[lo, hi)`
    /// where they differ.
    fn set(&mut self, case: &Case, b: usize, l: Option<(u32, u32)>, lo: usize, hi: usize) {
        let buf = &case.buffers[b];
        if let Some((p, bytes)) = self.target[buf.level] {
            let w = if bytes { buf.size as i64 } else { 1 };
            let profile = self.profiles[p].as_mut().unwrap();
            if let Some((s, e)) = self.life[b] {
                for v in &mut profile[(s as usize).max(lo)..(e as usize + 1).min(hi)] {
                    *v -= w;
                }
            }
            if let Some((s, e)) = l {
                for v in &mut profile[(s as usize).max(lo)..(e as usize + 1).min(hi)] {
                    *v += w;
                }
            }
        }
        self.life[b] = l;
    }

    /// `None` when a single-buffer level holds two buffers at once in `[lo, hi)`
    /// (the rest is unchanged).
    fn cost(&self, lo: usize, hi: usize) -> Cost {
        for (l, p) in self.profiles.iter().enumerate() {
            if let Some(p) = p {
                if Some(l) != self.counted && p[lo..hi].iter().any(|&v| v > 1) {
                    return None;
                }
            }
        }
        let Some(c) = self.counted else {
            return Some((0, 0));
        };
        let profile = self.profiles[c].as_ref().unwrap();
        let peak = profile.iter().copied().max().unwrap_or(0);
        let steps = profile.iter().filter(|&&v| v == peak).count();
        Some((peak.max(0) as u64, steps as u64))
    }

    /// A position at the peak, the `pick`-th modulo their number.
    fn peak_step(&self, pick: usize, cost: Cost) -> Option<u32> {
        let (peak, _) = cost?;
        let profile = self.profiles[self.counted?].as_ref().unwrap();
        let steps = profile.iter().filter(|&&v| v == peak as i64).count();
        let k = pick % steps.max(1);
        profile
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v == peak as i64)
            .nth(k)
            .map(|(p, _)| p as u32)
    }
}
