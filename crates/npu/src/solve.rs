//! The three problems as one call: pick an order, place buffers, time the result.
//!
//! - Problem 1: the list scheduler; `baseline` keeps the case's own op order,
//!   `best` takes the best of its capacity-blind priorities, run forwards and on
//!   the reversed graph, by L1+UB peak, then improves it by block moves of its ops
//!   and lifetime compressions (`residency/reorder/`), restarts two side by side,
//!   each pair from the best so far.
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

use super::case::{Case, NodeId};
use super::makespan::pipes::{simulate, Timing};
use super::makespan::tighten::tighten;
use super::movement::respill;
use super::movement::spill::{place, Fit, NpuPlan, SpillOptions, Victim};
use super::movement::tasks::Tasks;
use super::problem::Problem;
use super::residency::reorder::OpOrder;
use super::residency::schedule::{list_schedule, residency_peak, Priority};
pub use super::solution::{Method, Solution};
use super::watch::Watch;
use memplan::pool::{self, Caller, Link};
use memplan::Error;

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

/// The plan last handed to the watch, and when to hand it another.
struct Incumbent<'c, 'w, 'a> {
    case: &'c Case,
    problem: Problem,
    method: Method,
    watch: &'w mut Watch<'a>,
    shown: Option<Solution>,
    /// Least movement among the plans offered (Problem 3 looks within 2% of it).
    least: u64,
    /// Whether the allocator-judged searches keep plans on the way for Problem 3
    /// ([`respill::Front`]).
    on_the_way: bool,
}

impl Incumbent<'_, '_, '_> {
    fn stopped(&mut self) -> bool {
        self.watch.stopped()
    }

    /// A placed plan found: shown when it is better than the one on show, by
    /// movement then makespan (Problem 2), or by makespan among the plans within
    /// 2% of the least movement so far (Problem 3: a plan on show that falls out
    /// of that band gives way to the one that narrowed it).
    fn placed(&mut self, plan: &NpuPlan, timing: Option<&Timing>, recipe: &str) {
        let moved = plan.extra_movement();
        self.least = self.least.min(moved);
        if !self.watch.wants_better() {
            return;
        }
        let limit = self.least + self.least / 50;
        let shown = self
            .shown
            .as_ref()
            .map(|s| (s.extra_movement(), s.makespan().unwrap_or(u64::MAX)));
        let timed;
        let timing = match timing {
            Some(t) => t,
            None => {
                timed = simulate(self.case, plan);
                &timed
            }
        };
        let key = (moved, timing.makespan);
        let better = match (self.problem, shown) {
            (_, None) => true,
            (Problem::Makespan, Some((m, span))) => {
                moved <= limit && (m > limit || (key.1, key.0) < (span, m))
            }
            (_, Some(s)) => key < s,
        };
        if better {
            let solution = placed_solution(
                self.case,
                self.problem,
                self.method,
                plan.clone(),
                timing.clone(),
                recipe.to_string(),
            );
            self.show(solution);
        }
    }

    /// A Problem 1 schedule found: shown when its peak is lower.
    fn schedule(&mut self, schedule: &[NodeId], recipe: &str) {
        if !self.watch.wants_better() {
            return;
        }
        let peak = residency_peak(self.case, schedule);
        if self.shown.as_ref().is_none_or(|s| peak < s.p1_peak) {
            let solution = residency_solution(
                self.case,
                self.method,
                schedule.to_vec(),
                recipe.to_string(),
                peak,
            );
            self.show(solution);
        }
    }

    fn show(&mut self, solution: Solution) {
        self.watch.better(&solution);
        self.shown = Some(solution);
    }

    /// The returned solution, shown unless it is the plan on show.
    fn last(&mut self, solution: &Solution) {
        if self.watch.wants_better() && self.shown.as_ref().is_none_or(|s| s.plan != solution.plan)
        {
            self.show(solution.clone());
        }
    }
}

/// A plan a job of the portfolio found, for the watch: the plan, its timing when
/// known, its recipe.
type Found = (NpuPlan, Option<Timing>, String);

