//! memplan's own JSON graph format:
//!
//! ```json
//! {"name": "attention",
//!  "tensors": [{"name": "x", "size": "1MiB", "kind": "input"},
//!              {"name": "y", "size": 4096, "level": "UB"}],
//!  "ops": [{"name": "proj", "type": "MatMul", "inputs": ["x"], "outputs": ["y"]}]}
//! ```
//! `size` is bytes or a string with a unit; `kind` is `intermediate` (default, in
//! the arena), `input`, `output` or `const` (outside it); `level`, `type`, `name`
//! of ops and of the graph are optional. Ops may be listed in any order.
//! `lifetime: [start, end]` fixes a tensor's steps (instances without ops); a
//! graph may also carry `free_dims` and `notes` (what an importer found) and
//! `subgraphs` (`[{"op", "attribute", "graph": {...}}]`, the bodies of its ops).
//! [`write`] writes any graph in this format: a model without its weights.

use super::{json_error, parse_size};
use memplan::error::Error;
use memplan::graph::{FreeDim, Graph, Op, Role, Subgraph, Tensor, TensorId};
use memplan::liveness::Lifetime;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File<'a> {
    name: Option<String>,
    #[serde(default)]
    tensors: Vec<FileTensor>,
    #[serde(default, borrow)]
    ops: Vec<FileOp<'a>>,
    #[serde(default)]
    free_dims: Vec<FileDim>,
    #[serde(default)]
    notes: Vec<String>,
    #[serde(default, borrow)]
    subgraphs: Vec<FileSubgraph<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTensor {
    name: String,
    size: Size,
    kind: Option<String>,
    level: Option<String>,
    lifetime: Option<[u32; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDim {
    name: String,
    value: u64,
    #[serde(default)]
    given: bool,
    #[serde(default)]
    raised: bool,
    #[serde(default)]
    at: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSubgraph<'a> {
    op: String,
    attribute: String,
    #[serde(borrow)]
    graph: Box<File<'a>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Size {
    Bytes(u64),
    Text(String),
}

/// Tensor names borrow from the file where they can: an op may list millions.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileOp<'a> {
    name: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default, borrow)]
    inputs: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    outputs: Vec<Cow<'a, str>>,
}

pub fn read(data: &[u8], fallback_name: &str) -> Result<Graph, Error> {
    let file: File = serde_json::from_slice(data).map_err(|e| json_error("native json", e))?;
    build(file, fallback_name)
}

fn build(file: File, fallback_name: &str) -> Result<Graph, Error> {
    let mut tensors = Vec::with_capacity(file.tensors.len());
    for t in file.tensors {
        let size = match t.size {
            Size::Bytes(b) => b,
            Size::Text(s) => {
                parse_size(&s).map_err(|e| Error::invalid(format!("tensor `{}`: {e}", t.name)))?
            }
        };
        let role = match t.kind.as_deref() {
            None | Some("intermediate") => Role::Arena,
            Some("input") => Role::Input,
            Some("output") => Role::Output,
            Some("const") => Role::Const,
            Some(other) => {
                return Err(Error::invalid(format!(
                "tensor `{}` has kind `{other}` (expected intermediate, input, output or const)",
                t.name
            )))
            }
        };
        tensors.push(Tensor {
            name: t.name,
            size,
            role,
            level: t.level,
            lifetime: t.lifetime.map(|[start, end]| Lifetime::new(start, end)),
        });
    }
    let ids: HashMap<&str, TensorId> = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), TensorId(i as u32)))
        .collect();
    let mut ops = Vec::with_capacity(file.ops.len());
    for (i, op) in file.ops.into_iter().enumerate() {
        let name = op.name.unwrap_or_else(|| format!("op{i}"));
        let lookup = |names: Vec<Cow<str>>, what: &str| -> Result<Vec<TensorId>, Error> {
            names
                .iter()
                .map(|n| {
                    ids.get(n.as_ref()).copied().ok_or_else(|| {
                        Error::invalid(format!(
                            "op `{name}` {what} tensor `{n}`, which is not declared in `tensors`"
                        ))
                    })
                })
                .collect()
        };
        let inputs = lookup(op.inputs, "reads")?;
        let outputs = lookup(op.outputs, "writes")?;
        ops.push(Op {
            name,
            kind: op.kind.unwrap_or_default(),
            inputs,
            outputs,
        });
    }
    let mut graph = Graph::new(
        file.name.unwrap_or_else(|| fallback_name.to_string()),
        tensors,
        ops,
    )?;
    graph.notes = file.notes;
    graph.free_dims = file
        .free_dims
        .into_iter()
        .map(|d| FreeDim {
            name: d.name,
            value: d.value,
            given: d.given,
            raised: d.raised,
            at: d.at,
        })
        .collect();
    for sub in file.subgraphs {
        let body = build(*sub.graph, &sub.attribute)?;
        graph.subgraphs.push(Subgraph {
            op: sub.op,
            attribute: sub.attribute,
            graph: body,
        });
    }
    Ok(graph)
}

#[derive(Serialize)]
struct OutGraph<'a> {
    name: &'a str,
    tensors: Vec<OutTensor<'a>>,
    ops: Vec<OutOp<'a>>,
    #[serde(skip_serializing_if = "<[FreeDim]>::is_empty")]
    free_dims: &'a [FreeDim],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    subgraphs: Vec<OutSubgraph<'a>>,
}

#[derive(Serialize)]
struct OutTensor<'a> {
    name: &'a str,
    size: u64,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lifetime: Option<[u32; 2]>,
}

#[derive(Serialize)]
struct OutOp<'a> {
    name: &'a str,
    #[serde(rename = "type", skip_serializing_if = "str::is_empty")]
    kind: &'a str,
    inputs: Vec<&'a str>,
    outputs: Vec<&'a str>,
}

#[derive(Serialize)]
struct OutSubgraph<'a> {
    op: &'a str,
    attribute: &'a str,
    graph: OutGraph<'a>,
}

fn out(g: &Graph) -> OutGraph<'_> {
    let name = |t: &TensorId| g.tensor(*t).name.as_str();
    OutGraph {
        name: &g.name,
        tensors: g
            .tensors
            .iter()
            .map(|t| OutTensor {
                name: &t.name,
                size: t.size,
                kind: match t.role {
                    Role::Arena => "intermediate",
                    Role::Input => "input",
                    Role::Output => "output",
                    Role::Const => "const",
                },
                level: t.level.as_deref(),
                lifetime: t.lifetime.map(|l| [l.start, l.end]),
            })
            .collect(),
        ops: g
            .ops
            .iter()
            .map(|o| OutOp {
                name: &o.name,
                kind: &o.kind,
                inputs: o.inputs.iter().map(name).collect(),
                outputs: o.outputs.iter().map(name).collect(),
            })
            .collect(),
        free_dims: &g.free_dims,
        notes: &g.notes,
        subgraphs: g
            .subgraphs
            .iter()
            .map(|s| OutSubgraph {
                op: &s.op,
                attribute: &s.attribute,
                graph: out(&s.graph),
            })
            .collect(),
    }
}

/// `graph` as memplan's JSON: every tensor (name, size, kind, level, fixed
/// lifetime), every op in order, the bodies of its ops; reading it back gives the
/// same graph. A model's weights become names and sizes only.
pub fn write(graph: &Graph) -> String {
    serde_json::to_string(&out(graph)).expect("a graph serialises") + "\n"
}
