//! Problem 1: list schedules by the capacity-blind priorities, forwards and on
//! the reversed graph, and the L0C windows in layers (`residency/windows.rs`),
//! then the search by block moves and lifetime compressions.

use super::incumbent::{Found, Incumbent};
use super::solutions::residency_solution;
use crate::case::{Case, NodeId};
use crate::residency::reorder::OpOrder;
use crate::residency::schedule::{list_schedule, residency_peak, Priority};
use crate::residency::windows::window_order;
use crate::solution::{Method, Solution};
use memplan::pool::{self, Caller, Link};
use memplan::Error;

pub(super) const PRIORITIES: [(Priority, &str); 6] = [
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
pub(super) fn blind_orders(
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

pub(super) fn problem1(
    case: &Case,
    method: Method,
    shown: &mut Incumbent,
) -> Result<Solution, Error> {
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
        // the layered window order, a second start where it is lower
        let peak = residency_peak(case, &schedule);
        let window = window_order(case).filter(|(o, _)| residency_peak(case, o) < peak);
        let mut starts = vec![(schedule, recipe)];
        if let Some((o, r)) = window {
            shown.schedule(&o, &r);
            starts.push((o, r));
        }
        let searched = searched_p1(case, &starts, shown);
        let lowest = starts
            .into_iter()
            .min_by_key(|(o, _)| residency_peak(case, o))
            .expect("one start at least");
        (schedule, recipe) = match searched {
            Some((better, from)) => (
                better,
                format!("{from}, improved by block moves and lifetime compression"),
            ),
            None => lowest,
        };
    }
    let p1_peak = residency_peak(case, &schedule);
    Ok(residency_solution(case, method, schedule, recipe, p1_peak))
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

/// The orders of `starts` (one or two, with their recipes) improved by block
/// moves and lifetime compressions of their ops (`residency/reorder/`): restarts
/// in rounds of [`P1_SIDE_BY_SIDE`] on the watch's threads, the first round's
/// restarts from the starts in turn (the last one repeated), every later round's
/// from the best order so far (by peak, then steps at it; on a tie the lower
/// seed), each better one handed to `shown`; the best order and the recipe of the
/// start it came from, or `None` when they find no peak below every start's. The
/// rounds, not the threads, fix the result.
fn searched_p1(
    case: &Case,
    starts: &[(Vec<NodeId>, String)],
    shown: &mut Incumbent,
) -> Option<(Vec<NodeId>, String)> {
    let improved = |from: &str| format!("{from}, improved by block moves and lifetime compression");
    let mut from = starts[0].0.clone();
    let mut origin = 0usize;
    let mut from_cost = None;
    let work = shown.watch.scaled(p1_search_work(case.nodes.len()));
    let threads = shown.watch.threads();
    let seeded = shown.watch.seeder();
    let seeds: Vec<u64> = (1..=P1_RESTARTS).collect();
    for (r, round) in seeds.chunks(P1_SIDE_BY_SIDE).enumerate() {
        if shown.stopped() {
            break;
        }
        let jobs: Vec<_> = round
            .iter()
            .enumerate()
            .map(|(i, &seed)| {
                // the first round tries each start; later ones go on from the best
                let (start, k) = if r == 0 {
                    let k = i.min(starts.len() - 1);
                    (&starts[k].0, k)
                } else {
                    (&from, origin)
                };
                move |link: &Link<Found>| {
                    let mut search = OpOrder::new(case, start);
                    let cost = search.improve(work, seeded(seed), &mut || link.stopped());
                    (cost, search.order(), k)
                }
            })
            .collect();
        let results = pool::run(threads, jobs, shown);
        let best = results
            .into_iter()
            .flatten()
            .filter(|(cost, _, _)| cost.is_some())
            .reduce(|a, b| if b.0 < a.0 { b } else { a });
        if let Some((cost, order, k)) = best {
            if from_cost.is_none() || cost <= from_cost {
                from = order;
                from_cost = cost;
                origin = k;
                shown.schedule(&from, &improved(&starts[origin].1));
            }
        }
    }
    let lowest = starts
        .iter()
        .map(|(o, _)| residency_peak(case, o))
        .min()
        .expect("one start at least");
    (residency_peak(case, &from) < lowest).then(|| (from, starts[origin].1.clone()))
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
