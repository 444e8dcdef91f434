//! `memplan plan FILE`: plans one graph (or a PyTorch snapshot's blocks), checks
//! the plan and prints the report, as text or as the JSON `check` reads.

use crate::common::{exit_code, load, write_file};
use crate::flags::{Common, PlanArgs};
use crate::report::{self, NestedReport};
use crate::snapshot;
use memplan::order::OrderKind;
use memplan::{Analysis, Graph, Options, Plan, PlanReport};
use memplan_formats::Format;
use serde::Serialize;
use std::process::ExitCode;

/// Default `--budget` of `plan`, in milliseconds.
pub(crate) const PLAN_BUDGET_MS: u64 = 1000;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn run(args: PlanArgs) -> Result<ExitCode> {
    let common = &args.common;
    if common.format.is_none_or(|f| f == Format::Snapshot) && snapshot::is_snapshot_file(&args.file)
    {
        return plan_snapshot(&args);
    }
    let graph = load(&args.file, common.format, &common.read)?;
    let analysis = memplan::analyse(&graph, &common.opts)?;
    let (plan_report, nested) = search(&graph, &analysis, &args)?;
    let plan = &plan_report.plan;
    let ordered = reordered(&graph, &analysis, plan, &common.opts)?;
    if let Some(path) = &args.svg {
        write_file(
            path,
            memplan_render::svg(plan, &plan_report.profile, 960, 720)?,
        )?;
    }
    let doc = report::plan_json(&graph, &plan_report, &nested);
    emit(args.json.as_deref(), &doc, || {
        let mut text = report::plan_text(&graph, plan, &plan_report.violations);
        text += &search_text(&analysis, &ordered, plan, &common.opts);
        if plan_report.over_budget {
            text += &format!(
                "budget       {} ms exceeded by more than a tenth: the whole greedy \
                 passes a search always makes (one; two for auto) take longer on this graph\n",
                budget_ms(common)
            );
        }
        text + &report::nested_text(&graph, &nested)
    })?;
    Ok(exit_code(plan_report.valid))
}

/// The `--budget`, or `plan`'s default.
fn budget_ms(common: &Common) -> f64 {
    common.budget_ms.unwrap_or(PLAN_BUDGET_MS) as f64
}

/// Plans the graph and its nested graphs (the bodies of control flow) with
/// `--strategy` within the budget, showing each better plan with `--progress`.
fn search<'g>(
    graph: &'g Graph,
    analysis: &Analysis,
    args: &PlanArgs,
) -> Result<(PlanReport, Vec<NestedReport<'g>>)> {
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

/// Prints the report: `--json -` the JSON `doc` alone; `--json OUT` writes it and
/// prints `text`, as does no `--json`.
fn emit(json: Option<&str>, doc: &impl Serialize, text: impl FnOnce() -> String) -> Result<()> {
    match json {
        Some("-") => println!("{}", serde_json::to_string_pretty(doc)?),
        Some(path) => {
            write_file(path, serde_json::to_string_pretty(doc)? + "\n")?;
            print!("{}", text());
        }
        None => print!("{}", text()),
    }
    Ok(())
}

/// `plan` on a PyTorch memory snapshot.
fn plan_snapshot(args: &PlanArgs) -> Result<ExitCode> {
    let (file, common) = (&args.file, &args.common);
    let snap = snapshot::load(file, common.read.device)?;
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("snapshot");
    let planned = snapshot::plan(snap, stem, args.strategy, common, budget_ms(common))?;
    if let Some(path) = &args.svg {
        // the allocator's real layout over memplan's plan of the same blocks
        let (plan, profile) = (&planned.report.plan, &planned.report.profile);
        let doc = memplan_render::svg_pair(&planned.snap.layout(plan), plan, profile, 960, 1440)?;
        write_file(path, doc)?;
    }
    // the plan report as for any graph (a plan file `check` reads), and the snapshot's section
    let mut doc = serde_json::to_value(report::plan_json(&planned.graph, &planned.report, &[]))?;
    doc["snapshot"] = serde_json::to_value(&planned.summary)?;
    emit(args.json.as_deref(), &doc, || snapshot::text(&planned))?;
    Ok(exit_code(planned.report.valid))
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