/// The jobs of the portfolio run on the watch's threads (`memplan::pool`) report
/// their plans here, on the calling thread.
impl Caller<Found> for Incumbent<'_, '_, '_> {
    fn seen(&mut self, (plan, timing, recipe): Found) {
        self.placed(&plan, timing.as_ref(), &recipe);
    }

    fn stopped(&mut self) -> bool {
        Incumbent::stopped(self)
    }
}

/// What a job hands [`place_all`]: each placed plan sent to the watch, when anyone
/// wants it.
fn send<'l>(link: &'l Link<Found>, wants: bool) -> impl FnMut(&NpuPlan, &Timing, &str) + 'l {
    move |plan, timing, recipe| {
        if wants {
            link.send((plan.clone(), Some(timing.clone()), recipe.to_string()));
        }
    }
}

/// One part of the portfolio that runs on its own: its orders, each placed.
type Job<'c> = Box<dyn FnOnce(&Link<Found>) -> Vec<Placed> + Send + 'c>;

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

/// The capacity-blind list schedules of `case` and of its reversal (read
/// backwards), each handed to `found` as it comes.
fn residency_orders(
    case: &Case,
    found: &mut dyn FnMut(&[NodeId], &str),
) -> Vec<(Vec<NodeId>, String)> {
    let mut out = blind_orders(case, false, found);
    out.extend(blind_orders(case, true, found));
    out
}

/// The capacity-blind list schedules of `case`, or of its reversal read backwards
/// (`reversed`), each handed to `found` as it comes.
fn blind_orders(
    case: &Case,
    reversed: bool,
    found: &mut dyn FnMut(&[NodeId], &str),
) -> Vec<(Vec<NodeId>, String)> {
    let flipped;
    let (graph, how) = if reversed {
        flipped = case.reversed();
        (&flipped, "reversed list schedule")
    } else {
        (case, "list schedule")
    };
    let mut out: Vec<(Vec<NodeId>, String)> = Vec::new();
    let blind = PRIORITIES
        .iter()
        .filter(|(p, _)| !matches!(p, Priority::Capacity(_)));
    for &(p, name) in blind {
        if let Ok(mut o) = list_schedule(graph, p) {
            if reversed {
                o.reverse();
            }
            out.push((o, format!("{how}, {name} priority")));
            let (o, recipe) = out.last().expect("just pushed");
            found(o, recipe);
        }
    }
    out
}

fn problem1(case: &Case, method: Method, shown: &mut Incumbent) -> Result<Solution, Error> {
    let candidates: Vec<(Vec<NodeId>, String)> = match method {
        Method::Baseline => PRIORITIES[..1]
            .iter()
            .filter_map(|&(p, name)| {
                list_schedule(case, p)
                    .ok()
                    .map(|o| (o, format!("list schedule, {name} priority")))
            })
            .collect(),
        Method::Best => residency_orders(case, &mut |o, recipe| shown.schedule(o, recipe)),
    };
    let (mut schedule, mut recipe) = candidates
        .into_iter()
        .min_by_key(|(o, _)| residency_peak(case, o))
        .ok_or_else(|| {
            Error::invalid("no problem 1 schedule respects the one-buffer-per-L0-level rule")
        })?;
    if method == Method::Best {
        let improved = format!("{recipe}, improved by block moves and lifetime compression");
        if let Some(better) = searched_p1(case, &schedule, &improved, shown) {
            schedule = better;
            recipe = improved;
        }
    }
    let p1_peak = residency_peak(case, &schedule);
    Ok(residency_solution(case, method, schedule, recipe, p1_peak))
}

