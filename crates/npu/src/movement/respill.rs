//! Problem 2: op orders searched against the allocator itself.
//!
//! The spill models of `cache.rs` and `tasks/` rank orders cheaply but do not
//! always agree with the allocator (fragmentation, the victim rules). Here every
//! move is judged by the allocator on the whole order: a block of ops slides
//! earlier or later past ops it does not depend on (`residency/reorder/`, so every
//! order stays topological), and the move is kept when the extra data movement
//! does not rise, so the search walks plateaus of equal movement. Half of the
//! blocks are picked near a spill of the current plan. Each placement takes the
//! current plan over up to where the orders part, and again from where the
//! allocator holds what it held there after the moved block ([`place_reusing`]),
//! with the plan a placement from the start would give. The budget counts the
//! nodes of every order placed (taken over or not), so the result does not
//! depend on the machine.

use super::spill::{place_reusing, NpuPlan, Scratch, SpillOptions};
use crate::case::{Case, NodeId};
use crate::makespan::pipes::simulate;
use crate::residency::reorder::{pick_move, OpOrder};
use memplan::rng::Rng;

/// Plans taken on the way for Problem 3 (the search walks plateaus of equal
/// movement, whose plans differ in makespan): over the second half of the
/// budget, the plan kept after each of `SAMPLES` equal steps of work is timed,
/// and kept while no plan taken moves as little or less and finishes as soon or
/// sooner. A sample costs one timing of the plan (`makespan/pipes.rs`).
const SAMPLES: u64 = 64;

/// The plans taken on the way ([`SAMPLES`]): `(movement, makespan, plan)`, none
/// beaten on both by another.
#[derive(Default)]
pub struct Front(Vec<(u64, u64, NpuPlan)>);

impl Front {
    fn offer(&mut self, case: &Case, plan: &NpuPlan) {
        let (moved, span) = (plan.extra_movement(), simulate(case, plan).makespan);
        if self.0.iter().any(|&(m, t, _)| m <= moved && t <= span) {
            return;
        }
        self.0.retain(|&(m, t, _)| m < moved || t < span);
        self.0.push((moved, span, plan.clone()));
    }

    pub fn into_plans(self) -> Vec<NpuPlan> {
        self.0.into_iter().map(|(_, _, plan)| plan).collect()
    }
}

/// `start` (a topological order of all nodes) improved by block moves of its ops
/// under the rules `opts`, until `budget` nodes have been placed: the plan of the
/// least movement found, `None` when no order moves less than `start`'s own.
/// With `front`, plans on the way are offered to it ([`SAMPLES`]); they do not
/// change the search.
///
/// `watch` is called with each plan that moves less than every one before it
/// (`Some`), and with `None` before every move; once it answers true the search
/// ends with the best plan so far.
pub fn improve(
    case: &Case,
    start: &[NodeId],
    opts: SpillOptions,
    budget: u64,
    seed: u64,
    mut front: Option<&mut Front>,
    watch: &mut dyn FnMut(Option<&NpuPlan>) -> bool,
) -> Option<NpuPlan> {
    let mut search = OpOrder::new(case, start);
    let n = search.op_count();
    let mut scratch = Scratch::default();
    let mut current = search.order();
    let mut placed = place_reusing(case, &current, opts, u64::MAX, None, &mut scratch)
        .ok()
        .flatten()?;
    let first = placed.plan.extra_movement();
    if n < 2 || first == 0 {
        return None;
    }
    let mut rng = Rng::new(seed);
    let mut hot = spill_ops(case, &placed.plan);
    let mut work = 0u64;
    let mut best: Option<NpuPlan> = None;
    let every = (budget / 2 / SAMPLES).max(1);
    let mut sample_at = budget / 2;
    while work < budget && !watch(None) {
        work += 1;
        let near = (!hot.is_empty()).then(|| hot[rng.below(hot.len())]);
        let (a, len, to) = pick_move(&mut rng, n, near);
        if to == a || !search.slide(a, a + len, to) {
            continue;
        }
        let order = search.order();
        work += order.len() as u64;
        // placed from where the order parts from the current one
        let limit = placed.plan.extra_movement();
        let after = Some((current.as_slice(), &placed));
        match place_reusing(case, &order, opts, limit, after, &mut scratch) {
            Ok(Some(next)) => {
                let plan = &next.plan;
                if plan.extra_movement() < best.as_ref().map_or(first, |b| b.extra_movement()) {
                    watch(Some(plan));
                    best = Some(plan.clone());
                }
                hot = spill_ops(case, plan);
                if let Some(front) = front.as_deref_mut().filter(|_| work >= sample_at) {
                    front.offer(case, plan);
                    sample_at = work + every;
                }
                scratch.recycle(std::mem::replace(&mut placed, next));
                current = order;
            }
            _ => search.unslide(a, a + len, to),
        }
    }
    best
}

/// Op positions (counted in ops) at which the plan spills a buffer out or in.
fn spill_ops(case: &Case, plan: &NpuPlan) -> Vec<u32> {
    let mut ops = 0u32;
    let mut out = Vec::with_capacity(2 * plan.spills.len());
    for &id in &plan.schedule {
        if case.is_spill(id) {
            out.push(ops);
        } else if case.is_op(id) {
            ops += 1;
        }
    }
    out
}
