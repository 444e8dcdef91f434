//! Problem 3: the makespan bound ([`makespan_bound`], [`makespan_bound_any`]):
//! the critical path and each pipe's busy time over the case and spill edges.

use super::dag::{case_edges, Dag};
use crate::case::{BufferId, Case, Node, NodeId, Pipe};

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
pub(super) fn transfer(size: u64) -> u64 {
    2 * size + 150
}

/// A lower bound on the makespan of the plan whose schedule is `schedule` (node
/// ids, spill nodes `N + 2k` and `N + 2k + 1` included) and whose `k`-th spill moves
/// `spilled[k]` (see the `bounds` module's documentation). A node missing from the schedule
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
