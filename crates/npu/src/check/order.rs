//! The schedule as a permutation of the run's nodes, and the edges it must respect:
//! the case's, then each spill's in list order, built from the schedule itself.

use super::{EdgeOrigin, Kind, NpuViolation, Run, Schedule, Sink};

/// Reads the schedule: unknown ids, repeats and missing nodes are violations.
pub(super) fn read_schedule(run: &Run, ids: &[u64], sink: &mut Sink) -> Schedule {
    let total = run.total();
    let mut pos: Vec<Option<u32>> = vec![None; total as usize];
    let mut order = Vec::with_capacity(ids.len().min(total as usize));
    let mut complete = true;
    for (p, &id) in ids.iter().enumerate() {
        if id >= total as u64 {
            complete = false;
            sink.push(|| NpuViolation::UnknownNode {
                id,
                position: p,
                total,
            });
            continue;
        }
        match pos[id as usize] {
            Some(first) => {
                complete = false;
                sink.push(|| NpuViolation::NodeTwice {
                    node: run.node_ref(id as u32),
                    first: first as usize,
                    again: p,
                });
            }
            None => {
                pos[id as usize] = Some(p as u32);
                order.push(id as u32);
            }
        }
    }
    for (id, p) in pos.iter().enumerate() {
        if p.is_none() {
            complete = false;
            sink.push(|| NpuViolation::NodeMissing {
                node: run.node_ref(id as u32),
            });
        }
    }
    Schedule {
        pos,
        order,
        complete,
    }
}

/// The edges a schedule must respect, `from -> to`.
pub(super) struct Edges {
    /// The case's edges followed by the spills' (`spill` says whose).
    pub list: Vec<(u32, u32)>,
    /// The spill of each edge from `list[case_edges..]`.
    pub spill: Vec<u32>,
    pub case_edges: usize,
}

impl Edges {
    fn origin(&self, run: &Run, i: usize) -> EdgeOrigin {
        if i < self.case_edges {
            return EdgeOrigin::Case;
        }
        let k = self.spill[i - self.case_edges] as usize;
        let buf = run.spills[k].buf.expect("only resolved spills add edges");
        EdgeOrigin::Spill {
            index: k,
            buf: run.buf_id(buf),
        }
    }
}

/// The case edges plus, per spill of buffer `b` in list order: `ALLOC(b) -> SPILL_OUT`,
/// `SPILL_OUT -> SPILL_IN`, `SPILL_IN -> FREE(b)`, and for each user of `b` (its ops and
/// the earlier spill nodes of `b`) `user -> SPILL_OUT` when the schedule runs it
/// before SPILL_OUT, else `SPILL_IN -> user`. Users of a spill whose SPILL_OUT is
/// not scheduled get no edge.
pub(super) fn edges(run: &Run, schedule: &Schedule) -> Edges {
    let case = run.case;
    let mut list: Vec<(u32, u32)> = case.edges.iter().map(|&(a, b)| (a.0, b.0)).collect();
    let mut spill = Vec::new();
    let users = users(run);
    let mut spilled: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
    for (k, s) in run.spills.iter().enumerate() {
        let Some(b) = s.buf else { continue };
        let buf = case.buffer(b);
        let out = run.spill_out(k);
        let back = out + 1;
        let mut add = |from: u32, to: u32| {
            list.push((from, to));
            spill.push(k as u32);
        };
        add(buf.alloc.0, out);
        add(out, back);
        add(back, buf.free.0);
        if let Some(out_at) = schedule.pos[out as usize] {
            for &u in users[b.index()].iter().chain(&spilled[b.index()]) {
                match schedule.pos[u as usize] {
                    Some(at) if at < out_at => add(u, out),
                    Some(_) => add(back, u),
                    None => {}
                }
            }
        }
        spilled[b.index()].extend([out, back]);
    }
    Edges {
        list,
        spill,
        case_edges: case.edges.len(),
    }
}

/// The op nodes using each buffer, each once.
fn users(run: &Run) -> Vec<Vec<u32>> {
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); run.case.buffers.len()];
    for id in 0..run.case_nodes() {
        if let Kind::Op(op) = run.kind(id) {
            for &b in &op.bufs {
                let list = &mut users[b.index()];
                if list.last() != Some(&id) {
                    list.push(id);
                }
            }
        }
    }
    users
}

/// Reports every edge whose ends are scheduled the wrong way round; true when none is.
pub(super) fn check_order(run: &Run, schedule: &Schedule, edges: &Edges, sink: &mut Sink) -> bool {
    let mut ok = true;
    for (i, &(from, to)) in edges.list.iter().enumerate() {
        let (Some(a), Some(b)) = (schedule.pos[from as usize], schedule.pos[to as usize]) else {
            continue;
        };
        if a > b {
            ok = false;
            sink.push(|| NpuViolation::OutOfOrder {
                node: run.node_ref(to),
                position: b as usize,
                pred: run.node_ref(from),
                pred_position: a as usize,
                origin: edges.origin(run, i),
            });
        }
    }
    ok
}
