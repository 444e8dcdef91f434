//! The best plan so far, shown to the watch as it improves ([`Incumbent`]), and
//! the plans the portfolio's jobs report from the watch's threads.

use super::solutions::{placed_solution, residency_solution};
use crate::case::{Case, NodeId};
use crate::makespan::pipes::{simulate, Timing};
use crate::movement::spill::NpuPlan;
use crate::problem::Problem;
use crate::residency::schedule::residency_peak;
use crate::solution::{Method, Solution};
use crate::watch::Watch;
use memplan::pool::Caller;

/// The plan last handed to the watch, and when to hand it another.
pub(super) struct Incumbent<'c, 'w, 'a> {
    pub(super) case: &'c Case,
    pub(super) problem: Problem,
    pub(super) method: Method,
    pub(super) watch: &'w mut Watch<'a>,
    pub(super) shown: Option<Solution>,
    /// Least movement among the plans offered (Problem 3 looks within 2% of it).
    pub(super) least: u64,
    /// Whether the allocator-judged searches keep plans on the way for Problem 3
    /// ([`respill::Front`]).
    pub(super) on_the_way: bool,
}

impl Incumbent<'_, '_, '_> {
    fn stopped(&mut self) -> bool {
        self.watch.stopped()
    }

    /// A placed plan found: shown when it is better than the one on show, by
    /// movement then makespan (Problem 2), or by makespan among the plans within
    /// 2% of the least movement so far (Problem 3: a plan on show that falls out
    /// of that band gives way to the one that narrowed it).
    pub(super) fn placed(&mut self, plan: &NpuPlan, timing: Option<&Timing>, recipe: &str) {
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
    pub(super) fn schedule(&mut self, schedule: &[NodeId], recipe: &str) {
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
    pub(super) fn last(&mut self, solution: &Solution) {
        if self.watch.wants_better() && self.shown.as_ref().is_none_or(|s| s.plan != solution.plan)
        {
            self.show(solution.clone());
        }
    }
}

/// A plan a job of the portfolio found, for the watch: the plan, its timing when
/// known, its recipe.
pub(super) type Found = (NpuPlan, Option<Timing>, String);

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
