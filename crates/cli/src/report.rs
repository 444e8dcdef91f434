//! What `plan` prints: a short text report and the plan as JSON.

use memplan::check::Violation;
use memplan::graph::FreeDim;
use memplan::{Graph, Nested, Plan};
use memplan_formats::format_size;
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
pub struct PlanDoc<'a> {
    #[serde(flatten)]
    plan: &'a Plan,
    valid: bool,
    violations: Vec<String>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    /// The free input dimensions and the values used.
    #[serde(skip_serializing_if = "<[FreeDim]>::is_empty")]
    free_dims: &'a [FreeDim],
    /// The nested arenas of op bodies, each checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    subgraphs: Vec<NestedDoc<'a>>,
}

#[derive(Serialize)]
struct NestedDoc<'a> {
    path: &'a str,
    #[serde(flatten)]
    plan: &'a Plan,
    valid: bool,
    violations: Vec<String>,
}

fn texts(violations: &[Violation]) -> Vec<String> {
    violations.iter().map(|v| v.to_string()).collect()
}

pub fn plan_json<'a>(
    graph: &'a Graph,
    plan: &'a Plan,
    violations: &[Violation],
    nested: &'a [(Nested<'a>, Vec<Violation>)],
) -> PlanDoc<'a> {
    PlanDoc {
        plan,
        valid: violations.is_empty() && nested.iter().all(|(_, v)| v.is_empty()),
        violations: texts(violations),
        notes: &graph.notes,
        free_dims: &graph.free_dims,
        subgraphs: nested
            .iter()
            .map(|(n, v)| NestedDoc {
                path: &n.path,
                plan: &n.plan,
                valid: v.is_empty(),
                violations: texts(v),
            })
            .collect(),
    }
}

/// `batch=1, seq=1 (set with --dim)`: the values of the free dimensions, and
/// which were defaulted.
pub fn free_dims_text(dims: &[FreeDim]) -> String {
    let list: Vec<String> = dims
        .iter()
        .map(|d| format!("{}={}", d.name, d.value))
        .collect();
    let defaulted = dims.iter().filter(|d| !d.given).count();
    let how = match defaulted {
        0 => "as given".to_string(),
        n if n == dims.len() => "defaulted to 1: set with --dim".to_string(),
        n => format!("{n} defaulted to 1: set with --dim"),
    };
    format!("{} ({how})", list.join(", "))
}

/// One line per nested arena, and the importer's notes.
pub fn nested_text(graph: &Graph, nested: &[(Nested, Vec<Violation>)]) -> String {
    let mut s = String::new();
    if !nested.is_empty() {
        let _ = writeln!(
            s,
            "subgraphs    {} bodies, each a nested arena in use while its op runs (an If needs its larger branch)",
            nested.len()
        );
        for (n, v) in nested {
            let verdict = if v.is_empty() {
                "valid".to_string()
            } else {
                format!("INVALID: {}", texts(v).join("; "))
            };
            let _ = writeln!(
                s,
                "  {}: {} tensors, {} ops, lower bound {}, peak {}, {verdict}",
                n.path,
                n.plan.tensors.len(),
                n.graph.ops.len(),
                bytes(n.plan.lower_bound),
                bytes(n.plan.peak_bytes)
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

pub fn plan_text(graph: &Graph, plan: &Plan, violations: &[Violation]) -> String {
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
