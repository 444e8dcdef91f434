//! What `plan` prints: a short text report and the plan as JSON.

use memplan::graph::{Bound, FreeDim};
use memplan::{Graph, Options, Plan, PlanReport, Strategy};
use memplan_formats::format_size;
use memplan_formats::snapshot::Summary;
use serde::Serialize;
use std::fmt::Write;

/// What `plan --json` writes: the plan report (see [`PlanReport`]; its `valid`
/// covers the nested arenas too) with the file's notes, free dimensions and the
/// reports of its op bodies.
#[derive(Serialize)]
pub struct PlanDoc<'a> {
    #[serde(flatten)]
    report: &'a PlanReport,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    /// The free input dimensions and the values used.
    #[serde(skip_serializing_if = "<[FreeDim]>::is_empty")]
    free_dims: &'a [FreeDim],
    /// The values whose size depends on the input data, and the bound each is
    /// planned at.
    #[serde(skip_serializing_if = "<[Bound]>::is_empty")]
    bounds: &'a [Bound],
    /// The nested arenas of op bodies, each checked.
    #[serde(skip_serializing_if = "<[NestedReport]>::is_empty")]
    subgraphs: &'a [NestedReport],
    /// A PyTorch snapshot's own figures, beside the plan of its blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<&'a Summary>,
}

/// The report of one op body's arena, named by its path.
#[derive(Serialize)]
pub struct NestedReport {
    pub path: String,
    /// The body's ops.
    #[serde(skip)]
    pub ops: usize,
    #[serde(flatten)]
    pub report: PlanReport,
}

/// Every op body of `graph` planned with `strategy` and reported on.
pub fn nested_reports(
    graph: &Graph,
    strategy: Strategy,
    opts: &Options,
) -> Result<Vec<NestedReport>, memplan::Error> {
    Ok(memplan::plan_nested(graph, strategy, opts)?
        .into_iter()
        .map(|n| NestedReport {
            report: PlanReport::new(n.graph, n.plan, None),
            path: n.path,
            ops: n.graph.ops.len(),
        })
        .collect())
}

pub fn plan_json<'a>(
    graph: &'a Graph,
    report: &'a PlanReport,
    nested: &'a [NestedReport],
    snapshot: Option<&'a Summary>,
) -> PlanDoc<'a> {
    PlanDoc {
        report,
        notes: &graph.notes,
        free_dims: &graph.free_dims,
        bounds: &graph.bounds,
        subgraphs: nested,
        snapshot,
    }
}

/// `batch=1, seq=1 (set with --dim)`: the values of the free dimensions, and
/// which were defaulted (and raised from 1, see the importer).
pub fn free_dims_text(dims: &[FreeDim]) -> String {
    let list: Vec<String> = dims
        .iter()
        .map(|d| format!("{}={}", d.name, d.value))
        .collect();
    let defaulted = dims.iter().filter(|d| !d.given).count();
    let raised: Vec<&str> = (dims.iter().filter(|d| d.raised))
        .map(|d| d.name.as_str())
        .collect();
    let how = match defaulted {
        0 => "as given".to_string(),
        _ if !raised.is_empty() => format!(
            "{} defaulted, {} raised from 1, where the model does not run: set with --dim",
            if defaulted == dims.len() {
                "all".to_string()
            } else {
                defaulted.to_string()
            },
            raised.join(", ")
        ),
        n if n == dims.len() => "defaulted to 1: set with --dim".to_string(),
        n => format!("{n} defaulted to 1: set with --dim"),
    };
    format!("{} ({how})", list.join(", "))
}

/// One line per value whose size depends on the input data, with its bound and
/// why that is its worst case, then what that makes of the plan.
pub fn bounds_text(bounds: &[Bound]) -> String {
    let mut s = String::new();
    for b in bounds {
        let how = if b.given {
            format!("given; worst case {:?}, {}", b.worst, b.why)
        } else {
            format!("worst case: {}", b.why)
        };
        let _ = writeln!(s, "bounded      `{}` {:?} ({how})", b.value, b.dims);
    }
    let worst = bounds.iter().filter(|b| !b.given).count();
    if worst == bounds.len() && worst > 0 {
        let _ = writeln!(
            s,
            "             sizes that depend on the input data are planned at their worst case: the plan holds for every input (a smaller bound: --value-shape NAME=DIMS)"
        );
    } else if worst < bounds.len() {
        let _ = writeln!(
            s,
            "             the plan holds for inputs within the bounds given"
        );
    }
    s
}

/// One line per nested arena, and the importer's notes.
pub fn nested_text(graph: &Graph, nested: &[NestedReport]) -> String {
    let mut s = String::new();
    if !nested.is_empty() {
        let _ = writeln!(
            s,
            "subgraphs    {} bodies, each a nested arena in use while its op runs (an If needs its larger branch)",
            nested.len()
        );
        for n in nested {
            let verdict = if n.report.valid {
                "valid".to_string()
            } else {
                format!("INVALID: {}", n.report.violations.join("; "))
            };
            let _ = writeln!(
                s,
                "  {}: {} tensors, {} ops, lower bound {}, peak {}, {verdict}",
                n.path,
                n.report.plan.tensors.len(),
                n.ops,
                bytes(n.report.plan.lower_bound),
                bytes(n.report.plan.peak_bytes)
            );
        }
    }
    for note in &graph.notes {
        let _ = writeln!(s, "note         {note}");
    }
    s
}

pub fn read_plan(data: &[u8]) -> Result<Plan, String> {
    serde_json::from_slice(data).map_err(|e| format!("not a memplan plan: {e}"))
}

fn bytes(b: u64) -> String {
    if b < 1024 {
        format!("{b} B")
    } else {
        format!("{} ({b} B)", format_size(b))
    }
}

pub fn plan_text(graph: &Graph, plan: &Plan, violations: &[String]) -> String {
    let mut s = String::new();
    let reduction = if plan.naive_bytes == 0 {
        0.0
    } else {
        100.0 * (1.0 - plan.peak_bytes as f64 / plan.naive_bytes as f64)
    };
    let _ = writeln!(s, "graph        {}", plan.graph);
    let _ = writeln!(
        s,
        "tensors      {} in the arena ({} in all), {} ops, {} steps ({} order)",
        plan.tensors.len(),
        graph.tensors.len(),
        graph.ops.len(),
        plan.steps,
        plan.order_kind
    );
    if !graph.free_dims.is_empty() {
        let _ = writeln!(s, "free dims    {}", free_dims_text(&graph.free_dims));
    }
    s += &bounds_text(&graph.bounds);
    let _ = writeln!(s, "naive        {}", bytes(plan.naive_bytes));
    let _ = writeln!(s, "lower bound  {}", bytes(plan.lower_bound));
    let _ = writeln!(
        s,
        "pools        {} pools, {}",
        plan.pools,
        bytes(plan.pooled_bytes)
    );
    let align = if plan.align > 1 {
        format!(", offsets aligned to {}", plan.align)
    } else {
        String::new()
    };
    let _ = writeln!(s, "strategy     {}{align}", plan.strategy);
    let _ = writeln!(s, "peak         {}", bytes(plan.peak_bytes));
    let _ = writeln!(
        s,
        "ratio        {:.4}x the lower bound, {reduction:.1}% less than naive",
        plan.ratio()
    );
    if violations.is_empty() {
        let _ = writeln!(s, "check        valid");
    } else {
        let _ = writeln!(s, "check        INVALID: {} violation(s)", violations.len());
        for v in violations {
            let _ = writeln!(s, "  {v}");
        }
    }
    s
}
