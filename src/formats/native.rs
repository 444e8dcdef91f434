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

use super::{json_error, parse_size};
use crate::error::Error;
use crate::graph::{Graph, Op, Role, Tensor, TensorId};
use serde::Deserialize;
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTensor {
    name: String,
    size: Size,
    kind: Option<String>,
    level: Option<String>,
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
            lifetime: None,
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
    Graph::new(
        file.name.unwrap_or_else(|| fallback_name.to_string()),
        tensors,
        ops,
    )
}
