//! Problem 2: offsets and spills on a given order of the original nodes.
//!
//! The allocator walks the order. An ALLOC places its buffer in its level; an op
//! first reloads any of its buffers that were spilled; a FREE of a spilled buffer
//! reloads it first (the rules put `SPILL_IN -> FREE`). When no gap fits, victims
//! leave for DDR one at a time until one does: a SPILL_OUT goes into the schedule
//! just before the node that needed the room, and the matching SPILL_IN just
//! before the buffer's next use. Buffers the current node uses are never victims.

use super::super::case::{BufferId, Case, LevelId, Node, NodeId};
use crate::error::Error;

/// Where a buffer goes among the free gaps of its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The lowest address that fits.
    First,
    /// The smallest gap that fits.
    Best,
}

/// Which resident buffer leaves when room is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// Furthest next use (Belady).
    Furthest,
    /// Furthest next use per unit of data moved: a COPY_IN buffer costs half.
    FurthestPerCost,
    /// The cheapest contiguous window: every resident buffer overlapping it leaves
    /// at once, the window chosen for the least data moved (ties: the latest next
    /// use among them). Aimed at levels fragmented around pinned buffers.
    Window,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillOptions {
    pub fit: Fit,
    pub victim: Victim,
}

/// One stay of a buffer in its level, between output positions `start..=end`
/// (ALLOC or SPILL_IN to SPILL_OUT or FREE).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    pub buffer: BufferId,
    pub offset: u64,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spill {
    pub buffer: BufferId,
    /// Output positions of SPILL_OUT and SPILL_IN.
    pub out_pos: u32,
    pub in_pos: u32,
    /// Offset the buffer is reloaded to.
    pub new_offset: u64,
    /// Data moved: `size`, or `2 * size` unless the buffer came from a COPY_IN.
    pub cost: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpuPlan {
    /// Node ids in order, spill nodes included (`N + 2k` out, `N + 2k + 1` in).
    pub schedule: Vec<NodeId>,
    /// First offset of each buffer (by [`BufferId`] index).
    pub offsets: Vec<u64>,
    pub spills: Vec<Spill>,
    pub residencies: Vec<Residency>,
}

impl NpuPlan {
    pub fn extra_movement(&self) -> u64 {
        self.spills.iter().map(|s| s.cost).sum()
    }

    /// The buffer of each spill, in spill order.
    pub fn spilled(&self) -> Vec<BufferId> {
        self.spills.iter().map(|s| s.buffer).collect()
    }
}

/// How a window ranks: the data it moves, then the soonest next use among its
/// buffers, later first.
type WindowKey = (u64, std::cmp::Reverse<u32>);

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unallocated,
    /// Resident; index of its open residency.
    Resident(usize),
    /// In DDR; index of its open spill.
    Spilled(usize),
    Freed,
}

struct Allocator<'a> {
    case: &'a Case,
    opts: SpillOptions,
    /// Per level: resident `(offset, size, buffer)`, sorted by offset.
    resident: Vec<Vec<(u64, u64, BufferId)>>,
    state: Vec<State>,
    /// Positions in the input order where each buffer is used (ops, then its FREE):
    /// those of buffer `b` are `uses[first[b]..first[b + 1]]`, increasing.
    uses: Vec<u32>,
    first: Vec<u32>,
    /// Index into `uses` of the next use of each buffer at or after the current
    /// position.
    cursor: Vec<u32>,
    plan: NpuPlan,
    /// The data the spills so far move.
    moved: u64,
}

/// Places every buffer of `case` along `order` (original node ids, topological).
pub fn place(case: &Case, order: &[NodeId], opts: SpillOptions) -> Result<NpuPlan, Error> {
    Ok(place_within(case, order, opts, u64::MAX)?.expect("no limit to pass"))
}

/// [`place`], given up (`None`) as soon as the spills so far move more than
/// `limit`: a spill's cost is fixed when it leaves, so the movement only grows
/// along the order and the whole plan would move more too.
pub fn place_within(
    case: &Case,
    order: &[NodeId],
    opts: SpillOptions,
    limit: u64,
) -> Result<Option<NpuPlan>, Error> {
    let mut a = Allocator::new(case, order, opts);
    for (i, &n) in order.iter().enumerate() {
        a.step(i as u32, n)?;
        if a.moved > limit {
            return Ok(None);
        }
    }
    Ok(Some(a.plan))
}

