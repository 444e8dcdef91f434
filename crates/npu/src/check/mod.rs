//! An independent checker for the NPU multi-level memory problem (rules in
//! `docs/npu-scheduling.md`). It interprets the contest's result files
//! against a [`Case`] and recomputes every number from those two alone; it shares
//! no code with the schedulers of this crate (only the case model);
//! `tests/layers.rs` holds it to that.
//!
//! Checked, every violation reported (the first [`MAX_VIOLATIONS`] kept):
//! - the schedule holds every case node and every spill node (`N + 2k` SPILL_OUT,
//!   `N + 2k + 1` SPILL_IN) exactly once, in an order that respects the case edges
//!   and the spill edges;
//! - problem 1: no spills, and at most one buffer alive at a time in each L0 level;
//! - problems 2 and 3: every buffer has one memory line; walking the schedule, each
//!   buffer goes ALLOC, (SPILL_OUT, SPILL_IN)*, FREE and every use finds it
//!   resident; each residency (ALLOC or SPILL_IN up to SPILL_OUT or FREE) lies inside
//!   its level and shares no address with a residency of the same level alive at
//!   the same time.
//!
//! Measured: the problem 1 peak (L1 and UB together, over the case's ALLOC and FREE
//! nodes), the spills, the extra data movement and, for problems 2 and 3 with a
//! complete ordered schedule, the makespan of the pipe model.

mod order;
mod pipes;
mod residency;
mod run;
mod stay;
mod violation;

pub use run::check_npu;
pub use violation::{EdgeOrigin, NodeRef, NpuViolation, Whereabouts};

use crate::case::{BufferId, Case, Node, OpNode, Pipe};
use std::collections::HashMap;

/// At most this many violations are kept in a report; all are counted.
pub const MAX_VIOLATIONS: usize = 1000;

/// What [`check_npu`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpuReport {
    pub valid: bool,
    /// The first [`MAX_VIOLATIONS`] violations, in the order the checks ran.
    pub violations: Vec<NpuViolation>,
    /// Every violation found, kept or not.
    pub violation_count: usize,
    /// Peak of L1 + UB bytes over the schedule's case ALLOC and FREE nodes.
    pub p1_peak: u64,
    pub spills: usize,
    /// Sum over spills: `Size` when a COPY_IN node uses the buffer, else `2 * Size`.
    pub extra_movement: u64,
    /// Largest finish time of the pipe model; problems 2 and 3, when the schedule
    /// holds every node once in an order respecting every edge.
    pub makespan: Option<u64>,
}

/// Collects violations, keeping the first [`MAX_VIOLATIONS`].
#[derive(Default)]
struct Sink {
    list: Vec<NpuViolation>,
    count: usize,
}

impl Sink {
    fn push(&mut self, make: impl FnOnce() -> NpuViolation) {
        self.count += 1;
        if self.list.len() < MAX_VIOLATIONS {
            self.list.push(make());
        }
    }
}

/// One line of the spill file; `buf` is `None` when it names no buffer.
struct Spill {
    buf: Option<BufferId>,
    offset: u64,
}

fn resolve_spills(case: &Case, lines: &[(u64, u64)], sink: &mut Sink) -> Vec<Spill> {
    let index = buffer_index(case);
    lines
        .iter()
        .enumerate()
        .map(|(k, &(buf, offset))| {
            let found = index.get(&buf).copied();
            if found.is_none() {
                sink.push(|| NpuViolation::UnknownSpillBuffer { spill: k, buf });
            }
            Spill { buf: found, offset }
        })
        .collect()
}

fn buffer_index(case: &Case) -> HashMap<u64, BufferId> {
    case.buffer_ids()
        .map(|b| (case.buffer(b).buf_id, b))
        .collect()
}

/// The case with its spills: node ids `0..N` are the case's, then two per spill.
struct Run<'a> {
    case: &'a Case,
    spills: Vec<Spill>,
}

/// What a node of the run is.
enum Kind<'a> {
    Alloc(BufferId),
    Free(BufferId),
    Op(&'a OpNode),
    SpillOut(usize),
    SpillIn(usize),
}

impl<'a> Run<'a> {
    fn case_nodes(&self) -> u32 {
        self.case.nodes.len() as u32
    }

    fn total(&self) -> u32 {
        self.case_nodes() + 2 * self.spills.len() as u32
    }

    fn kind(&self, id: u32) -> Kind<'a> {
        let n = self.case_nodes();
        if id >= n {
            let k = ((id - n) / 2) as usize;
            return if (id - n).is_multiple_of(2) {
                Kind::SpillOut(k)
            } else {
                Kind::SpillIn(k)
            };
        }
        match &self.case.nodes[id as usize] {
            Node::Alloc(b) => Kind::Alloc(*b),
            Node::Free(b) => Kind::Free(*b),
            Node::Op(op) => Kind::Op(op),
        }
    }

    fn spill_out(&self, k: usize) -> u32 {
        self.case_nodes() + 2 * k as u32
    }

    fn buf_id(&self, b: BufferId) -> u64 {
        self.case.buffer(b).buf_id
    }

    fn node_ref(&self, id: u32) -> NodeRef {
        let label = match self.kind(id) {
            Kind::Alloc(b) => format!("ALLOC buffer {}", self.buf_id(b)),
            Kind::Free(b) => format!("FREE buffer {}", self.buf_id(b)),
            Kind::Op(op) => op.op.clone(),
            Kind::SpillOut(k) => self.spill_label("SPILL_OUT", k),
            Kind::SpillIn(k) => self.spill_label("SPILL_IN", k),
        };
        NodeRef { id, label }
    }

    fn spill_label(&self, what: &str, k: usize) -> String {
        match self.spills[k].buf {
            Some(b) => format!("{what} buffer {}, spill {k}", self.buf_id(b)),
            None => format!("{what}, spill {k}"),
        }
    }

    /// The pipe a node runs on and its cycles.
    fn timing(&self, id: u32) -> (Option<Pipe>, u64) {
        let moved = |k: usize| {
            let b = self.spills[k]
                .buf
                .expect("the makespan needs resolved spills");
            self.case.buffer(b)
        };
        match self.kind(id) {
            Kind::Alloc(_) | Kind::Free(_) => (None, 0),
            Kind::Op(op) => (Some(op.pipe), op.cycles),
            Kind::SpillOut(k) => {
                let buf = moved(k);
                let cycles = if buf.copy_in { 0 } else { 2 * buf.size + 150 };
                (Some(Pipe::Mte3), cycles)
            }
            Kind::SpillIn(k) => (Some(Pipe::Mte2), 2 * moved(k).size + 150),
        }
    }
}

/// The schedule as read: each node's first position, and the nodes in order.
struct Schedule {
    /// By node id of the run; `None` when the node is not scheduled.
    pos: Vec<Option<u32>>,
    /// Node ids in schedule order, repeats and unknown ids dropped.
    order: Vec<u32>,
    /// Every node of the run scheduled exactly once, nothing else.
    complete: bool,
}
