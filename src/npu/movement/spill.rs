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
    place_reusing(case, order, opts, limit, &mut Scratch::default())
}

/// [`place_within`] in the working memory of `scratch`, which keeps it for the
/// next placement (a search places thousands of orders of one case).
pub fn place_reusing(
    case: &Case,
    order: &[NodeId],
    opts: SpillOptions,
    limit: u64,
    scratch: &mut Scratch,
) -> Result<Option<NpuPlan>, Error> {
    let mut a = Allocator::new(case, order, opts, scratch);
    let mut within = true;
    for (i, &n) in order.iter().enumerate() {
        if let Err(e) = a.step(i as u32, n) {
            a.give_back(scratch);
            return Err(e);
        }
        if a.moved > limit {
            within = false;
            break;
        }
    }
    let plan = a.give_back(scratch);
    if within {
        Ok(Some(plan))
    } else {
        scratch.recycle(plan);
        Ok(None)
    }
}

/// The working memory of the allocator, kept between placements by
/// [`place_reusing`]: the same plans, without allocating it all again.
#[derive(Default)]
pub struct Scratch {
    resident: Vec<Vec<(u64, u64, BufferId)>>,
    state: Vec<State>,
    uses: Vec<u32>,
    first: Vec<u32>,
    cursor: Vec<u32>,
    last: Vec<u32>,
    /// A plan no longer wanted, whose vectors the next one reuses.
    spare: Option<NpuPlan>,
}

impl Scratch {
    /// Keeps the vectors of `plan` for the next placement.
    pub fn recycle(&mut self, plan: NpuPlan) {
        self.spare = Some(plan);
    }
}

impl<'a> Allocator<'a> {
    fn new(
        case: &'a Case,
        order: &[NodeId],
        opts: SpillOptions,
        scratch: &mut Scratch,
    ) -> Allocator<'a> {
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
        let mut last = std::mem::take(&mut scratch.last);
        last.clear();
        last.resize(buffers, u32::MAX);
        let mut first = std::mem::take(&mut scratch.first);
        first.clear();
        first.resize(buffers + 1, 0);
        each_use(&mut |b, i| {
            if last[b] != i {
                last[b] = i;
                first[b + 1] += 1;
            }
        });
        for b in 0..buffers {
            first[b + 1] += first[b];
        }
        let mut uses = std::mem::take(&mut scratch.uses);
        uses.clear();
        uses.resize(first[buffers] as usize, 0);
        let mut cursor = std::mem::take(&mut scratch.cursor);
        cursor.clear();
        cursor.extend_from_slice(&first[..buffers]);
        last.fill(u32::MAX);
        each_use(&mut |b, i| {
            if last[b] != i {
                last[b] = i;
                uses[cursor[b] as usize] = i;
                cursor[b] += 1;
            }
        });
        cursor.copy_from_slice(&first[..buffers]);
        scratch.last = last;
        let mut resident = std::mem::take(&mut scratch.resident);
        resident.resize_with(case.levels.len(), Vec::new);
        resident.iter_mut().for_each(Vec::clear);
        let mut state = std::mem::take(&mut scratch.state);
        state.clear();
        state.resize(buffers, State::Unallocated);
        let mut plan = scratch.spare.take().unwrap_or(NpuPlan {
            schedule: Vec::new(),
            offsets: Vec::new(),
            spills: Vec::new(),
            residencies: Vec::new(),
        });
        plan.schedule.clear();
        plan.schedule.reserve(order.len());
        plan.offsets.clear();
        plan.offsets.resize(buffers, 0);
        plan.spills.clear();
        plan.residencies.clear();
        Allocator {
            case,
            opts,
            resident,
            state,
            uses,
            first,
            cursor,
            plan,
            moved: 0,
        }
    }

    /// The plan made, the working memory back into `scratch`.
    fn give_back(self, scratch: &mut Scratch) -> NpuPlan {
        scratch.resident = self.resident;
        scratch.state = self.state;
        scratch.uses = self.uses;
        scratch.first = self.first;
        scratch.cursor = self.cursor;
        self.plan
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
        let l = level.index();
        let count = self.resident[l].len();
        // (moved units, latest soonest next use first) and the window's start
        let mut best: Option<(WindowKey, u64)> = None;
        for k in 0..=count {
            let lo = match k {
                0 => 0,
                _ => {
                    let (o, s, _) = self.resident[l][k - 1];
                    o + s
                }
            };
            let hi = lo + size;
            if hi > capacity {
                continue;
            }
            let inside = |&(o, s, _): &(u64, u64, BufferId)| o < hi && lo < o + s;
            let list = &self.resident[l];
            if !list.iter().any(inside) || list.iter().any(|r| inside(r) && pinned.contains(&r.2)) {
                continue;
            }
            let (mut cost, mut soonest) = (0u64, u32::MAX);
            for j in 0..count {
                let r = self.resident[l][j];
                if inside(&r) {
                    cost += self.spill_cost(r.2);
                    soonest = soonest.min(self.next_use(r.2, i));
                }
            }
            let key = (cost, std::cmp::Reverse(soonest));
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, lo));
            }
        }
        let (_, lo) = best?;
        let hi = lo + size;
        Some(
            self.resident[l]
                .iter()
                .filter(|&&(o, s, _)| o < hi && lo < o + s)
                .map(|&(_, _, b)| b)
                .collect(),
        )
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

#[cfg(test)]
mod tests {
    use super::super::super::deps::dfs_order;
    use super::super::super::residency::schedule::{list_schedule, Priority};
    use super::super::super::tiled::tiled_matmul;
    use super::*;

    /// One working memory through many placements gives what fresh ones give:
    /// nothing of a placement, a plan given up at its limit or a recycled plan
    /// leaks into the next.
    #[test]
    fn placements_in_one_scratch_equal_fresh_ones() {
        // 4 x 8 x 4 tiles: A and B together need twice L1, so orders spill
        let case = tiled_matmul(4, 8, 4).unwrap();
        let mut orders = vec![dfs_order(&case), case.node_ids().collect()];
        for p in [
            Priority::Growth,
            Priority::NonGrowingFirst,
            Priority::Capacity(8),
        ] {
            orders.push(list_schedule(&case, p).unwrap());
        }
        let rules = [Fit::First, Fit::Best].into_iter().flat_map(|fit| {
            [Victim::Furthest, Victim::FurthestPerCost, Victim::Window]
                .map(|victim| SpillOptions { fit, victim })
        });
        let mut scratch = Scratch::default();
        let mut spilled = 0;
        for opts in rules {
            for order in &orders {
                let fresh = place(&case, order, opts).unwrap();
                let moved = fresh.extra_movement();
                spilled += usize::from(moved > 0);
                if moved > 0 {
                    // given up just under its movement, then placed whole
                    let cut = place_reusing(&case, order, opts, moved - 1, &mut scratch);
                    assert_eq!(cut.unwrap(), None);
                }
                let again = place_reusing(&case, order, opts, u64::MAX, &mut scratch);
                let again = again.unwrap().unwrap();
                assert_eq!(again, fresh);
                scratch.recycle(again);
            }
        }
        assert!(
            spilled >= 10,
            "too few orders spill ({spilled}) to test much"
        );
    }
}
