//! The parts of ONNX's `ModelProto` that memory planning needs, decoded from the
//! wire format. Field numbers follow `onnx.proto`; unknown fields are skipped.

use super::super::protobuf::{bytes, fields, int, push_floats, push_ints, text, Wire};
use crate::error::Error;

const F: &str = "onnx";

/// Integer data kept for constants of at most this many elements.
pub const MAX_DATA: usize = 1 << 16;
/// Most dimensions a tensor may have.
pub const MAX_RANK: usize = 64;
/// Most integers kept for one attribute.
const MAX_INTS: usize = 1 << 16;

pub struct Model {
    pub ir_version: i64,
    /// The default-domain opset (`""` or `ai.onnx`), 1 when absent.
    pub opset: i64,
    pub graph: Graph,
}

#[derive(Default)]
pub struct Graph {
    pub name: String,
    pub nodes: Vec<Node>,
    pub initializers: Vec<Tensor>,
    pub inputs: Vec<ValueInfo>,
    pub outputs: Vec<ValueInfo>,
    pub value_info: Vec<ValueInfo>,
}

#[derive(Default)]
pub struct Node {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub name: String,
    pub op_type: String,
    pub attributes: Vec<Attribute>,
}

#[derive(Default)]
pub struct Attribute {
    pub name: String,
    pub f: Option<f32>,
    pub i: Option<i64>,
    pub s: Vec<u8>,
    pub t: Option<Tensor>,
    pub floats: Vec<f32>,
    pub ints: Vec<i64>,
}

#[derive(Default)]
pub struct Tensor {
    pub name: String,
    pub dims: Vec<i64>,
    pub data_type: i32,
    /// Integer contents (int32/int64/uint8/bool ...), when small enough to keep.
    pub ints: Option<Vec<i64>>,
}

/// A value's declared element type and shape.
#[derive(Default)]
pub struct ValueInfo {
    pub name: String,
    pub elem_type: i32,
    /// `None` when the type carries no shape; a dimension is `None` when symbolic
    /// or unknown.
    pub shape: Option<Vec<Option<i64>>>,
}

pub fn model(data: &[u8]) -> Result<Model, Error> {
    let mut m = Model {
        ir_version: 0,
        opset: 1,
        graph: Graph::default(),
    };
    let mut graph = None;
    let mut opset = None;
    for field in fields(data, F) {
        match field? {
            (1, w) => m.ir_version = int(w, F)?,
            (7, w) => graph = Some(bytes(w, F)?),
            (8, w) => {
                let (domain, version) = opset_id(bytes(w, F)?)?;
                if domain.is_empty() || domain == "ai.onnx" {
                    opset = Some(opset.unwrap_or(0).max(version));
                }
            }
            _ => {}
        }
    }
    let graph = graph.ok_or_else(|| Error::parse(F, None, "the model has no graph"))?;
    m.graph = self::graph(graph)?;
    m.opset = opset.unwrap_or(1);
    Ok(m)
}

/// True when `data` reads as a `ModelProto`: every top-level field is well formed,
/// the graph is present and so is the IR version or an opset.
pub fn looks_like_model(data: &[u8]) -> bool {
    let (mut graph, mut version) = (false, false);
    for field in fields(data, F) {
        match field {
            Ok((7, Wire::Bytes(_))) => graph = true,
            Ok((1, Wire::Varint(_))) | Ok((8, Wire::Bytes(_))) => version = true,
            Ok((2..=6 | 14 | 20 | 25 | 30, _)) => {}
            _ => return false,
        }
    }
    graph && version
}

fn opset_id(data: &[u8]) -> Result<(String, i64), Error> {
    let (mut domain, mut version) = (String::new(), 0);
    for field in fields(data, F) {
        match field? {
            (1, w) => domain = text(w, F)?,
            (2, w) => version = int(w, F)?,
            _ => {}
        }
    }
    Ok((domain, version))
}

fn graph(data: &[u8]) -> Result<Graph, Error> {
    let mut g = Graph::default();
    for field in fields(data, F) {
        match field? {
            (1, w) => g.nodes.push(node(bytes(w, F)?)?),
            (2, w) => g.name = text(w, F)?,
            (5, w) => g.initializers.push(tensor(bytes(w, F)?)?),
            (11, w) => g.inputs.push(value_info(bytes(w, F)?)?),
            (12, w) => g.outputs.push(value_info(bytes(w, F)?)?),
            (13, w) => g.value_info.push(value_info(bytes(w, F)?)?),
            _ => {}
        }
    }
    Ok(g)
}