/// A Problem 1 answer: the schedule and its L1+UB peak, nothing placed.
fn residency_solution(
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

/// Work units the Problem 1 op-order search spends per restart at most, and its
/// restarts.
const P1_SEARCH_WORK: u64 = 15_000_000;
const P1_RESTARTS: u64 = 12;

/// Restarts of the Problem 1 search run side by side, from the same order.
const P1_SIDE_BY_SIDE: usize = 2;

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
/// (`residency/reorder/`): restarts in rounds of [`P1_SIDE_BY_SIDE`] on the watch's
/// threads, all of a round from the best order so far (by peak, then steps at it;
/// on a tie the lower seed), each better one handed to `shown` as `recipe`; `None`
/// when they find no lower peak. The rounds, not the threads, fix the result.
fn searched_p1(
    case: &Case,
    start: &[NodeId],
    recipe: &str,
    shown: &mut Incumbent,
) -> Option<Vec<NodeId>> {
    let mut from = start.to_vec();
    let mut from_cost = None;
    let work = shown.watch.scaled(p1_search_work(case.nodes.len()));
    let threads = shown.watch.threads();
    let seeded = shown.watch.seeder();
    let seeds: Vec<u64> = (1..=P1_RESTARTS).collect();
    for round in seeds.chunks(P1_SIDE_BY_SIDE) {
        if shown.stopped() {
            break;
        }
        let jobs: Vec<_> = round
            .iter()
            .map(|&seed| {
                let from = &from;
                move |link: &Link<Found>| {
                    let mut search = OpOrder::new(case, from);
                    let cost = search.improve(work, seeded(seed), &mut || link.stopped());
                    (cost, search.order())
                }
            })
            .collect();
        let results = pool::run(threads, jobs, shown);
        let best = results
            .into_iter()
            .flatten()
            .filter(|(cost, _)| cost.is_some())
            .reduce(|a, b| if b.0 < a.0 { b } else { a });
        if let Some((cost, order)) = best {
            if from_cost.is_none() || cost <= from_cost {
                from = order;
                from_cost = cost;
                shown.schedule(&from, recipe);
            }
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

/// The task search (`movement/tasks/`) as jobs, one per run of [`TASK_RUNS`], each
/// giving its two orders placed under every rule of `rules`.
fn task_jobs<'c>(
    case: &'c Case,
    base: &'c [NodeId],
    rules: &'c [(SpillOptions, &'static str)],
    shown: &Incumbent,
) -> Vec<Job<'c>> {
    let scaled = shown.watch.scaler();
    let seeded = shown.watch.seeder();
    let wants = shown.watch.wants_better();
    let run = move |(width, chained, seed): (usize, bool, u64)| -> Job<'c> {
        Box::new(move |link: &Link<Found>| {
            let Some(mut tasks) = Tasks::new(case, base, width) else {
                return Vec::new();
            };
            let mut start = tasks.permutation_of(base);
            if chained {
                start = tasks.chain(&start);
            }
            let evals = TASK_STEPS_PER_PAIR * (tasks.len() * tasks.len()) as u64;
            let budget = scaled(TASK_WORK.min(evals.saturating_mul(tasks.accesses_per_run())));
            let mixed = seeded(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let (perm, _) = tasks.anneal(&start, budget, mixed, &mut || link.stopped());
            let from = if chained { "chain" } else { "case order" };
            let placed = [(true, "a step ahead"), (false, "when needed")].map(|(ahead, loads)| {
                let name = format!(
                    "task search ({width} side by side, from the {from}, seed {seed}; \
                     shared ops {loads}) order"
                );
                place_all(
                    case,
                    rules,
                    tasks.order(&perm, ahead),
                    name,
                    &mut send(link, wants),
                )
            });
            placed.into()
        })
    };
    TASK_RUNS.into_iter().map(run).collect()
}

/// The list schedules of [`PRIORITIES`] as jobs, each placed under every rule of
/// `rules`: a capacity-blind one that fails gives no order; the capacity-aware
/// ones (`movement/cache.rs`) are one job, from the shallowest look-ahead, which
/// ends at the first that fails (a deeper look-ahead would only cost more).
fn list_jobs<'c>(
    case: &'c Case,
    rules: &'c [(SpillOptions, &'static str)],
    wants: bool,
) -> Vec<Job<'c>> {
    let (aware, blind): (Vec<_>, Vec<_>) = PRIORITIES
        .iter()
        .partition(|(p, _)| matches!(p, Priority::Capacity(_)));
    let mut jobs: Vec<Job<'c>> = blind
        .into_iter()
        .map(|&(p, name)| -> Job<'c> {
            Box::new(move |link: &Link<Found>| {
                let Ok(order) = list_schedule(case, p) else {
                    return Vec::new();
                };
                let name = format!("{name} order");
                vec![place_all(case, rules, order, name, &mut send(link, wants))]
            })
        })
        .collect();
    jobs.push(Box::new(move |link: &Link<Found>| {
        let mut placed = Vec::new();
        for &&(p, name) in &aware {
            if link.stopped() {
                break;
            }
            let Ok(order) = list_schedule(case, p) else {
                break;
            };
            let name = format!("{name} order");
            placed.push(place_all(case, rules, order, name, &mut send(link, wants)));
        }
        placed
    }));
    jobs
}

