//! The dependencies of a case's nodes, by [`NodeId`]: what the schedulers walk.

use crate::case::{Case, NodeId};
use memplan::order::Deps;

/// Successors and predecessors of every case node, each list sorted, repeats kept
/// once: the one dependency type, [`Deps`], over [`NodeId`]s.
pub type NodeDeps = Deps<NodeId>;

/// The [`NodeDeps`] of `case`.
pub fn node_deps(case: &Case) -> NodeDeps {
    Deps::from_edges(case.nodes.len(), &case.edges)
}

/// The depth-first topological order of all nodes (reverse post-order, as
/// [`memplan::order::Deps::dfs`]).
pub fn dfs_order(case: &Case) -> Vec<NodeId> {
    let edges: Vec<(u32, u32)> = case.edges.iter().map(|&(a, b)| (a.0, b.0)).collect();
    memplan::order::Deps::from_edges(case.nodes.len(), &edges)
        .dfs()
        .into_iter()
        .map(NodeId)
        .collect()
}
