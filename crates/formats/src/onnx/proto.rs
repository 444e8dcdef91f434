//! The parts of ONNX's `ModelProto` that memory planning needs, decoded from the
//! wire format. Field numbers follow `onnx.proto`; unknown fields are skipped.

use crate::protobuf::{bytes, fields, int, push_floats, push_ints, text, Wire};
use memplan::error::Error;

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
    /// Every imported opset, domain (`""` for the default one) and version.
    pub opsets: Vec<(String, i64)>,
    pub graph: Graph,
}

/// Deepest nesting of subgraphs (`If` in `Loop` in ...) a model may have.
pub const MAX_DEPTH: usize = 24;

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
    /// The operator set: `""` for the default one (`ai.onnx`).
    pub domain: String,
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
    /// How many strings the attribute lists.
    pub strings: usize,
    /// A subgraph (`If` branches, `Loop` and `Scan` bodies).
    pub g: Option<Graph>,
    pub graphs: Vec<Graph>,
}

#[derive(Default)]
pub struct Tensor {
    pub name: String,
    pub dims: Vec<i64>,
    pub data_type: i32,
    /// Integer contents (int32/int64/uint8/bool ...), when small enough to keep.
    pub ints: Option<Vec<i64>>,
    /// Floating-point contents (float, double, float16), when small enough to keep.
    pub floats: Option<Vec<f64>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Tensor,
    Sequence,
    Optional,
    Other,
}

/// A value's declared element type and shape.
#[derive(Default)]
pub struct ValueInfo {
    pub name: String,
    /// What the type describes: a tensor, a sequence or optional of tensors, or
    /// something else (a map, a sparse tensor); `None` when no type is given.
    pub kind: Option<TypeKind>,
    pub elem_type: i32,
    /// `None` when the type carries no shape; a dimension is `None` when symbolic
    /// or unknown.
    pub shape: Option<Vec<Option<i64>>>,
    /// Per dimension, its symbolic name (`dim_param`), empty when it has none.
    pub params: Vec<String>,
}

pub fn model(data: &[u8]) -> Result<Model, Error> {
    let mut m = Model {
        ir_version: 0,
        opset: 1,
        opsets: Vec::new(),
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
                m.opsets.push((domain, version));
            }
            _ => {}
        }
    }
    let graph = graph.ok_or_else(|| Error::parse(F, None, "the model has no graph"))?;
    m.graph = self::graph(graph, 0)?;
    m.opset = opset.unwrap_or(1);
    Ok(m)
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

