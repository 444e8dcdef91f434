//! The dependencies of a case's nodes, by [`NodeId`]: what the schedulers walk.

use super::case::{Case, NodeId};

/// Successors and predecessors of every case node, each list sorted, repeats kept
/// once (as [`crate::order::Deps`] keeps them).
#[derive(Clone, Debug)]
pub struct NodeDeps {
    pub succ: Vec<Vec<NodeId>>,
    pub pred: Vec<Vec<NodeId>>,
}

impl NodeDeps {
    pub fn of(case: &Case) -> NodeDeps {
        let n = case.nodes.len();
        let mut succ: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for &(a, b) in &case.edges {
            succ[a.index()].push(b);
            pred[b.index()].push(a);
        }
        for list in succ.iter_mut().chain(pred.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        NodeDeps { succ, pred }
    }

    pub fn succ(&self, n: NodeId) -> &[NodeId] {
        &self.succ[n.index()]
    }

    pub fn pred(&self, n: NodeId) -> &[NodeId] {
        &self.pred[n.index()]
    }
}

/// The depth-first topological order of all nodes (reverse post-order, as
/// [`crate::order::Deps::dfs`]).
pub fn dfs_order(case: &Case) -> Vec<NodeId> {
    let edges: Vec<(u32, u32)> = case.edges.iter().map(|&(a, b)| (a.0, b.0)).collect();
    crate::order::Deps::from_edges(case.nodes.len(), &edges)
        .dfs()
        .into_iter()
        .map(NodeId)
        .collect()
}
