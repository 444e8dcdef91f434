//! memplan-npu: NPU in-core scheduling. A case is a graph of ALLOC, FREE and
//! operation nodes over small on-chip memory levels (L1, UB, L0A, L0B, L0C); the
//! rules are in `docs/npu-scheduling.md`. It is a product of its own beside the
//! arena planner (`memplan`), from which it borrows only the shared tools: the
//! error type, dependency lists, the thread pool, the random numbers and sorts.
//!
//! The case and result model sit here (`case`, `id`, `contest`, `export`, with
//! `problem`, `solve` and `checked` for all three problems); [`check`] is the
//! independent checker of the contest's result files, which imports nothing of
//! the solvers. The solvers are grouped by the problem they answer:
//! - [`residency`], problem 1: the order and its L1+UB peak;
//! - [`movement`], problem 2: offsets and spills;
//! - [`makespan`], problem 3: the pipes.

pub mod bounds;
pub mod case;
pub mod check;
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
