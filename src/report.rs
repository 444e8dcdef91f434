//! The plan report: a plan with the independent checker's verdict on it and its
//! live-bytes profile. It is made here, where the plan is, and every edge
//! serialises this one type: the CLI's `plan --json`, the page's reports (packed
//! or whole), the downloaded plan and the Learn view.
//!
//! As JSON the plan's own fields sit at the top level beside the report's, so a
//! report is also a plan file `memplan check` reads.

use crate::pack::Budget;
use crate::plan::Plan;
use crate::{check, Analysis, Graph, Strategy};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlanReport {
    #[serde(flatten)]
    pub plan: Plan,
    /// The checker found nothing wrong.
    pub valid: bool,
    /// What the checker found wrong, in words.
    pub violations: Vec<String>,
    /// `(step, live bytes)` over the plan's own order.
    pub profile: Vec<(u32, u64)>,
    /// Peak over lower bound.
    pub ratio: f64,
    /// The capacity the plan was asked to fit in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    /// A searching strategy used more than its budget plus a tenth: the one
    /// greedy pass it always makes took longer than that.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
}

impl PlanReport {
    /// The report of `plan`, a plan of `graph`: checked, and profiled over its order.
    pub fn new(graph: &Graph, plan: Plan, capacity: Option<u64>) -> PlanReport {
        let violations: Vec<String> = check::check(graph, &plan)
            .iter()
            .map(|v| v.to_string())
            .collect();
        PlanReport {
            valid: violations.is_empty(),
            violations,
            profile: plan.profile(),
            ratio: plan.ratio(),
            capacity,
            over_budget: false,
            plan,
        }
    }
}

impl Analysis {
    /// Plans `graph` with `strategy` within `budget` and reports on the plan (see
    /// [`PlanReport::new`]), with the capacity the analysis was asked to fit in.
    pub fn report(&self, graph: &Graph, strategy: Strategy, budget: &mut Budget) -> PlanReport {
        let plan = self.plan_within(graph, strategy, budget);
        PlanReport {
            over_budget: strategy.overran(budget),
            ..PlanReport::new(graph, plan, self.opts.pack.capacity)
        }
    }
}
