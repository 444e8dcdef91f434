//! ONNX models (protobuf `ModelProto`): the main graph's nodes in stored order.
//!
//! Initializers are weights. Shapes come from `value_info` when present, else from
//! [`infer`]; graph inputs with symbolic dimensions take 1 unless the caller gives
//! their shape (`--input-shape`), and then inference wins over `value_info`, which
//! was written for the old shape. A node whose inputs are all constant (or a
//! `Shape`, whose input's shape is known) is folded: its outputs are constants,
//! and small integer ones keep their contents ([`values`]) for later shape
//! arithmetic, as `ConstantOfShape` and `Reshape` need.

mod infer;
mod layout;
mod proto;
mod values;
mod window;

use super::import::{self, Node, Value};
use crate::error::Error;
use crate::graph::Graph;
use infer::Info;
use std::collections::HashMap;

const F: &str = "onnx";

/// True when `data` reads as an ONNX `ModelProto`.
pub fn is_onnx(data: &[u8]) -> bool {
    proto::looks_like_model(data)
}

/// Reads a model; `input_shapes` fixes the shapes of named graph inputs.
pub fn read(data: &[u8], name: &str, input_shapes: &[(String, Vec<u64>)]) -> Result<Graph, Error> {
    let model = proto::model(data)?;
    let g = &model.graph;
    let mut table = Table::default();
    for t in &g.initializers {
        let info = Info {
            dtype: t.data_type,
            shape: t.dims.clone(),
            data: t.ints.clone(),
            konst: true,
        };
        table.define(&t.name, info)?;
    }
    let mut inputs = Vec::new();
    for v in &g.inputs {
        if table.index.contains_key(&v.name) {
            continue; // an initializer listed as an input (IR version 3)
        }
        let info = graph_input(v, input_shapes)?;
        inputs.push(table.define(&v.name, info)?);
    }
    if let Some((missing, _)) = input_shapes
        .iter()
        .find(|(n, _)| !g.inputs.iter().any(|v| &v.name == n))
    {
        let names: Vec<&str> = g.inputs.iter().map(|v| v.name.as_str()).collect();
        return Err(Error::usage(format!(
            "--input-shape names `{missing}`, which is not an input of the model (inputs: {})",
            names.join(", ")
        )));
    }
    let declared: HashMap<&str, &proto::ValueInfo> =
        g.value_info.iter().map(|v| (v.name.as_str(), v)).collect();
    let prefer_inference = !input_shapes.is_empty();
    let mut nodes = Vec::with_capacity(g.nodes.len());
    for (k, node) in g.nodes.iter().enumerate() {
        nodes.push(table.node(node, k, &declared, prefer_inference, model.opset)?);
    }
    let outputs = g
        .outputs
        .iter()
        .map(|v| {
            table.index.get(&v.name).copied().ok_or_else(|| {
                Error::invalid(format!("graph output `{}` is never produced", v.name))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    import::build(name.to_string(), table.values, &nodes, &inputs, &outputs)
}

/// The values defined so far, by name.
#[derive(Default)]
struct Table {
    index: HashMap<String, usize>,
    values: Vec<Value>,
    infos: Vec<Info>,
    /// Integers that computed constants have used, against [`DATA_BUDGET`].
    data_used: usize,
}

/// Most integers all computed constants may hold together: real models need a
/// few hundred; a crafted file cannot make folding slow or large.
const DATA_BUDGET: usize = 1 << 20;

impl Table {
    fn define(&mut self, name: &str, info: Info) -> Result<usize, Error> {
        if self.index.contains_key(name) {
            return Err(Error::invalid(format!("value `{name}` is defined twice")));
        }
        let bits = element_bits(info.dtype).ok_or_else(|| {
            Error::parse(
                F,
                Some(format!("value `{name}`")),
                format!("unknown element type {}", info.dtype),
            )
        })?;
        let id = self.values.len();
        self.values.push(Value {
            name: name.to_string(),
            bytes: import::tensor_bytes(F, name, &info.shape, bits)?,
            konst: info.konst,
        });
        self.infos.push(info);
        self.index.insert(name.to_string(), id);
        Ok(id)
    }

    /// Resolves a node's inputs, infers or reads its outputs and defines them.
    fn node(
        &mut self,
        node: &proto::Node,
        k: usize,
        declared: &HashMap<&str, &proto::ValueInfo>,
        prefer_inference: bool,
        opset: i64,
    ) -> Result<Node, Error> {
        let label = if node.name.is_empty() {
            format!("#{k}")
        } else {
            node.name.clone()
        };
        let at = || Some(format!("op `{label}` ({})", node.op_type));
        let mut ids = Vec::with_capacity(node.inputs.len());
        for name in &node.inputs {
            if name.is_empty() {
                ids.push(None);
                continue;
            }
            let id = self.index.get(name).copied().ok_or_else(|| {
                Error::parse(F, at(), format!("input `{name}` is not defined by an earlier op, a graph input or an initializer"))
            })?;
            ids.push(Some(id));
        }
        let infos: Vec<Option<&Info>> = ids.iter().map(|i| i.map(|i| &self.infos[i])).collect();
        let present: Vec<&Info> = infos.iter().flatten().copied().collect();
        let folded = node.op_type == "Constant"
            || node.op_type == "Shape"
            || (!present.is_empty() && present.iter().all(|i| i.konst));
        let inferred = infer::infer(node, &infos, opset);
        let mut outs = Vec::with_capacity(node.outputs.len());
        for (j, name) in node.outputs.iter().enumerate() {
            let from_decl = declared.get(name.as_str()).and_then(|v| static_shape(v));
            let from_infer = inferred.as_ref().ok().and_then(|o| o.get(j).cloned());
            let chosen = match (from_decl, from_infer) {
                (Some(_), Some(i)) if prefer_inference => i,
                (Some((dtype, shape)), i) => (
                    if dtype == 0 {
                        i.map_or(0, |i| i.0)
                    } else {
                        dtype
                    },
                    shape,
                ),
                (None, Some(i)) => i,
                (None, None) => {
                    let why = inferred.as_ref().err().cloned().unwrap_or_default();
                    return Err(Error::parse(F, at(), format!(
                        "cannot infer the shape of `{name}`: {why}; run onnx.shape_inference on the model or give --input-shape NAME=DIMS"
                    )));
                }
            };
            outs.push(chosen);
        }
        let mut data = if folded && self.data_used < DATA_BUDGET {
            values::fold(node, &infos, &outs)
        } else {
            vec![None; outs.len()]
        };
        for d in data.iter_mut() {
            self.data_used += d.as_ref().map_or(0, Vec::len);
            if self.data_used > DATA_BUDGET {
                *d = None;
            }
        }
        let mut outputs = Vec::with_capacity(outs.len());
        for ((name, (dtype, shape)), data) in node.outputs.iter().zip(outs).zip(data) {
            if name.is_empty() {
                continue;
            }
            let info = Info {
                dtype,
                shape,
                data,
                konst: folded,
            };
            outputs.push(
                self.define(name, info)
                    .map_err(|e| Error::parse(F, at(), e.to_string()))?,
            );
        }
        Ok(Node {
            name: Some(node.name.clone()),
            kind: node.op_type.clone(),
            inputs: ids.into_iter().flatten().collect(),
            outputs,
            folded,
        })
    }
}

/// A declared type whose shape is fully known.
fn static_shape(v: &proto::ValueInfo) -> Option<(i32, Vec<i64>)> {
    let dims = v.shape.as_ref()?;
    let shape = dims
        .iter()
        .map(|d| d.filter(|&d| d >= 0))
        .collect::<Option<Vec<_>>>()?;
    Some((v.elem_type, shape))
}

fn graph_input(v: &proto::ValueInfo, input_shapes: &[(String, Vec<u64>)]) -> Result<Info, Error> {
    let given = input_shapes.iter().find(|(n, _)| n == &v.name);
    let shape = match (given, &v.shape) {
        (Some((_, dims)), _) => dims
            .iter()
            .map(|&d| {
                i64::try_from(d).map_err(|_| {
                    Error::usage(format!("dimension {d} of input `{}` is too large", v.name))
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        (None, Some(dims)) => dims
            .iter()
            .map(|d| d.filter(|&d| d >= 0).unwrap_or(1))
            .collect(),
        (None, None) => {
            return Err(Error::parse(
                F,
                Some(format!("input `{}`", v.name)),
                format!(
                    "the model gives no shape; use --input-shape {}=DIMS",
                    v.name
                ),
            ))
        }
    };
    Ok(Info {
        dtype: v.elem_type,
        shape,
        data: None,
        konst: false,
    })
}

/// Bits per element of a `TensorProto.DataType`; strings count 0.
fn element_bits(dtype: i32) -> Option<u64> {
    Some(match dtype {
        1 | 6 | 12 => 32,
        2 | 3 | 9 | 17..=20 => 8,
        4 | 5 | 10 | 16 => 16,
        7 | 11 | 13 | 14 => 64,
        15 => 128,
        21..=23 => 4,
        8 => 0,
        _ => return None,
    })
}
