//! The NPU side of the planning worker: a case read from contest JSON, solved under
//! the capacities the page asks for, each solution reported as JSON text for the page
//! to show and draw (see `npu_draw`).

use crate::errors::{js_error, to_js, to_json};
use crate::Thrown;
use memplan_formats::npu::read_json;
use memplan_npu::bounds::Bounds;
use memplan_npu::case::{default_levels, BufferId, Case, Node};
use memplan_npu::check::{check_npu, NpuReport};
use memplan_npu::checked::{self, solve_checked, solve_checked_watched};
use memplan_npu::export::contest_files;
use memplan_npu::export::{view as npu_view, View as NpuView};
use memplan_npu::problem::Problem;
use memplan_npu::solve::{Method, Solution};
use memplan_npu::watch::Watch;
use memplan_render::{self as render, SpillLayout};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A loaded NPU case.
#[wasm_bindgen]
pub struct NpuSession {
    bytes: Vec<u8>,
    name: String,
    case: Case,
    /// The case's own lower bounds of each problem, computed when first asked
    /// (per capacities).
    bounds: [std::cell::OnceCell<Bounds>; 3],
}

/// The lower bounds beside a solution's figures, `null` where none is useful: a
/// Problem 1 schedule's peak; a placed plan's movement and makespan (of the plan's
/// own spills in the final report, of any plan in the ones on the way).
#[derive(Serialize)]
struct ReportBounds {
    p1_peak: Option<u64>,
    extra_movement: Option<u64>,
    makespan: Option<u64>,
}

#[derive(Serialize)]
struct CaseInfo<'a> {
    name: &'a str,
    nodes: usize,
    edges: usize,
    buffers: usize,
    levels: Vec<LevelInfo<'a>>,
}

#[derive(Serialize)]
struct LevelInfo<'a> {
    name: &'a str,
    capacity: u64,
    buffers: usize,
}

/// A solution, what the independent checker says of it, and the layout JS needs to
/// map a pointer to a spill or a node.
#[derive(Serialize)]
struct SolveReport<'a> {
    view: &'a NpuView,
    valid: bool,
    violation_count: usize,
    violations: Vec<String>,
    checked: Checked,
    layout: SpillLayout,
    node_bufs: &'a [Vec<u64>],
    bounds: ReportBounds,
}

/// The checker's own numbers for a solution.
#[derive(Serialize)]
struct Checked {
    p1_peak: u64,
    spills: usize,
    extra_movement: u64,
    makespan: Option<u64>,
}

/// One method's numbers, for the side-by-side comparison.
#[derive(Serialize)]
struct Summary {
    method: &'static str,
    recipe: String,
    p1_peak: u64,
    spills: usize,
    extra_movement: u64,
    makespan: Option<u64>,
    valid: bool,
}

/// Least time between two plans handed on while a case solves.
pub const NPU_PROGRESS_EVERY_MS: f64 = 250.0;

impl NpuSession {
    /// The report of `solution` and the checker's `report` on it, as JSON.
    fn report(
        &self,
        solution: &Solution,
        report: &NpuReport,
        last: bool,
    ) -> Result<String, Thrown> {
        let view = npu_view(&self.case, solution);
        let problem = solution.problem;
        let bounds = if last && problem.places() {
            let plan = &solution.plan;
            Bounds::of_plan(&self.case, problem, &plan.schedule, &plan.spilled())
        } else {
            *self.bounds[problem.number() as usize - 1]
                .get_or_init(|| Bounds::of(&self.case, problem))
        };
        let bounds = ReportBounds {
            p1_peak: bounds.p1_peak,
            extra_movement: bounds.extra_movement,
            makespan: bounds.makespan.map(|b| b.value()),
        };
        to_json(&SolveReport {
            view: &view,
            valid: report.valid,
            violation_count: report.violation_count,
            violations: report
                .violations
                .iter()
                .take(20)
                .map(|v| v.to_string())
                .collect(),
            checked: Checked {
                p1_peak: report.p1_peak,
                spills: report.spills,
                extra_movement: report.extra_movement,
                makespan: report.makespan,
            },
            layout: render::spill_rows(&view.levels),
            node_bufs: &node_bufs(&self.case, solution),
            bounds,
        })
    }

    /// Solves `problem` (1, 2 or 3) with `method` (`best` or `baseline`) on the
    /// current levels, with the contest files checked.
    fn solved(&self, problem: u8, method: &str) -> Result<checked::Checked, Thrown> {
        let method = Method::from_name(method).map_err(js_error)?;
        let problem = Problem::from_number(problem).map_err(js_error)?;
        solve_checked(&self.case, problem, method).map_err(js_error)
    }
}

