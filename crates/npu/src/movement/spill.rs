//! Problem 2: offsets and spills on a given order of the original nodes.
//!
//! The allocator walks the order. An ALLOC places its buffer in its level; an op
//! first reloads any of its buffers that were spilled; a FREE of a spilled buffer
//! reloads it first (the rules put `SPILL_IN -> FREE`). When no gap fits, victims
//! leave for DDR one at a time until one does: a SPILL_OUT goes into the schedule
//! just before the node that needed the room, and the matching SPILL_IN just
//! before the buffer's next use. Buffers the current node uses are never victims.

use crate::case::{BufferId, Case, LevelId, Node, NodeId};
use memplan::Error;

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
    next: NextUse,
    plan: NpuPlan,
    /// The data the spills so far move.
    moved: u64,
    trace: Trace,
    /// The victims of the decision being made.
    victims: Vec<BufferId>,
    /// A hash of the residents of every level ([`resident_hash`] of each, XORed).
    print: u64,
}

/// One resident's share of [`Allocator::print`]: XORed in when it settles and out
/// when it leaves, so equal resident sets hash alike whatever the way there.
fn resident_hash(level: usize, offset: u64, b: BufferId) -> u64 {
    let mut z = ((level as u64) << 48 ^ offset << 20 ^ b.index() as u64)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The next use of each buffer along the input order.
struct NextUse {
    /// Positions in the input order where each buffer is used (ops, then its
    /// FREE): those of buffer `b` are `uses[first[b]..first[b + 1]]`, increasing.
    uses: Vec<u32>,
    first: Vec<u32>,
    /// Index into `uses` of the next use of each buffer at or after the last
    /// position asked about (positions asked only grow).
    cursor: Vec<u32>,
}

impl NextUse {
    /// Input position of the next use of `b` at or after `i`.
    fn at(&mut self, b: BufferId, i: u32) -> u32 {
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
}

/// What a placement decided that depends on more than the order so far: each
/// choice of victims, with what it was chosen from. A placement of an order
/// that shares a prefix with this one's starts where the first of these would
/// come out otherwise (see [`place_reusing`]).
#[derive(Default)]
pub struct Trace {
    /// Output position at which each input step began.
    step_at: Vec<u32>,
    /// [`Allocator::print`] as each input step began.
    prints: Vec<u64>,
    decisions: Vec<Decision>,
    /// The decisions' level lists, pinned buffers and victims, one after another.
    lists: Vec<(u64, u64, BufferId)>,
    pinned: Vec<BufferId>,
    victims: Vec<BufferId>,
}

/// One choice of victims: at input step `i`, room for `size` units in `level`,
/// whose residents were `lists[list]`, with `pinned[pinned]` staying; the
/// victims `victims[victims]`, in the order they left.
#[derive(Clone)]
struct Decision {
    i: u32,
    level: LevelId,
    size: u64,
    list: std::ops::Range<u32>,
    pinned: std::ops::Range<u32>,
    victims: std::ops::Range<u32>,
}

/// A plan and the trace of its placement.
pub struct Traced {
    pub plan: NpuPlan,
    trace: Trace,
    /// The input step the placement began at (0 unless taken over).
    from: usize,
    /// The input step from which the rest was the earlier placement's (the
    /// order's length when none was).
    joined: usize,
    /// The uses of every buffer along the order placed ([`NextUse`]'s `uses`
    /// and `first`), which the next placement takes over outside the span where
    /// the orders differ.
    uses: Vec<u32>,
    first: Vec<u32>,
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
    let placed = place_reusing(case, order, opts, limit, None, &mut Scratch::default())?;
    Ok(placed.map(|t| t.plan))
}

/// [`place_within`] in the working memory of `scratch`, which keeps it for the
/// next placement (a search places thousands of orders of one case), with the
/// trace of the placement.
///
/// With `after` (an earlier order and its placement under the same rules), the
/// placement starts where the two orders part, or at the first earlier choice of
/// victims that the new order's next uses would change, whichever comes first:
/// the plan up to there, and what the allocator held, are read off the earlier
/// plan. Once the orders agree again (to their end), the placement stops at the
/// first step whose residents are those the earlier placement had there, and
/// takes the rest of that placement, shifted (the choices from there on depend on
/// nothing else). The result is the plan a placement from the start gives.
pub fn place_reusing(
    case: &Case,
    order: &[NodeId],
    opts: SpillOptions,
    limit: u64,
    after: Option<(&[NodeId], &Traced)>,
    scratch: &mut Scratch,
) -> Result<Option<Traced>, Error> {
    // the earlier order, its placement, and how far the two orders agree
    let after = after.map(|(before, placed)| {
        let shared = order.iter().zip(before).take_while(|(a, b)| a == b).count();
        (before, placed, shared)
    });
    let mut a = Allocator::new(case, order, opts, scratch, after);
    let from = match after {
        Some((_, placed, shared)) => a.resume(placed, shared),
        None => 0,
    };
    // from where the orders agree again to their end, the earlier placement's
    // rest is taken as soon as the residents are the same as there
    let rejoin_at = after.map_or(usize::MAX, |(before, _, _)| {
        let same_end = order
            .iter()
            .rev()
            .zip(before.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        if before.len() == order.len() {
            order.len() - same_end
        } else {
            usize::MAX
        }
    });
    let mut joined = order.len();
    let mut within = a.moved <= limit;
    for (i, &n) in order.iter().enumerate().skip(from) {
        if !within {
            break;
        }
        if let Some((_, earlier, _)) = after.filter(|_| i >= rejoin_at) {
            if earlier.trace.prints.get(i) == Some(&a.print) && a.rejoin(earlier, i) {
                joined = i;
                within = a.moved <= limit;
                break;
            }
        }
        a.trace.step_at.push(a.pos());
        a.trace.prints.push(a.print);
        if let Err(e) = a.step(i as u32, n) {
            a.give_back(scratch);
            return Err(e);
        }
        within = a.moved <= limit;
    }
    let mut placed = a.give_back(scratch);
    placed.from = from;
    placed.joined = joined;
    if within {
        Ok(Some(placed))
    } else {
        scratch.recycle(placed);
        Ok(None)
    }
}

/// The working memory of the allocator, kept between placements by
/// [`place_reusing`]: the same plans, without allocating it all again.
#[derive(Default)]
pub struct Scratch {
    resident: Vec<Vec<(u64, u64, BufferId)>>,
    state: Vec<State>,
    cursor: Vec<u32>,
    last: Vec<u32>,
    victims: Vec<BufferId>,
    /// A placement no longer wanted, whose vectors the next one reuses.
    spare: Option<Traced>,
}

impl Scratch {
    /// Keeps the vectors of `placed` for the next placement.
    pub fn recycle(&mut self, placed: Traced) {
        self.spare = Some(placed);
    }
}

/// Calls `f(buffer, position)` for each use along `order[range]` (an op's
/// buffers, a FREE's buffer), a buffer used twice by one node once.
fn each_use(
    case: &Case,
    order: &[NodeId],
    range: std::ops::Range<usize>,
    last: &mut [u32],
    f: &mut dyn FnMut(usize, u32),
) {
    let mut use_at = |b: usize, i: u32| {
        if last[b] != i {
            last[b] = i;
            f(b, i);
        }
    };
    for i in range {
        match case.node(order[i]) {
            Node::Op(op) => op.bufs.iter().for_each(|&b| use_at(b.index(), i as u32)),
            Node::Free(b) => use_at(b.index(), i as u32),
            Node::Alloc(_) => {}
        }
    }
}

/// The uses of every buffer along `order` ([`NextUse`]): counted, then filled,
/// in two passes over one array rather than a vector per buffer.
fn all_uses(
    case: &Case,
    order: &[NodeId],
    uses: &mut Vec<u32>,
    first: &mut Vec<u32>,
    last: &mut Vec<u32>,
    cursor: &mut Vec<u32>,
) {
    let buffers = case.buffers.len();
    last.clear();
    last.resize(buffers, u32::MAX);
    first.clear();
    first.resize(buffers + 1, 0);
    each_use(case, order, 0..order.len(), last, &mut |b, _| {
        first[b + 1] += 1
    });
    for b in 0..buffers {
        first[b + 1] += first[b];
    }
    uses.clear();
    uses.resize(first[buffers] as usize, 0);
    cursor.clear();
    cursor.extend_from_slice(&first[..buffers]);
    last.fill(u32::MAX);
    each_use(case, order, 0..order.len(), last, &mut |b, i| {
        uses[cursor[b] as usize] = i;
        cursor[b] += 1;
    });
}

/// `uses` and `first` of `before` made those of `order`, which agree on their
/// first `lo` nodes: only the positions where the two orders differ are written
/// again, each buffer's uses there in order over the ones it had there. False
/// (the arrays then of no use) when the differing span does not hold the same
/// uses in both orders.
#[allow(clippy::too_many_arguments)]
fn patch_uses(
    case: &Case,
    order: &[NodeId],
    before: &[NodeId],
    lo: usize,
    uses: &mut [u32],
    first: &[u32],
    last: &mut Vec<u32>,
    cursor: &mut Vec<u32>,
) -> bool {
    let buffers = case.buffers.len();
    if order.len() != before.len() || first.len() != buffers + 1 {
        return false;
    }
    let same_end = order[lo..]
        .iter()
        .rev()
        .zip(before[lo..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let hi = order.len() - same_end;
    last.clear();
    last.resize(buffers, u32::MAX);
    cursor.clear();
    cursor.resize(buffers, u32::MAX);
    // the buffers used in the span, each with where its uses there ended in
    // `before` (they began at its cursor's first value)
    let mut touched: Vec<(usize, u32)> = Vec::new();
    each_use(case, order, lo..hi, last, &mut |b, i| {
        if cursor[b] == u32::MAX {
            let own = &uses[first[b] as usize..first[b + 1] as usize];
            let end = first[b] + own.partition_point(|&u| (u as usize) < hi) as u32;
            touched.push((b, end));
            cursor[b] = first[b] + own.partition_point(|&u| (u as usize) < lo) as u32;
        }
        let c = cursor[b] as usize;
        if c < first[b + 1] as usize {
            uses[c] = i;
        }
        cursor[b] += 1;
    });
    // as many uses of each buffer in the span as `before` had there, and no
    // buffer used there in `before` but not now
    let counted = touched.iter().all(|&(b, end)| cursor[b] == end);
    let mut all_there = true;
    last.fill(u32::MAX);
    each_use(case, before, lo..hi, last, &mut |b, _| {
        all_there &= cursor[b] != u32::MAX;
    });
    counted && all_there
}

impl<'a> Allocator<'a> {
    fn new(
        case: &'a Case,
        order: &[NodeId],
        opts: SpillOptions,
        scratch: &mut Scratch,
        after: Option<(&[NodeId], &Traced, usize)>,
    ) -> Allocator<'a> {
        let buffers = case.buffers.len();
        let Traced {
            mut plan,
            mut trace,
            mut uses,
            mut first,
            ..
        } = scratch.spare.take().unwrap_or(Traced {
            plan: NpuPlan {
                schedule: Vec::new(),
                offsets: Vec::new(),
                spills: Vec::new(),
                residencies: Vec::new(),
            },
            trace: Trace::default(),
            from: 0,
            joined: 0,
            uses: Vec::new(),
            first: Vec::new(),
        });
        let mut last = std::mem::take(&mut scratch.last);
        let mut cursor = std::mem::take(&mut scratch.cursor);
        let taken = after.is_some_and(|(before, placed, shared)| {
            uses.clone_from(&placed.uses);
            first.clone_from(&placed.first);
            patch_uses(
                case,
                order,
                before,
                shared,
                &mut uses,
                &first,
                &mut last,
                &mut cursor,
            )
        });
        if !taken {
            all_uses(case, order, &mut uses, &mut first, &mut last, &mut cursor);
        }
        cursor.clear();
        cursor.extend_from_slice(&first[..buffers]);
        scratch.last = last;
        let mut resident = std::mem::take(&mut scratch.resident);
        resident.resize_with(case.levels.len(), Vec::new);
        resident.iter_mut().for_each(Vec::clear);
        let mut state = std::mem::take(&mut scratch.state);
        state.clear();
        state.resize(buffers, State::Unallocated);
        plan.schedule.clear();
        plan.schedule.reserve(order.len());
        plan.offsets.clear();
        plan.offsets.resize(buffers, 0);
        plan.spills.clear();
        plan.residencies.clear();
        trace.step_at.clear();
        trace.decisions.clear();
        trace.lists.clear();
        trace.pinned.clear();
        trace.victims.clear();
        trace.prints.clear();
        Allocator {
            case,
            opts,
            resident,
            state,
            next: NextUse {
                uses,
                first,
                cursor,
            },
            plan,
            moved: 0,
            trace,
            victims: std::mem::take(&mut scratch.victims),
            print: 0,
        }
    }

    /// The plan made and its trace, the working memory back into `scratch`.
    fn give_back(self, scratch: &mut Scratch) -> Traced {
        scratch.resident = self.resident;
        scratch.state = self.state;
        scratch.cursor = self.next.cursor;
        scratch.victims = self.victims;
        Traced {
            plan: self.plan,
            trace: self.trace,
            from: 0,
            joined: 0,
            uses: self.next.uses,
            first: self.next.first,
        }
    }

    /// Takes over `placed`, the placement of an order that agrees with this one
    /// on its first `shared` nodes, as far as it holds (see [`place_reusing`]):
    /// the input step to go on from.
    fn resume(&mut self, placed: &Traced, shared: usize) -> usize {
        let (old, trace) = (&placed.plan, &placed.trace);
        let parted = shared.min(trace.step_at.len());
        // the earlier choices, made again with this order's next uses
        let range = |r: &std::ops::Range<u32>| r.start as usize..r.end as usize;
        let mut from = parted;
        let mut kept = 0;
        for d in &trace.decisions {
            if d.i as usize >= from {
                break;
            }
            self.victims.clear();
            let room = Room {
                case: self.case,
                list: &trace.lists[range(&d.list)],
                capacity: self.case.level(d.level).capacity,
                size: d.size,
                pinned: &trace.pinned[range(&d.pinned)],
                i: d.i,
            };
            choose(&room, self.opts, &mut self.next, &mut self.victims);
            if self.victims[..] != trace.victims[range(&d.victims)] {
                from = d.i as usize;
                break;
            }
            kept += 1;
        }
        // the decisions of step `from` itself are made again
        while kept > 0 && trace.decisions[kept - 1].i as usize >= from {
            kept -= 1;
        }
        if from == 0 {
            return 0;
        }
        let t = &mut self.trace;
        if let Some(d) = trace.decisions[..kept].last() {
            t.decisions.extend_from_slice(&trace.decisions[..kept]);
            t.lists
                .extend_from_slice(&trace.lists[..d.list.end as usize]);
            t.pinned
                .extend_from_slice(&trace.pinned[..d.pinned.end as usize]);
            t.victims
                .extend_from_slice(&trace.victims[..d.victims.end as usize]);
        }
        t.step_at.extend_from_slice(&trace.step_at[..from]);
        t.prints.extend_from_slice(&trace.prints[..from]);
        // the plan and the allocator's state before step `from`
        // (the same order again: all of it)
        let at = trace
            .step_at
            .get(from)
            .map_or(old.schedule.len(), |&a| a as usize) as u32;
        let plan = &mut self.plan;
        plan.schedule
            .extend_from_slice(&old.schedule[..at as usize]);
        plan.offsets.copy_from_slice(&old.offsets);
        let stays = old.residencies.partition_point(|r| r.start < at);
        for (k, r) in old.residencies[..stays].iter().enumerate() {
            let mut r = r.clone();
            self.state[r.buffer.index()] = if r.end >= at {
                r.end = r.start;
                State::Resident(k)
            } else {
                State::Freed
            };
            plan.residencies.push(r);
        }
        let spills = old.spills.partition_point(|s| s.out_pos < at);
        for (k, s) in old.spills[..spills].iter().enumerate() {
            let mut s = s.clone();
            self.moved += s.cost;
            if s.in_pos >= at {
                (s.in_pos, s.new_offset) = (u32::MAX, 0);
                self.state[s.buffer.index()] = State::Spilled(k);
            }
            plan.spills.push(s);
        }
        residents_at(self.case, &old.residencies[..stays], at, &mut self.resident);
        self.print = self.resident.iter().enumerate().fold(0, |h, (l, list)| {
            list.iter()
                .fold(h, |h, &(o, _, b)| h ^ resident_hash(l, o, b))
        });
        from
    }

    fn pos(&self) -> u32 {
        self.plan.schedule.len() as u32
    }

    /// Before input step `i` of an order that agrees with the one `placed` was
    /// made for from `i` on: when the residents of every level are those `placed`
    /// had there (same offsets, same list order), the rest of the placement would
    /// make the same choices, so the rest of `placed` is taken, its positions and
    /// spill numbers shifted to this plan's. True when taken (the plan is then
    /// whole).
    fn rejoin(&mut self, placed: &Traced, i: usize) -> bool {
        let (old, trace) = (&placed.plan, &placed.trace);
        let at = trace.step_at[i];
        // the residents `placed` had
        let stays = old.residencies.partition_point(|r| r.start < at);
        let mut lists: Vec<Vec<(u64, u64, BufferId)>> = vec![Vec::new(); self.resident.len()];
        residents_at(self.case, &old.residencies[..stays], at, &mut lists);
        if lists != self.resident {
            return false;
        }
        let now = self.pos();
        let shift = |p: u32| if p == u32::MAX { p } else { p - at + now };
        // each open stay and spill of `placed` is this plan's one of its buffer
        for r in old.residencies[..stays].iter().filter(|r| r.end >= at) {
            let State::Resident(k) = self.state[r.buffer.index()] else {
                unreachable!("the same residents")
            };
            self.plan.residencies[k].end = shift(r.end);
        }
        let spilled = old.spills.partition_point(|s| s.out_pos < at);
        let mut number: Vec<usize> = vec![usize::MAX; spilled];
        for (k, s) in old.spills[..spilled].iter().enumerate() {
            if s.in_pos >= at {
                let State::Spilled(j) = self.state[s.buffer.index()] else {
                    unreachable!("the same residents, so the same buffers in DDR")
                };
                number[k] = j;
                let open = &mut self.plan.spills[j];
                (open.in_pos, open.new_offset) = (shift(s.in_pos), s.new_offset);
            }
        }
        let later = self.plan.spills.len();
        let renumbered = |k: usize| {
            if k < spilled {
                number[k]
            } else {
                k - spilled + later
            }
        };
        let n = self.case.nodes.len();
        for &id in &old.schedule[at as usize..] {
            let id = match id.index().checked_sub(n) {
                None => id,
                Some(k) if k % 2 == 0 => self.case.spill_out(renumbered(k / 2)),
                Some(k) => self.case.spill_in(renumbered(k / 2)),
            };
            self.plan.schedule.push(id);
        }
        for s in &old.spills[spilled..] {
            self.moved += s.cost;
            self.plan.spills.push(Spill {
                out_pos: shift(s.out_pos),
                in_pos: shift(s.in_pos),
                ..s.clone()
            });
        }
        for r in &old.residencies[stays..] {
            self.plan.residencies.push(Residency {
                start: shift(r.start),
                end: shift(r.end),
                ..r.clone()
            });
        }
        for (b, state) in self.state.iter().enumerate() {
            if *state == State::Unallocated {
                self.plan.offsets[b] = old.offsets[b];
            }
        }
        // the rest of the trace, for placements after this one
        let t = &mut self.trace;
        t.step_at
            .extend(trace.step_at[i..].iter().map(|&p| shift(p)));
        t.prints.extend_from_slice(&trace.prints[i..]);
        let first = trace.decisions.partition_point(|d| (d.i as usize) < i);
        if let Some(d) = trace.decisions.get(first) {
            let rebase = |r: &std::ops::Range<u32>, from: u32, to: usize| {
                r.start - from + to as u32..r.end - from + to as u32
            };
            let (l0, p0, v0) = (d.list.start, d.pinned.start, d.victims.start);
            let (l1, p1, v1) = (t.lists.len(), t.pinned.len(), t.victims.len());
            t.lists.extend_from_slice(&trace.lists[l0 as usize..]);
            t.pinned.extend_from_slice(&trace.pinned[p0 as usize..]);
            t.victims.extend_from_slice(&trace.victims[v0 as usize..]);
            t.decisions
                .extend(trace.decisions[first..].iter().map(|d| Decision {
                    list: rebase(&d.list, l0, l1),
                    pinned: rebase(&d.pinned, p0, p1),
                    victims: rebase(&d.victims, v0, v1),
                    ..d.clone()
                }));
        }
        true
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

/// The residents at output position `at` of each level (into `lists`, empty),
/// from `stays`, a plan's stays that began before `at`: those not ended before
/// it, by offset; at one offset (empty buffers) the latest first, as the
/// allocator inserts them (pushed latest first, then a stable sort).
fn residents_at(
    case: &Case,
    stays: &[Residency],
    at: u32,
    lists: &mut [Vec<(u64, u64, BufferId)>],
) {
    for r in stays.iter().rev().filter(|r| r.end >= at) {
        let buf = case.buffer(r.buffer);
        lists[buf.level.index()].push((r.offset, buf.size, r.buffer));
    }
    for list in lists {
        list.sort_by_key(|&(o, _, _)| o);
    }
}

/// Room wanted in a level: `size` units at input step `i`, in a level of
/// `capacity` whose residents are `list` (by offset), `pinned` staying.
struct Room<'a> {
    case: &'a Case,
    list: &'a [(u64, u64, BufferId)],
    capacity: u64,
    size: u64,
    pinned: &'a [BufferId],
    i: u32,
}

/// The victims (into `out`, in the order they leave) that the rule of `opts`
/// picks to make `room`: the cheapest window under [`Victim::Window`] where one
/// exists, else one buffer. False when nothing may leave.
fn choose(room: &Room, opts: SpillOptions, next: &mut NextUse, out: &mut Vec<BufferId>) -> bool {
    let Room {
        case,
        list,
        size,
        pinned,
        i,
        ..
    } = *room;
    if opts.victim == Victim::Window {
        if let Some(lo) = cheapest_window(room, next) {
            let hi = lo + size;
            out.extend(
                list.iter()
                    .filter(|&&(o, s, _)| o < hi && lo < o + s)
                    .map(|&(_, _, b)| b),
            );
            return true;
        }
    }
    let mut best: Option<(f64, BufferId)> = None;
    for &(_, _, v) in list {
        if pinned.contains(&v) {
            continue;
        }
        let distance = f64::from(next.at(v, i).saturating_sub(i));
        let score = match opts.victim {
            Victim::Furthest | Victim::Window => distance,
            Victim::FurthestPerCost => distance / case.buffer(v).spill_cost() as f64,
        };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, v));
        }
    }
    out.extend(best.map(|(_, v)| v));
    best.is_some()
}

/// The start of the window (0 or a resident's end) whose residents, all
/// leaving, make the room while moving the least data (ties: the latest soonest
/// next use among them).
fn cheapest_window(room: &Room, next: &mut NextUse) -> Option<u64> {
    let Room {
        case,
        list,
        capacity,
        size,
        pinned,
        i,
    } = *room;
    // (moved units, latest soonest next use first) and the window's start
    let mut best: Option<(WindowKey, u64)> = None;
    let starts = std::iter::once(0).chain(list.iter().map(|&(o, s, _)| o + s));
    for lo in starts {
        let hi = lo + size;
        if hi > capacity {
            continue;
        }
        let inside = |r: &&(u64, u64, BufferId)| r.0 < hi && lo < r.0 + r.1;
        if !list.iter().any(|r| inside(&r))
            || list.iter().any(|r| inside(&r) && pinned.contains(&r.2))
        {
            continue;
        }
        let (mut cost, mut soonest) = (0u64, u32::MAX);
        for r in list.iter().filter(inside) {
            cost += case.buffer(r.2).spill_cost();
            soonest = soonest.min(next.at(r.2, i));
        }
        let key = (cost, std::cmp::Reverse(soonest));
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, lo));
        }
    }
    best.map(|(_, lo)| lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deps::dfs_order;
    use crate::residency::schedule::{list_schedule, Priority};
    use crate::tiled::tiled_matmul;

    /// The uses of an order patched from another's where they differ equal the
    /// uses counted afresh; a span that does not hold the same uses is refused.
    #[test]
    fn patched_uses_equal_counted_ones_or_are_refused() {
        let case = tiled_matmul(3, 4, 3).unwrap();
        let before = dfs_order(&case);
        let (mut uses, mut first) = (Vec::new(), Vec::new());
        let (mut last, mut cursor) = (Vec::new(), Vec::new());
        all_uses(
            &case,
            &before,
            &mut uses,
            &mut first,
            &mut last,
            &mut cursor,
        );
        let counted = |order: &[NodeId]| {
            let (mut u, mut f, mut l, mut c) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            all_uses(&case, order, &mut u, &mut f, &mut l, &mut c);
            (u, f)
        };
        let n = before.len();
        let mut refused = 0;
        for k in 0..200 {
            let (a, b) = ((k * 37) % n, (k * 101 + 13) % n);
            let mut order = before.clone();
            if k % 4 == 3 {
                // not a reordering: one node stands in for another
                order[a] = before[b];
            } else {
                order.swap(a, b);
            }
            let mut patched = uses.clone();
            let lo = order
                .iter()
                .zip(&before)
                .take_while(|(a, b)| a == b)
                .count();
            let ok = patch_uses(
                &case,
                &order,
                &before,
                lo,
                &mut patched,
                &first,
                &mut last,
                &mut cursor,
            );
            let (u, f) = counted(&order);
            if ok {
                assert_eq!((&patched, &first), (&u, &f), "move {k}");
            } else {
                refused += 1;
            }
        }
        // the stand-ins that change some buffer's uses are refused
        assert!(refused >= 30, "{refused} refused");
    }

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
                    let cut = place_reusing(&case, order, opts, moved - 1, None, &mut scratch);
                    assert!(cut.unwrap().is_none());
                }
                let again = place_reusing(&case, order, opts, u64::MAX, None, &mut scratch);
                let again = again.unwrap().unwrap();
                assert_eq!(again.plan, fresh);
                scratch.recycle(again);
            }
        }
        assert!(
            spilled >= 10,
            "too few orders spill ({spilled}) to test much"
        );
    }

    /// A placement after an earlier one (taken over up to where the orders part
    /// or an earlier choice of victims would change, and from where the residents
    /// are the earlier ones again after the orders agree again) equals a placement
    /// from the start, over random block moves under every rule; half the moves
    /// are kept, so the earlier placement is itself often a resumed and rejoined
    /// one.
    #[test]
    fn placements_after_an_earlier_order_equal_fresh_ones() {
        use crate::residency::reorder::{pick_move, OpOrder};
        use memplan::rng::Rng;
        let case = tiled_matmul(4, 8, 4).unwrap();
        let rules = [Fit::First, Fit::Best].into_iter().flat_map(|fit| {
            [Victim::Furthest, Victim::FurthestPerCost, Victim::Window]
                .map(|victim| SpillOptions { fit, victim })
        });
        let (mut resumed, mut rejoined, mut moves) = (0, 0, 0);
        for (seed, opts) in rules.enumerate() {
            let mut rng = Rng::new(seed as u64);
            let mut search = OpOrder::new(&case, &dfs_order(&case));
            let n = search.op_count();
            let mut scratch = Scratch::default();
            let mut current = search.order();
            let mut placed = place_reusing(&case, &current, opts, u64::MAX, None, &mut scratch)
                .unwrap()
                .unwrap();
            // the same order again is the same plan, all of it taken over
            let again = place_reusing(
                &case,
                &current,
                opts,
                u64::MAX,
                Some((&current, &placed)),
                &mut scratch,
            )
            .unwrap()
            .unwrap();
            assert_eq!((&again.plan, again.from), (&placed.plan, current.len()));
            scratch.recycle(again);
            while moves < 150 * (seed + 1) {
                let (a, len, to) = pick_move(&mut rng, n, None);
                if to == a || !search.slide(a, a + len, to) {
                    continue;
                }
                moves += 1;
                let order = search.order();
                let fresh = place(&case, &order, opts).unwrap();
                // limits on both sides of the movement, and none
                let limit = match moves % 3 {
                    0 => u64::MAX,
                    1 => fresh.extra_movement(),
                    _ => fresh.extra_movement().saturating_sub(1),
                };
                let after = Some((current.as_slice(), &placed));
                let next = place_reusing(&case, &order, opts, limit, after, &mut scratch).unwrap();
                let within = fresh.extra_movement() <= limit;
                assert_eq!(next.is_some(), within, "move {moves}");
                let Some(next) = next else {
                    search.unslide(a, a + len, to);
                    continue;
                };
                assert_eq!(next.plan, fresh, "move {moves} under {opts:?}");
                resumed += usize::from(next.from > 0);
                rejoined += usize::from(next.joined < order.len());
                if rng.below(2) == 0 {
                    scratch.recycle(std::mem::replace(&mut placed, next));
                    current = order;
                } else {
                    scratch.recycle(next);
                    search.unslide(a, a + len, to);
                }
            }
        }
        assert!(
            resumed > 200 && rejoined > 200,
            "only {resumed} of {moves} placements taken over, {rejoined} rejoined"
        );
    }
}
