//! The graph every planner phase reads: tensors, ops, typed ids.
//!
//! Invariants (upheld by [`Graph::new`]): every id inside an op names an existing
//! tensor, no tensor has two producers, and names are unique. A tensor is placed
//! in the arena only when its [`Role`] is [`Role::Arena`]. A tensor with a given
//! [`Lifetime`] (instances without ops, such as MiniMalloc CSV) keeps it as is.

pub use crate::dims::{Bound, FreeDim};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

crate::define_id!(
    /// Index of a tensor in [`Graph::tensors`].
    TensorId
);

crate::define_id!(
    /// Index of an op in [`Graph::ops`].
    OpId
);

/// Inclusive range of steps `[start, end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lifetime {
    pub start: u32,
    pub end: u32,
}

impl Lifetime {
    pub fn new(start: u32, end: u32) -> Lifetime {
        debug_assert!(start <= end);
        Lifetime { start, end }
    }

    /// True when no step is shared.
    pub fn is_disjoint(&self, other: &Lifetime) -> bool {
        self.end < other.start || other.end < self.start
    }

    pub fn is_alive_at(&self, step: u32) -> bool {
        self.start <= step && step <= self.end
    }

    /// Number of steps covered.
    pub fn duration(&self) -> u64 {
        u64::from(self.end - self.start) + 1
    }
}

/// Where a tensor lives: in the planned arena, or outside it (weights, graph inputs
/// and outputs owned by the caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Arena,
    Input,
    Output,
    Const,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tensor {
    pub name: String,
    pub size: u64,
    pub role: Role,
    /// Memory level (e.g. `L1`, `UB`); `None` for the single default arena.
    pub level: Option<String>,
    /// A lifetime fixed by the input instead of derived from ops.
    pub lifetime: Option<Lifetime>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Op {
    pub name: String,
    /// Operator type (`CONV_2D`, `MatMul`, ...); empty when unknown.
    pub kind: String,
    pub inputs: Vec<TensorId>,
    pub outputs: Vec<TensorId>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Graph {
    pub name: String,
    pub tensors: Vec<Tensor>,
    pub ops: Vec<Op>,
    /// Bodies of the ops that have them (`If` branches, `Loop` and `Scan` bodies),
    /// each planned as its own arena. A value of this graph that a body reads is an
    /// input of the op, so it lives through the op's step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subgraphs: Vec<Subgraph>,
    /// What the importer wants the user to know (a guessed size, a reordered file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The model's input dimensions that the file leaves free, and the values
    /// they were given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub free_dims: Vec<FreeDim>,
    /// The values whose size depends on the input data, with the bound each is
    /// planned at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bounds: Vec<Bound>,
}

/// A body of op `op`, held in its attribute `attribute`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Subgraph {
    pub op: String,
    pub attribute: String,
    pub graph: Graph,
}

/// Largest number of tensors or ops a graph may hold.
pub const MAX_ITEMS: usize = 50_000_000;
/// Largest size of one tensor: 1 PiB.
pub const MAX_TENSOR_BYTES: u64 = 1 << 50;
/// Largest sum of the sizes of all arena tensors: 4 EiB, so that no offset overflows.
pub const MAX_TOTAL_BYTES: u64 = 1 << 62;

impl Graph {
    /// Builds a graph after checking its invariants.
    pub fn new(name: String, tensors: Vec<Tensor>, ops: Vec<Op>) -> Result<Graph, Error> {
        if tensors.len() > MAX_ITEMS || ops.len() > MAX_ITEMS {
            return Err(Error::limit(
                "tensors or ops",
                tensors.len().max(ops.len()) as u64,
                MAX_ITEMS as u64,
            ));
        }
        let mut names: HashMap<&str, usize> = HashMap::with_capacity(tensors.len());
        let mut total: u64 = 0;
        for (i, t) in tensors.iter().enumerate() {
            if t.size > MAX_TENSOR_BYTES {
                return Err(Error::limit(
                    format!("the size of tensor `{}`", t.name),
                    t.size,
                    MAX_TENSOR_BYTES,
                ));
            }
            if t.role == Role::Arena {
                total += t.size;
                if total > MAX_TOTAL_BYTES {
                    return Err(Error::limit(
                        "the total size of the arena tensors",
                        total,
                        MAX_TOTAL_BYTES,
                    ));
                }
            }
            if names.insert(t.name.as_str(), i).is_some() {
                return Err(Error::invalid(format!(
                    "tensor `{}` is declared twice",
                    t.name
                )));
            }
            if t.lifetime.is_some_and(|l| l.end < l.start) {
                return Err(Error::invalid(format!(
                    "tensor `{}` ends before it starts",
                    t.name
                )));
            }
        }
        let mut producer: Vec<Option<u32>> = vec![None; tensors.len()];
        for (i, op) in ops.iter().enumerate() {
            for id in op.inputs.iter().chain(&op.outputs) {
                if id.index() >= tensors.len() {
                    return Err(Error::invalid(format!(
                        "op `{}` names tensor #{} but the graph has {} tensors",
                        op.name,
                        id.0,
                        tensors.len()
                    )));
                }
            }
            for out in &op.outputs {
                if let Some(first) = producer[out.index()] {
                    return Err(Error::invalid(format!(
                        "tensor `{}` is produced by both op `{}` and op `{}`",
                        tensors[out.index()].name,
                        ops[first as usize].name,
                        op.name
                    )));
                }
                producer[out.index()] = Some(i as u32);
            }
        }
        Ok(Graph {
            name,
            tensors,
            ops,
            subgraphs: Vec::new(),
            notes: Vec::new(),
            free_dims: Vec::new(),
            bounds: Vec::new(),
        })
    }

    pub fn tensor(&self, id: TensorId) -> &Tensor {
        &self.tensors[id.index()]
    }

    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.index()]
    }

    /// The op producing each tensor, if any.
    pub fn producers(&self) -> Vec<Option<OpId>> {
        let mut producer = vec![None; self.tensors.len()];
        for (i, op) in self.ops.iter().enumerate() {
            for out in &op.outputs {
                producer[out.index()] = Some(OpId(i as u32));
            }
        }
        producer
    }

    /// Ids of the tensors placed in the arena, in declaration order.
    pub fn arena_tensors(&self) -> impl Iterator<Item = TensorId> + '_ {
        self.tensors
            .iter()
            .enumerate()
            .filter(|(_, t)| t.role == Role::Arena)
            .map(|(i, _)| TensorId(i as u32))
    }

    /// Every body of this graph's ops and of theirs, depth first, each named by
    /// its path from here: ``If `cond` then_branch / Loop `l` body``.
    pub fn bodies(&self) -> Vec<(String, &Graph)> {
        let mut out = Vec::new();
        self.bodies_into("", &mut out);
        out
    }

    fn bodies_into<'g>(&'g self, prefix: &str, out: &mut Vec<(String, &'g Graph)>) {
        for sub in &self.subgraphs {
            let kind = self
                .ops
                .iter()
                .find(|o| o.name == sub.op)
                .map_or("op", |o| o.kind.as_str());
            let path = format!("{prefix}{kind} `{}` {}", sub.op, sub.attribute);
            out.push((path.clone(), &sub.graph));
            sub.graph.bodies_into(&format!("{path} / "), out);
        }
    }

    /// Sum of the sizes of all arena tensors: the footprint with no reuse.
    pub fn naive_bytes(&self) -> u64 {
        self.arena_tensors().map(|t| self.tensor(t).size).sum()
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Role::Arena => "intermediate",
            Role::Input => "input",
            Role::Output => "output",
            Role::Const => "const",
        };
        f.write_str(s)
    }
}
