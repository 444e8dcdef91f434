//! Live intervals, live bytes per step and the lower bound.
//!
//! A step is a position in the execution order. An arena tensor is live from its
//! producer's step through its last consumer's step, inclusive; one nobody consumes
//! lives at its producer's step only, or to the last step with `keep_outputs`.
//! The lower bound is the largest sum of sizes of tensors live at one step: no
//! offset plan on this order can use less.

use crate::error::Error;
/// Lifetimes are graph facts (an instance may fix them); the type sits with the graph.
pub use crate::graph::Lifetime;
use crate::graph::{Graph, OpId, TensorId};
use serde::Serialize;

/// An arena tensor as the packers see it: a size over a lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Buffer {
    pub tensor: TensorId,
    pub size: u64,
    pub life: Lifetime,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Liveness {
    /// Arena tensors in declaration order.
    pub buffers: Vec<Buffer>,
    /// Number of steps: ops in the order, or one past the last given lifetime.
    pub steps: u32,
    pub lower_bound: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveOptions {
    /// Keep tensors nobody consumes alive to the last step.
    pub keep_outputs: bool,
}

/// Lifetimes of all arena tensors of `graph` executed in `order`.
pub fn analyse(graph: &Graph, order: &[OpId], opts: LiveOptions) -> Result<Liveness, Error> {
    let n = graph.tensors.len();
    let mut birth: Vec<Option<u32>> = vec![None; n];
    let mut death: Vec<Option<u32>> = vec![None; n];
    for (step, &op) in order.iter().enumerate() {
        let step = step as u32;
        let op = graph.op(op);
        for t in &op.outputs {
            birth[t.index()] = Some(step);
        }
        for t in &op.inputs {
            death[t.index()] = Some(death[t.index()].map_or(step, |d| d.max(step)));
        }
    }
    let last_step = (order.len() as u32).saturating_sub(1);
    let mut buffers = Vec::new();
    for id in graph.arena_tensors() {
        let t = graph.tensor(id);
        let life = match (t.lifetime, birth[id.index()], death[id.index()]) {
            (Some(given), None, None) => given,
            (Some(_), _, _) => {
                return Err(Error::invalid(format!(
                    "tensor `{}` has a given lifetime but an op also uses it",
                    t.name
                )))
            }
            (None, Some(b), None) if opts.keep_outputs => Lifetime::new(b, last_step),
            (None, Some(b), d) => Lifetime::new(b, d.unwrap_or(b).max(b)),
            (None, None, Some(d)) => {
                let consumer = consumer_at(graph, order, id, d);
                return Err(Error::invalid(format!(
                    "tensor `{}` is consumed at step {d} (op `{consumer}`) but never produced; \
                     declare it as an input or a constant",
                    t.name
                )));
            }
            (None, None, None) => {
                return Err(Error::invalid(format!(
                    "tensor `{}` is declared but no op produces or consumes it",
                    t.name
                )))
            }
        };
        buffers.push(Buffer {
            tensor: id,
            size: t.size,
            life,
        });
    }
    let steps = buffers
        .iter()
        .map(|b| b.life.end.saturating_add(1))
        .max()
        .unwrap_or(0)
        .max(order.len() as u32);
    let lower_bound = max_live_bytes(&buffers);
    Ok(Liveness {
        buffers,
        steps,
        lower_bound,
    })
}

fn consumer_at(graph: &Graph, order: &[OpId], tensor: TensorId, step: u32) -> String {
    let op = graph.op(order[step as usize]);
    debug_assert!(op.inputs.contains(&tensor));
    op.name.clone()
}

/// Live bytes as a step function: `(step, bytes)` at every step where the sum changes,
/// starting at step 0. Sums saturate at `u64::MAX`.
pub fn profile(buffers: &[Buffer]) -> Vec<(u32, u64)> {
    // events: +size at start, -size after end
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(buffers.len() * 2);
    for b in buffers {
        events.push((u64::from(b.life.start), true, b.size));
        events.push((u64::from(b.life.end) + 1, false, b.size));
    }
    events.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(u32, u64)> = vec![(0, 0)];
    let mut live: u128 = 0;
    let mut i = 0;
    while i < events.len() {
        let at = events[i].0;
        while i < events.len() && events[i].0 == at {
            let (_, add, size) = events[i];
            if add {
                live += u128::from(size);
            } else {
                live -= u128::from(size);
            }
            i += 1;
        }
        let bytes = u64::try_from(live).unwrap_or(u64::MAX);
        let Ok(step) = u32::try_from(at) else { break };
        match out.last_mut() {
            Some(last) if last.0 == step => last.1 = bytes,
            Some(last) if last.1 == bytes => {}
            _ => out.push((step, bytes)),
        }
    }
    out
}

/// Live bytes at each of `steps` steps.
pub fn live_bytes(buffers: &[Buffer], steps: u32) -> Vec<u64> {
    let changes = profile(buffers);
    let mut out = Vec::with_capacity(steps as usize);
    let mut k = 0;
    for s in 0..steps {
        while k + 1 < changes.len() && changes[k + 1].0 <= s {
            k += 1;
        }
        out.push(changes[k].1);
    }
    out
}

/// The largest sum of sizes live at one step.
pub fn max_live_bytes(buffers: &[Buffer]) -> u64 {
    profile(buffers).iter().map(|&(_, b)| b).max().unwrap_or(0)
}
