//! The reference graph JSON of the shared corpus (written by an independent Python
//! converter). Only tensors of kind `intermediate` go into the arena; ops are kept
//! in their stored execution order and named `TYPE#id`.

use super::json_error;
use memplan::error::Error;
use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};

#[derive(Deserialize)]
struct File {
    name: Option<String>,
    tensors: Vec<FileTensor>,
    ops: Vec<FileOp>,
}

#[derive(Deserialize)]
struct FileTensor {
    id: i64,
    name: String,
    bytes: u64,
    kind: String,
}

#[derive(Deserialize)]
struct FileOp {
    id: i64,
    #[serde(rename = "type")]
    kind: String,
    inputs: Vec<i64>,
    outputs: Vec<i64>,
}

pub fn read(data: &[u8], fallback_name: &str) -> Result<Graph, Error> {
    let file: File = serde_json::from_slice(data).map_err(|e| json_error("corpus json", e))?;
    let mut index: HashMap<i64, TensorId> = HashMap::with_capacity(file.tensors.len());
    let mut tensors = Vec::with_capacity(file.tensors.len());
    let mut names: HashSet<String> = HashSet::with_capacity(file.tensors.len());
    for t in file.tensors {
        let role = match t.kind.as_str() {
            "intermediate" => Role::Arena,
            "input" => Role::Input,
            "output" => Role::Output,
            "const" | "variable" | "unused" => Role::Const,
            other => {
                return Err(Error::invalid(format!(
                    "tensor `{}` has unknown kind `{other}`",
                    t.name
                )))
            }
        };
        if index.insert(t.id, TensorId(tensors.len() as u32)).is_some() {
            return Err(Error::invalid(format!("tensor id {} is used twice", t.id)));
        }
        // tensor names in models may repeat; ids never do
        let name = if names.contains(&t.name) {
            format!("{}#{}", t.name, t.id)
        } else {
            t.name
        };
        names.insert(name.clone());
        tensors.push(Tensor {
            name,
            size: t.bytes,
            role,
            level: None,
            lifetime: None,
        });
    }
    let mut ops = Vec::with_capacity(file.ops.len());
    for op in file.ops {
        let name = format!("{}#{}", op.kind, op.id);
        let lookup = |ids: &[i64]| -> Result<Vec<TensorId>, Error> {
            ids.iter()
                .map(|i| {
                    index.get(i).copied().ok_or_else(|| {
                        Error::invalid(format!(
                            "op `{name}` names tensor id {i}, which does not exist"
                        ))
                    })
                })
                .collect()
        };
        let (inputs, outputs) = (lookup(&op.inputs)?, lookup(&op.outputs)?);
        ops.push(Op {
            name,
            kind: op.kind,
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
