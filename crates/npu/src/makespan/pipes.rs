//! Problem 3: the pipe model. Each pipe runs its nodes in schedule order, pipes in
//! parallel; a node starts when its predecessors (case edges, spill edges and
//! address-reuse edges) have finished and its pipe is free. ALLOC and FREE take no
//! time and no pipe; SPILL_IN runs on MTE2 and SPILL_OUT on MTE3 for `2 * size + 150`
//! cycles (a SPILL_OUT of a COPY_IN buffer takes none).

use crate::case::{Case, Node, NodeId, Pipe};
use crate::movement::spill::NpuPlan;

/// Cycles of a spill transfer of `size` units.
pub fn spill_cycles(size: u64) -> u64 {
    2 * size + 150
}

/// Start and finish cycle of every node of the schedule, by schedule position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub start: Vec<u64>,
    pub finish: Vec<u64>,
    /// Pipe of each position, `None` for ALLOC and FREE.
    pub pipe: Vec<Option<Pipe>>,
    pub makespan: u64,
}

/// Times `plan` on `case`.
pub fn simulate(case: &Case, plan: &NpuPlan) -> Timing {
    let len = plan.schedule.len();
    let preds = dependencies(case, plan);
    // residencies starting and ending at each position, for address-reuse waits
    let mut starts: Vec<Option<usize>> = vec![None; len];
    let mut ends: Vec<Option<usize>> = vec![None; len];
    for (r, res) in plan.residencies.iter().enumerate() {
        starts[res.start as usize] = Some(r);
        ends[res.end as usize] = Some(r);
    }
    let mut ended: Vec<Ended> = (0..case.levels.len()).map(|_| Ended::default()).collect();
    let span = |r: usize| {
        let res = &plan.residencies[r];
        let b = case.buffer(res.buffer);
        (b.level.index(), res.offset, res.offset + b.size)
    };
    let (pipe, duration) = costs(case, plan);
    let mut start = vec![0u64; len];
    let mut finish = vec![0u64; len];
    let mut pipe_free = [0u64; Pipe::ALL.len()];
    for p in 0..len {
        let mut ready = preds[p]
            .iter()
            .map(|&q| finish[q as usize])
            .max()
            .unwrap_or(0);
        if let Some(r) = starts[p] {
            let (level, lo, hi) = span(r);
            ready = ready.max(ended[level].latest(lo, hi));
        }
        let at = match pipe[p] {
            Some(unit) => ready.max(pipe_free[unit as usize]),
            None => ready,
        };
        start[p] = at;
        finish[p] = at + duration[p];
        if let Some(unit) = pipe[p] {
            pipe_free[unit as usize] = finish[p];
        }
        if let Some(r) = ends[p] {
            let (level, lo, hi) = span(r);
            if lo < hi {
                ended[level].raise(lo, hi, finish[p]);
            }
        }
    }
    let makespan = finish.iter().copied().max().unwrap_or(0);
    Timing {
        start,
        finish,
        pipe,
        makespan,
    }
}

/// Predecessor positions of every schedule position: the case's edges and the
/// spill edges (address reuse is handled apart).
pub(super) fn dependencies(case: &Case, plan: &NpuPlan) -> Vec<Vec<u32>> {
    let n = case.nodes.len();
    let mut pos_of = vec![u32::MAX; n + 2 * plan.spills.len()];
    for (p, &id) in plan.schedule.iter().enumerate() {
        pos_of[id.index()] = p as u32;
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); plan.schedule.len()];
    let mut edge = |a: NodeId, b: NodeId| preds[pos_of[b.index()] as usize].push(pos_of[a.index()]);
    for &(a, b) in &case.edges {
        edge(a, b);
    }
    let mut users: Vec<Vec<NodeId>> = vec![Vec::new(); case.buffers.len()];
    for (i, node) in case.node_ids().zip(&case.nodes) {
        if let Node::Op(op) = node {
            op.bufs.iter().for_each(|&b| users[b.index()].push(i));
        }
    }
    for (k, s) in plan.spills.iter().enumerate() {
        let (out, inn) = (case.spill_out(k), case.spill_in(k));
        let buf = case.buffer(s.buffer);
        edge(buf.alloc, out);
        edge(out, inn);
        edge(inn, buf.free);
        let list = &mut users[s.buffer.index()];
        for &u in list.iter() {
            if pos_of[u.index()] < s.out_pos {
                edge(u, out);
            } else {
                edge(inn, u);
            }
        }
        list.extend([out, inn]);
    }
    preds
}

/// Pipe and cycles of every schedule position.
pub(super) fn costs(case: &Case, plan: &NpuPlan) -> (Vec<Option<Pipe>>, Vec<u64>) {
    let n = case.nodes.len();
    plan.schedule
        .iter()
        .map(|&id| match case.nodes.get(id.index()) {
            Some(Node::Op(op)) => (Some(op.pipe), op.cycles),
            Some(_) => (None, 0),
            None => {
                let k = (id.index() - n) / 2;
                let b = case.buffer(plan.spills[k].buffer);
                if (id.index() - n).is_multiple_of(2) {
                    (
                        Some(Pipe::Mte3),
                        if b.copy_in { 0 } else { spill_cycles(b.size) },
                    )
                } else {
                    (Some(Pipe::Mte2), spill_cycles(b.size))
                }
            }
        })
        .unzip()
}

/// Per level, the latest finish of an ended residency over each address range:
/// disjoint `(lo, hi, finish)` segments sorted by `lo`.
#[derive(Default)]
struct Ended(Vec<(u64, u64, u64)>);

impl Ended {
    /// Latest finish over `[lo, hi)`.
    fn latest(&self, lo: u64, hi: u64) -> u64 {
        self.0
            .iter()
            .filter(|&&(a, b, _)| a < hi && lo < b)
            .map(|&(_, _, t)| t)
            .max()
            .unwrap_or(0)
    }

    /// Raises `[lo, hi)` to at least `t`.
    fn raise(&mut self, lo: u64, hi: u64, t: u64) {
        let mut out: Vec<(u64, u64, u64)> = Vec::with_capacity(self.0.len() + 2);
        let mut cursor = lo;
        for &(a, b, u) in &self.0 {
            if b <= lo || hi <= a {
                out.push((a, b, u));
                continue;
            }
            if a < lo {
                out.push((a, lo, u));
            }
            if cursor < a {
                out.push((cursor, a, t));
            }
            out.push((a.max(lo), b.min(hi), u.max(t)));
            if hi < b {
                out.push((hi, b, u));
            }
            cursor = b.min(hi);
        }
        if cursor < hi {
            out.push((cursor, hi, t));
        }
        out.sort_unstable_by_key(|s| s.0);
        out.dedup_by(|b, a| {
            a.1 == b.0 && a.2 == b.2 && {
                a.1 = b.1;
                true
            }
        });
        self.0 = out;
    }
}
