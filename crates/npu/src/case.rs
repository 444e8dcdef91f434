//! The NPU case model: nodes, dependency edges, buffers and memory levels.
//!
//! Invariants (upheld by [`Case::new`]): node ids are `0..N`; every buffer has
//! exactly one ALLOC and one FREE node; every `Bufs` entry names a buffer; every
//! buffer's level exists and holds it; edges name existing nodes and form no cycle.

pub use super::id::{BufferId, LevelId, NodeId};
use memplan::Error;
use std::collections::HashMap;
use std::fmt;

/// A memory level: a contiguous address space of `capacity` units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    pub name: String,
    pub capacity: u64,
}

/// The levels of the contest machine: L1 4096, UB 1024, L0A 256, L0B 256, L0C 512.
pub fn default_levels() -> Vec<Level> {
    [
        ("L1", 4096),
        ("UB", 1024),
        ("L0A", 256),
        ("L0B", 256),
        ("L0C", 512),
    ]
    .into_iter()
    .map(|(name, capacity)| Level {
        name: name.to_string(),
        capacity,
    })
    .collect()
}

/// Execution units; each runs its nodes in schedule order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    Mte1,
    Mte2,
    Mte3,
    Fixp,
    Cube,
    Vector,
}

impl Pipe {
    pub const ALL: [Pipe; 6] = [
        Pipe::Mte1,
        Pipe::Mte2,
        Pipe::Mte3,
        Pipe::Fixp,
        Pipe::Cube,
        Pipe::Vector,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Pipe::Mte1 => "MTE1",
            Pipe::Mte2 => "MTE2",
            Pipe::Mte3 => "MTE3",
            Pipe::Fixp => "FIXP",
            Pipe::Cube => "CUBE",
            Pipe::Vector => "VECTOR",
        }
    }

    pub fn from_name(name: &str) -> Option<Pipe> {
        Pipe::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// A pipe is written by its name (`MTE2`).
impl serde::Serialize for Pipe {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Pipe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Pipe, D::Error> {
        let name = String::deserialize(d)?;
        Pipe::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown pipe `{name}`")))
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpNode {
    /// Operation name: COPY_IN, MATMUL, ...
    pub op: String,
    pub pipe: Pipe,
    pub cycles: u64,
    /// Buffers read or written.
    pub bufs: Vec<BufferId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Allocates the buffer.
    Alloc(BufferId),
    Free(BufferId),
    Op(OpNode),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpuBuffer {
    /// `BufId` in the files: any number, unlike the buffer's index ([`BufferId`]).
    pub buf_id: u64,
    pub size: u64,
    pub level: LevelId,
    pub alloc: NodeId,
    pub free: NodeId,
    /// Used by a COPY_IN node: its data still sits in DDR, so a spill costs `size`.
    pub copy_in: bool,
}

impl NpuBuffer {
    /// Data moved by one spill of the buffer, by the rules: its size when a COPY_IN
    /// loaded it (SPILL_OUT moves nothing), else twice its size.
    pub fn spill_cost(&self) -> u64 {
        if self.copy_in {
            self.size
        } else {
            2 * self.size
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub nodes: Vec<Node>,
    /// `(before, after)`.
    pub edges: Vec<(NodeId, NodeId)>,
    pub buffers: Vec<NpuBuffer>,
    pub levels: Vec<Level>,
}

/// A node as a reader found it, before buffers are resolved.
#[derive(Clone, Debug)]
pub struct RawNode {
    pub id: u64,
    pub op: String,
    pub buf_id: Option<u64>,
    pub size: Option<u64>,
    pub level: Option<String>,
    pub pipe: Option<String>,
    pub cycles: Option<u64>,
    pub bufs: Vec<u64>,
}

/// Largest node count accepted.
pub const MAX_NODES: usize = 10_000_000;

impl Case {
    /// Resolves raw nodes and edges into a case, checking every invariant.
    pub fn new(
        name: String,
        raw: Vec<RawNode>,
        edges: Vec<(u64, u64)>,
        levels: Vec<Level>,
    ) -> Result<Case, Error> {
        if raw.len() > MAX_NODES {
            return Err(Error::limit(
                "the number of nodes",
                raw.len() as u64,
                MAX_NODES as u64,
            ));
        }
        let mut raw = raw;
        memplan::sort::by_key(&mut raw, |n| n.id);
        for (i, n) in raw.iter().enumerate() {
            if n.id != i as u64 {
                return Err(Error::invalid(format!(
                    "node ids must be 0..{} without gaps or repeats; found id {} at position {i}",
                    raw.len(),
                    n.id
                )));
            }
        }
        let buffers = collect_buffers(&raw, &levels)?;
        let index: HashMap<u64, BufferId> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| (b.buf_id, BufferId::new(i)))
            .collect();
        let mut nodes = Vec::with_capacity(raw.len());
        for n in &raw {
            nodes.push(match n.op.as_str() {
                "ALLOC" => Node::Alloc(index[&n.buf_id.unwrap()]),
                "FREE" => Node::Free(index[&n.buf_id.unwrap()]),
                _ => Node::Op(op_node(n, &index)?),
            });
        }
        let mut buffers = buffers;
        for node in &nodes {
            if let Node::Op(op) = node {
                if op.op == "COPY_IN" {
                    op.bufs
                        .iter()
                        .for_each(|&b| buffers[b.index()].copy_in = true);
                }
            }
        }
        let n = nodes.len() as u64;
        let mut out_edges = Vec::with_capacity(edges.len());
        for (a, b) in edges {
            if a >= n || b >= n {
                return Err(Error::invalid(format!(
                    "edge {a} -> {b} names a node that does not exist (nodes are 0..{n})"
                )));
            }
            out_edges.push((NodeId(a as u32), NodeId(b as u32)));
        }
        let case = Case {
            name,
            nodes,
            edges: out_edges,
            buffers,
            levels,
        };
        case.find_cycle()?;
        Ok(case)
    }

    /// The case with every edge reversed and ALLOC and FREE swapped. A schedule of
    /// it, read backwards, is a schedule of `self` with the same live buffers at
    /// every step, so both peaks and the one-buffer-per-level rule carry over.
    pub fn reversed(&self) -> Case {
        let mut r = self.clone();
        for node in &mut r.nodes {
            let swapped = match &*node {
                Node::Alloc(b) => Node::Free(*b),
                Node::Free(b) => Node::Alloc(*b),
                op => op.clone(),
            };
            *node = swapped;
        }
        for b in &mut r.buffers {
            std::mem::swap(&mut b.alloc, &mut b.free);
        }
        for e in &mut r.edges {
            *e = (e.1, e.0);
        }
        r
    }

    /// The level named `name`.
    pub fn level_index(&self, name: &str) -> Option<LevelId> {
        self.levels
            .iter()
            .position(|l| l.name == name)
            .map(LevelId::new)
    }

    /// Case node `id` (not a spill node).
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn buffer(&self, id: BufferId) -> &NpuBuffer {
        &self.buffers[id.index()]
    }

    pub fn level(&self, id: LevelId) -> &Level {
        &self.levels[id.index()]
    }

    /// The case's nodes `0..N`.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len()).map(NodeId::new)
    }

    pub fn buffer_ids(&self) -> impl Iterator<Item = BufferId> {
        (0..self.buffers.len()).map(BufferId::new)
    }

    /// True for the case's ALLOC nodes (false for spill nodes).
    pub fn is_alloc(&self, id: NodeId) -> bool {
        matches!(self.nodes.get(id.index()), Some(Node::Alloc(_)))
    }

    /// True for the case's FREE nodes.
    pub fn is_free(&self, id: NodeId) -> bool {
        matches!(self.nodes.get(id.index()), Some(Node::Free(_)))
    }

    /// True for the case's operation nodes.
    pub fn is_op(&self, id: NodeId) -> bool {
        matches!(self.nodes.get(id.index()), Some(Node::Op(_)))
    }

    /// True for a spill node (`N` and above).
    pub fn is_spill(&self, id: NodeId) -> bool {
        id.index() >= self.nodes.len()
    }

    /// The SPILL_OUT node of spill `k`, `N + 2k`; its SPILL_IN is the next id.
    pub fn spill_out(&self, k: usize) -> NodeId {
        NodeId(self.nodes.len() as u32 + 2 * k as u32)
    }

    /// The SPILL_IN node of spill `k`, `N + 2k + 1`.
    pub fn spill_in(&self, k: usize) -> NodeId {
        NodeId(self.nodes.len() as u32 + 2 * k as u32 + 1)
    }

    /// A name for node `id` in messages: `node 12 (MATMUL)`, `node 3 (ALLOC buffer 7)`.
    pub fn describe(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Alloc(b) => format!("node {id} (ALLOC buffer {})", self.buffer(*b).buf_id),
            Node::Free(b) => format!("node {id} (FREE buffer {})", self.buffer(*b).buf_id),
            Node::Op(op) => format!("node {id} ({})", op.op),
        }
    }

    fn find_cycle(&self) -> Result<(), Error> {
        let n = self.nodes.len();
        let mut indegree = vec![0u32; n];
        let mut succ: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            succ[a.index()].push(b);
            indegree[b.index()] += 1;
        }
        let mut ready: Vec<NodeId> = self
            .node_ids()
            .filter(|&i| indegree[i.index()] == 0)
            .collect();
        let mut done = 0;
        while let Some(a) = ready.pop() {
            done += 1;
            for &b in &succ[a.index()] {
                indegree[b.index()] -= 1;
                if indegree[b.index()] == 0 {
                    ready.push(b);
                }
            }
        }
        if done == n {
            return Ok(());
        }
        // walk back along unfinished predecessors until a node repeats
        let mut pred: Vec<Option<NodeId>> = vec![None; n];
        for &(a, b) in &self.edges {
            if indegree[a.index()] > 0 && indegree[b.index()] > 0 {
                pred[b.index()] = Some(a);
            }
        }
        let mut at = NodeId::new((0..n).find(|&i| indegree[i] > 0).unwrap());
        let mut seen = vec![false; n];
        while !seen[at.index()] {
            seen[at.index()] = true;
            at = pred[at.index()]
                .expect("a node on or behind a cycle has an unfinished predecessor");
        }
        let mut path = vec![at];
        let mut x = pred[at.index()].unwrap();
        while x != at {
            path.push(x);
            x = pred[x.index()].unwrap();
        }
        path.push(at);
        path.reverse();
        Err(Error::cycle(
            path.into_iter().map(|i| self.describe(i)).collect(),
        ))
    }
}

fn collect_buffers(raw: &[RawNode], levels: &[Level]) -> Result<Vec<NpuBuffer>, Error> {
    let mut by_id: HashMap<u64, NpuBuffer> = HashMap::new();
    let mut frees: HashMap<u64, NodeId> = HashMap::new();
    for n in raw {
        let is_alloc = n.op == "ALLOC";
        if !is_alloc && n.op != "FREE" {
            continue;
        }
        let buf = n
            .buf_id
            .ok_or_else(|| Error::invalid(format!("node {} ({}) has no BufId", n.id, n.op)))?;
        if !is_alloc {
            if frees.insert(buf, NodeId(n.id as u32)).is_some() {
                return Err(Error::invalid(format!(
                    "buffer {buf} has two FREE nodes (the second is node {})",
                    n.id
                )));
            }
            continue;
        }
        let size = n.size.ok_or_else(|| {
            Error::invalid(format!("node {} (ALLOC buffer {buf}) has no Size", n.id))
        })?;
        let type_name = n.level.as_deref().ok_or_else(|| {
            Error::invalid(format!("node {} (ALLOC buffer {buf}) has no Type", n.id))
        })?;
        let level = levels
            .iter()
            .position(|l| l.name == type_name)
            .map(LevelId::new)
            .ok_or_else(|| {
                let known: Vec<&str> = levels.iter().map(|l| l.name.as_str()).collect();
                Error::invalid(format!(
                    "buffer {buf} has memory type `{type_name}`, which is none of {}",
                    known.join(", ")
                ))
            })?;
        let at = &levels[level.index()];
        if size > at.capacity {
            return Err(Error::invalid(format!(
                "buffer {buf} needs {size} units but {} holds only {}",
                at.name, at.capacity
            )));
        }
        let b = NpuBuffer {
            buf_id: buf,
            size,
            level,
            alloc: NodeId(n.id as u32),
            free: NodeId(u32::MAX),
            copy_in: false,
        };
        if by_id.insert(buf, b).is_some() {
            return Err(Error::invalid(format!(
                "buffer {buf} has two ALLOC nodes (the second is node {})",
                n.id
            )));
        }
    }
    for (buf, node) in &frees {
        match by_id.get_mut(buf) {
            Some(b) => b.free = *node,
            None => {
                return Err(Error::invalid(format!(
                    "buffer {buf} is freed at node {node} but never allocated"
                )))
            }
        }
    }
    let mut buffers: Vec<NpuBuffer> = by_id.into_values().collect();
    memplan::sort::by_key(&mut buffers, |b| b.buf_id);
    if let Some(b) = buffers.iter().find(|b| b.free == NodeId(u32::MAX)) {
        return Err(Error::invalid(format!(
            "buffer {} is allocated at node {} but never freed",
            b.buf_id, b.alloc
        )));
    }
    Ok(buffers)
}

fn op_node(n: &RawNode, index: &HashMap<u64, BufferId>) -> Result<OpNode, Error> {
    let pipe_name = n
        .pipe
        .as_deref()
        .ok_or_else(|| Error::invalid(format!("node {} ({}) has no Pipe", n.id, n.op)))?;
    let pipe = Pipe::from_name(pipe_name).ok_or_else(|| {
        Error::invalid(format!(
            "node {} ({}) runs on unknown pipe `{pipe_name}`",
            n.id, n.op
        ))
    })?;
    let bufs = n
        .bufs
        .iter()
        .map(|b| {
            index.get(b).copied().ok_or_else(|| {
                Error::invalid(format!(
                    "node {} ({}) uses buffer {b}, which has no ALLOC",
                    n.id, n.op
                ))
            })
        })
        .collect::<Result<Vec<BufferId>, Error>>()?;
    Ok(OpNode {
        op: n.op.clone(),
        pipe,
        cycles: n.cycles.unwrap_or(0),
        bufs,
    })
}
