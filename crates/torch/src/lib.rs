//! memplan-torch: PyTorch's CUDA caching allocator replayed from a memory
//! snapshot's trace.
//!
//! A snapshot records every request in order with its stream, when each block came
//! back (`free_completed`), the settings of the run and every `cudaMalloc` the
//! allocator made. [`replay`] feeds the requests to a model of the allocator
//! ([`model`]) under the recorded settings (and checks the reserved bytes after
//! every entry against the recording: [`replay::Agreement`]) or under others
//! ([`conf::AllocConf`], `PYTORCH_CUDA_ALLOC_CONF`'s syntax), and [`sweep`] tries
//! the settings people reach for; [`compare`] puts two runs side by side.

pub mod compare;
pub mod conf;
pub mod model;
pub mod replay;
pub mod sweep;

pub use conf::AllocConf;
pub use replay::{replay, what_if, Agreement, Replay, ReplayOom, Start};
