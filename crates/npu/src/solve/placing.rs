//! Orders placed under every spill rule of the portfolio ([`place_all`]), the
//! jobs that do it on their own threads, and what the portfolio keeps of them.

use super::incumbent::{Found, Incumbent};
use crate::case::{Case, NodeId};
use crate::makespan::pipes::{simulate, Timing};
use crate::movement::spill::{place, NpuPlan, SpillOptions};
use memplan::pool::{Caller, Link};
use memplan::Error;

/// What a job hands [`place_all`]: each placed plan sent to the watch, when anyone
/// wants it.
pub(super) fn send<'l>(
    link: &'l Link<Found>,
    wants: bool,
) -> impl FnMut(&NpuPlan, &Timing, &str) + 'l {
    move |plan, timing, recipe| {
        if wants {
            link.send((plan.clone(), Some(timing.clone()), recipe.to_string()));
        }
    }
}

/// One part of the portfolio that runs on its own: its orders, each placed.
pub(super) type Job<'c> = Box<dyn FnOnce(&Link<Found>) -> Vec<Placed> + Send + 'c>;

/// Plans with their timings and recipes.
pub(super) type Plans = Vec<(NpuPlan, Timing, String)>;

/// The plans of a portfolio as they are made: an order is placed under every
/// rule as soon as it is known.
pub(super) struct Portfolio {
    pub(super) orders: Vec<(Vec<NodeId>, String)>,
    pub(super) rules: Vec<(SpillOptions, &'static str)>,
    pub(super) found: Vec<(NpuPlan, Timing, String)>,
    /// Plans the allocator-judged searches took on the way, for Problem 3 only.
    pub(super) on_the_way: Vec<(NpuPlan, Timing, String)>,
    /// (movement, order, rule) of every plan, for the search of [`searched`].
    pub(super) seeds: Vec<(u64, usize, usize)>,
    pub(super) last_error: Option<Error>,
}

/// An order placed under every rule of the portfolio: each plan with its timing
/// and recipe, or why the rule failed.
pub(super) struct Placed {
    pub(super) order: Vec<NodeId>,
    pub(super) name: String,
    pub(super) plans: Vec<Result<(NpuPlan, Timing, String), Error>>,
}

/// Places `order` under every rule of `rules`, handing each plan to `show` as it
/// is made.
pub(super) fn place_all(
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
    pub(super) fn add(
        &mut self,
        case: &Case,
        order: Vec<NodeId>,
        name: String,
        shown: &mut Incumbent,
    ) {
        let placed = place_all(case, &self.rules, order, name, &mut |p, t, r| {
            shown.placed(p, Some(t), r)
        });
        self.record(placed);
    }

    /// Takes the plans of one placed order, in the order the orders come.
    pub(super) fn record(&mut self, placed: Placed) {
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
    pub(super) fn enough(&self, shown: &mut Incumbent) -> bool {
        !self.found.is_empty() && shown.stopped()
    }
}
