//! What the checker reports: one value per broken rule, naming tensors, ops and steps.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    UnknownOp {
        op: u32,
        step: u32,
    },
    OpTwice {
        op: String,
        first: u32,
        again: u32,
    },
    OpMissing {
        op: String,
    },
    UseBeforeProduce {
        tensor: String,
        op: String,
        used: u32,
        produced: u32,
    },
    UnknownTensor {
        tensor: String,
    },
    NotArena {
        tensor: String,
    },
    PlacedTwice {
        tensor: String,
    },
    Unplaced {
        tensor: String,
    },
    WrongSize {
        tensor: String,
        planned: u64,
        actual: u64,
    },
    WrongLifetime {
        tensor: String,
        planned: (u32, u32),
        actual: (u32, u32),
    },
    Misaligned {
        tensor: String,
        offset: u64,
        align: u64,
    },
    OutOfBounds {
        tensor: String,
        offset: u64,
        size: u64,
        peak: u64,
    },
    Overlap {
        a: String,
        b: String,
        step: u32,
        from: u64,
        to: u64,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Violation::*;
        match self {
            UnknownOp { op, step } => write!(
                f,
                "step {step} runs op #{op}, which the graph does not have"
            ),
            OpTwice { op, first, again } => {
                write!(f, "op `{op}` runs twice, at steps {first} and {again}")
            }
            OpMissing { op } => write!(f, "op `{op}` never runs"),
            UseBeforeProduce {
                tensor,
                op,
                used,
                produced,
            } => {
                write!(f, "tensor `{tensor}` is consumed by op `{op}` at step {used} but produced at step {produced}")
            }
            UnknownTensor { tensor } => write!(
                f,
                "tensor `{tensor}` is placed but the graph does not have it"
            ),
            NotArena { tensor } => {
                write!(f, "tensor `{tensor}` is placed but lives outside the arena")
            }
            PlacedTwice { tensor } => write!(f, "tensor `{tensor}` is placed twice"),
            Unplaced { tensor } => write!(f, "tensor `{tensor}` is never placed"),
            WrongSize {
                tensor,
                planned,
                actual,
            } => {
                write!(
                    f,
                    "tensor `{tensor}` is placed with {planned} bytes but has {actual}"
                )
            }
            WrongLifetime {
                tensor,
                planned,
                actual,
            } => write!(
                f,
                "tensor `{tensor}` is planned live over steps {}..={} but is live over {}..={}",
                planned.0, planned.1, actual.0, actual.1
            ),
            Misaligned {
                tensor,
                offset,
                align,
            } => {
                write!(
                    f,
                    "tensor `{tensor}` at offset {offset} is not aligned to {align}"
                )
            }
            OutOfBounds {
                tensor,
                offset,
                size,
                peak,
            } => {
                write!(f, "tensor `{tensor}` at offset {offset} with {size} bytes ends past the peak {peak}")
            }
            Overlap {
                a,
                b,
                step,
                from,
                to,
            } => {
                write!(f, "tensors `{a}` and `{b}` are both live at step {step} and share bytes {from}..{to}")
            }
        }
    }
}
