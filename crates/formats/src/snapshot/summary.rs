//! The snapshot's section of a plan report: the figures beside the peak of
//! memplan's plan of the same blocks, the `oom` verdict, and what holds the memory
//! at the live peak. The CLI's `plan --json` and the page's summary both write it.

use super::{Figures, Frame, Oom, Snapshot};
use memplan::{Budget, Error, Options, PlanReport, Strategy};
use serde::Serialize;

/// How many holders a summary lists.
const HOLDERS: usize = 12;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    #[serde(flatten)]
    pub figures: Figures,
    /// The peak of memplan's plan of the same blocks, and its ratio to the live peak.
    pub plan_peak: u64,
    pub plan_ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oom: Option<OomVerdict>,
    /// What holds the memory at the live peak, by allocating frame, largest first.
    pub holders: Vec<HolderAt>,
}

/// The failed request, and whether a plan of the recorded blocks plus the request
/// fits under a capacity (by default the reserved bytes at the failure).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OomVerdict {
    #[serde(flatten)]
    pub oom: Oom,
    pub capacity: u64,
    /// Bytes alive at the failure plus the request: no plan needs less.
    pub needed_at_failure: u64,
    /// The peak of memplan's plan with the request, and whether it fits.
    pub plan_peak: u64,
    pub fits: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HolderAt {
    /// `name (file:line)` of the innermost frame, or `(no stack)`.
    pub frame: String,
    pub bytes: u64,
    pub blocks: usize,
}

impl Snapshot {
    /// With an `oom` entry: memplan's plan of the blocks and the failed request
    /// (see [`Snapshot::graph_with_request`]) with `strategy`, and the capacity it
    /// should fit in: `opts`' capacity, else the bytes reserved at the failure.
    pub fn request_report(
        &self,
        name: &str,
        strategy: Strategy,
        opts: &Options,
        budget: &mut Budget,
    ) -> Result<Option<(PlanReport, u64)>, Error> {
        let (Some(graph), Some(oom)) = (self.graph_with_request(name)?, &self.oom) else {
            return Ok(None);
        };
        let capacity = opts.pack.capacity.unwrap_or(oom.reserved);
        let report = memplan::analyse(&graph, opts)?.report(&graph, strategy, budget);
        Ok(Some((report, capacity)))
    }

    /// The summary given memplan's plan of [`Snapshot::graph`] and, when the trace
    /// has an `oom`, its plan of [`Snapshot::graph_with_request`] and the capacity.
    pub fn summary(&self, plan: &PlanReport, with_request: Option<(&PlanReport, u64)>) -> Summary {
        let figures = self.figures();
        let oom = self
            .oom
            .clone()
            .zip(with_request)
            .map(|(oom, (r, capacity))| OomVerdict {
                needed_at_failure: oom.allocated + super::round(oom.size),
                plan_peak: r.plan.peak_bytes,
                fits: r.plan.peak_bytes <= capacity,
                capacity,
                oom,
            });
        let holders = self.holders_at(figures.live_peak_step);
        Summary {
            plan_peak: plan.plan.peak_bytes,
            plan_ratio: match figures.live_peak {
                0 => 1.0,
                live => plan.plan.peak_bytes as f64 / live as f64,
            },
            figures,
            oom,
            holders,
        }
    }
}

impl Snapshot {
    /// What holds the memory at `step`, by allocating frame, the largest first
    /// (as many as a summary lists), with each frame in words.
    pub fn holders_at(&self, step: u32) -> Vec<HolderAt> {
        (self.holders(step).into_iter().take(HOLDERS))
            .map(|h| HolderAt {
                frame: h
                    .frame
                    .map_or("(no stack)".into(), |f| self.frames[f as usize].to_string()),
                bytes: h.bytes,
                blocks: h.blocks,
            })
            .collect()
    }
}

impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}:{})", self.name, self.filename, self.line)
    }
}