fn graph(data: &[u8], depth: usize) -> Result<Graph, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::parse(
            F,
            None,
            format!("subgraphs nest more than {MAX_DEPTH} deep"),
        ));
    }
    let mut g = Graph::default();
    for field in fields(data, F) {
        match field? {
            (1, w) => g.nodes.push(node(bytes(w, F)?, depth)?),
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

fn node(data: &[u8], depth: usize) -> Result<Node, Error> {
    let mut n = Node::default();
    for field in fields(data, F) {
        match field? {
            (1, w) => n.inputs.push(text(w, F)?),
            (2, w) => n.outputs.push(text(w, F)?),
            (3, w) => n.name = text(w, F)?,
            (4, w) => n.op_type = text(w, F)?,
            (5, w) => n.attributes.push(attribute(bytes(w, F)?, depth)?),
            (7, w) => {
                n.domain = text(w, F)?;
                if n.domain == "ai.onnx" {
                    n.domain.clear();
                }
            }
            _ => {}
        }
    }
    Ok(n)
}

fn attribute(data: &[u8], depth: usize) -> Result<Attribute, Error> {
    let mut a = Attribute::default();
    let mut complete = true;
    for field in fields(data, F) {
        match field? {
            (1, w) => a.name = text(w, F)?,
            (2, Wire::Fixed32(v)) => a.f = Some(f32::from_bits(v)),
            (3, w) => a.i = Some(int(w, F)?),
            (4, w) => a.s = bytes(w, F)?.to_vec(),
            (5, w) => a.t = Some(tensor(bytes(w, F)?)?),
            (6, w) => a.g = Some(graph(bytes(w, F)?, depth + 1)?),
            (7, w) => push_floats(w, &mut a.floats, F)?,
            (9, _) => a.strings += 1,
            (11, w) => a.graphs.push(graph(bytes(w, F)?, depth + 1)?),
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
    let (mut floats, mut doubles, mut external) = (Vec::new(), Vec::new(), false);
    for field in fields(data, F) {
        match field? {
            (1, w) => ranked &= push_ints(w, &mut t.dims, MAX_RANK, F)?,
            (2, w) => t.data_type = int(w, F)? as i32,
            (4, w) if floats.len() <= MAX_DATA => push_floats(w, &mut floats, F)?,
            (5, w) | (7, w) | (11, w) => kept &= push_ints(w, &mut ints, MAX_DATA, F)?,
            (8, w) => t.name = text(w, F)?,
            (9, w) => raw = Some(bytes(w, F)?),
            (10, w) if doubles.len() <= MAX_DATA => push_doubles(w, &mut doubles)?,
            (14, w) => external = int(w, F)? == 1,
            _ => {}
        }
    }
    if external {
        return Ok(t); // the contents are in another file: only the type is known
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
        (Some(r), 3) if r.len() <= MAX_DATA => {
            Some(r.iter().map(|&b| i64::from(b as i8)).collect())
        }
        (Some(r), 4 | 5) if r.len() / 2 <= MAX_DATA => Some(
            r.chunks_exact(2)
                .map(|c| {
                    let v = u16::from_le_bytes([c[0], c[1]]);
                    if t.data_type == 5 {
                        i64::from(v as i16)
                    } else {
                        i64::from(v)
                    }
                })
                .collect(),
        ),
        (Some(r), 12) if r.len() / 4 <= MAX_DATA => Some(
            r.chunks_exact(4)
                .map(|c| i64::from(u32::from_le_bytes(c.try_into().expect("4 bytes"))))
                .collect(),
        ),
        (None, 2..=7 | 9 | 12 | 13) if kept => Some(ints.clone()),
        _ => None,
    };
    t.floats = match (raw, t.data_type) {
        (Some(r), 1) if r.len() / 4 <= MAX_DATA => Some(
            r.chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))))
                .collect(),
        ),
        (Some(r), 11) if r.len() / 8 <= MAX_DATA => Some(
            r.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        ),
        (Some(r), 10) if r.len() / 2 <= MAX_DATA => Some(
            r.chunks_exact(2)
                .map(|c| half(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        (None, 1) if floats.len() <= MAX_DATA => {
            Some(floats.iter().map(|&f| f64::from(f)).collect())
        }
        // float16 and bfloat16 keep their bits in int32_data
        (None, 10) if kept => Some(ints.iter().map(|&b| half(b as u16)).collect()),
        (None, 11) if doubles.len() <= MAX_DATA => Some(doubles),
        _ => None,
    };
    Ok(t)
}

/// The value of IEEE half-precision bits.
fn half(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Appends a repeated double field, packed or not.
fn push_doubles(wire: Wire, out: &mut Vec<f64>) -> Result<(), Error> {
    match wire {
        Wire::Fixed64(v) => out.push(f64::from_bits(v)),
        Wire::Bytes(b) if b.len() % 8 == 0 => out.extend(
            b.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))),
        ),
        _ => {
            return Err(Error::parse(
                F,
                None,
                "the file is truncated or corrupt: a double list has the wrong wire type",
            ))
        }
    }
    Ok(())
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
            (2, w) => type_proto(bytes(w, F)?, &mut v, 0)?,
            _ => {}
        }
    }
    Ok(v)
}

/// A `TypeProto`: tensor_type (1), sequence_type (4), map_type (5), optional_type
/// (9), sparse_tensor_type (8). A sequence or optional keeps its element's type.
fn type_proto(data: &[u8], v: &mut ValueInfo, depth: usize) -> Result<(), Error> {
    for f in fields(data, F) {
        let (kind, w) = match f? {
            (1, w) => (TypeKind::Tensor, w),
            (4, w) => (TypeKind::Sequence, w),
            (9, w) => (TypeKind::Optional, w),
            (5 | 8, _) => {
                v.kind = Some(TypeKind::Other);
                continue;
            }
            _ => continue,
        };
        if depth == 0 {
            v.kind = Some(kind);
        }
        if kind == TypeKind::Tensor {
            tensor_type(bytes(w, F)?, v)?;
        } else if depth < MAX_DEPTH {
            // Sequence/Optional: elem_type (1) is a nested TypeProto
            for f in fields(bytes(w, F)?, F) {
                if let (1, w) = f? {
                    type_proto(bytes(w, F)?, v, depth + 1)?;
                }
            }
        }
    }
    Ok(())
}

fn tensor_type(data: &[u8], v: &mut ValueInfo) -> Result<(), Error> {
    for field in fields(data, F) {
        match field? {
            (1, w) => v.elem_type = int(w, F)? as i32,
            (2, w) => {
                let mut dims = Vec::new();
                for f in fields(bytes(w, F)?, F) {
                    if let (1, w) = f? {
                        let (mut dim, mut param) = (None, String::new());
                        for d in fields(bytes(w, F)?, F) {
                            match d? {
                                (1, w) => dim = Some(int(w, F)?),
                                (2, w) => param = text(w, F)?,
                                _ => {}
                            }
                        }
                        if dims.len() == MAX_RANK {
                            return Err(too_many(&v.name, "dimensions", MAX_RANK));
                        }
                        dims.push(dim);
                        v.params.push(param);
                    }
                }
                v.params.resize(dims.len(), String::new());
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