#[wasm_bindgen]
impl NpuSession {
    /// Reads an NPU case (contest JSON) from the bytes of file `name`, with the
    /// contest's memory levels.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], name: &str) -> Result<NpuSession, Thrown> {
        let stem = std::path::Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("case")
            .to_string();
        let case = read_json(bytes, &stem, default_levels()).map_err(js_error)?;
        Ok(NpuSession {
            bytes: bytes.to_vec(),
            name: stem,
            case,
            bounds: Default::default(),
        })
    }

    /// The case's name, size and levels (with how many buffers each holds), as JSON.
    pub fn info(&self) -> Result<String, Thrown> {
        let c = &self.case;
        let levels = c
            .levels
            .iter()
            .enumerate()
            .map(|(k, l)| LevelInfo {
                name: &l.name,
                capacity: l.capacity,
                buffers: c.buffers.iter().filter(|b| b.level.index() == k).count(),
            })
            .collect();
        to_json(&CaseInfo {
            name: &c.name,
            nodes: c.nodes.len(),
            edges: c.edges.len(),
            buffers: c.buffers.len(),
            levels,
        })
    }

    /// Solves `problem` (1, 2 or 3) with `method` (`best` or `baseline`) under the
    /// level `capacities` (in level order), checks the result independently and
    /// returns the report as JSON. A capacity too small for a buffer fails and keeps
    /// the old case.
    ///
    /// `progress`, when given, is called with the report (checked the same way) of
    /// the first valid plan at once and then of the best plan so far whenever it
    /// improved, no more often than every [`NPU_PROGRESS_EVERY_MS`].
    pub fn solve(
        &mut self,
        problem: u8,
        method: &str,
        capacities: Vec<f64>,
        progress: Option<js_sys::Function>,
    ) -> Result<String, Thrown> {
        self.set_capacities(&capacities)?;
        let Some(progress) = progress else {
            let checked::Checked {
                solution, report, ..
            } = self.solved(problem, method)?;
            return self.report(&solution, &report, true);
        };
        let method = Method::from_name(method).map_err(js_error)?;
        let problem = Problem::from_number(problem).map_err(js_error)?;
        // the best plan not yet handed on, and when the last one was
        let pending: std::cell::RefCell<Option<Solution>> = Default::default();
        let last = std::cell::Cell::new(f64::NEG_INFINITY);
        let mut asks = 0u32;
        let tell = |force: bool| {
            if pending.borrow().is_none() {
                return;
            }
            let now = crate::now_ms();
            if !force && now - last.get() < NPU_PROGRESS_EVERY_MS {
                return;
            }
            last.set(now);
            let Some(solution) = pending.borrow_mut().take() else {
                return;
            };
            let report = check_npu(&self.case, problem, &contest_files(&self.case, &solution));
            if let Ok(text) = self.report(&solution, &report, false) {
                let _ = progress.call1(&JsValue::NULL, &JsValue::from_str(&text));
            }
        };
        let mut first = true;
        let mut better = |s: &Solution| {
            *pending.borrow_mut() = Some(s.clone());
            if std::mem::take(&mut first) {
                tell(true);
            }
        };
        let mut stop = || {
            // the clock is read on every 64th ask only: asks come every few µs
            asks = asks.wrapping_add(1);
            if asks.is_multiple_of(64) {
                tell(false);
            }
            false
        };
        let checked = solve_checked_watched(
            &self.case,
            problem,
            method,
            &mut Watch::new(&mut better, &mut stop),
        )
        .map_err(js_error)?;
        self.report(&checked.solution, &checked.report, true)
    }

    /// The case as contest JSON (`formats::npu::write_json`), as `memplan export`
    /// writes it.
    #[wasm_bindgen(js_name = exportCase)]
    pub fn export_case(&self) -> String {
        memplan_formats::npu::write_json(&self.case)
    }

    /// Solves `problem` with `method` on the current levels and returns its numbers
    /// only, for comparing methods; the kept solution does not change.
    pub fn summary(&self, problem: u8, method: &str) -> Result<JsValue, Thrown> {
        let checked::Checked {
            solution, report, ..
        } = self.solved(problem, method)?;
        to_js(&Summary {
            method: solution.method.name(),
            recipe: solution.recipe.clone(),
            p1_peak: solution.p1_peak,
            spills: solution.plan.spills.len(),
            extra_movement: solution.extra_movement(),
            makespan: solution.makespan(),
            valid: report.valid,
        })
    }

    /// Re-reads the case when `capacities` differ from its levels'.
    fn set_capacities(&mut self, capacities: &[f64]) -> Result<(), Thrown> {
        if capacities.len() != self.case.levels.len() {
            return Err(Thrown::new(&format!(
                "expected {} capacities, one per level, got {}",
                self.case.levels.len(),
                capacities.len()
            )));
        }
        let mut levels = self.case.levels.clone();
        for (level, &c) in levels.iter_mut().zip(capacities) {
            if !(c.is_finite() && c >= 1.0 && c.fract() == 0.0 && c <= 1e15) {
                return Err(Thrown::new(&format!(
                    "the capacity of {} must be a whole number of at least 1, not {c}",
                    level.name
                )));
            }
            level.capacity = c as u64;
        }
        if levels != self.case.levels {
            self.case = read_json(&self.bytes, &self.name, levels).map_err(js_error)?;
            self.bounds = Default::default();
        }
        Ok(())
    }
}

/// Per schedule position of `solution`: the ids of the buffers its node touches.
fn node_bufs(case: &Case, solution: &Solution) -> Vec<Vec<u64>> {
    let n = case.nodes.len();
    let id = |b: BufferId| case.buffer(b).buf_id;
    let plan = &solution.plan;
    plan.schedule
        .iter()
        .map(|&node| match case.nodes.get(node.index()) {
            Some(Node::Alloc(b) | Node::Free(b)) => vec![id(*b)],
            Some(Node::Op(op)) => op.bufs.iter().map(|&b| id(b)).collect(),
            None => plan
                .spills
                .get((node.index() - n) / 2)
                .map(|s| vec![id(s.buffer)])
                .unwrap_or_default(),
        })
        .collect()
}
