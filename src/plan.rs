//! A memory plan: the output every strategy produces and the checker reads.

use crate::graph::{Lifetime, TensorId};
use crate::liveness::{self, Buffer};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub graph: String,
    pub strategy: String,
    /// Name of the topological order used (`kahn`, `dfs`).
    pub order_kind: String,
    pub align: u64,
    pub keep_outputs: bool,
    pub steps: u32,
    pub lower_bound: u64,
    pub naive_bytes: u64,
    pub peak_bytes: u64,
    /// Pools of the interference colouring (the same for every strategy).
    pub pools: usize,
    pub pooled_bytes: u64,
    /// Op indices in execution order: step `s` runs op `order[s]`.
    pub order: Vec<u32>,
    pub tensors: Vec<Placement>,
    /// No plan on this order has a lower peak: it reaches the lower bound, or the
    /// search proved every lower capacity infeasible.
    #[serde(default)]
    pub proven_optimal: bool,
    /// No plan on this order has a peak below this (at least the lower bound).
    #[serde(default)]
    pub proven_bound: u64,
}

/// One arena tensor: its bytes `[offset, offset + size)` over steps `[start, end]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// Index of the tensor in the graph.
    pub id: u32,
    pub name: String,
    pub size: u64,
    pub start: u32,
    pub end: u32,
    pub offset: u64,
    /// Pool of the interference colouring.
    pub pool: u32,
}

impl Plan {
    /// Live bytes per step, `(step, bytes)` where the sum changes, over this plan's
    /// own order (the steps its tensors carry): after `reorder`, the order it chose.
    pub fn profile(&self) -> Vec<(u32, u64)> {
        let buffers: Vec<Buffer> = self
            .tensors
            .iter()
            .map(|t| Buffer {
                tensor: TensorId(t.id),
                size: t.size,
                life: Lifetime::new(t.start, t.end),
            })
            .collect();
        liveness::profile(&buffers)
    }

    /// Peak over the lower bound; 1.0 when there is nothing to place.
    pub fn ratio(&self) -> f64 {
        if self.lower_bound == 0 {
            1.0
        } else {
            self.peak_bytes as f64 / self.lower_bound as f64
        }
    }
}
