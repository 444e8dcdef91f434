//! Tiled matmul cases of any size, of the public Matmul cases' kind: for tests and
//! benchmarks at scale, and `memplan npu-matmul`, which writes one as contest JSON.
//!
//! `C (m x n tiles) = A (m x k) * B (k x n)`: each A and B tile (128 units) is
//! copied into L1 by a COPY_IN on first use; each product moves its two tiles into
//! L0A and L0B (MOVE) and accumulates into the C tile in L0C (256 units, MATMUL),
//! the k products of one C tile chained in order; then the C tile is copied out.
//! Nodes come in the order the loops make them (C tile by C tile, row-major), every
//! FREE last, after all users of its buffer; each ALLOC leads to its buffer's first
//! user. 20 x 20 x 20 tiles make 59,600 nodes.
//!
//! [`CaseBuilder`], which writes them, builds any case that way, node by node; the
//! tests build their small hand-made cases with it too.

use super::case::{default_levels, Case, Level, RawNode};
use memplan::Error;
use std::collections::HashMap;

/// Largest count of products (`m * k * n`) generated: about 30 M nodes, within
/// [`super::case::MAX_NODES`] with room.
pub const MAX_PRODUCTS: usize = 1_000_000;

/// The tiled matmul of `m x k` by `k x n` tiles at the default levels.
pub fn tiled_matmul(m: usize, k: usize, n: usize) -> Result<Case, Error> {
    let products = m.checked_mul(k).and_then(|x| x.checked_mul(n));
    if m == 0 || k == 0 || n == 0 || products.is_none_or(|p| p > MAX_PRODUCTS) {
        return Err(Error::invalid(format!(
            "a tiled matmul needs 1 to {MAX_PRODUCTS} products (m x k x n), not {m} x {k} x {n}"
        )));
    }
    let mut c = CaseBuilder::default();
    // per side (A, B): (row or column, k) -> (L1 tile, its COPY_IN)
    let mut tiles: [HashMap<(usize, usize), (usize, u64)>; 2] = Default::default();
    for i in 0..m {
        for j in 0..n {
            let acc = c.alloc(256, "L0C");
            let mut after: Vec<u64> = Vec::new();
            for kk in 0..k {
                let mut moved = [(0usize, 0u64); 2];
                for (slot, (side, key, level)) in [(0, (i, kk), "L0A"), (1, (j, kk), "L0B")]
                    .into_iter()
                    .enumerate()
                {
                    let (tile, load) = match tiles[side].get(&key) {
                        Some(&t) => t,
                        None => {
                            let t = c.alloc(128, "L1");
                            let load = c.op("COPY_IN", "MTE2", 325, &[t], &[]);
                            tiles[side].insert(key, (t, load));
                            (t, load)
                        }
                    };
                    let l0 = c.alloc(128, level);
                    moved[slot] = (l0, c.op("MOVE", "MTE1", 31, &[l0, tile], &[load]));
                }
                after.extend(moved.iter().map(|m| m.1));
                let bufs = [acc, moved[1].0, moved[0].0];
                after = vec![c.op("MATMUL", "CUBE", 128, &bufs, &after)];
            }
            c.op("COPY_OUT", "FIXP", 263, &[acc], &after);
        }
    }
    c.finish(&format!("tiled_matmul_{m}x{k}x{n}"), default_levels())
}

/// A case built node by node, as raw nodes and edges a reader would find: each
/// buffer's ALLOC leads to its first user, and its FREE, written last, follows all
/// of its users.
#[derive(Default)]
pub struct CaseBuilder {
    nodes: Vec<RawNode>,
    edges: Vec<(u64, u64)>,
    /// Per buffer: size, level, ALLOC node, users.
    buffers: Vec<(u64, &'static str, u64, Vec<u64>)>,
}

impl CaseBuilder {
    fn node(&mut self, op: &str, pipe: Option<&str>, cycles: Option<u64>, bufs: Vec<u64>) -> u64 {
        let id = self.nodes.len() as u64;
        self.nodes.push(RawNode {
            id,
            op: op.to_string(),
            buf_id: None,
            size: None,
            level: None,
            pipe: pipe.map(str::to_string),
            cycles,
            bufs,
        });
        id
    }

    fn buffer_node(&mut self, op: &str, b: usize) -> u64 {
        let (size, level, _, _) = self.buffers[b];
        let id = self.node(op, None, None, Vec::new());
        let node = &mut self.nodes[id as usize];
        node.buf_id = Some(b as u64);
        node.size = Some(size);
        node.level = Some(level.to_string());
        id
    }

    /// A buffer of `size` units in `level`, with its ALLOC node; its index.
    pub fn alloc(&mut self, size: u64, level: &'static str) -> usize {
        let b = self.buffers.len();
        self.buffers.push((size, level, 0, Vec::new()));
        self.buffers[b].2 = self.buffer_node("ALLOC", b);
        b
    }

    /// An op on the buffers `bufs` that runs after the nodes `after`; its node.
    pub fn op(
        &mut self,
        name: &str,
        pipe: &str,
        cycles: u64,
        bufs: &[usize],
        after: &[u64],
    ) -> u64 {
        let list = bufs.iter().map(|&b| b as u64).collect();
        let id = self.node(name, Some(pipe), Some(cycles), list);
        for &b in bufs {
            let (_, _, alloc, users) = &mut self.buffers[b];
            if users.is_empty() {
                self.edges.push((*alloc, id));
            }
            users.push(id);
        }
        self.edges.extend(after.iter().map(|&a| (a, id)));
        id
    }

    /// The case at `levels`, every FREE added.
    pub fn finish(mut self, name: &str, levels: Vec<Level>) -> Result<Case, Error> {
        for b in 0..self.buffers.len() {
            let free = self.buffer_node("FREE", b);
            let users = std::mem::take(&mut self.buffers[b].3);
            self.edges.extend(users.into_iter().map(|u| (u, free)));
        }
        Case::new(name.to_string(), self.nodes, self.edges, levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Node;

    #[test]
    fn a_tiled_matmul_has_the_nodes_its_loops_make() {
        let (m, k, n) = (2, 3, 4);
        let case = tiled_matmul(m, k, n).unwrap();
        let count = |op: &str| {
            case.nodes
                .iter()
                .filter(|node| matches!(node, Node::Op(o) if o.op == op))
                .count()
        };
        assert_eq!(count("MATMUL"), m * k * n);
        assert_eq!(count("MOVE"), 2 * m * k * n);
        assert_eq!(count("COPY_IN"), m * k + k * n);
        assert_eq!(count("COPY_OUT"), m * n);
        // C tiles, L1 tiles and two L0 tiles per product, each with ALLOC and FREE
        let buffers = m * n + m * k + k * n + 2 * m * k * n;
        assert_eq!(case.buffers.len(), buffers);
        let ops = m * k * n * 3 + m * k + k * n + m * n;
        assert_eq!(case.nodes.len(), ops + 2 * buffers);
        assert_eq!(tiled_matmul(20, 20, 20).unwrap().nodes.len(), 59_600);
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        assert!(tiled_matmul(0, 3, 3).is_err());
        assert!(tiled_matmul(1_000, 1_000, 2).is_err());
        assert!(tiled_matmul(usize::MAX, 2, 2).is_err());
    }
}
