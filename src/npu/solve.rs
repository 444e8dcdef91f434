//! The three problems as one call: pick an order, place buffers, time the result.
//!
//! - Problem 1: the list scheduler; `baseline` keeps the case's own op order,
//!   `best` takes the best of its capacity-blind priorities, run forwards and on
//!   the reversed graph, by L1+UB peak, then improves it by block moves of its ops
//!   and lifetime compressions (`residency/reorder/`), restarts chained from the
//!   best.
//! - Problem 2, `baseline`: the spilling article's method: depth-first topological
//!   order, first fit, furthest next use as the victim.
//! - Problem 2, `best`: a portfolio of orders (depth-first, the Problem 1
//!   schedules, capacity-aware list schedules with three look-ahead depths, and the
//!   task orders annealed against a spill model, `movement/tasks/`), fit rules and
//!   victim rules; the least-movement plans are then improved by block moves of
//!   their ops judged by the allocator itself (`movement/respill.rs`); the least
//!   extra data movement wins, then the shorter makespan.
//! - Problem 3: the same portfolio, each plan re-sequenced for the pipes
//!   (`makespan/tighten.rs`); the shortest makespan among plans whose movement is
//!   within 2% of the least.

use super::case::{Case, NodeId};
use super::makespan::pipes::{simulate, Timing};
use super::makespan::tighten::tighten;
use super::movement::respill;
use super::movement::spill::{place, Fit, NpuPlan, SpillOptions, Victim};
use super::movement::tasks::Tasks;
use super::problem::Problem;
use super::residency::reorder::OpOrder;
use super::residency::schedule::{list_schedule, residency_peak, Priority};
use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Baseline,
    Best,
}

