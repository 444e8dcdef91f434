//! The portfolio's orders as jobs that run on their own: the list schedules and
//! the task orders annealed against a spill model.

use super::incumbent::{Found, Incumbent};
use super::p1::PRIORITIES;
use super::placing::{place_all, send, Job};
use crate::case::{Case, NodeId};
use crate::movement::spill::SpillOptions;
use crate::movement::tasks::Tasks;
use crate::residency::schedule::{list_schedule, Priority};
use memplan::pool::Link;

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
pub(super) fn task_jobs<'c>(
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
pub(super) fn list_jobs<'c>(
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
