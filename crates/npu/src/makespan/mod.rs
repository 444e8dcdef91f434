//! Problem 3: the shortest makespan on the pipes without raising the movement.
//!
//! - `pipes.rs`: the pipe model that times a placed plan;
//! - `tighten.rs`: re-sequences a plan for the pipes, keeping offsets and spills.

pub mod pipes;
pub mod tighten;