impl<'a> Allocator<'a> {
    fn new(case: &'a Case, order: &[NodeId], opts: SpillOptions) -> Allocator<'a> {
        // the uses of every buffer, each position once, in two passes (count, fill)
        // over one array rather than a vector per buffer
        let buffers = case.buffers.len();
        let each_use = |f: &mut dyn FnMut(usize, u32)| {
            for (i, &n) in order.iter().enumerate() {
                match case.node(n) {
                    Node::Op(op) => op.bufs.iter().for_each(|&b| f(b.index(), i as u32)),
                    Node::Free(b) => f(b.index(), i as u32),
                    Node::Alloc(_) => {}
                }
            }
        };
        let mut last = vec![u32::MAX; buffers];
        let mut first = vec![0u32; buffers + 1];
        each_use(&mut |b, i| {
            if last[b] != i {
                last[b] = i;
                first[b + 1] += 1;
            }
        });
        for b in 0..buffers {
            first[b + 1] += first[b];
        }
        let mut uses = vec![0u32; first[buffers] as usize];
        let mut cursor = first[..buffers].to_vec();
        last.fill(u32::MAX);
        each_use(&mut |b, i| {
            if last[b] != i {
                last[b] = i;
                uses[cursor[b] as usize] = i;
                cursor[b] += 1;
            }
        });
        cursor.copy_from_slice(&first[..buffers]);
        Allocator {
            case,
            opts,
            resident: vec![Vec::new(); case.levels.len()],
            state: vec![State::Unallocated; case.buffers.len()],
            uses,
            first,
            cursor,
            plan: NpuPlan {
                schedule: Vec::with_capacity(order.len()),
                offsets: vec![0; case.buffers.len()],
                spills: Vec::new(),
                residencies: Vec::new(),
            },
            moved: 0,
        }
    }

    fn pos(&self) -> u32 {
        self.plan.schedule.len() as u32
    }

    fn step(&mut self, i: u32, n: NodeId) -> Result<(), Error> {
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
        let level = self.case.buffer(b).level;
        self.resident[level.index()].retain(|&(_, _, x)| x != b);
    }

    /// An offset for `b` in its level, spilling victims until a gap fits.
    fn make_room(&mut self, b: BufferId, pinned: &[BufferId], i: u32) -> Result<u64, Error> {
        let buf = self.case.buffer(b);
        loop {
            if let Some(offset) = self.find_gap(buf.level, buf.size) {
                return Ok(offset);
            }
            if self.opts.victim == Victim::Window {
                if let Some(victims) = self.cheapest_window(buf.level, buf.size, pinned, i) {
                    victims.into_iter().for_each(|v| self.spill_out(v));
                    continue;
                }
            }
            let Some(v) = self.pick_victim(buf.level, pinned, i) else {
                let level = self.case.level(buf.level);
                return Err(Error::invalid(format!(
                    "buffer {} ({} units) cannot fit in {} (capacity {}) beside the buffers its node needs",
                    buf.buf_id, buf.size, level.name, level.capacity
                )));
            };
            self.spill_out(v);
        }
    }

    /// Residents to evict so that `size` units fit contiguously, over the window
    /// (starting at 0 or at a resident's end) that moves the least data.
    fn cheapest_window(
        &mut self,
        level: LevelId,
        size: u64,
        pinned: &[BufferId],
        i: u32,
    ) -> Option<Vec<BufferId>> {
        let capacity = self.case.level(level).capacity;
        let list = self.resident[level.index()].clone();
        let starts = std::iter::once(0).chain(list.iter().map(|&(o, s, _)| o + s));
        // (moved units, latest soonest next use first) and the buffers to evict
        let mut best: Option<(WindowKey, Vec<BufferId>)> = None;
        for lo in starts {
            let hi = lo + size;
            if hi > capacity {
                continue;
            }
            let inside: Vec<BufferId> = list
                .iter()
                .filter(|&&(o, s, _)| o < hi && lo < o + s)
                .map(|&(_, _, b)| b)
                .collect();
            if inside.is_empty() || inside.iter().any(|b| pinned.contains(b)) {
                continue;
            }
            let cost: u64 = inside.iter().map(|&b| self.spill_cost(b)).sum();
            let soonest = inside
                .iter()
                .map(|&b| self.next_use(b, i))
                .min()
                .unwrap_or(u32::MAX);
            let key = (cost, std::cmp::Reverse(soonest));
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, inside));
            }
        }
        best.map(|(_, victims)| victims)
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

    /// Input position of the next use of `b` at or after `i`.
    fn next_use(&mut self, b: BufferId, i: u32) -> u32 {
        let end = self.first[b.index() + 1];
        let c = &mut self.cursor[b.index()];
        while *c < end && self.uses[*c as usize] < i {
            *c += 1;
        }
        if *c < end {
            self.uses[*c as usize]
        } else {
            u32::MAX
        }
    }

    fn pick_victim(&mut self, level: LevelId, pinned: &[BufferId], i: u32) -> Option<BufferId> {
        let mut best: Option<(f64, BufferId)> = None;
        for k in 0..self.resident[level.index()].len() {
            let v = self.resident[level.index()][k].2;
            if pinned.contains(&v) {
                continue;
            }
            let distance = f64::from(self.next_use(v, i).saturating_sub(i));
            let score = match self.opts.victim {
                Victim::Furthest | Victim::Window => distance,
                Victim::FurthestPerCost => distance / self.spill_cost(v) as f64,
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, v));
            }
        }
        best.map(|(_, v)| v)
    }

    fn spill_cost(&self, b: BufferId) -> u64 {
        self.case.buffer(b).spill_cost()
    }

    fn spill_out(&mut self, v: BufferId) {
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
