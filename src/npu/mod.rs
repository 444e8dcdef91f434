//! NPU in-core scheduling: a graph of ALLOC, FREE and operation nodes over small
//! on-chip memory levels (L1, UB, L0A, L0B, L0C). The rules are in
//! `docs/npu-scheduling.md`.

mod cache;
pub mod case;
mod chain;
pub mod checked;
pub mod contest;
pub mod export;
pub mod pipes;
pub mod problem;
mod reorder;
mod respill;
pub mod schedule;
pub mod solve;
pub mod spill;
mod tasks;
pub mod tighten;

pub use case::{Case, Level, Node, NpuBuffer, OpNode, Pipe};
