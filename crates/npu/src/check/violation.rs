//! What the NPU checker reports: one value per broken rule, naming node ids,
//! buffers (by `BufId`), levels and schedule positions (counted from 0).

use std::fmt;

/// A node as messages name it: `node 12 (MATMUL)`, `node 4163 (SPILL_IN buffer 7, spill 0)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    pub id: u32,
    pub label: String,
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {} ({})", self.id, self.label)
    }
}

/// Where a buffer is when a node needs it somewhere else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    NotAllocated,
    Resident { since: NodeRef },
    SpilledOut { since: NodeRef },
    Freed { at: NodeRef },
}

impl fmt::Display for Whereabouts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Whereabouts::NotAllocated => f.write_str("before it is allocated"),
            Whereabouts::Resident { since } => write!(f, "while it is resident (since {since})"),
            Whereabouts::SpilledOut { since } => {
                write!(f, "while it is spilled out (since {since})")
            }
            Whereabouts::Freed { at } => write!(f, "after it is freed (at {at})"),
        }
    }
}

/// Why one node must come before another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeOrigin {
    Case,
    Spill { index: usize, buf: u64 },
}

impl fmt::Display for EdgeOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdgeOrigin::Case => f.write_str("an edge of the case"),
            EdgeOrigin::Spill { index, buf } => {
                write!(f, "an edge added by spill {index} of buffer {buf}")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NpuViolation {
    UnknownNode {
        id: u64,
        position: usize,
        total: u32,
    },
    NodeTwice {
        node: NodeRef,
        first: usize,
        again: usize,
    },
    NodeMissing {
        node: NodeRef,
    },
    SpillsInProblem1 {
        count: usize,
    },
    UnknownSpillBuffer {
        spill: usize,
        buf: u64,
    },
    UnknownMemoryBuffer {
        buf: u64,
    },
    PlacedTwice {
        buf: u64,
        offsets: (u64, u64),
    },
    Unplaced {
        buf: u64,
        level: String,
    },
    OutOfOrder {
        node: NodeRef,
        position: usize,
        pred: NodeRef,
        pred_position: usize,
        origin: EdgeOrigin,
    },
    NotResident {
        node: NodeRef,
        buf: u64,
        state: Whereabouts,
    },
    BadReload {
        node: NodeRef,
        buf: u64,
        state: Whereabouts,
    },
    PastCapacity {
        node: NodeRef,
        buf: u64,
        level: String,
        offset: u64,
        size: u64,
        capacity: u64,
    },
    Overlap {
        level: String,
        node: NodeRef,
        buf: u64,
        range: (u64, u64),
        other: u64,
        other_range: (u64, u64),
        other_since: NodeRef,
    },
    /// Problem 1: an ALLOC in an L0 level while another buffer of it is alive.
    L0Shared {
        level: String,
        first_node: u32,
        buf: u64,
        other: u64,
        count: usize,
    },
}

impl fmt::Display for NpuViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NpuViolation::*;
        match self {
            UnknownNode { id, position, total } => write!(
                f,
                "schedule position {position} holds node {id}, which does not exist \
                 (nodes are 0..{total}, spill nodes included)"
            ),
            NodeTwice { node, first, again } => {
                write!(f, "{node} is scheduled twice (positions {first} and {again})")
            }
            NodeMissing { node } => write!(f, "{node} is missing from the schedule"),
            SpillsInProblem1 { count } => write!(
                f,
                "problem 1 allows no spills, but the spill file lists {count}"
            ),
            UnknownSpillBuffer { spill, buf } => {
                write!(f, "spill {spill} names buffer {buf}, which does not exist")
            }
            UnknownMemoryBuffer { buf } => write!(
                f,
                "the memory file places buffer {buf}, which does not exist"
            ),
            PlacedTwice { buf, offsets } => write!(
                f,
                "buffer {buf} has two memory lines (offsets {} and {})",
                offsets.0, offsets.1
            ),
            Unplaced { buf, level } => write!(f, "buffer {buf} ({level}) has no memory line"),
            OutOfOrder {
                node,
                position,
                pred,
                pred_position,
                origin,
            } => write!(
                f,
                "{node} at position {position} runs before {pred} at position \
                 {pred_position}, which must precede it ({origin})"
            ),
            NotResident { node, buf, state } => write!(f, "{node} uses buffer {buf} {state}"),
            BadReload { node, buf, state } => write!(f, "{node} reloads buffer {buf} {state}"),
            PastCapacity {
                node,
                buf,
                level,
                offset,
                size,
                capacity,
            } => write!(
                f,
                "{node} places buffer {buf} at [{offset}, {}), past {level}'s capacity of {capacity}",
                offset + size
            ),
            Overlap {
                level,
                node,
                buf,
                range,
                other,
                other_range,
                other_since,
            } => write!(
                f,
                "{node} places buffer {buf} at {level} [{}, {}) while buffer {other} \
                 holds [{}, {}) (resident since {other_since})",
                range.0, range.1, other_range.0, other_range.1
            ),
            L0Shared {
                level,
                first_node,
                buf,
                other,
                count,
            } => write!(
                f,
                "two {level} buffers alive at once (first at node {first_node}, which \
                 allocates buffer {buf} while buffer {other} is alive; {count} such \
                 allocation(s) in all)"
            ),
        }
    }
}
