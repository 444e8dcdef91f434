//! An independent checker: it reads a [`Plan`] and the [`Graph`] it claims to
//! place, recomputes every lifetime from the graph alone, and reports every
//! violation. It shares no code with the planners (no order, liveness,
//! interference or packing function is called), so a bug there cannot hide here.
//!
//! Checked: the order runs every op once, after the producers of its inputs; every
//! arena tensor is placed exactly once with its own size and true lifetime; every
//! offset is aligned and `offset + size <= peak`; no two tensors alive at a common
//! step share a byte.

mod violation;

pub use violation::Violation;

use crate::graph::{Graph, Role};
use crate::plan::{Placement, Plan};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// Every violation of `plan` against `graph`; empty when the plan is valid.
pub fn check(graph: &Graph, plan: &Plan) -> Vec<Violation> {
    let mut out = Vec::new();
    let step_of = check_order(graph, plan, &mut out);
    let truth = true_lifetimes(graph, plan, &step_of);
    check_placements(graph, plan, &truth, &mut out);
    check_overlaps(plan, &truth, &mut out);
    out
}

/// Checks the order; returns the step of each op (`None` when it never runs).
fn check_order(graph: &Graph, plan: &Plan, out: &mut Vec<Violation>) -> Vec<Option<u32>> {
    let mut step_of: Vec<Option<u32>> = vec![None; graph.ops.len()];
    for (step, &op) in plan.order.iter().enumerate() {
        match step_of.get(op as usize) {
            None => out.push(Violation::UnknownOp {
                op,
                step: step as u32,
            }),
            Some(Some(first)) => out.push(Violation::OpTwice {
                op: graph.ops[op as usize].name.clone(),
                first: *first,
                again: step as u32,
            }),
            Some(None) => step_of[op as usize] = Some(step as u32),
        }
    }
    let mut made_at: Vec<Option<u32>> = vec![None; graph.tensors.len()];
    for (i, op) in graph.ops.iter().enumerate() {
        match step_of[i] {
            None => out.push(Violation::OpMissing {
                op: op.name.clone(),
            }),
            Some(s) => op.outputs.iter().for_each(|t| made_at[t.index()] = Some(s)),
        }
    }
    for (i, op) in graph.ops.iter().enumerate() {
        let Some(s) = step_of[i] else { continue };
        for t in &op.inputs {
            if let Some(p) = made_at[t.index()] {
                if p >= s {
                    out.push(Violation::UseBeforeProduce {
                        tensor: graph.tensors[t.index()].name.clone(),
                        op: op.name.clone(),
                        used: s,
                        produced: p,
                    });
                }
            }
        }
    }
    step_of
}

/// The lifetime each arena tensor must have under the plan's order, by tensor index.
fn true_lifetimes(graph: &Graph, plan: &Plan, step_of: &[Option<u32>]) -> Vec<Option<(u32, u32)>> {
    let mut first: Vec<Option<u32>> = vec![None; graph.tensors.len()];
    let mut last: Vec<Option<u32>> = vec![None; graph.tensors.len()];
    for (i, op) in graph.ops.iter().enumerate() {
        let Some(s) = step_of[i] else { continue };
        for t in &op.outputs {
            first[t.index()] = Some(s);
        }
        for t in &op.inputs {
            last[t.index()] = Some(last[t.index()].map_or(s, |l: u32| l.max(s)));
        }
    }
    let final_step = (plan.order.len() as u32).saturating_sub(1);
    graph
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.role != Role::Arena {
                return None;
            }
            if let Some(given) = t.lifetime {
                return Some((given.start, given.end));
            }
            let born = first[i]?;
            let dies = match last[i] {
                Some(l) => l.max(born),
                None if plan.keep_outputs => final_step,
                None => born,
            };
            Some((born, dies))
        })
        .collect()
}

