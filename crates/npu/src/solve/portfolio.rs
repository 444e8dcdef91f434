//! Problems 2 and 3: the portfolio of orders, fit rules and victim rules run,
//! searched, and the plan picked (least movement, then makespan; or the shortest
//! makespan within 2% of the least movement).

use super::incumbent::Incumbent;
use super::jobs::{list_jobs, task_jobs};
use super::p1::blind_orders;
use super::placing::{Job, Placed, Plans, Portfolio};
use super::search::searched;
use super::solutions::placed_solution;
use crate::case::Case;
use crate::deps::dfs_order;
use crate::makespan::pipes::{simulate, Timing};
use crate::makespan::tighten::tighten;
use crate::movement::spill::{Fit, NpuPlan, SpillOptions, Victim};
use crate::problem::Problem;
use crate::residency::schedule::{list_schedule, Priority};
use crate::solution::{Method, Solution};
use crate::watch::Watch;
use memplan::pool::{self};
use memplan::Error;

/// Problem 3 re-sequences this many of the fastest plans within the movement limit.
const TIGHTENED: usize = 4;

/// A portfolio's plans and those taken on the way for Problem 3.
type Gathered = (Plans, Plans);

/// Problems 2 and 3 with one portfolio: the same plans as `solve(case, 2, method)`
/// and `solve(case, 3, method)`, computed once.
pub fn solve_placed(case: &Case, method: Method) -> Result<(Solution, Solution), Error> {
    let mut watch = Watch::none();
    let mut shown = Incumbent {
        case,
        problem: Problem::Movement,
        method,
        watch: &mut watch,
        shown: None,
        least: u64::MAX,
        on_the_way: true,
    };
    let (found, on_the_way) = portfolio(case, method, &mut shown)?;
    let movement = pick(case, Problem::Movement, method, found.clone());
    let mut all = found;
    all.extend(on_the_way);
    Ok((movement, pick(case, Problem::Makespan, method, all)))
}

/// The spill rules of `method`'s portfolio.
fn spill_rules(method: Method) -> Vec<(SpillOptions, &'static str)> {
    let rule = |fit, victim, name| (SpillOptions { fit, victim }, name);
    let mut rules = vec![rule(
        Fit::First,
        Victim::Furthest,
        "first fit, furthest next use",
    )];
    if method == Method::Best {
        rules.extend([
            rule(Fit::Best, Victim::Furthest, "best fit, furthest next use"),
            rule(
                Fit::First,
                Victim::FurthestPerCost,
                "first fit, furthest next use per cost",
            ),
            rule(
                Fit::Best,
                Victim::FurthestPerCost,
                "best fit, furthest next use per cost",
            ),
            rule(Fit::First, Victim::Window, "first fit, cheapest window"),
            rule(Fit::Best, Victim::Window, "best fit, cheapest window"),
        ]);
    }
    rules
}

/// Every plan of the portfolio of `method`, with its timing and recipe, each
/// handed to `shown` as it is made (the orders cheapest first), and the plans
/// taken on the way for Problem 3 when `shown` wants them.
pub(super) fn portfolio(
    case: &Case,
    method: Method,
    shown: &mut Incumbent,
) -> Result<Gathered, Error> {
    let mut all = Portfolio {
        orders: Vec::new(),
        rules: spill_rules(method),
        found: Vec::new(),
        on_the_way: Vec::new(),
        seeds: Vec::new(),
        last_error: None,
    };
    all.add(case, dfs_order(case), "dfs order".to_string(), shown);
    if method == Method::Best {
        // the forward ones come next, with the capacity-aware ones
        for (o, name) in blind_orders(case, true, &mut |_, _| {}) {
            if !all.enough(shown) {
                all.add(case, o, format!("{name} order"), shown);
            }
        }
        // the forward list schedules and the task searches, side by side
        let base = list_schedule(case, Priority::Id).ok();
        let rules = all.rules.clone();
        let mut jobs = list_jobs(case, &rules, shown.watch.wants_better());
        // the capacity-aware list schedules' job, the longest of them
        let aware = jobs.len() - 1;
        if let Some(base) = &base {
            jobs.extend(task_jobs(case, base, &rules, shown));
        }
        if !all.enough(shown) {
            let threads = shown.watch.threads();
            // on several threads the capacity-aware list schedules start first,
            // then the task searches (the widest, which finds Matmul_Case1's plan,
            // first), the cheap capacity-blind ones last, so that no long job
            // starts when the other threads are nearly done; the plans are taken
            // in the jobs' order either way
            let mut start: Vec<usize> = (0..jobs.len()).collect();
            if threads > 1 {
                start.reverse();
                start.retain(|&i| i != aware);
                start.insert(0, aware);
            }
            let mut slots: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
            let ordered: Vec<Job> = start
                .iter()
                .map(|&i| slots[i].take().expect("once"))
                .collect();
            let mut results: Vec<Option<Vec<Placed>>> = (0..start.len()).map(|_| None).collect();
            for (&i, placed) in start.iter().zip(pool::run(threads, ordered, shown)) {
                results[i] = placed;
            }
            for orders in results.into_iter().flatten() {
                orders.into_iter().for_each(|p| all.record(p));
            }
        }
        if !all.enough(shown) {
            searched(case, &mut all, shown);
        }
    }
    match all.last_error {
        Some(e) if all.found.is_empty() => Err(e),
        _ => Ok((all.found, all.on_the_way)),
    }
}

/// The plan of `found` (not empty) that answers `problem`.
pub(super) fn pick(
    case: &Case,
    problem: Problem,
    method: Method,
    mut found: Vec<(NpuPlan, Timing, String)>,
) -> Solution {
    let least = found
        .iter()
        .map(|(p, _, _)| p.extra_movement())
        .min()
        .expect("the portfolio found a plan");
    let limit = if problem == Problem::Makespan {
        least + least / 50
    } else {
        least
    };
    found.retain(|(p, _, _)| p.extra_movement() <= limit);
    if problem == Problem::Makespan {
        memplan::sort::by_key(&mut found, |(_, t, _)| t.makespan);
        found.truncate(TIGHTENED);
        // the pipe-aware re-sequencing keeps spills and offsets, so movement is unchanged
        for (plan, timing, recipe) in &mut found {
            if let Some(better) = tighten(case, plan) {
                *timing = simulate(case, &better);
                *plan = better;
                recipe.push_str(", re-sequenced for the pipes");
            }
        }
    }
    let (plan, timing, recipe) = found
        .into_iter()
        .min_by_key(|(p, t, _)| {
            if problem == Problem::Makespan {
                (t.makespan, p.extra_movement())
            } else {
                (p.extra_movement(), t.makespan)
            }
        })
        .expect("the least movement is among the plans");
    placed_solution(case, problem, method, plan, timing, recipe)
}
