//! Problem 3: the pipe model. Each pipe runs its nodes in schedule order, pipes in
//! parallel; a node starts when its predecessors (case edges, spill edges and
//! address-reuse edges) have finished and its pipe is free. ALLOC and FREE take no
//! time and no pipe; SPILL_IN runs on MTE2 and SPILL_OUT on MTE3 for `2 * size + 150`
//! cycles (a SPILL_OUT of a COPY_IN buffer takes none).

use super::case::{Case, Node, Pipe};
use super::spill::NpuPlan;

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
    let n = case.nodes.len();
    let len = plan.schedule.len();
    let mut pos_of = vec![u32::MAX; n + 2 * plan.spills.len()];
    for (p, &id) in plan.schedule.iter().enumerate() {
        pos_of[id as usize] = p as u32;
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); len];
    let mut edge = |a: u32, b: u32| preds[pos_of[b as usize] as usize].push(pos_of[a as usize]);
    for &(a, b) in &case.edges {
        edge(a, b);
    }
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
    for (i, node) in case.nodes.iter().enumerate() {
        if let Node::Op(op) = node {
            op.bufs
                .iter()
                .for_each(|&b| users[b as usize].push(i as u32));
        }
    }
    for (k, s) in plan.spills.iter().enumerate() {
        let (out, inn) = ((n + 2 * k) as u32, (n + 2 * k + 1) as u32);
        let buf = &case.buffers[s.buffer as usize];
        edge(buf.alloc, out);
        edge(out, inn);
        edge(inn, buf.free);
        for &u in &users[s.buffer as usize] {
            if pos_of[u as usize] < s.out_pos {
                edge(u, out);
            } else {
                edge(inn, u);
            }
        }
        users[s.buffer as usize].extend([out, inn]);
    }
    reuse_edges(case, plan, &mut preds);
    let mut pipe: Vec<Option<Pipe>> = Vec::with_capacity(len);
    let mut duration: Vec<u64> = Vec::with_capacity(len);
    for &id in &plan.schedule {
        let (p, d) = match case.nodes.get(id as usize) {
            Some(Node::Op(op)) => (Some(op.pipe), op.cycles),
            Some(_) => (None, 0),
            None => {
                let k = (id as usize - n) / 2;
                let b = &case.buffers[plan.spills[k].buffer as usize];
                if (id as usize - n).is_multiple_of(2) {
                    (
                        Some(Pipe::Mte3),
                        if b.copy_in { 0 } else { spill_cycles(b.size) },
                    )
                } else {
                    (Some(Pipe::Mte2), spill_cycles(b.size))
                }
            }
        };
        pipe.push(p);
        duration.push(d);
    }
    let mut start = vec![0u64; len];
    let mut finish = vec![0u64; len];
    let mut pipe_free = [0u64; Pipe::ALL.len()];
    for p in 0..len {
        let ready = preds[p]
            .iter()
            .map(|&q| finish[q as usize])
            .max()
            .unwrap_or(0);
        let at = match pipe[p] {
            Some(unit) => ready.max(pipe_free[unit as usize]),
            None => ready,
        };
        start[p] = at;
        finish[p] = at + duration[p];
        if let Some(unit) = pipe[p] {
            pipe_free[unit as usize] = finish[p];
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

/// Earlier residency's end -> later residency's start, when they share an address.
fn reuse_edges(case: &Case, plan: &NpuPlan, preds: &mut [Vec<u32>]) {
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); case.levels.len()];
    for (r, res) in plan.residencies.iter().enumerate() {
        by_level[case.buffers[res.buffer as usize].level].push(r);
    }
    for list in &mut by_level {
        list.sort_by_key(|&r| plan.residencies[r].start);
        for (k, &r) in list.iter().enumerate() {
            let later = &plan.residencies[r];
            let size = case.buffers[later.buffer as usize].size;
            for &e in &list[..k] {
                let earlier = &plan.residencies[e];
                let esize = case.buffers[earlier.buffer as usize].size;
                let shares =
                    earlier.offset < later.offset + size && later.offset < earlier.offset + esize;
                if shares && earlier.end < later.start {
                    preds[later.start as usize].push(earlier.end);
                }
            }
        }
    }
}
