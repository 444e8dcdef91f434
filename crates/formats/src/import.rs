//! What the model importers (TFLite, ONNX) share: byte sizes from shapes, constant
//! folding, roles, and the final [`Graph`].
//!
//! Roles follow the corpus converter: constants (weights and the outputs of folded
//! ops) and graph inputs and outputs stay outside the arena; every other value
//! produced by a kept op is an arena tensor; a value nobody produces is a constant.

use memplan::error::Error;
use memplan::graph::{Graph, Op, Role, Tensor, TensorId, MAX_TENSOR_BYTES};
use std::collections::HashSet;

/// A value (tensor) of a model before roles are assigned.
pub struct Value {
    pub name: String,
    pub bytes: u64,
    /// Weights, or the output of a folded op.
    pub konst: bool,
}

/// An op of a model, in execution order.
pub struct Node {
    /// The model's name for the op, if it has one.
    pub name: Option<String>,
    pub kind: String,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
    /// Computed at load time: its outputs are constants and it leaves the graph.
    pub folded: bool,
}

/// Bytes of a tensor of `dims` with elements of `bits` bits (rounded up to whole
/// bytes); errors name the tensor and the limit.
pub fn tensor_bytes(
    format: &'static str,
    name: &str,
    dims: &[i64],
    bits: u64,
) -> Result<u64, Error> {
    let mut total = u128::from(bits);
    for &d in dims {
        if d < 0 {
            return Err(Error::parse(
                format,
                Some(format!("tensor `{name}`")),
                format!("dimension {d} is negative"),
            ));
        }
        // saturates only far above the limit, which is all the message needs
        total = total.saturating_mul(d as u128);
    }
    let bytes = total.div_ceil(8);
    if bytes > u128::from(MAX_TENSOR_BYTES) {
        return Err(Error::limit(
            format!("the size of tensor `{name}` in bytes"),
            u64::try_from(bytes).unwrap_or(u64::MAX),
            MAX_TENSOR_BYTES,
        ));
    }
    Ok(bytes as u64)
}

/// The error for a free dimension's name that is not among the model's `free` dimensions:
/// it lists those there are.
pub fn unknown_dim(unknown: &str, free: &[memplan::graph::FreeDim]) -> Error {
    let names: Vec<&str> = free.iter().map(|f| f.name.as_str()).collect();
    Error::usage(if names.is_empty() {
        format!("a value is given for free dim `{unknown}`, but the model's inputs have no free dimensions")
    } else {
        format!(
            "a value is given for free dim `{unknown}`, which is not a free dimension of the model (it has: {})",
            names.join(", ")
        )
    })
}

/// Folds every op whose inputs are all constant (and that has at least one):
/// its outputs become constants, in execution order so that chains fold too.
pub fn fold(values: &mut [Value], nodes: &mut [Node]) {
    for node in nodes.iter_mut() {
        if !node.inputs.is_empty() && node.inputs.iter().all(|&i| values[i].konst) {
            node.folded = true;
            for &o in &node.outputs {
                values[o].konst = true;
            }
        }
    }
}

/// Builds the graph: roles from constness, graph inputs and outputs and producers;
/// value names made unique with `#index`; ops named by the model or `KIND#step`.
pub fn build(
    name: String,
    values: Vec<Value>,
    nodes: &[Node],
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Graph, Error> {
    let mut produced = vec![false; values.len()];
    for node in nodes.iter().filter(|n| !n.folded) {
        for &o in &node.outputs {
            produced[o] = true;
        }
    }
    let (mut is_input, mut is_output) = (vec![false; values.len()], vec![false; values.len()]);
    for &i in inputs {
        is_input[i] = true;
    }
    for &o in outputs {
        is_output[o] = true;
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(values.len());
    let mut tensors = Vec::with_capacity(values.len());
    for (i, v) in values.into_iter().enumerate() {
        let role = if v.konst {
            Role::Const
        } else if is_input[i] {
            Role::Input
        } else if is_output[i] {
            Role::Output
        } else if produced[i] {
            Role::Arena
        } else {
            Role::Const
        };
        let mut name = v.name;
        while seen.contains(&name) {
            name = format!("{name}#{i}");
        }
        seen.insert(name.clone());
        tensors.push(Tensor {
            name,
            size: v.bytes,
            role,
            level: None,
            lifetime: None,
        });
    }
    let mut op_names: HashSet<String> = HashSet::new();
    let mut ops = Vec::new();
    for node in nodes.iter().filter(|n| !n.folded) {
        let step = ops.len();
        let mut name = match &node.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("{}#{step}", node.kind),
        };
        while op_names.contains(&name) {
            name = format!("{name}#{step}");
        }
        op_names.insert(name.clone());
        let ids = |list: &[usize]| list.iter().map(|&t| TensorId(t as u32)).collect();
        ops.push(Op {
            name,
            kind: node.kind.clone(),
            inputs: ids(&node.inputs),
            outputs: ids(&node.outputs),
        });
    }
    Graph::new(name, tensors, ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_up_and_overflow_names_the_tensor() {
        assert_eq!(
            tensor_bytes("t", "a", &[1, 3, 224, 224], 32).unwrap(),
            602_112
        );
        assert_eq!(tensor_bytes("t", "a", &[3], 4).unwrap(), 2);
        assert_eq!(tensor_bytes("t", "a", &[], 16).unwrap(), 2);
        let e = tensor_bytes("t", "big", &[1 << 40, 1 << 40], 8).unwrap_err();
        assert!(e.to_string().contains("`big`"), "{e}");
        assert!(tensor_bytes("t", "neg", &[-1], 8).is_err());
    }
}
