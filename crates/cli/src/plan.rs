//! `memplan plan FILE`: plans one graph (or a PyTorch snapshot's blocks), checks
//! the plan and prints the report, as text or as the JSON `check` reads.

use crate::common::{exit_code, load, write_file};
use crate::flags::{Common, PlanArgs};
use crate::report::{self, NestedReport};
use crate::snapshot;
use memplan::order::OrderKind;
use memplan::{Analysis, Graph, Options, Plan, PlanReport};
use memplan_formats::snapshot::{Snapshot, Summary};
use memplan_formats::Format;
use std::path::Path;
use std::process::ExitCode;

/// Default `--budget` of `plan`, in milliseconds.
pub(crate) const PLAN_BUDGET_MS: u64 = 1000;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn run(args: PlanArgs) -> Result<ExitCode> {
    let outcome = outcome(&Input::Path(&args.file), &args)?;
    if let Some(path) = &args.svg {
        write_file(path, outcome.svg()?)?;
    }
    emit_with(
        args.json.as_deref(),
        |w| outcome.write_json(w),
        || outcome.text.clone(),
    )?;
    Ok(exit_code(outcome.valid))
}

/// What `plan` reads: a file, or bytes held in memory (the Python package's).
pub enum Input<'a> {
    Path(&'a Path),
    Bytes { data: &'a [u8], name: &'a str },
}

impl Input<'_> {
    /// The graph's name when the file does not give one: the file's stem.
    fn stem(&self, default: &'static str) -> String {
        match self {
            Input::Path(p) => p.file_stem().and_then(|s| s.to_str()).unwrap_or(default),
            Input::Bytes { name, .. } => name,
        }
        .to_string()
    }

    fn is_snapshot(&self) -> bool {
        match self {
            Input::Path(p) => snapshot::is_snapshot_file(p),
            Input::Bytes { data, .. } => memplan_formats::snapshot::is_snapshot(data),
        }
    }

    fn graph(&self, common: &Common) -> std::result::Result<Graph, memplan::Error> {
        match self {
            Input::Path(p) => load(p, common.format, &common.read),
            Input::Bytes { data, name } => {
                memplan_formats::read_source(data, common.format, name, &common.read)
                    .map_err(|e| crate::common::in_file(Path::new(name), &e))
            }
        }
    }
}

/// What `plan` found: the report as text, the graph and its plan (for the
/// checker, the charts and the JSON `--json` writes, see [`Outcome::write_json`]),
/// and the allocator's own layout when the input was a PyTorch snapshot.
pub struct Outcome {
    pub text: String,
    pub valid: bool,
    pub graph: Graph,
    pub report: PlanReport,
    /// The reports of the op bodies' nested arenas.
    pub nested: Vec<NestedReport>,
    /// The snapshot read, whose own layout of the blocks the chart draws beside
    /// memplan's plan, and its figures.
    pub snapshot: Option<(Snapshot, Summary)>,
}

impl Outcome {
    /// Writes the JSON `--json` writes as it is made, never held whole: a plan
    /// of millions of buffers is hundreds of megabytes of it.
    pub fn write_json(&self, to: impl std::io::Write) -> serde_json::Result<()> {
        let summary = self.snapshot.as_ref().map(|(_, s)| s);
        let doc = report::plan_json(&self.graph, &self.report, &self.nested, summary);
        serde_json::to_writer_pretty(to, &doc)
    }

    /// The JSON `--json` writes, as one string.
    pub fn json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out).expect("writing JSON to memory");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// The chart `--svg` writes: time by address; for a snapshot, the allocator's
    /// layout above memplan's plan.
    pub fn svg(&self) -> std::result::Result<String, String> {
        let (plan, profile) = (&self.report.plan, &self.report.profile);
        match &self.snapshot {
            Some((snap, _)) => {
                memplan_render::svg_pair(&snap.layout(plan), plan, profile, 960, 1440)
            }
            None => memplan_render::svg(plan, profile, 960, 720),
        }
        .map_err(|e| e.to_string())
    }
}

/// Plans `input` as `args` say (its `file`, `--json`, `--svg` are not read).
pub fn outcome(input: &Input, args: &PlanArgs) -> Result<Outcome> {
    let common = &args.common;
    if common.format.is_none_or(|f| f == Format::Snapshot) && input.is_snapshot() {
        return snapshot_outcome(input, args);
    }
    let graph = input.graph(common)?;
    let analysis = memplan::analyse(&graph, &common.opts)?;
    let (plan_report, nested) = search(&graph, &analysis, args)?;
    let plan = &plan_report.plan;
    let ordered = reordered(&graph, &analysis, plan, &common.opts)?;
    let mut text = report::plan_text(&graph, plan, &plan_report.violations);
    text += &search_text(&analysis, &ordered, plan, &common.opts);
    if plan_report.over_budget {
        text += &format!(
            "budget       {} ms exceeded by more than a tenth: the whole greedy \
             passes a search always makes (one; two for auto) take longer on this graph\n",
            budget_ms(common)
        );
    }
    text += &report::nested_text(&graph, &nested);
    Ok(Outcome {
        text,
        valid: plan_report.valid,
        graph,
        report: plan_report,
        nested,
        snapshot: None,
    })
}

