//! Topological orders of the ops. Both orders are deterministic; a cycle is an
//! error naming the ops and tensors along it.
//!
//! - [`OrderKind::Kahn`]: Kahn's algorithm, always running the ready op with the
//!   smallest index, so a file already in a valid execution order keeps it.
//! - [`OrderKind::Dfs`]: reverse post-order of an iterative depth-first search
//!   over consumers, roots and children taken in index order; it runs one branch
//!   to its end before starting the next.
//! - [`OrderKind::Memory`]: the order of lowest lower bound among Kahn's, the
//!   depth-first one, list schedules with look-ahead and, on small graphs, the
//!   exact minimum ([`memory`]); never a higher bound than Kahn's.

pub mod memory;

use crate::error::Error;
use crate::graph::{Graph, OpId};
use crate::liveness::LiveOptions;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OrderKind {
    #[default]
    Kahn,
    Dfs,
    Memory,
}

impl OrderKind {
    pub const ALL: [OrderKind; 3] = [OrderKind::Kahn, OrderKind::Dfs, OrderKind::Memory];

    pub fn name(self) -> &'static str {
        match self {
            OrderKind::Kahn => "kahn",
            OrderKind::Dfs => "dfs",
            OrderKind::Memory => "memory",
        }
    }

    pub fn from_name(name: &str) -> Result<OrderKind, Error> {
        OrderKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown order `{name}` (expected kahn, dfs or memory)"
                ))
            })
    }
}

/// Dependencies between numbered nodes (ops of a graph, nodes of an NPU case):
/// `succ[a]` holds the nodes that must run after `a`, `pred[b]` those before `b`,
/// each sorted and without duplicates.
/// Nodes are numbered by `I`: a plain `u32` or a typed id (the NPU's `NodeId`).
#[derive(Clone, Debug)]
pub struct Deps<I = u32> {
    pub succ: Vec<Vec<I>>,
    pub pred: Vec<Vec<I>>,
}

impl<I: crate::id::Index> Deps<I> {
    /// The dependencies of `n` nodes joined by `edges` (`(before, after)`; repeats
    /// are kept once).
    pub fn from_edges(n: usize, edges: &[(I, I)]) -> Deps<I> {
        let mut succ: Vec<Vec<I>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<I>> = vec![Vec::new(); n];
        for &(a, b) in edges {
            succ[a.index()].push(b);
            pred[b.index()].push(a);
        }
        for list in succ.iter_mut().chain(pred.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        Deps { succ, pred }
    }

    /// The nodes that must run after `n`.
    pub fn succ(&self, n: I) -> &[I] {
        &self.succ[n.index()]
    }

    /// The nodes that must run before `n`.
    pub fn pred(&self, n: I) -> &[I] {
        &self.pred[n.index()]
    }
}

impl Deps {
    /// Kahn's order with the lowest ready index first; shorter than the node count
    /// when there is a cycle.
    pub fn kahn(&self) -> Vec<u32> {
        kahn(self).into_iter().map(|o| o.0).collect()
    }