/// Nodes the allocator may place in the order search of each case (a few seconds),
/// and how many of the least-movement plans it starts from; the best plan found
/// then gets one more share of the budget. Cases of more than `RESPILL_NODES` nodes
/// get a budget shrunk in proportion (each evaluation costs more and helps less).
const RESPILL_WORK: u64 = 60_000_000;
const RESPILL_NODES: u64 = 8_000;
const RESPILL_STARTS: usize = 3;

/// Below the cap the search gets this many nodes placed per (node, node) pair: a
/// move places the whole order, so a case gets about this many moves per node and
/// a small one finishes in milliseconds. Every public case (1,716 nodes and up)
/// still gets the cap.
const RESPILL_WORK_PER_PAIR: u64 = 24;

/// Up to `RESPILL_NODES`, a case also gets at least this many times its own
/// size: a move places the whole order, so about this many moves. The cap alone
/// gave the larger cases fewer (FlashAttention_Case1, 6,952 nodes: 8,600), and
/// there the search was still finding better plans (over seeds 0-31 its movement's
/// median 28,506 -> 28,218).
const RESPILL_MOVES: u64 = 10_800;

/// The nodes the allocator-judged search of a case of `nodes` nodes may place.
fn respill_work(nodes: usize) -> u64 {
    let nodes = nodes as u64;
    let capped = if nodes <= RESPILL_NODES {
        RESPILL_WORK.max(RESPILL_MOVES * nodes)
    } else {
        RESPILL_WORK / nodes.div_ceil(RESPILL_NODES)
    };
    capped.min(RESPILL_WORK_PER_PAIR.saturating_mul(nodes.saturating_mul(nodes)))
}

