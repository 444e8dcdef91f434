//! The writer, [`write_text`]: the `graph` line, a declaration line per tensor and
//! a line per op, names quoted as the reader reads them back.

use super::tokens::{quote, quoted};
use memplan::error::Error;
use memplan::graph::{Graph, Op, Role, Tensor};
use memplan::units::{parse_size, size_token};
use std::borrow::Cow;

/// The graph's name as written after `graph`: quoted when it would read as a size.
fn graph_name_token(name: &str) -> Cow<'_, str> {
    if parse_size(name).is_ok() {
        Cow::Owned(quoted(name))
    } else {
        quote(name)
    }
}

/// Appends tensor `t`'s declaration line.
fn push_tensor(out: &mut String, t: &Tensor) {
    match t.role {
        Role::Arena => {}
        Role::Input => out.push_str("input "),
        Role::Output => out.push_str("output "),
        Role::Const => out.push_str("const "),
    }
    out.push_str(&quote(&t.name));
    out.push(' ');
    out.push_str(&size_token(t.size));
    if let Some(level) = &t.level {
        out.push_str(" @");
        out.push_str(&quote(level));
    }
    if let Some(l) = t.lifetime {
        out.push_str(&format!(" life {}..{}", l.start, l.end));
    }
    out.push('\n');
}

/// Appends `op`'s line.
fn push_op(out: &mut String, graph: &Graph, op: &Op) {
    out.push_str(&quote(&op.name));
    if !op.kind.is_empty() {
        out.push(' ');
        out.push_str(&quote(&op.kind));
    }
    out.push(':');
    for t in &op.inputs {
        out.push(' ');
        out.push_str(&quote(&graph.tensor(*t).name));
    }
    out.push_str(" ->");
    for t in &op.outputs {
        out.push(' ');
        out.push_str(&quote(&graph.tensor(*t).name));
    }
    out.push('\n');
}

/// `graph` as memplan text: the `graph` line, every tensor's declaration in
/// order, a blank line, every op in order. A graph with op bodies (`subgraphs`)
/// is refused: only the JSON format holds them.
pub fn write_text(graph: &Graph) -> Result<String, Error> {
    if !graph.subgraphs.is_empty() {
        return Err(Error::usage(format!(
            "graph `{}` has op bodies (subgraphs), which memplan text cannot hold: export it as JSON instead",
            graph.name
        )));
    }
    let mut out = format!("graph {}\n", graph_name_token(&graph.name));
    for t in &graph.tensors {
        push_tensor(&mut out, t);
    }
    if !graph.ops.is_empty() {
        out.push('\n');
    }
    for op in &graph.ops {
        push_op(&mut out, graph, op);
    }
    Ok(out)
}