impl Method {
    pub fn from_name(name: &str) -> Result<Method, Error> {
        match name {
            "baseline" => Ok(Method::Baseline),
            "best" => Ok(Method::Best),
            other => Err(Error::usage(format!(
                "unknown NPU method `{other}` (expected baseline or best)"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Baseline => "baseline",
            Method::Best => "best",
        }
    }
}

/// A method is written by its name.
impl serde::Serialize for Method {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Method {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Method, D::Error> {
        Method::from_name(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug)]
pub struct Solution {
    pub problem: Problem,
    pub method: Method,
    /// What produced the plan, e.g. `dfs order, best fit, furthest next use`.
    pub recipe: String,
    pub plan: NpuPlan,
    /// L1+UB peak of the schedule's original nodes.
    pub p1_peak: u64,
    /// `None` for Problem 1, which places nothing.
    pub timing: Option<Timing>,
}

impl Solution {
    pub fn extra_movement(&self) -> u64 {
        self.plan.extra_movement()
    }

    pub fn makespan(&self) -> Option<u64> {
        self.timing.as_ref().map(|t| t.makespan)
    }
}

pub fn solve(case: &Case, problem: Problem, method: Method) -> Result<Solution, Error> {
    match problem {
        Problem::Residency => problem1(case, method),
        Problem::Movement | Problem::Makespan => placed(case, problem, method),
    }
}

pub use super::deps::dfs_order;

/// Problem 3 re-sequences this many of the fastest plans within the movement limit.
const TIGHTENED: usize = 4;

const PRIORITIES: [(Priority, &str); 6] = [
    (Priority::Id, "p1 id"),
    (Priority::Growth, "p1 growth"),
    (Priority::NonGrowingFirst, "p1 non-growing-first"),
    (Priority::Capacity(2), "capacity-aware (lookahead 2)"),
    (Priority::Capacity(8), "capacity-aware (lookahead 8)"),
    (Priority::Capacity(48), "capacity-aware (lookahead 48)"),
];

/// The capacity-blind list schedules of `case` and of its reversal (read backwards).
fn residency_orders(case: &Case) -> Vec<(Vec<NodeId>, String)> {
    let blind = || {
        PRIORITIES
            .iter()
            .filter(|(p, _)| !matches!(p, Priority::Capacity(_)))
    };
    let mut out: Vec<(Vec<NodeId>, String)> = blind()
        .filter_map(|&(p, name)| {
            list_schedule(case, p)
                .ok()
                .map(|o| (o, format!("list schedule, {name} priority")))
        })
        .collect();
    let reversed = case.reversed();
    out.extend(blind().filter_map(|&(p, name)| {
        list_schedule(&reversed, p).ok().map(|mut o| {
            o.reverse();
            (o, format!("reversed list schedule, {name} priority"))
        })
    }));
    out
}

fn problem1(case: &Case, method: Method) -> Result<Solution, Error> {
    let candidates: Vec<(Vec<NodeId>, String)> = match method {
        Method::Baseline => PRIORITIES[..1]
            .iter()
            .filter_map(|&(p, name)| {
                list_schedule(case, p)
                    .ok()
                    .map(|o| (o, format!("list schedule, {name} priority")))
            })
            .collect(),
        Method::Best => residency_orders(case),
    };
    let (mut schedule, mut recipe) = candidates
        .into_iter()
        .min_by_key(|(o, _)| residency_peak(case, o))
        .ok_or_else(|| {
            Error::invalid("no problem 1 schedule respects the one-buffer-per-L0-level rule")
        })?;
    if method == Method::Best {
        if let Some(better) = searched_p1(case, &schedule) {
            schedule = better;
            recipe.push_str(", improved by block moves and lifetime compression");
        }
    }
    let p1_peak = residency_peak(case, &schedule);
    let plan = NpuPlan {
        schedule,
        offsets: vec![0; case.buffers.len()],
        spills: Vec::new(),
        residencies: Vec::new(),
    };
    Ok(Solution {
        problem: Problem::Residency,
        method,
        recipe,
        plan,
        p1_peak,
        timing: None,
    })
}

/// Work units the Problem 1 op-order search spends per restart at most, and its
/// restarts.
const P1_SEARCH_WORK: u64 = 15_000_000;
const P1_RESTARTS: u64 = 12;

/// Below the cap a restart gets this many units per (op, op) pair: a move costs
/// about a unit per op and a case needs about as many moves as it has ops, so a
/// small case finishes in milliseconds. Every public case (1,716 nodes and up)
/// still gets the cap.
const P1_WORK_PER_PAIR: u64 = 6;

/// The work of one restart of the Problem 1 search on a case of `nodes` nodes.
fn p1_search_work(nodes: usize) -> u64 {
    let nodes = nodes as u64;
    P1_SEARCH_WORK.min(P1_WORK_PER_PAIR.saturating_mul(nodes.saturating_mul(nodes)))
}

/// `start` improved by block moves and lifetime compressions of its ops
/// (`residency/reorder/`), each restart from the best order so far (by peak, then
/// steps at it); `None` when they find no lower peak.
fn searched_p1(case: &Case, start: &[NodeId]) -> Option<Vec<NodeId>> {
    let mut from = start.to_vec();
    let mut from_cost = None;
    for seed in 1..=P1_RESTARTS {
        let mut search = OpOrder::new(case, &from);
        let cost = search.improve(p1_search_work(case.nodes.len()), seed);
        if cost.is_some() && (from_cost.is_none() || cost <= from_cost) {
            from = search.order();
            from_cost = cost;
        }
    }
    (residency_peak(case, &from) < residency_peak(case, start)).then_some(from)
}

/// Replayed accesses the task search may spend per run (a few seconds).
const TASK_WORK: u64 = 80_000_000;

/// The annealing stops earlier on few tasks: this many steps per task pair.
const TASK_STEPS_PER_PAIR: u64 = 100;

/// Task searches run: (tasks side by side, start from the nearest-neighbour chain
/// rather than the case's own order, seed of the annealing). Wider groups are
/// skipped where the levels cannot hold them.
const TASK_RUNS: [(usize, bool, u64); 4] =
    [(1, false, 1), (1, false, 2), (1, true, 1), (2, true, 1)];

/// Orders from the task search (`movement/tasks/`), one per run of [`TASK_RUNS`].
fn task_orders(case: &Case) -> Vec<(Vec<NodeId>, String)> {
    let Ok(base) = list_schedule(case, Priority::Id) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut width_tasks: Option<Tasks> = None;
    for (width, chained, seed) in TASK_RUNS {
        if width_tasks.as_ref().is_none_or(|t| t.width() != width) {
            width_tasks = Tasks::new(case, &base, width);
        }
        let Some(tasks) = width_tasks.as_mut() else {
            continue;
        };
        let mut start = tasks.permutation_of(&base);
        if chained {
            start = tasks.chain(&start);
        }
        let evals = TASK_STEPS_PER_PAIR * (tasks.len() * tasks.len()) as u64;
        let budget = TASK_WORK.min(evals.saturating_mul(tasks.accesses_per_run()));
        let (perm, _) = tasks.anneal(&start, budget, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let from = if chained { "chain" } else { "case order" };
        for (ahead, loads) in [(true, "a step ahead"), (false, "when needed")] {
            out.push((
                tasks.order(&perm, ahead),
                format!(
                    "task search ({width} side by side, from the {from}, seed {seed}; \
                     shared ops {loads}) order"
                ),
            ));
        }
    }
    out
}

/// Nodes the allocator may place in the order search of each case (a few seconds),
/// and how many of the least-movement plans it starts from; the best plan found
/// then gets one more share of the budget. Cases of more than `RESPILL_NODES` nodes
/// get a budget shrunk in proportion (each evaluation costs more and helps less).
const RESPILL_WORK: u64 = 60_000_000;
const RESPILL_NODES: u64 = 8_000;
const RESPILL_STARTS: usize = 3;

/// The least-movement plans of the portfolio (one per order and movement) improved
/// by block moves judged by the allocator itself (`movement/respill.rs`), then the
/// best of them improved again.
fn searched(
    case: &Case,
    orders: &[(Vec<NodeId>, String)],
    rules: &[(SpillOptions, &str)],
    seeds: &mut [(u64, usize, usize)],
) -> Vec<(NpuPlan, Timing, String)> {
    seeds.sort_unstable();
    let mut starts: Vec<(u64, usize, usize)> = Vec::new();
    for &s in seeds.iter() {
        if starts.len() < RESPILL_STARTS && starts.iter().all(|t| t.1 != s.1 || t.0 != s.0) {
            starts.push(s);
        }
    }
    let nodes = case.nodes.len() as u64;
    let work = RESPILL_WORK / nodes.div_ceil(RESPILL_NODES).max(1);
    let each = work / (RESPILL_STARTS as u64 + 1);
    let mut out: Vec<(NpuPlan, Timing, String)> = Vec::new();
    // (movement, order, rule, schedule) of the best start after its search
    let mut best: Option<(u64, usize, usize, Vec<NodeId>)> = None;
    for (seed, &(moved, k, r)) in (1u64..).zip(&starts) {
        let plan = respill::improve(case, &orders[k].0, rules[r].0, each, seed);
        let (moved, schedule) = plan
            .as_ref()
            .map_or((moved, &orders[k].0), |p| (p.extra_movement(), &p.schedule));
        if best.as_ref().is_none_or(|b| moved < b.0) {
            best = Some((moved, k, r, schedule.clone()));
        }
        if let Some(plan) = plan {
            let timing = simulate(case, &plan);
            let recipe = format!(
                "{}, {}, searched against the allocator",
                orders[k].1, rules[r].1
            );
            out.push((plan, timing, recipe));
        }
    }
    if let Some((_, k, r, schedule)) = best {
        let seed = RESPILL_STARTS as u64 + 1;
        if let Some(plan) = respill::improve(case, &schedule, rules[r].0, each, seed) {
            let timing = simulate(case, &plan);
            let recipe = format!(
                "{}, {}, searched twice against the allocator",
                orders[k].1, rules[r].1
            );
            out.push((plan, timing, recipe));
        }
    }
    out
}

/// Problems 2 and 3 with one portfolio: the same plans as `solve(case, 2, method)`
/// and `solve(case, 3, method)`, computed once.
pub fn solve_placed(case: &Case, method: Method) -> Result<(Solution, Solution), Error> {
    let found = portfolio(case, method)?;
    Ok((
        pick(case, Problem::Movement, method, found.clone()),
        pick(case, Problem::Makespan, method, found),
    ))
}

fn placed(case: &Case, problem: Problem, method: Method) -> Result<Solution, Error> {
    Ok(pick(case, problem, method, portfolio(case, method)?))
}

/// Every plan of the portfolio of `method`, with its timing and recipe.
fn portfolio(case: &Case, method: Method) -> Result<Vec<(NpuPlan, Timing, String)>, Error> {
    let mut orders = vec![(dfs_order(case), "dfs order".to_string())];
    let mut rules = vec![(
        SpillOptions {
            fit: Fit::First,
            victim: Victim::Furthest,
        },
        "first fit, furthest next use",
    )];
    if method == Method::Best {
        for (o, name) in residency_orders(case)
            .into_iter()
            .filter(|(_, n)| n.starts_with("reversed"))
        {
            orders.push((o, format!("{name} order")));
        }
        for &(p, name) in &PRIORITIES {
            match list_schedule(case, p) {
                Ok(o) => orders.push((o, format!("{name} order"))),
                // a deeper look-ahead would only cost more
                Err(_) if matches!(p, Priority::Capacity(_)) => break,
                Err(_) => {}
            }
        }
        orders.extend(task_orders(case));
        rules.push((
            SpillOptions {
                fit: Fit::Best,
                victim: Victim::Furthest,
            },
            "best fit, furthest next use",
        ));
        rules.push((
            SpillOptions {
                fit: Fit::First,
                victim: Victim::FurthestPerCost,
            },
            "first fit, furthest next use per cost",
        ));
        rules.push((
            SpillOptions {
                fit: Fit::Best,
                victim: Victim::FurthestPerCost,
            },
            "best fit, furthest next use per cost",
        ));
        for fit in [Fit::First, Fit::Best] {
            let name = if fit == Fit::First {
                "first fit, cheapest window"
            } else {
                "best fit, cheapest window"
            };
            rules.push((
                SpillOptions {
                    fit,
                    victim: Victim::Window,
                },
                name,
            ));
        }
    }
    let mut found: Vec<(NpuPlan, Timing, String)> = Vec::new();
    let mut last_error = None;
    // (movement, order, rule) of every plan, for the search below
    let mut seeds: Vec<(u64, usize, usize)> = Vec::new();
    for (k, (order, oname)) in orders.iter().enumerate() {
        for (r, (opts, rname)) in rules.iter().enumerate() {
            match place(case, order, *opts) {
                Ok(plan) => {
                    seeds.push((plan.extra_movement(), k, r));
                    let timing = simulate(case, &plan);
                    found.push((plan, timing, format!("{oname}, {rname}")));
                }
                Err(e) => last_error = Some(e),
            }
        }
    }
    if method == Method::Best {
        found.extend(searched(case, &orders, &rules, &mut seeds));
    }
    match last_error {
        Some(e) if found.is_empty() => Err(e),
        _ => Ok(found),
    }
}

/// The plan of `found` (not empty) that answers `problem`.
fn pick(
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
        found.sort_by_key(|(_, t, _)| t.makespan);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Small cases get a search that fits them; every public case (the smallest
    /// has 1,716 nodes) keeps the whole cap, so its results do not change.
    #[test]
    fn the_problem_1_search_scales_with_the_case_up_to_its_cap() {
        assert!(p1_search_work(30) * P1_RESTARTS < 100_000);
        assert!(p1_search_work(300) < p1_search_work(600));
        assert_eq!(p1_search_work(1_716), P1_SEARCH_WORK);
        assert_eq!(p1_search_work(30_976), P1_SEARCH_WORK);
    }
}
