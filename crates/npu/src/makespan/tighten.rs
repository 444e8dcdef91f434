//! Problem 3: re-sequences a placed plan for the pipes without touching its offsets
//! or spills. The plan's dependencies (case edges, spill edges, and address reuse:
//! each stay waits for the end of the last stay that held its addresses, and every
//! stay's end waits for its start) form a graph; any topological order of it keeps
//! the plan valid with the same data movement. A list scheduler walks that graph
//! and always runs the node that can start earliest on its pipe (ties to the old
//! position); ALLOC and FREE go as soon as they are ready.

use super::pipes::{costs, dependencies, simulate};
use crate::case::{Case, Pipe};
use crate::movement::spill::NpuPlan;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// The plan re-sequenced for the pipes, when that shortens its makespan.
pub fn tighten(case: &Case, plan: &NpuPlan) -> Option<NpuPlan> {
    let len = plan.schedule.len();
    let mut preds = dependencies(case, plan);
    reuse_edges(case, plan, &mut preds);
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); len];
    let mut indegree = vec![0u32; len];
    for (b, list) in preds.iter_mut().enumerate() {
        list.sort_unstable();
        list.dedup();
        for &a in list.iter() {
            succ[a as usize].push(b as u32);
        }
        indegree[b] = list.len() as u32;
    }
    let (pipe, duration) = costs(case, plan);
    let mut ready_at = vec![0u64; len];
    let mut free_nodes: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let mut queues: Vec<BTreeSet<(u64, u32)>> = vec![BTreeSet::new(); Pipe::ALL.len()];
    let push = |p: u32,
                at: u64,
                free_nodes: &mut BinaryHeap<Reverse<(u64, u32)>>,
                queues: &mut Vec<BTreeSet<(u64, u32)>>| match pipe[p as usize] {
        Some(unit) => {
            queues[unit as usize].insert((at, p));
        }
        None => free_nodes.push(Reverse((at, p))),
    };
    for p in 0..len as u32 {
        if indegree[p as usize] == 0 {
            push(p, 0, &mut free_nodes, &mut queues);
        }
    }
    let mut pipe_free = [0u64; Pipe::ALL.len()];
    let mut order: Vec<u32> = Vec::with_capacity(len);
    while order.len() < len {
        let (p, start) = if let Some(Reverse((at, p))) = free_nodes.pop() {
            (p, at)
        } else {
            let unit = (0..queues.len())
                .filter_map(|u| {
                    queues[u]
                        .first()
                        .map(|&(at, p)| ((at.max(pipe_free[u]), p), u))
                })
                .min()?
                .1;
            let (at, p) = queues[unit].pop_first()?;
            (p, at.max(pipe_free[unit]))
        };
        let finish = start + duration[p as usize];
        if let Some(unit) = pipe[p as usize] {
            pipe_free[unit as usize] = finish;
        }
        order.push(p);
        for &s in &succ[p as usize] {
            ready_at[s as usize] = ready_at[s as usize].max(finish);
            indegree[s as usize] -= 1;
            if indegree[s as usize] == 0 {
                push(s, ready_at[s as usize], &mut free_nodes, &mut queues);
            }
        }
    }
    let resequenced = remap(plan, &order);
    (simulate(case, &resequenced).makespan < simulate(case, plan).makespan).then_some(resequenced)
}

/// Each stay waits for the last stay that held any of its addresses, and every
/// stay's end waits for its start, so the order of all stays sharing an address
/// is kept.
fn reuse_edges(case: &Case, plan: &NpuPlan, preds: &mut [Vec<u32>]) {
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); case.levels.len()];
    for (r, res) in plan.residencies.iter().enumerate() {
        by_level[case.buffer(res.buffer).level.index()].push(r);
        if res.start < res.end {
            preds[res.end as usize].push(res.start);
        }
    }
    for list in &mut by_level {
        memplan::sort::by_key(list, |&r| plan.residencies[r].start);
        // disjoint (lo, hi, last stay over [lo, hi)), sorted by lo
        let mut last: Vec<(u64, u64, usize)> = Vec::new();
        for &r in list.iter() {
            let res = &plan.residencies[r];
            let (lo, hi) = (res.offset, res.offset + case.buffer(res.buffer).size);
            if lo == hi {
                continue;
            }
            for &(a, b, e) in &last {
                if a < hi && lo < b {
                    preds[res.start as usize].push(plan.residencies[e].end);
                }
            }
            let mut next: Vec<(u64, u64, usize)> = Vec::with_capacity(last.len() + 2);
            for &(a, b, e) in &last {
                if b <= lo || hi <= a {
                    next.push((a, b, e));
                    continue;
                }
                if a < lo {
                    next.push((a, lo, e));
                }
                if hi < b {
                    next.push((hi, b, e));
                }
            }
            next.push((lo, hi, r));
            next.sort_unstable_by_key(|s| s.0);
            last = next;
        }
    }
}

/// The plan with its schedule in `order` (old positions), positions renumbered.
fn remap(plan: &NpuPlan, order: &[u32]) -> NpuPlan {
    let mut new_pos = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_pos[old as usize] = new as u32;
    }
    let mut out = plan.clone();
    out.schedule = order
        .iter()
        .map(|&old| plan.schedule[old as usize])
        .collect();
    for r in &mut out.residencies {
        r.start = new_pos[r.start as usize];
        r.end = new_pos[r.end as usize];
    }
    for s in &mut out.spills {
        s.out_pos = new_pos[s.out_pos as usize];
        s.in_pos = new_pos[s.in_pos as usize];
    }
    out
}