/// The least-movement plans of the portfolio (one per order and movement) improved
/// by block moves judged by the allocator itself (`movement/respill.rs`), the
/// starts side by side on the watch's threads, then the best of them improved again
/// (begun early, as a guess, on a thread the starts leave idle).
fn searched(case: &Case, all: &mut Portfolio, shown: &mut Incumbent) {
    let Portfolio {
        orders,
        rules,
        found,
        on_the_way,
        seeds,
        ..
    } = all;
    let taking = shown.on_the_way;
    let seeded = shown.watch.seeder();
    memplan::sort::by(seeds, Ord::cmp);
    let mut starts: Vec<(u64, usize, usize)> = Vec::new();
    for &s in seeds.iter() {
        if starts.len() < RESPILL_STARTS && starts.iter().all(|t| t.1 != s.1 || t.0 != s.0) {
            starts.push(s);
        }
    }
    let work = shown.watch.scaled(respill_work(case.nodes.len()));
    let each = work / (RESPILL_STARTS as u64 + 1);
    let wants = shown.watch.wants_better();
    let (orders, rules) = (&*orders, &*rules);
    // one search from `schedule` of order `k` under rule `r`, its better plans
    // handed to the watch as they come when `tell`
    let search = |schedule: Vec<NodeId>, k: usize, r: usize, seed: u64, tell: bool| {
        let how = if seed > RESPILL_STARTS as u64 {
            "searched twice against the allocator"
        } else {
            "searched against the allocator"
        };
        let recipe = format!("{}, {}, {how}", orders[k].1, rules[r].1);
        let opts = rules[r].0;
        move |link: &Link<Found>| {
            let searching = format!("{recipe} (searching)");
            let mut front = respill::Front::default();
            let taken = taking.then_some(&mut front);
            let seed = seeded(seed);
            let plan = respill::improve(case, &schedule, opts, each, seed, taken, &mut |better| {
                if let (Some(plan), true) = (better, wants && tell) {
                    link.send((plan.clone(), None, searching.clone()));
                }
                link.stopped()
            });
            let timed = |plan: NpuPlan, recipe: String| {
                let timing = simulate(case, &plan);
                (plan, timing, recipe)
            };
            let way = format!("{recipe}, a plan on the way");
            let taken = front
                .into_plans()
                .into_iter()
                .map(|p| timed(p, way.clone()));
            let taken = taken.collect();
            (plan.map(|plan| timed(plan, recipe)), taken)
        }
    };
    let start = |(seed, &(_, k, r)): (u64, &(u64, usize, usize))| {
        search(orders[k].0.clone(), k, r, seed, true)
    };
    let again_seed = RESPILL_STARTS as u64 + 1;
    // On several threads the starts run side by side; where the last round leaves
    // a thread idle, the second search starts there from the best start so far,
    // and is kept when the last round's starts do not beat that one (else it is
    // made again), so the result is the same on any number of threads.
    let threads = shown.watch.threads();
    let last = if threads > 1 {
        starts.len() % threads
    } else {
        0
    };
    let full = starts.len() - last;
    let mut jobs: Vec<_> = (1u64..).zip(&starts).map(start).collect();
    let rest = jobs.split_off(full);
    let mut best: Option<Best> = None;
    better_start(
        &mut best,
        &starts[..full],
        pool::run(threads, jobs, shown),
        orders,
        (found, on_the_way),
    );
    let guess = match &best {
        Some((_, k, r, schedule)) if last > 0 => {
            Some(search(schedule.clone(), *k, *r, again_seed, false))
        }
        _ => None,
    };
    let before = best.as_ref().map(|b| b.0);
    // the guess runs last, so it begins once every start of the round has
    let guessing = guess.is_some();
    let mut round = rest;
    round.extend(guess);
    let mut results = pool::run(threads, round, shown);
    // `Some` once the guess has run (to a plan or to none better)
    let guessed = if guessing {
        results.pop().flatten()
    } else {
        None
    };
    better_start(
        &mut best,
        &starts[full..],
        results,
        orders,
        (found, on_the_way),
    );
    if let (true, Some((guessed, taken))) = (best.as_ref().map(|b| b.0) == before, guessed) {
        // the search the rounds would have made next: its plan shown only now
        if let Some((plan, timing, recipe)) = guessed {
            shown.placed(&plan, Some(&timing), &recipe);
            found.push((plan, timing, recipe));
        }
        on_the_way.extend(taken);
        return;
    }
    if let Some((_, k, r, schedule)) = best {
        let again = search(schedule, k, r, again_seed, true);
        for (plan, taken) in pool::run(1, vec![again], shown).into_iter().flatten() {
            found.extend(plan);
            on_the_way.extend(taken);
        }
    }
}

/// Plans with their timings and recipes.
type Plans = Vec<(NpuPlan, Timing, String)>;

/// A portfolio's plans and those taken on the way for Problem 3.
type Gathered = (Plans, Plans);

/// What an allocator-judged search found: its best plan (when it beat its
/// start) and the plans it took on the way.
type Searched = (Option<(NpuPlan, Timing, String)>, Plans);

/// The start an allocator-judged search goes on from: its movement, order,
/// rule and schedule.
type Best = (u64, usize, usize, Vec<NodeId>);

/// Takes the searched `starts` (movement, order, rule) and their `results` into
/// `found` (the plans taken on the way into `on_the_way`), and the least movement
/// among them into `best` when lower (on a tie the earlier).
fn better_start(
    best: &mut Option<Best>,
    starts: &[(u64, usize, usize)],
    results: Vec<Option<Searched>>,
    orders: &[(Vec<NodeId>, String)],
    (found, on_the_way): (&mut Plans, &mut Plans),
) {
    for (&(moved, k, r), searched) in starts.iter().zip(results) {
        let (plan, taken) = searched.unwrap_or_default();
        on_the_way.extend(taken);
        let (moved, schedule) = plan.as_ref().map_or((moved, &orders[k].0), |p| {
            (p.0.extra_movement(), &p.0.schedule)
        });
        if best.as_ref().is_none_or(|b| moved < b.0) {
            *best = Some((moved, k, r, schedule.clone()));
        }
        found.extend(plan);
    }
}

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

