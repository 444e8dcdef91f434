//! The allocator's walk along the order, one node at a time: buffers placed in a
//! gap of their level, reloaded before a use, and room made by spilling victims.

use super::victims::{choose, Room};
use super::*;

impl<'a> Allocator<'a> {
    pub(super) fn pos(&self) -> u32 {
        self.plan.schedule.len() as u32
    }

    pub(super) fn step(&mut self, i: u32, n: NodeId) -> Result<(), Error> {
        match self.case.node(n) {
            Node::Alloc(b) => {
                let b = *b;
                let offset = self.make_room(b, &[], i)?;
                self.plan.offsets[b.index()] = offset;
                self.settle(b, offset);
            }
            Node::Op(op) => {
                for &b in &op.bufs {
                    self.ensure_resident(b, &op.bufs, i, n)?;
                }
            }
            Node::Free(b) => {
                let b = *b;
                self.ensure_resident(b, &[b], i, n)?;
                let State::Resident(r) = self.state[b.index()] else {
                    unreachable!()
                };
                self.plan.residencies[r].end = self.pos();
                self.evict(b);
                self.state[b.index()] = State::Freed;
            }
        }
        self.plan.schedule.push(n);
        Ok(())
    }

    /// Reloads `b` if it is in DDR; `pinned` may not leave to make room.
    fn ensure_resident(
        &mut self,
        b: BufferId,
        pinned: &[BufferId],
        i: u32,
        n: NodeId,
    ) -> Result<(), Error> {
        match self.state[b.index()] {
            State::Resident(_) => Ok(()),
            State::Spilled(k) => {
                let offset = self.make_room(b, pinned, i)?;
                let spill = &mut self.plan.spills[k];
                spill.in_pos = self.plan.schedule.len() as u32;
                spill.new_offset = offset;
                self.settle(b, offset);
                self.plan.schedule.push(self.case.spill_in(k));
                Ok(())
            }
            State::Unallocated | State::Freed => Err(Error::invalid(format!(
                "the order uses buffer {} at {} outside its ALLOC..FREE",
                self.case.buffer(b).buf_id,
                self.case.describe(n)
            ))),
        }
    }

    /// Opens a residency of `b` at `offset` from the current position.
    fn settle(&mut self, b: BufferId, offset: u64) {
        let buf = self.case.buffer(b);
        let list = &mut self.resident[buf.level.index()];
        let at = list.partition_point(|&(o, _, _)| o < offset);
        list.insert(at, (offset, buf.size, b));
        self.print ^= resident_hash(buf.level.index(), offset, b);
        self.state[b.index()] = State::Resident(self.plan.residencies.len());
        let start = self.pos();
        self.plan.residencies.push(Residency {
            buffer: b,
            offset,
            start,
            end: start,
        });
    }

    fn evict(&mut self, b: BufferId) {
        let l = self.case.buffer(b).level.index();
        let list = &mut self.resident[l];
        if let Some(k) = list.iter().position(|&(_, _, x)| x == b) {
            let (offset, _, _) = list.remove(k);
            self.print ^= resident_hash(l, offset, b);
        }
    }

    /// An offset for `b` in its level, spilling victims until a gap fits.
    fn make_room(&mut self, b: BufferId, pinned: &[BufferId], i: u32) -> Result<u64, Error> {
        let buf = self.case.buffer(b);
        let l = buf.level.index();
        loop {
            if let Some(offset) = self.find_gap(buf.level, buf.size) {
                return Ok(offset);
            }
            self.victims.clear();
            let list = &self.resident[l];
            let room = Room {
                case: self.case,
                list,
                capacity: self.case.level(buf.level).capacity,
                size: buf.size,
                pinned,
                i,
            };
            if !choose(&room, self.opts, &mut self.next, &mut self.victims) {
                let level = self.case.level(buf.level);
                return Err(Error::invalid(format!(
                    "buffer {} ({} units) cannot fit in {} (capacity {}) beside the buffers its node needs",
                    buf.buf_id, buf.size, level.name, level.capacity
                )));
            }
            let t = &mut self.trace;
            let mark = |v: usize| v as u32;
            let (l0, p0, v0) = (
                mark(t.lists.len()),
                mark(t.pinned.len()),
                mark(t.victims.len()),
            );
            t.lists.extend_from_slice(list);
            t.pinned.extend_from_slice(pinned);
            t.victims.extend_from_slice(&self.victims);
            t.decisions.push(Decision {
                i,
                level: buf.level,
                size: buf.size,
                list: l0..mark(t.lists.len()),
                pinned: p0..mark(t.pinned.len()),
                victims: v0..mark(t.victims.len()),
            });
            for k in 0..self.victims.len() {
                self.spill_out(self.victims[k]);
            }
        }
    }

    fn find_gap(&self, level: LevelId, size: u64) -> Option<u64> {
        let capacity = self.case.level(level).capacity;
        let mut cursor = 0u64;
        let mut best: Option<(u64, u64)> = None;
        let list = &self.resident[level.index()];
        for k in 0..=list.len() {
            let end = list.get(k).map_or(capacity, |&(o, _, _)| o);
            if end >= cursor && end - cursor >= size {
                let gap = end - cursor;
                match self.opts.fit {
                    Fit::First => return Some(cursor),
                    Fit::Best if best.is_none_or(|(g, _)| gap < g) => best = Some((gap, cursor)),
                    Fit::Best => {}
                }
            }
            if let Some(&(o, s, _)) = list.get(k) {
                cursor = cursor.max(o + s);
            }
        }
        best.map(|(_, at)| at)
    }

    fn spill_cost(&self, b: BufferId) -> u64 {
        self.case.buffer(b).spill_cost()
    }

    pub(super) fn spill_out(&mut self, v: BufferId) {
        let State::Resident(r) = self.state[v.index()] else {
            unreachable!("victims are resident")
        };
        let k = self.plan.spills.len();
        let out_pos = self.pos();
        self.moved += self.spill_cost(v);
        self.plan.residencies[r].end = out_pos;
        self.plan.spills.push(Spill {
            buffer: v,
            out_pos,
            in_pos: u32::MAX,
            new_offset: 0,
            cost: self.spill_cost(v),
        });
        self.plan.schedule.push(self.case.spill_out(k));
        self.evict(v);
        self.state[v.index()] = State::Spilled(k);
    }
}
