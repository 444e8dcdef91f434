//! The memory-aware order: the topological order with the lowest lower bound
//! among Kahn's (the stored order), the depth-first order, list schedules with
//! look-ahead and, on graphs of at most [`EXACT_OPS`] ops, the exact minimum by
//! dynamic programming over the sets of ops already run. Kahn's order wins ties,
//! so the bound is never above the stored order's.

use super::{deps, dfs, kahn, Deps};
use crate::graph::{Graph, OpId, Role};
use crate::liveness::{self, LiveOptions};

/// Largest op count solved exactly (2^n states).
pub const EXACT_OPS: usize = 14;

/// Look-ahead depths of the list schedules (0: plain greedy).
const LOOK_AHEAD: [usize; 2] = [2, 6];

/// Ready ops (the best by the greedy rule) given a look-ahead.
const LOOK_AHEAD_WIDTH: usize = 8;

/// Largest op count given the greedy list schedule (it scans the ready ops at
/// every step), and the look-ahead ones (they also copy the state per trial).
const GREEDY_OPS: usize = 20_000;
const LOOK_AHEAD_OPS: usize = 3_000;

/// The order with the lowest bound; `graph` must be acyclic.
pub fn order(graph: &Graph, live: LiveOptions) -> Vec<OpId> {
    let d = deps(graph);
    let model = Model::new(graph, &d, live);
    let mut best = kahn(&d);
    let mut best_bound = bound(graph, &best, live);
    let mut candidates = vec![dfs(&d)];
    if graph.ops.len() <= GREEDY_OPS {
        candidates.push(model.list_schedule(0));
    }
    if graph.ops.len() <= LOOK_AHEAD_OPS {
        candidates.extend(LOOK_AHEAD.iter().map(|&k| model.list_schedule(k)));
    }
    if graph.ops.len() <= EXACT_OPS {
        candidates.push(model.exact());
    }
    for order in candidates {
        let b = bound(graph, &order, live);
        if b < best_bound {
            best = order;
            best_bound = b;
        }
    }
    best
}

fn bound(graph: &Graph, order: &[OpId], live: LiveOptions) -> u64 {
    liveness::analyse(graph, order, live).map_or(u64::MAX, |l| l.lower_bound)
}

/// Ops as the scheduler sees them: bytes made, tensors read.
struct Model<'d> {
    deps: &'d Deps,
    /// Bytes of arena outputs, by op.
    made: Vec<u64>,
    /// Bytes of arena outputs that stay live after their op, by op.
    kept: Vec<u64>,
    /// Distinct arena tensors read, by op.
    reads: Vec<Vec<u32>>,
    /// Consumers of each arena tensor (distinct ops), and its size.
    users: Vec<u32>,
    size: Vec<u64>,
    /// Bitmask of consumers per tensor (exact search only).
    user_mask: Vec<u32>,
    producer: Vec<Option<u32>>,
}