fn node(data: &[u8]) -> Result<Node, Error> {
    let mut n = Node::default();
    for field in fields(data, F) {
        match field? {
            (1, w) => n.inputs.push(text(w, F)?),
            (2, w) => n.outputs.push(text(w, F)?),
            (3, w) => n.name = text(w, F)?,
            (4, w) => n.op_type = text(w, F)?,
            (5, w) => n.attributes.push(attribute(bytes(w, F)?)?),
            _ => {}
        }
    }
    Ok(n)
}

fn attribute(data: &[u8]) -> Result<Attribute, Error> {
    let mut a = Attribute::default();
    let mut complete = true;
    for field in fields(data, F) {
        match field? {
            (1, w) => a.name = text(w, F)?,
            (2, Wire::Fixed32(v)) => a.f = Some(f32::from_bits(v)),
            (3, w) => a.i = Some(int(w, F)?),
            (4, w) => a.s = bytes(w, F)?.to_vec(),
            (5, w) => a.t = Some(tensor(bytes(w, F)?)?),
            (7, w) => push_floats(w, &mut a.floats, F)?,
            (8, w) => complete &= push_ints(w, &mut a.ints, MAX_INTS, F)?,
            _ => {}
        }
    }
    if !complete {
        return Err(too_many(&a.name, "integers", MAX_INTS));
    }
    Ok(a)
}

fn tensor(data: &[u8]) -> Result<Tensor, Error> {
    let mut t = Tensor::default();
    let (mut raw, mut ints, mut kept, mut ranked) = (None, Vec::new(), true, true);
    for field in fields(data, F) {
        match field? {
            (1, w) => ranked &= push_ints(w, &mut t.dims, MAX_RANK, F)?,
            (2, w) => t.data_type = int(w, F)? as i32,
            (5, w) | (7, w) => kept &= push_ints(w, &mut ints, MAX_DATA, F)?,
            (8, w) => t.name = text(w, F)?,
            (9, w) => raw = Some(bytes(w, F)?),
            _ => {}
        }
    }
    if !ranked {
        return Err(too_many(&t.name, "dimensions", MAX_RANK));
    }
    t.ints = match (raw, t.data_type) {
        (Some(r), 7) if r.len() / 8 <= MAX_DATA => Some(
            r.chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        ),
        (Some(r), 6) if r.len() / 4 <= MAX_DATA => Some(
            r.chunks_exact(4)
                .map(|c| i64::from(i32::from_le_bytes(c.try_into().expect("4 bytes"))))
                .collect(),
        ),
        (Some(r), 2 | 9) if r.len() <= MAX_DATA => Some(r.iter().map(|&b| i64::from(b)).collect()),
        (None, 2..=7 | 9) if kept => Some(ints),
        _ => None,
    };
    Ok(t)
}

fn too_many(name: &str, what: &str, limit: usize) -> Error {
    Error::parse(
        F,
        Some(format!("`{name}`")),
        format!("more than {limit} {what}"),
    )
}

fn value_info(data: &[u8]) -> Result<ValueInfo, Error> {
    let mut v = ValueInfo::default();
    for field in fields(data, F) {
        match field? {
            (1, w) => v.name = text(w, F)?,
            (2, w) => {
                // TypeProto.tensor_type (1): elem_type (1), shape (2)
                for f in fields(bytes(w, F)?, F) {
                    if let (1, w) = f? {
                        tensor_type(bytes(w, F)?, &mut v)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(v)
}

fn tensor_type(data: &[u8], v: &mut ValueInfo) -> Result<(), Error> {
    for field in fields(data, F) {
        match field? {
            (1, w) => v.elem_type = int(w, F)? as i32,
            (2, w) => {
                let mut dims = Vec::new();
                for f in fields(bytes(w, F)?, F) {
                    if let (1, w) = f? {
                        let mut dim = None;
                        for d in fields(bytes(w, F)?, F) {
                            if let (1, w) = d? {
                                dim = Some(int(w, F)?);
                            }
                        }
                        if dims.len() == MAX_RANK {
                            return Err(too_many(&v.name, "dimensions", MAX_RANK));
                        }
                        dims.push(dim);
                    }
                }
                v.shape = Some(dims);
            }
            _ => {}
        }
    }
    Ok(())
}

impl Node {
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attribute(name).and_then(|a| a.i).unwrap_or(default)
    }

    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.attribute(name).map(|a| a.ints.as_slice())
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.attribute(name)
            .map(|a| String::from_utf8_lossy(&a.s).into_owned())
    }
}
