//! The pipe model. Walking the schedule, a node starts when its predecessors have
//! finished (case and spill edges, plus address reuse: a residency starts after
//! every earlier residency of its level sharing an address has ended) and when its
//! pipe has finished the previous node of that pipe; it takes its cycles.
//!
//! Address reuse is kept per level as a running "latest end finish" over address
//! ranges, so every earlier residency counts without building the pairwise edges.

use super::order::Edges;
use super::residency::Residencies;
use super::{Run, Schedule};
use crate::case::Pipe;

/// The largest finish time; the schedule must hold every node once in edge order.
pub(super) fn makespan(run: &Run, schedule: &Schedule, edges: &Edges, res: &Residencies) -> u64 {
    let total = run.total() as usize;
    let preds = Preds::new(total, &edges.list);
    let mut reuse = reuse_trees(run, res);
    let mut finish = vec![0u64; total];
    let mut pipe_free = [0u64; Pipe::ALL.len()];
    let mut last = 0;
    for &id in &schedule.order {
        let mut start = preds
            .of(id)
            .iter()
            .map(|&p| finish[p as usize])
            .max()
            .unwrap_or(0);
        if let Some(&r) = res.started_by.get(&id) {
            let r = &res.list[r as usize];
            if let Some(offset) = r.offset {
                start = start.max(reuse[r.level].query(offset, offset.saturating_add(r.size)));
            }
        }
        let (pipe, cycles) = run.timing(id);
        if let Some(p) = pipe {
            start = start.max(pipe_free[p as usize]);
        }
        let end = start + cycles;
        if let Some(p) = pipe {
            pipe_free[p as usize] = end;
        }
        finish[id as usize] = end;
        if let Some(&r) = res.ended_by.get(&id) {
            let r = &res.list[r as usize];
            if let Some(offset) = r.offset {
                reuse[r.level].raise(offset, offset.saturating_add(r.size), end);
            }
        }
        last = last.max(end);
    }
    last
}

/// Predecessor lists in one array.
struct Preds {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Preds {
    fn new(nodes: usize, edges: &[(u32, u32)]) -> Preds {
        let mut start = vec![0u32; nodes + 1];
        for &(_, to) in edges {
            start[to as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; edges.len()];
        for &(from, to) in edges {
            list[fill[to as usize] as usize] = from;
            fill[to as usize] += 1;
        }
        Preds { start, list }
    }

    fn of(&self, id: u32) -> &[u32] {
        &self.list[self.start[id as usize] as usize..self.start[id as usize + 1] as usize]
    }
}

fn reuse_trees(run: &Run, res: &Residencies) -> Vec<MaxTree> {
    let mut cuts: Vec<Vec<u64>> = vec![Vec::new(); run.case.levels.len()];
    for r in &res.list {
        if let Some(offset) = r.offset {
            cuts[r.level].extend([offset, offset.saturating_add(r.size)]);
        }
    }
    cuts.into_iter().map(MaxTree::new).collect()
}

/// Over the address ranges between sorted cut points: raise a range to at least a
/// value, read the largest value in a range.
struct MaxTree {
    cuts: Vec<u64>,
    /// Largest value anywhere under the tree node.
    best: Vec<u64>,
    /// Value raised over the whole of the tree node.
    whole: Vec<u64>,
}

impl MaxTree {
    fn new(mut cuts: Vec<u64>) -> MaxTree {
        cuts.sort_unstable();
        cuts.dedup();
        let cells = 4 * cuts.len().max(1);
        MaxTree {
            cuts,
            best: vec![0; cells],
            whole: vec![0; cells],
        }
    }

    fn segments(&self) -> usize {
        self.cuts.len().saturating_sub(1)
    }

    /// `[lo, hi)` as segment indices; both ends are cut points.
    fn span(&self, lo: u64, hi: u64) -> (usize, usize) {
        let at = |x: u64| {
            self.cuts
                .binary_search(&x)
                .expect("ranges end on cut points")
        };
        (at(lo), at(hi))
    }

    fn raise(&mut self, lo: u64, hi: u64, value: u64) {
        let (a, b) = self.span(lo, hi);
        if a < b {
            self.raise_in(1, 0, self.segments(), a, b, value);
        }
    }

    fn query(&self, lo: u64, hi: u64) -> u64 {
        let (a, b) = self.span(lo, hi);
        if a < b {
            self.query_in(1, 0, self.segments(), a, b)
        } else {
            0
        }
    }

    fn raise_in(&mut self, cell: usize, l: usize, r: usize, a: usize, b: usize, value: u64) {
        if b <= l || r <= a {
            return;
        }
        if a <= l && r <= b {
            self.whole[cell] = self.whole[cell].max(value);
            self.best[cell] = self.best[cell].max(value);
            return;
        }
        let m = (l + r) / 2;
        self.raise_in(2 * cell, l, m, a, b, value);
        self.raise_in(2 * cell + 1, m, r, a, b, value);
        self.best[cell] = self.whole[cell]
            .max(self.best[2 * cell])
            .max(self.best[2 * cell + 1]);
    }

    fn query_in(&self, cell: usize, l: usize, r: usize, a: usize, b: usize) -> u64 {
        if b <= l || r <= a {
            return 0;
        }
        if a <= l && r <= b {
            return self.best[cell];
        }
        let m = (l + r) / 2;
        self.whole[cell]
            .max(self.query_in(2 * cell, l, m, a, b))
            .max(self.query_in(2 * cell + 1, m, r, a, b))
    }
}