/// The `--budget`, or `plan`'s default.
fn budget_ms(common: &Common) -> f64 {
    common.budget_ms.unwrap_or(PLAN_BUDGET_MS) as f64
}

/// Plans the graph and its nested graphs (the bodies of control flow) with
/// `--strategy` within the budget, showing each better plan with `--progress`.
fn search(
    graph: &Graph,
    analysis: &Analysis,
    args: &PlanArgs,
) -> Result<(PlanReport, Vec<NestedReport>)> {
    let common = &args.common;
    let mut show = |p: &memplan::pack::Progress| {
        eprintln!(
            "{:>9.1} ms  {:<16} peak {} (bound {})",
            p.elapsed_ms.unwrap_or(0.0),
            p.phase,
            p.best_peak,
            p.lower_bound
        )
    };
    let mut budget = common.budget(budget_ms(common));
    if args.progress {
        budget = budget.with_progress(&mut show);
    }
    let nested = report::nested_reports(graph, args.strategy, &common.opts)?;
    let mut plan_report = analysis.report(graph, args.strategy, &mut budget);
    plan_report.valid &= nested.iter().all(|n| n.report.valid);
    Ok((plan_report, nested))
}

/// The analysis on the order the plan took: `analysis` unless the plan reordered
/// the graph (then the memory order's).
fn reordered(graph: &Graph, analysis: &Analysis, plan: &Plan, opts: &Options) -> Result<Analysis> {
    if plan.order_kind == opts.order.name() {
        return Ok(analysis.clone());
    }
    let opts = Options {
        order: OrderKind::Memory,
        ..*opts
    };
    Ok(memplan::analyse(graph, &opts)?)
}

/// Prints the report: `--json -` the JSON alone; `--json OUT` writes it and prints
/// `text`, as does no `--json`.
pub(crate) fn emit(to: Option<&str>, json: &str, text: impl FnOnce() -> String) -> Result<()> {
    emit_with(to, |w| w.write_all(json.as_bytes()), text)
}

/// [`emit`] of JSON that `write` writes as it is made, through a buffer.
pub(crate) fn emit_with<E: std::fmt::Display>(
    to: Option<&str>,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::result::Result<(), E>,
    text: impl FnOnce() -> String,
) -> Result<()> {
    use std::io::Write;
    let Some(to) = to else {
        print!("{}", text());
        return Ok(());
    };
    let written = |e: &dyn std::fmt::Display| format!("cannot write {to}: {e}");
    let sink: Box<dyn Write> = match to {
        "-" => Box::new(std::io::stdout().lock()),
        path => Box::new(std::fs::File::create(path).map_err(|e| written(&e))?),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, sink);
    write(&mut out).map_err(|e| written(&e))?;
    writeln!(out)
        .and_then(|_| out.flush())
        .map_err(|e| written(&e))?;
    if to != "-" {
        print!("{}", text());
    }
    Ok(())
}

/// `plan` on a PyTorch memory snapshot: the plan report as for any graph (a plan
/// file `check` reads) with the snapshot's section.
fn snapshot_outcome(input: &Input, args: &PlanArgs) -> Result<Outcome> {
    let common = &args.common;
    let snap = match input {
        Input::Path(file) => snapshot::load(file, common.read.device, common.read.entries)?,
        Input::Bytes { data, .. } => {
            memplan_formats::snapshot::read_stream(*data, common.read.device)?
                .within(common.read.entries)?
        }
    };
    let stem = input.stem("snapshot");
    let planned = snapshot::plan(snap, &stem, args.strategy, common, budget_ms(common))?;
    let text = snapshot::text(&planned);
    Ok(Outcome {
        text,
        valid: planned.report.valid,
        graph: planned.graph,
        report: planned.report,
        nested: Vec::new(),
        snapshot: Some((planned.snap, planned.summary)),
    })
}

/// What the searching strategies add to the report: proof, capacity, orders.
fn search_text(
    analysis: &memplan::Analysis,
    ordered: &memplan::Analysis,
    plan: &memplan::Plan,
    opts: &Options,
) -> String {
    let mut s = String::new();
    if plan.proven_optimal {
        s += "proof        optimal on this order\n";
    } else if plan.proven_bound > plan.lower_bound {
        s += &format!("proof        no plan below {} B\n", plan.proven_bound);
    }
    if let Some(cap) = opts.pack.capacity {
        if plan.peak_bytes <= cap {
            s += &format!("capacity     fits in {cap} B\n");
        } else {
            let over = plan.peak_bytes - cap;
            let proven = if plan.proven_bound > cap {
                ", proven impossible"
            } else {
                ""
            };
            s += &format!(
                "capacity     does not fit in {cap} B: {over} B over ({:.4}x){proven}\n",
                plan.peak_bytes as f64 / cap as f64
            );
        }
    }
    if plan.order != analysis.order.iter().map(|o| o.0).collect::<Vec<_>>() {
        s += &format!(
            "orders       {} bound {} B, {} bound {} B\n",
            opts.order.name(),
            analysis.liveness.lower_bound,
            plan.order_kind,
            ordered.liveness.lower_bound
        );
    }
    s
}