    /// Reverse post-order of a depth-first search; the graph must be acyclic.
    pub fn dfs(&self) -> Vec<u32> {
        dfs(self).into_iter().map(|o| o.0).collect()
    }
}

/// The ops of `graph` joined producer before consumer.
fn deps(graph: &Graph) -> Deps {
    let producer = graph.producers();
    let mut edges = Vec::new();
    for (b, op) in graph.ops.iter().enumerate() {
        let preds = op.inputs.iter().filter_map(|t| producer[t.index()]);
        edges.extend(preds.map(|p| (p.0, b as u32)));
    }
    Deps::from_edges(graph.ops.len(), &edges)
}

/// A topological order of all ops of `graph`; the memory-aware order with
/// default live options (see [`topological_for`]).
pub fn topological(graph: &Graph, kind: OrderKind) -> Result<Vec<OpId>, Error> {
    topological_for(graph, kind, LiveOptions::default())
}

/// A topological order of all ops of `graph`; `live` matters to the memory order only.
pub fn topological_for(
    graph: &Graph,
    kind: OrderKind,
    live: LiveOptions,
) -> Result<Vec<OpId>, Error> {
    let deps = deps(graph);
    let order = kahn(&deps);
    if order.len() < graph.ops.len() {
        return Err(cycle_error(graph, &order));
    }
    Ok(match kind {
        OrderKind::Kahn => order,
        OrderKind::Dfs => dfs(&deps),
        OrderKind::Memory => memory::order(graph, live),
    })
}

fn kahn(deps: &Deps) -> Vec<OpId> {
    let mut indegree: Vec<u32> = deps.pred.iter().map(|p| p.len() as u32).collect();
    let mut ready: BinaryHeap<Reverse<u32>> = (0..indegree.len() as u32)
        .filter(|&i| indegree[i as usize] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(indegree.len());
    while let Some(Reverse(a)) = ready.pop() {
        order.push(OpId(a));
        for &b in &deps.succ[a as usize] {
            indegree[b as usize] -= 1;
            if indegree[b as usize] == 0 {
                ready.push(Reverse(b));
            }
        }
    }
    order
}

/// Reverse post-order of a depth-first search over consumers; valid only on an
/// acyclic graph (the caller checks with [`kahn`] first).
fn dfs(deps: &Deps) -> Vec<OpId> {
    let n = deps.pred.len();
    let mut visited = vec![false; n];
    let mut post: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in (0..n as u32)
        .rev()
        .filter(|&r| deps.pred[r as usize].is_empty())
    {
        visited[root as usize] = true;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (a, next) = *top;
            let succ = &deps.succ[a as usize];
            if next == succ.len() {
                post.push(a);
                stack.pop();
                continue;
            }
            top.1 += 1;
            // children in reverse index order so that, reversed, the first child runs first
            let b = succ[succ.len() - 1 - next];
            if !visited[b as usize] {
                visited[b as usize] = true;
                stack.push((b, 0));
            }
        }
    }
    post.reverse();
    post.into_iter().map(OpId).collect()
}

/// Names a cycle among the ops missing from `done`.
fn cycle_error(graph: &Graph, done: &[OpId]) -> Error {
    let mut scheduled = vec![false; graph.ops.len()];
    for op in done {
        scheduled[op.index()] = true;
    }
    let producer = graph.producers();
    // Every unscheduled op has an unscheduled producer; walking back must revisit an op.
    let start = (0..graph.ops.len())
        .find(|&i| !scheduled[i])
        .expect("a cycle leaves an op unscheduled");
    let mut seen_at = vec![usize::MAX; graph.ops.len()];
    let mut walk: Vec<(usize, usize)> = Vec::new(); // (op, input tensor leading back)
    let mut op = start;
    while seen_at[op] == usize::MAX {
        seen_at[op] = walk.len();
        let (tensor, pred) = graph.ops[op]
            .inputs
            .iter()
            .find_map(|t| {
                producer[t.index()]
                    .filter(|p| !scheduled[p.index()])
                    .map(|p| (t.index(), p.index()))
            })
            .expect("an unscheduled op waits on an unscheduled producer");
        walk.push((op, tensor));
        op = pred;
    }
    // walk[seen_at[op]..] is the cycle, traversed against the data flow.
    let cycle = &walk[seen_at[op]..];
    let mut names = Vec::with_capacity(cycle.len() * 2 + 1);
    names.push(graph.ops[op].name.clone());
    for &(o, t) in cycle.iter().rev() {
        names.push(graph.tensors[t].name.clone());
        names.push(graph.ops[o].name.clone());
    }
    Error::cycle(names)
}

/// Position of every op in `order`: `step[op] = index in order`.
pub fn steps_of(order: &[OpId], n_ops: usize) -> Vec<u32> {
    let mut step = vec![u32::MAX; n_ops];
    for (i, op) in order.iter().enumerate() {
        step[op.index()] = i as u32;
    }
    step
}
