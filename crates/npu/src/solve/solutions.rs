//! A result made into a [`Solution`]: a Problem 1 schedule with its peak, or a
//! placed plan with its timing. Its own module so that the incumbent, which shows
//! every better result, and the methods that find them share it without a loop.

use crate::case::{Case, NodeId};
use crate::makespan::pipes::Timing;
use crate::movement::spill::NpuPlan;
use crate::problem::Problem;
use crate::residency::schedule::residency_peak;
use crate::solution::{Method, Solution};

/// A Problem 1 answer: the schedule and its L1+UB peak, nothing placed.
pub(super) fn residency_solution(
    case: &Case,
    method: Method,
    schedule: Vec<NodeId>,
    recipe: String,
    p1_peak: u64,
) -> Solution {
    let plan = NpuPlan {
        schedule,
        offsets: vec![0; case.buffers.len()],
        spills: Vec::new(),
        residencies: Vec::new(),
    };
    Solution {
        problem: Problem::Residency,
        method,
        recipe,
        plan,
        p1_peak,
        timing: None,
    }
}

/// A Problem 2 or 3 answer, with the L1+UB peak of its original nodes.
pub(super) fn placed_solution(
    case: &Case,
    problem: Problem,
    method: Method,
    plan: NpuPlan,
    timing: Timing,
    recipe: String,
) -> Solution {
    let original: Vec<NodeId> = plan
        .schedule
        .iter()
        .copied()
        .filter(|&n| !case.is_spill(n))
        .collect();
    let p1_peak = residency_peak(case, &original);
    Solution {
        problem,
        method,
        recipe,
        plan,
        p1_peak,
        timing: Some(timing),
    }
}