/// The plans of a portfolio as they are made: an order is placed under every
/// rule as soon as it is known.
struct Portfolio {
    orders: Vec<(Vec<NodeId>, String)>,
    rules: Vec<(SpillOptions, &'static str)>,
    found: Vec<(NpuPlan, Timing, String)>,
    /// Plans the allocator-judged searches took on the way, for Problem 3 only.
    on_the_way: Vec<(NpuPlan, Timing, String)>,
    /// (movement, order, rule) of every plan, for the search of [`searched`].
    seeds: Vec<(u64, usize, usize)>,
    last_error: Option<Error>,
}

/// An order placed under every rule of the portfolio: each plan with its timing
/// and recipe, or why the rule failed.
struct Placed {
    order: Vec<NodeId>,
    name: String,
    plans: Vec<Result<(NpuPlan, Timing, String), Error>>,
}

/// Places `order` under every rule of `rules`, handing each plan to `show` as it
/// is made.
fn place_all(
    case: &Case,
    rules: &[(SpillOptions, &'static str)],
    order: Vec<NodeId>,
    name: String,
    show: &mut dyn FnMut(&NpuPlan, &Timing, &str),
) -> Placed {
    let plans = rules
        .iter()
        .map(|(opts, rname)| {
            let plan = place(case, &order, *opts)?;
            let timing = simulate(case, &plan);
            let recipe = format!("{name}, {rname}");
            show(&plan, &timing, &recipe);
            Ok((plan, timing, recipe))
        })
        .collect();
    Placed { order, name, plans }
}

impl Portfolio {
    /// Places `order` under every rule, handing each plan to `shown`.
    fn add(&mut self, case: &Case, order: Vec<NodeId>, name: String, shown: &mut Incumbent) {
        let placed = place_all(case, &self.rules, order, name, &mut |p, t, r| {
            shown.placed(p, Some(t), r)
        });
        self.record(placed);
    }

    /// Takes the plans of one placed order, in the order the orders come.
    fn record(&mut self, placed: Placed) {
        let k = self.orders.len();
        for (r, plan) in placed.plans.into_iter().enumerate() {
            match plan {
                Ok((plan, timing, recipe)) => {
                    self.seeds.push((plan.extra_movement(), k, r));
                    self.found.push((plan, timing, recipe));
                }
                Err(e) => self.last_error = Some(e),
            }
        }
        self.orders.push((placed.order, placed.name));
    }

    /// True when the caller asked to stop and there is a plan to return.
    fn enough(&self, shown: &mut Incumbent) -> bool {
        !self.found.is_empty() && shown.stopped()
    }
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
fn portfolio(case: &Case, method: Method, shown: &mut Incumbent) -> Result<Gathered, Error> {
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

/// A Problem 2 or 3 answer, with the L1+UB peak of its original nodes.
fn placed_solution(
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

    /// The same for the allocator-judged search of Problems 2 and 3: the cap from
    /// 1,716 nodes, at least `RESPILL_MOVES` moves up to `RESPILL_NODES`, shrunk in
    /// proportion above.
    #[test]
    fn the_allocator_judged_search_scales_with_the_case() {
        assert!(respill_work(30) < 30_000);
        assert!(respill_work(300) < respill_work(600));
        assert_eq!(respill_work(1_716), RESPILL_WORK);
        assert_eq!(respill_work(4_160), RESPILL_WORK);
        assert_eq!(respill_work(6_952), 6_952 * RESPILL_MOVES);
        assert_eq!(respill_work(8_000), 8_000 * RESPILL_MOVES);
        assert_eq!(respill_work(16_000), RESPILL_WORK / 2);
    }
}