fn check_placements(
    graph: &Graph,
    plan: &Plan,
    truth: &[Option<(u32, u32)>],
    out: &mut Vec<Violation>,
) {
    let mut seen = vec![false; graph.tensors.len()];
    for p in &plan.tensors {
        let Some(t) = graph.tensors.get(p.id as usize) else {
            out.push(Violation::UnknownTensor {
                tensor: p.name.clone(),
            });
            continue;
        };
        if t.role != Role::Arena {
            out.push(Violation::NotArena {
                tensor: t.name.clone(),
            });
            continue;
        }
        if std::mem::replace(&mut seen[p.id as usize], true) {
            out.push(Violation::PlacedTwice {
                tensor: t.name.clone(),
            });
        }
        if p.size != t.size {
            out.push(Violation::WrongSize {
                tensor: t.name.clone(),
                planned: p.size,
                actual: t.size,
            });
        }
        if let Some((start, end)) = truth[p.id as usize] {
            if (p.start, p.end) != (start, end) {
                out.push(Violation::WrongLifetime {
                    tensor: t.name.clone(),
                    planned: (p.start, p.end),
                    actual: (start, end),
                });
            }
        }
        if plan.align > 1 && p.offset % plan.align != 0 {
            out.push(Violation::Misaligned {
                tensor: t.name.clone(),
                offset: p.offset,
                align: plan.align,
            });
        }
        if p.offset
            .checked_add(p.size)
            .is_none_or(|e| e > plan.peak_bytes)
        {
            out.push(Violation::OutOfBounds {
                tensor: t.name.clone(),
                offset: p.offset,
                size: p.size,
                peak: plan.peak_bytes,
            });
        }
    }
    for (i, t) in graph.tensors.iter().enumerate() {
        if t.role == Role::Arena && !seen[i] {
            out.push(Violation::Unplaced {
                tensor: t.name.clone(),
            });
        }
    }
}

/// Tensors with bytes and their lives (the true ones where the graph defines
/// them), by birth then id.
fn by_birth<'p>(plan: &'p Plan, truth: &[Option<(u32, u32)>]) -> Vec<(u32, u32, &'p Placement)> {
    let life = |p: &Placement| {
        truth
            .get(p.id as usize)
            .copied()
            .flatten()
            .unwrap_or((p.start, p.end))
    };
    // sorted by (start, id, place in the plan) packed as one key, so that no
    // comparison reads a placement
    let mut keyed: Vec<(u128, u32, &Placement)> = plan
        .tensors
        .iter()
        .zip(0u32..)
        .filter(|(p, _)| p.size > 0)
        .map(|(p, k)| (life(p), p, k))
        .filter(|((s, e), _, _)| s <= e)
        .map(|((s, e), p, k)| {
            let key = u128::from(s) << 64 | u128::from(p.id) << 32 | u128::from(k);
            (key, e, p)
        })
        .collect();
    keyed.sort_unstable_by_key(|&(key, _, _)| key);
    keyed
        .into_iter()
        .map(|(key, e, p)| ((key >> 64) as u32, e, p))
        .collect()
}

/// Every pair of tensors alive at a common step that share a byte. When the
/// quick sweep finds none there is none; otherwise every tensor is compared with
/// every tensor already live when it is born, to name each pair.
fn check_overlaps(plan: &Plan, truth: &[Option<(u32, u32)>], out: &mut Vec<Violation>) {
    let by_start = by_birth(plan, truth);
    if disjoint(&by_start) {
        return;
    }
    let mut live: Vec<(u32, u32, &Placement)> = Vec::new();
    for (start, end, p) in by_start {
        live.retain(|&(_, e, _)| e >= start);
        for &(_, _, q) in &live {
            let lo = p.offset.max(q.offset);
            let hi = end_of(p).min(end_of(q));
            if lo < hi {
                out.push(Violation::Overlap {
                    a: q.name.clone(),
                    b: p.name.clone(),
                    step: start,
                    from: lo,
                    to: hi,
                });
            }
        }
        live.push((start, end, p));
    }
}

fn end_of(p: &Placement) -> u64 {
    p.offset.saturating_add(p.size)
}

/// Whether no two tensors alive together share a byte, in O(n log n): the live
/// tensors are kept by offset and, while none overlap, their byte ranges are
/// disjoint, so ordered by offset they are ordered by end too. A new tensor then
/// meets a live one exactly when the live one starting last below its end
/// reaches past its offset.
fn disjoint(by_start: &[(u32, u32, &Placement)]) -> bool {
    let mut live: BTreeMap<u64, u64> = BTreeMap::new(); // offset -> end of the range
    let mut dies: BinaryHeap<Reverse<(u32, u64)>> = BinaryHeap::new(); // (last step, offset)
    for &(start, end, p) in by_start {
        while let Some(&Reverse((last, offset))) = dies.peek() {
            if last >= start {
                break;
            }
            dies.pop();
            live.remove(&offset);
        }
        let below = live.range(..end_of(p)).next_back();
        if below.is_some_and(|(_, &reach)| reach > p.offset) {
            return false;
        }
        live.insert(p.offset, end_of(p));
        dies.push(Reverse((end, p.offset)));
    }
    true
}
