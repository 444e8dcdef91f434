//! The allocator-judged search of Problems 2 and 3: the least-movement plans
//! improved by block moves of their ops (`movement/respill.rs`), restarted side by
//! side, each pair from the best so far.

use super::incumbent::{Found, Incumbent};
use super::placing::{Plans, Portfolio};
use crate::case::{Case, NodeId};
use crate::makespan::pipes::{simulate, Timing};
use crate::movement::respill;
use crate::movement::spill::NpuPlan;
use memplan::pool::{self, Link};

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
pub(super) fn searched(case: &Case, all: &mut Portfolio, shown: &mut Incumbent) {
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

/// What an allocator-judged search found: its best plan (when it beat its
/// start) and the plans it took on the way.
type Searched = (Option<(NpuPlan, Timing, String)>, Plans);

/// The start an allocator-judged search goes on from: its movement, order,
/// rule and schedule.
pub(super) type Best = (u64, usize, usize, Vec<NodeId>);

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

#[cfg(test)]
mod tests {
    use super::*;

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
