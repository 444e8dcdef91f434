//! Residencies: walking the schedule, a buffer is resident from its ALLOC or a
//! SPILL_IN to the next SPILL_OUT or its FREE. Each residency has one offset (the
//! memory line for ALLOC, the spill line for SPILL_IN) and must lie inside its level
//! and share no address with another residency of the level alive at the same time.

use super::{Kind, NpuViolation, Run, Schedule, Sink, Whereabouts};
use crate::case::BufferId;
use std::collections::HashMap;

/// Each buffer's first offset from the memory file; unknown buffers, repeats and
/// buffers without a line are violations.
pub(super) fn first_offsets(run: &Run, memory: &[(u64, u64)], sink: &mut Sink) -> Vec<Option<u64>> {
    let index = super::buffer_index(run.case);
    let mut offsets: Vec<Option<u64>> = vec![None; run.case.buffers.len()];
    for &(buf, offset) in memory {
        let Some(&b) = index.get(&buf) else {
            sink.push(|| NpuViolation::UnknownMemoryBuffer { buf });
            continue;
        };
        match offsets[b.index()] {
            Some(first) => sink.push(|| NpuViolation::PlacedTwice {
                buf,
                offsets: (first, offset),
            }),
            None => offsets[b.index()] = Some(offset),
        }
    }
    for (buf, o) in run.case.buffers.iter().zip(&offsets) {
        if o.is_none() {
            sink.push(|| NpuViolation::Unplaced {
                buf: buf.buf_id,
                level: run.case.level(buf.level).name.clone(),
            });
        }
    }
    offsets
}

/// One stretch of a buffer in its level.
pub(super) struct Residency {
    pub buf: BufferId,
    pub level: usize,
    pub offset: Option<u64>,
    pub size: u64,
    /// The ALLOC or SPILL_IN that starts it.
    pub start: u32,
}

/// Every residency, and which node starts and ends each (by node id of the run).
pub(super) struct Residencies {
    pub list: Vec<Residency>,
    pub started_by: HashMap<u32, u32>,
    pub ended_by: HashMap<u32, u32>,
}

/// Where a buffer is during the walk.
#[derive(Clone, Copy)]
enum State {
    Before,
    Resident(u32),
    Out(u32),
    Freed(u32),
}

struct Walk<'r, 'a> {
    run: &'r Run<'a>,
    state: Vec<State>,
    res: Residencies,
    /// Residencies alive in each level.
    alive: Vec<Vec<u32>>,
}

/// Walks the schedule, checking every use, spill and placement.
pub(super) fn walk(
    run: &Run,
    schedule: &Schedule,
    offsets: &[Option<u64>],
    sink: &mut Sink,
) -> Residencies {
    let mut w = Walk {
        run,
        state: vec![State::Before; run.case.buffers.len()],
        res: Residencies {
            list: Vec::new(),
            started_by: HashMap::new(),
            ended_by: HashMap::new(),
        },
        alive: vec![Vec::new(); run.case.levels.len()],
    };
    for &id in &schedule.order {
        match run.kind(id) {
            Kind::Alloc(b) => w.open(id, b, offsets[b.index()], sink),
            Kind::Free(b) => w.close(id, b, State::Freed(id), sink),
            Kind::Op(op) => {
                for &b in &op.bufs {
                    if !matches!(w.state[b.index()], State::Resident(_)) {
                        sink.push(|| NpuViolation::NotResident {
                            node: run.node_ref(id),
                            buf: run.buf_id(b),
                            state: w.whereabouts(b),
                        });
                    }
                }
            }
            Kind::SpillOut(k) => {
                if let Some(b) = run.spills[k].buf {
                    w.close(id, b, State::Out(id), sink);
                }
            }
            Kind::SpillIn(k) => {
                if let Some(b) = run.spills[k].buf {
                    if !matches!(w.state[b.index()], State::Out(out) if out + 1 == id) {
                        sink.push(|| NpuViolation::BadReload {
                            node: run.node_ref(id),
                            buf: run.buf_id(b),
                            state: w.whereabouts(b),
                        });
                    }
                    if !matches!(w.state[b.index()], State::Resident(_)) {
                        w.open(id, b, Some(run.spills[k].offset), sink);
                    }
                }
            }
        }
    }
    w.res
}

impl Walk<'_, '_> {
    fn whereabouts(&self, b: BufferId) -> Whereabouts {
        let node = |id: u32| self.run.node_ref(id);
        match self.state[b.index()] {
            State::Before => Whereabouts::NotAllocated,
            State::Resident(r) => Whereabouts::Resident {
                since: node(self.res.list[r as usize].start),
            },
            State::Out(at) => Whereabouts::SpilledOut { since: node(at) },
            State::Freed(at) => Whereabouts::Freed { at: node(at) },
        }
    }

    /// Starts a residency of `b` at node `id`, checking its place against the level.
    fn open(&mut self, id: u32, b: BufferId, offset: Option<u64>, sink: &mut Sink) {
        let buf = self.run.case.buffer(b);
        let r = self.res.list.len() as u32;
        self.res.list.push(Residency {
            buf: b,
            level: buf.level.index(),
            offset,
            size: buf.size,
            start: id,
        });
        self.res.started_by.insert(id, r);
        self.state[b.index()] = State::Resident(r);
        if let Some(offset) = offset {
            self.check_place(id, b, offset, sink);
        }
        self.alive[buf.level.index()].push(r);
    }

    fn check_place(&self, id: u32, b: BufferId, offset: u64, sink: &mut Sink) {
        let run = self.run;
        let buf = run.case.buffer(b);
        let level = run.case.level(buf.level);
        let end = offset.saturating_add(buf.size);
        if end > level.capacity {
            sink.push(|| NpuViolation::PastCapacity {
                node: run.node_ref(id),
                buf: buf.buf_id,
                level: level.name.clone(),
                offset,
                size: buf.size,
                capacity: level.capacity,
            });
        }
        for &q in &self.alive[buf.level.index()] {
            let other = &self.res.list[q as usize];
            let Some(o) = other.offset else { continue };
            let o_end = o.saturating_add(other.size);
            if offset < o_end && o < end && buf.size > 0 && other.size > 0 {
                sink.push(|| NpuViolation::Overlap {
                    level: level.name.clone(),
                    node: run.node_ref(id),
                    buf: buf.buf_id,
                    range: (offset, end),
                    other: run.buf_id(other.buf),
                    other_range: (o, o_end),
                    other_since: run.node_ref(other.start),
                });
            }
        }
    }

    /// Ends the residency of `b` at node `id` (a FREE or a SPILL_OUT, giving `then`).
    fn close(&mut self, id: u32, b: BufferId, then: State, sink: &mut Sink) {
        match self.state[b.index()] {
            State::Resident(r) => {
                self.res.ended_by.insert(id, r);
                let level = &mut self.alive[self.res.list[r as usize].level];
                if let Some(i) = level.iter().position(|&x| x == r) {
                    level.swap_remove(i);
                }
                self.state[b.index()] = then;
            }
            _ => {
                sink.push(|| NpuViolation::NotResident {
                    node: self.run.node_ref(id),
                    buf: self.run.buf_id(b),
                    state: self.whereabouts(b),
                });
                if matches!(then, State::Freed(_)) {
                    self.state[b.index()] = then;
                }
            }
        }
    }
}