impl<'d> Model<'d> {
    fn new(graph: &Graph, deps: &'d Deps, live: LiveOptions) -> Model<'d> {
        let n_t = graph.tensors.len();
        let arena = |t: usize| {
            let tensor = &graph.tensors[t];
            tensor.role == Role::Arena && tensor.lifetime.is_none()
        };
        let mut users = vec![0u32; n_t];
        let mut user_mask = vec![0u32; n_t];
        let mut reads: Vec<Vec<u32>> = Vec::with_capacity(graph.ops.len());
        for (o, op) in graph.ops.iter().enumerate() {
            let mut r: Vec<u32> = op
                .inputs
                .iter()
                .map(|t| t.0)
                .filter(|&t| arena(t as usize))
                .collect();
            r.sort_unstable();
            r.dedup();
            for &t in &r {
                users[t as usize] += 1;
                if o < 32 {
                    user_mask[t as usize] |= 1 << o;
                }
            }
            reads.push(r);
        }
        let size: Vec<u64> = graph.tensors.iter().map(|t| t.size).collect();
        let (mut made, mut kept) = (vec![0u64; graph.ops.len()], vec![0u64; graph.ops.len()]);
        for (o, op) in graph.ops.iter().enumerate() {
            for t in op.outputs.iter().filter(|t| arena(t.index())) {
                made[o] += size[t.index()];
                if users[t.index()] > 0 || live.keep_outputs {
                    kept[o] += size[t.index()];
                }
            }
        }
        let producer = graph.producers().iter().map(|p| p.map(|o| o.0)).collect();
        Model {
            deps,
            made,
            kept,
            reads,
            users,
            size,
            user_mask,
            producer,
        }
    }

    /// Bytes freed by running `o` given the remaining use counts.
    fn freed(&self, o: usize, left: &[u32]) -> u64 {
        self.reads[o]
            .iter()
            .filter(|&&t| left[t as usize] == 1 && self.producer[t as usize].is_some())
            .map(|&t| self.size[t as usize])
            .sum()
    }

    /// Repeatedly runs the ready op whose `depth`-step greedy continuation has the
    /// lowest peak (then leaves the fewest bytes live, then the lowest index),
    /// among the best few by the greedy rule; with `depth` 0 the greedy rule alone.
    fn list_schedule(&self, depth: usize) -> Vec<OpId> {
        let mut state = State::new(self);
        let mut out = Vec::with_capacity(self.made.len());
        while !state.ready.is_empty() {
            if depth == 0 {
                let pick = state.greedy_pick(self).expect("a ready op");
                state.run(self, pick);
                out.push(OpId(pick));
                continue;
            }
            let mut ready = state.ready.clone();
            if ready.len() > LOOK_AHEAD_WIDTH {
                ready.sort_by_cached_key(|&o| state.greedy_key(self, o));
                ready.truncate(LOOK_AHEAD_WIDTH);
            }
            let pick = ready
                .into_iter()
                .min_by_key(|&o| {
                    let mut trial = state.clone();
                    let step = trial.run(self, o);
                    let mut peak = step;
                    for _ in 0..depth {
                        let Some(next) = trial.greedy_pick(self) else {
                            break;
                        };
                        peak = peak.max(trial.run(self, next));
                    }
                    (peak, trial.live, o)
                })
                .expect("a ready op");
            state.run(self, pick);
            out.push(OpId(pick));
        }
        out
    }

    /// The order of least peak by dynamic programming over sets of ops run.
    fn exact(&self) -> Vec<OpId> {
        let n = self.made.len();
        let full = (1u32 << n) - 1;
        let mut pred_mask = vec![0u32; n];
        for (a, succ) in self.deps.succ.iter().enumerate() {
            for &b in succ {
                pred_mask[b as usize] |= 1 << a;
            }
        }
        let mut best = vec![u64::MAX; 1 << n];
        let mut live = vec![0u64; 1 << n];
        let mut last = vec![u8::MAX; 1 << n];
        best[0] = 0;
        for set in 0..full {
            if best[set as usize] == u64::MAX {
                continue;
            }
            for o in (0..n).filter(|&o| set & (1 << o) == 0 && pred_mask[o] & !set == 0) {
                let next = set | 1 << o;
                let here = live[set as usize];
                let peak = best[set as usize].max(here + self.made[o]);
                let freed: u64 = self.reads[o]
                    .iter()
                    .filter(|&&t| self.producer[t as usize].is_some())
                    .filter(|&&t| self.user_mask[t as usize] & !next == 0)
                    .map(|&t| self.size[t as usize])
                    .sum();
                live[next as usize] = here + self.kept[o] - freed;
                if peak < best[next as usize] {
                    best[next as usize] = peak;
                    last[next as usize] = o as u8;
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut set = full;
        while set != 0 {
            let o = last[set as usize];
            order.push(OpId(u32::from(o)));
            set &= !(1 << o);
        }
        order.reverse();
        order
    }
}

/// A partial schedule: ops run, use counts left, ready ops, live bytes.
#[derive(Clone)]
struct State {
    indegree: Vec<u32>,
    left: Vec<u32>,
    ready: Vec<u32>,
    live: u64,
}

impl State {
    fn new(m: &Model) -> State {
        let indegree: Vec<u32> = m.deps.pred.iter().map(|p| p.len() as u32).collect();
        let ready = (0..indegree.len() as u32)
            .filter(|&o| indegree[o as usize] == 0)
            .collect();
        State {
            indegree,
            left: m.users.clone(),
            ready,
            live: 0,
        }
    }

    /// Runs `o`; returns the bytes live at its step.
    fn run(&mut self, m: &Model, o: u32) -> u64 {
        let oi = o as usize;
        let step = self.live + m.made[oi];
        let freed = m.freed(oi, &self.left);
        for &t in &m.reads[oi] {
            self.left[t as usize] = self.left[t as usize].saturating_sub(1);
        }
        self.live = self.live + m.kept[oi] - freed;
        self.ready.retain(|&r| r != o);
        for &b in &m.deps.succ[oi] {
            self.indegree[b as usize] -= 1;
            if self.indegree[b as usize] == 0 {
                self.ready.push(b);
            }
        }
        step
    }

    /// The ready op with the lowest step bytes, then the fewest left live.
    fn greedy_pick(&self, m: &Model) -> Option<u32> {
        self.ready
            .iter()
            .copied()
            .min_by_key(|&o| self.greedy_key(m, o))
    }

    fn greedy_key(&self, m: &Model, o: u32) -> (u64, u64, u32) {
        let oi = o as usize;
        let freed = m.freed(oi, &self.left);
        (
            self.live + m.made[oi],
            (self.live + m.kept[oi]).saturating_sub(freed),
            o,
        )
    }
}
