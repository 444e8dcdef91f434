//! NPU in-core scheduling: a graph of ALLOC, FREE and operation nodes over small
//! on-chip memory levels (L1, UB, L0A, L0B, L0C). The rules are in
//! `docs/npu-scheduling.md`.
//!
//! The case and result model sit here (`case`, `id`, `contest`, `export`, with
//! `problem`, `solve` and `checked` for all three problems); the solvers are
//! grouped by the problem they answer:
//! - [`residency`], problem 1: the order and its L1+UB peak;
//! - [`movement`], problem 2: offsets and spills;
//! - [`makespan`], problem 3: the pipes.

pub mod bounds;
pub mod case;
pub mod checked;
pub mod contest;
mod deps;
pub mod export;
mod id;
pub mod makespan;
pub mod movement;
pub mod problem;
pub mod residency;
pub mod solution;
pub mod solve;
pub mod tiled;
pub mod watch;

pub use case::{Case, Level, Node, NpuBuffer, OpNode, Pipe};
pub use id::{BufferId, LevelId, NodeId};

// the solvers' modules under their paths from before the grouping
pub use makespan::{pipes, tighten};
pub use movement::spill;
pub use residency::schedule;
