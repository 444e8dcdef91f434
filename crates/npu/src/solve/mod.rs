//! The three problems as one call: pick an order, place buffers, time the result.
//!
//! - Problem 1: the list scheduler; `baseline` keeps the case's own op order,
//!   `best` takes the best of its capacity-blind priorities, run forwards and on
//!   the reversed graph, by L1+UB peak, then improves it by block moves of its ops
//!   and lifetime compressions (`residency/reorder/`), restarts two side by side,
//!   each pair from the best so far; where the L0C windows in layers
//!   (`residency/windows.rs`) give a lower peak, the first pair starts one from
//!   each.
//! - Problem 2, `baseline`: the spilling article's method: depth-first topological
//!   order, first fit, furthest next use as the victim.
//! - Problem 2, `best`: a portfolio of orders (depth-first, the Problem 1
//!   schedules, capacity-aware list schedules with three look-ahead depths, and the
//!   task orders annealed against a spill model, `movement/tasks/`), fit rules and
//!   victim rules; the least-movement plans are then improved by block moves of
//!   their ops judged by the allocator itself (`movement/respill.rs`); the least
//!   extra data movement wins, then the shorter makespan.
//! - Problem 3: the same portfolio and the plans its allocator-judged searches
//!   took on the way (`movement/respill.rs`), the fastest re-sequenced for the pipes
//!   (`makespan/tighten.rs`); the shortest makespan among plans whose movement is
//!   within 2% of the least.
//!
//! This module holds the one call; `p1` is Problem 1's method, `portfolio` Problems
//! 2 and 3's, built of `jobs` (orders that run on their own threads), `placing`
//! (each order placed under every rule) and `search` (the allocator-judged search);
//! `incumbent` shows each better plan to the watch, and `solutions` makes a result
//! into a [`Solution`].

mod incumbent;
mod jobs;
mod p1;
mod placing;
mod portfolio;
mod search;
mod solutions;

pub use super::deps::dfs_order;
pub use super::solution::{Method, Solution};
pub use portfolio::solve_placed;

use super::case::Case;
use super::problem::Problem;
use super::watch::Watch;
use incumbent::Incumbent;
use memplan::Error;
use p1::problem1;
use portfolio::{pick, portfolio};

pub fn solve(case: &Case, problem: Problem, method: Method) -> Result<Solution, Error> {
    solve_watched(case, problem, method, &mut Watch::none())
}

/// [`solve`], handing `watch` each better plan as it is found (the cheapest
/// first: Problem 1's case-order list schedule, Problem 2 and 3's depth-first
/// first-fit plan) and stopping early when it asks to, with the best plan so far.
/// Unstopped, the result is that of [`solve`].
pub fn solve_watched(
    case: &Case,
    problem: Problem,
    method: Method,
    watch: &mut Watch,
) -> Result<Solution, Error> {
    let mut shown = Incumbent {
        case,
        problem,
        method,
        watch,
        shown: None,
        least: u64::MAX,
        on_the_way: problem == Problem::Makespan,
    };
    let solution = match problem {
        Problem::Residency => problem1(case, method, &mut shown)?,
        Problem::Movement => pick(
            case,
            problem,
            method,
            portfolio(case, method, &mut shown)?.0,
        ),
        Problem::Makespan => {
            let (mut found, on_the_way) = portfolio(case, method, &mut shown)?;
            found.extend(on_the_way);
            pick(case, problem, method, found)
        }
    };
    shown.last(&solution);
    Ok(solution)
}
