//! Problem 1: a schedule of all nodes keeping the resident L1+UB bytes low, with at
//! most one live buffer in each L0 level.
//!
//! Op-driven list scheduling: ALLOCs are roots and FREEs leaves, so the choice is
//! the order of the ops. Each step runs one available op (all its non-ALLOC
//! predecessors done): its pending ALLOCs go just before it, and every FREE it
//! makes ready goes right after it. Among available ops the scheduler takes the one
//! with the smallest growth (bytes it allocates minus bytes it frees), ties to the
//! lowest id. An op may open a new L0 buffer only when its level is empty and every
//! user of that buffer could then run without waiting on a level held elsewhere:
//! this keeps the one-per-level rule from deadlocking. A ranked schedule
//! ([`ranked_schedule`]) takes a rank per node from its caller instead
//! (`windows.rs` ranks ops by the L0C windows that need them).
//!
//! Why one file: the list scheduler is one loop over one `State` (the ready ops,
//! the holders of the one-buffer levels, the cached growths and the ranking it
//! keeps up to date); its methods are the steps of that loop and share its
//! invariants. The tests are the last 140 lines.

use super::cache::Cache;
use crate::case::{BufferId, Case, LevelId, Node, NodeId};
use crate::deps::{node_deps, NodeDeps};
use memplan::Error;

/// Ops ranked plus look-ahead ops visited before a capacity-aware list schedule
/// gives up (a deterministic time budget of a few seconds).
pub const WORK_LIMIT: u64 = 20_000_000;

/// Levels whose bytes count in the Problem 1 peak.
pub fn counted_levels(case: &Case) -> Vec<bool> {
    case.levels
        .iter()
        .map(|l| l.name == "L1" || l.name == "UB")
        .collect()
}

/// Levels holding at most one live buffer in Problem 1.
pub fn single_levels(case: &Case) -> Vec<bool> {
    case.levels
        .iter()
        .map(|l| l.name.starts_with("L0"))
        .collect()
}

struct State<'a> {
    case: &'a Case,
    /// Ops ranked and look-ahead ops visited so far: the cost of the schedule.
    work: std::cell::Cell<u64>,
    /// The work a capacity-aware schedule may take.
    limit: u64,
    /// Cached [`State::growth`] per node; `i64::MIN` when stale.
    growth_of: Vec<std::cell::Cell<i64>>,
    deps: NodeDeps,
    remaining: Vec<u32>,
    /// Undone predecessors that are not ALLOCs, per node.
    waiting: Vec<u32>,
    /// Ops whose non-ALLOC predecessors are all done.
    ready: std::collections::BTreeSet<NodeId>,
    done: Vec<bool>,
    /// Users (op nodes) of each buffer.
    users: Vec<Vec<NodeId>>,
    /// Live buffer of each single-buffer level.
    holder: Vec<Option<BufferId>>,
    /// Per level: its bytes count in the peak.
    counted: Vec<bool>,
    /// Per level: it holds one buffer at a time.
    single: Vec<bool>,
    order: Vec<NodeId>,
    cache: Cache,
    /// Scratch of [`State::load_cost`].
    marks: std::cell::RefCell<Marks>,
    /// For the growth priorities: the ready ops by rank, kept up to date.
    ranked: Option<Ranked>,
    /// For [`ranked_schedule`]: the rank of each node, lower first.
    rank: Option<Vec<u32>>,
}

/// The ready ops by (rank, id) for [`Priority::Growth`] and
/// [`Priority::NonGrowingFirst`], re-ranked only where an op's growth may have
/// changed (the points where its cached growth is dropped) or it became ready, so
/// a step does not rank every ready op again.
struct Ranked {
    set: std::collections::BTreeSet<(i64, NodeId)>,
    /// The rank each op holds in `set`.
    key: Vec<Option<i64>>,
    stale: Vec<bool>,
    /// The stale ops, each once.
    to_do: Vec<NodeId>,
}

impl Ranked {
    fn touch(&mut self, n: NodeId) {
        if !std::mem::replace(&mut self.stale[n.index()], true) {
            self.to_do.push(n);
        }
    }

    fn remove(&mut self, n: NodeId) {
        if let Some(k) = self.key[n.index()].take() {
            self.set.remove(&(k, n));
        }
    }
}

/// Which nodes and buffers one look-ahead (or one deadlock walk) has met: those
/// stamped with its number.
struct Marks {
    node: Vec<u32>,
    buffer: Vec<u32>,
    stamp: u32,
    bufs: Vec<BufferId>,
    frontier: Vec<NodeId>,
}

impl Marks {
    /// A stamp no node or buffer carries yet.
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.node.fill(0);
            self.buffer.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }
}

/// How the list scheduler ranks available ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// Smallest growth first, ties to the lowest id.
    Growth,
    /// Lowest id first: the case's own order, with lazy ALLOCs and eager FREEs.
    Id,
    /// Ops that do not grow memory first, each group by lowest id.
    NonGrowingFirst,
    /// Least estimated spill traffic at the levels' capacities (least recently used
    /// evicted) over the op and up to this many ops it leads to, then least growth,
    /// then lowest id.
    Capacity(usize),
}

/// A Problem 1 schedule: every node once, in a topological order.
pub fn min_residency(case: &Case) -> Result<Vec<NodeId>, Error> {
    list_schedule(case, Priority::Growth)
}

pub fn list_schedule(case: &Case, priority: Priority) -> Result<Vec<NodeId>, Error> {
    schedule(case, priority, Run::default())
}

/// A list schedule led by `rank` (one number per node, lower first): among the
/// ready ops, those that add no counted bytes and open no single-buffer level run
/// first, then the others by rank; ties by growth, then id. The single-buffer
/// levels are kept as in [`list_schedule`].
pub fn ranked_schedule(case: &Case, rank: &[u32]) -> Result<Vec<NodeId>, Error> {
    schedule_with(case, Priority::Growth, Run::default(), Some(rank))
}

/// How [`schedule`] runs (the tests compare the ways).
#[derive(Clone, Copy)]
struct Run {
    /// Rank every ready op at every step, as before the growth priorities kept
    /// their ranks.
    rank_all: bool,
    /// The work a capacity-aware schedule may take.
    limit: u64,
    /// Give up as soon as the limit is sure to be passed ([`work_after`]), not
    /// only once it is.
    foresee: bool,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            rank_all: false,
            limit: WORK_LIMIT,
            foresee: true,
        }
    }
}

/// [`list_schedule`], run as `run` says.
fn schedule(case: &Case, priority: Priority, run: Run) -> Result<Vec<NodeId>, Error> {
    schedule_with(case, priority, run, None)
}

/// [`schedule`], led by `rank` when given ([`ranked_schedule`]).
fn schedule_with(
    case: &Case,
    priority: Priority,
    run: Run,
    rank: Option<&[u32]>,
) -> Result<Vec<NodeId>, Error> {
    let Run {
        rank_all,
        limit,
        foresee,
    } = run;
    let mut s = State::new(case);
    s.limit = limit;
    s.rank = rank.map(<[u32]>::to_vec);
    let growth = matches!(priority, Priority::Growth | Priority::NonGrowingFirst);
    if growth && !rank_all {
        let mut ranked = Ranked {
            set: std::collections::BTreeSet::new(),
            key: vec![None; case.nodes.len()],
            stale: vec![false; case.nodes.len()],
            to_do: Vec::new(),
        };
        s.ready.iter().for_each(|&o| ranked.touch(o));
        s.ranked = Some(ranked);
    }
    // ops not yet run, this step's included
    let mut left = case.node_ids().filter(|&i| case.is_op(i)).count() as u64;
    while !s.ready.is_empty() {
        s.work.set(s.work.get() + s.ready.len() as u64);
        // over the limit now, or sure to be before the end
        let sure = s.work.get() + work_after(s.ready.len() as u64, left) * u64::from(foresee);
        if matches!(priority, Priority::Capacity(_)) && sure > limit {
            return Err(Error::limit(
                format!("the work of the {priority:?} list schedule"),
                sure,
                limit,
            ));
        }
        left = left.saturating_sub(1);
        let pick = match priority {
            Priority::Id => s.ready.iter().copied().find(|&o| s.l0_ok(o)),
            _ if growth && !rank_all => s.ranked_pick(priority),
            _ => {
                let ranked: Vec<(u64, i64, NodeId)> = s
                    .ready
                    .iter()
                    .map(|&o| match priority {
                        Priority::Growth | Priority::Id => (0, s.growth(o), o),
                        Priority::NonGrowingFirst => (0, i64::from(s.growth(o) > 0), o),
                        Priority::Capacity(depth) => (s.load_cost(o, depth), s.growth(o), o),
                    })
                    .collect();
                let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, i64, NodeId)>> =
                    ranked.into_iter().map(std::cmp::Reverse).collect();
                std::iter::from_fn(|| heap.pop())
                    .map(|std::cmp::Reverse((_, _, o))| o)
                    .find(|&o| s.l0_ok(o))
            }
        };
        let Some(op) = pick else {
            let stuck = *s.ready.iter().next().unwrap();
            return Err(Error::invalid(format!(
                "problem 1 scheduler is stuck: {} waits for an L0 level held by another buffer",
                case.describe(stuck)
            )));
        };
        s.run_op(op);
    }
    if let Some(op) = case
        .node_ids()
        .find(|&i| !s.done[i.index()] && case.is_op(i))
    {
        return Err(Error::invalid(format!(
            "problem 1 scheduler is stuck: {} never becomes available",
            case.describe(op)
        )));
    }
    // ALLOC/FREE pairs of buffers no op uses
    for i in case.node_ids() {
        if !s.done[i.index()] {
            s.emit(i);
        }
    }
    Ok(s.order)
}

/// The least work the steps after this one can take, with `ready` ops ready now
/// and `left` ops to run (this step's included): each step ranks every ready op,
/// and a step takes one op out of the ready ones, so the next step has at least
/// `ready - 1`, the one after `ready - 2`, and so on, never fewer than one. A
/// schedule whose work so far and this bound pass the limit fails as surely (or
/// gets stuck) as if it went on; it stops at once instead.
fn work_after(ready: u64, left: u64) -> u64 {
    let steps = left.saturating_sub(1);
    // steps with ready - k > 1 ops ready (k = 1, 2, ...), then one each
    let shrinking = steps.min(ready.saturating_sub(1));
    let first = ready.saturating_sub(1);
    let last = ready.saturating_sub(shrinking);
    (first + last) * shrinking / 2 + (steps - shrinking)
}

impl<'a> State<'a> {
    fn new(case: &'a Case) -> State<'a> {
        let deps = node_deps(case);
        let remaining = deps.pred.iter().map(|p| p.len() as u32).collect();
        let waiting: Vec<u32> = deps
            .pred
            .iter()
            .map(|p| p.iter().filter(|&&q| !case.is_alloc(q)).count() as u32)
            .collect();
        let ready = case
            .node_ids()
            .filter(|&i| waiting[i.index()] == 0 && case.is_op(i))
            .collect();
        let mut users: Vec<Vec<NodeId>> = vec![Vec::new(); case.buffers.len()];
        for (i, n) in case.node_ids().zip(&case.nodes) {
            if let Node::Op(op) = n {
                for &b in &op.bufs {
                    users[b.index()].push(i);
                }
            }
        }
        State {
            case,
            work: std::cell::Cell::new(0),
            limit: WORK_LIMIT,
            growth_of: (0..case.nodes.len())
                .map(|_| std::cell::Cell::new(i64::MIN))
                .collect(),
            deps,
            remaining,
            waiting,
            ready,
            done: vec![false; case.nodes.len()],
            users,
            holder: vec![None; case.levels.len()],
            counted: counted_levels(case),
            single: single_levels(case),
            order: Vec::with_capacity(case.nodes.len()),
            cache: Cache::new(case),
            marks: std::cell::RefCell::new(Marks {
                node: vec![0; case.nodes.len()],
                buffer: vec![0; case.buffers.len()],
                stamp: 0,
                bufs: Vec::new(),
                frontier: Vec::new(),
            }),
            ranked: None,
            rank: None,
        }
    }

    /// Level of buffer `b`.
    fn level(&self, b: BufferId) -> LevelId {
        self.case.buffer(b).level
    }

    fn is_single(&self, level: LevelId) -> bool {
        self.single[level.index()]
    }

    fn holder(&self, level: LevelId) -> Option<BufferId> {
        self.holder[level.index()]
    }

    fn is_done(&self, n: NodeId) -> bool {
        self.done[n.index()]
    }

    /// Buffers `op` needs that are not allocated yet.
    fn new_buffers(&self, op: NodeId) -> impl Iterator<Item = BufferId> + '_ {
        self.deps
            .pred(op)
            .iter()
            .filter(|&&p| !self.is_done(p))
            .filter_map(|&p| match self.case.node(p) {
                Node::Alloc(b) => Some(*b),
                _ => None,
            })
    }

    /// The first ready op by (rank, id) that [`State::l0_ok`] lets run, the ranks
    /// of the ops touched since the last pick brought up to date first.
    fn ranked_pick(&mut self, priority: Priority) -> Option<NodeId> {
        let mut r = self
            .ranked
            .take()
            .expect("ranked for the growth priorities");
        for x in std::mem::take(&mut r.to_do) {
            r.stale[x.index()] = false;
            if !self.ready.contains(&x) {
                continue;
            }
            r.remove(x);
            let g = self.growth(x);
            let key = match (priority, &self.rank) {
                (_, Some(rank)) => self.rank_key(x, g, rank),
                (Priority::NonGrowingFirst, _) => i64::from(g > 0),
                _ => g,
            };
            r.set.insert((key, x));
            r.key[x.index()] = Some(key);
        }
        let pick = r.set.iter().map(|&(_, o)| o).find(|&o| self.l0_ok(o));
        self.ranked = Some(r);
        pick
    }

    /// The key of `op` (growth `g`) in a [`ranked_schedule`]: 0 when it adds no
    /// counted bytes and opens no single-buffer level, else one more than its rank;
    /// then its growth.
    fn rank_key(&self, op: NodeId, g: i64, rank: &[u32]) -> i64 {
        let opens = self.new_buffers(op).any(|b| self.is_single(self.level(b)));
        let first = if g <= 0 && !opens {
            0
        } else {
            1 + i64::from(rank[op.index()])
        };
        const HALF: i64 = 1 << 31;
        (first << 32) + g.clamp(-HALF, HALF - 1)
    }

    fn l0_ok(&self, op: NodeId) -> bool {
        let mut claimed: Vec<LevelId> = Vec::new();
        for b in self.new_buffers(op) {
            let level = self.level(b);
            if !self.is_single(level) {
                continue;
            }
            if self.holder(level).is_some() || claimed.contains(&level) {
                return false;
            }
            claimed.push(level);
        }
        // a new L0 buffer x may not wait on a level whose holder in turn waits on x's level
        for x in self.new_buffers(op) {
            let level = self.level(x);
            if self.is_single(level) && self.would_deadlock(x, level) {
                return false;
            }
        }
        true
    }

    fn is_live(&self, b: BufferId) -> bool {
        self.holder(self.level(b)) == Some(b)
    }

    /// True when opening `x` could leave its level locked forever: a user of `x` waits
    /// on an op that needs another new buffer on `x`'s level, or needs a buffer on a
    /// level held by `y` while a remaining user of `y` needs a new buffer on `x`'s level.
    fn would_deadlock(&self, x: BufferId, level: LevelId) -> bool {
        self.waits_on_level(x, level) || self.crosses_holder(x, level)
    }

    /// Searches the undone ancestors of `x`'s users for an op needing a new buffer on `level`.
    fn waits_on_level(&self, x: BufferId, level: LevelId) -> bool {
        const LIMIT: usize = 4096;
        // nodes seen carry this walk's stamp
        let mut marks = self.marks.borrow_mut();
        let stamp = marks.next_stamp();
        let Marks {
            node,
            frontier: stack,
            ..
        } = &mut *marks;
        let mut seen = 0usize;
        stack.clear();
        stack.extend(
            self.users[x.index()]
                .iter()
                .copied()
                .filter(|&u| !self.is_done(u)),
        );
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut node[n.index()], stamp) == stamp {
                continue;
            }
            seen += 1;
            if seen > LIMIT {
                return true;
            }
            if let Node::Op(op) = self.case.node(n) {
                let needs = op
                    .bufs
                    .iter()
                    .any(|&w| w != x && self.level(w) == level && !self.is_live(w));
                if needs && !op.bufs.contains(&x) {
                    return true;
                }
            }
            stack.extend(
                self.deps
                    .pred(n)
                    .iter()
                    .copied()
                    .filter(|&p| !self.is_done(p) && !self.case.is_alloc(p)),
            );
        }
        false
    }

    fn crosses_holder(&self, x: BufferId, level: LevelId) -> bool {
        for &u in &self.users[x.index()] {
            let Node::Op(user) = self.case.node(u) else {
                continue;
            };
            for &z in &user.bufs {
                let lz = self.level(z);
                if z == x || !self.is_single(lz) || self.is_live(z) {
                    continue;
                }
                let Some(y) = self.holder(lz) else { continue };
                for &v in self.users[y.index()].iter().filter(|&&v| !self.is_done(v)) {
                    let Node::Op(other) = self.case.node(v) else {
                        continue;
                    };
                    let blocked = other
                        .bufs
                        .iter()
                        .any(|&w| w != x && self.level(w) == level && !self.is_live(w));
                    if blocked {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Estimated spill traffic to make `op`'s buffers resident at the levels'
    /// capacities. It looks one op ahead: the buffers of every undone op feeding the
    /// same successors count too, so a step is cheap only when its partners' data is
    /// resident as well.
    fn load_cost(&self, op: NodeId, lookahead: usize) -> u64 {
        let Node::Op(o) = self.case.node(op) else {
            return 0;
        };
        let mut marks = self.marks.borrow_mut();
        let stamp = marks.next_stamp();
        let Marks {
            node,
            buffer,
            bufs,
            frontier,
            ..
        } = &mut *marks;
        // the op's own buffers as they are listed (a repeat counts twice), then
        // each partner's new ones
        bufs.clear();
        bufs.extend_from_slice(&o.bufs);
        o.bufs.iter().for_each(|b| buffer[b.index()] = stamp);
        node[op.index()] = stamp;
        let mut seen = 1usize;
        frontier.clear();
        frontier.push(op);
        // once `lookahead` ops are seen nothing more is added: stop there
        'walk: while let Some(a) = frontier.pop() {
            for &s in self.deps.succ(a) {
                if !self.case.is_op(s) {
                    continue;
                }
                for &q in self.deps.pred(s).iter().chain(std::iter::once(&s)) {
                    if seen >= lookahead {
                        break 'walk;
                    }
                    let Node::Op(partner) = self.case.node(q) else {
                        continue;
                    };
                    if self.is_done(q) || node[q.index()] == stamp {
                        continue;
                    }
                    node[q.index()] = stamp;
                    seen += 1;
                    self.work.set(self.work.get() + 1);
                    if self.work.get() > self.limit {
                        return u64::MAX;
                    }
                    frontier.push(q);
                    for &b in &partner.bufs {
                        if buffer[b.index()] != stamp {
                            buffer[b.index()] = stamp;
                            bufs.push(b);
                        }
                    }
                }
            }
        }
        self.cache
            .cost_to_load(self.case, bufs, |b| buffer[b.index()] == stamp)
    }

    /// Counted bytes `op` allocates minus those it frees.
    fn growth(&self, op: NodeId) -> i64 {
        let cached = self.growth_of[op.index()].get();
        if cached != i64::MIN {
            return cached;
        }
        let g = self.compute_growth(op);
        self.growth_of[op.index()].set(g);
        g
    }

    fn compute_growth(&self, op: NodeId) -> i64 {
        let mut g: i64 = 0;
        for b in self.new_buffers(op) {
            let buf = self.case.buffer(b);
            if self.counted[buf.level.index()] {
                g += buf.size as i64;
            }
        }
        for &s in self.deps.succ(op) {
            if let Node::Free(b) = self.case.node(s) {
                // `op` is an undone predecessor of `s`: it frees `b` when it is the last
                let buf = self.case.buffer(*b);
                if self.remaining[s.index()] == 1 && self.counted[buf.level.index()] {
                    g -= buf.size as i64;
                }
            }
        }
        g
    }

    fn emit(&mut self, n: NodeId) {
        self.done[n.index()] = true;
        self.order.push(n);
        match self.case.node(n) {
            Node::Alloc(b) => {
                let b = *b;
                self.cache.load(self.case, &[b]);
                let level = self.level(b);
                if self.is_single(level) {
                    self.holder[level.index()] = Some(b);
                }
            }
            Node::Free(b) => {
                let b = *b;
                self.cache.drop(self.case, b);
                let level = self.level(b);
                if self.holder(level) == Some(b) {
                    self.holder[level.index()] = None;
                }
            }
            Node::Op(op) => self.cache.load(self.case, &op.bufs),
        }
        let alloc = self.case.is_alloc(n);
        self.ready.remove(&n);
        if let Some(r) = self.ranked.as_mut() {
            r.remove(n);
        }
        for k in 0..self.deps.succ(n).len() {
            let s = self.deps.succ(n)[k];
            self.remaining[s.index()] -= 1;
            // growth reads undone ALLOC predecessors and the FREEs an op completes
            self.growth_of[s.index()].set(i64::MIN);
            if let Some(r) = self.ranked.as_mut() {
                r.touch(s);
            }
            if self.case.is_free(s) {
                for &q in self.deps.pred(s) {
                    self.growth_of[q.index()].set(i64::MIN);
                    if let Some(r) = self.ranked.as_mut() {
                        r.touch(q);
                    }
                }
            }
            if !alloc {
                self.waiting[s.index()] -= 1;
                if self.waiting[s.index()] == 0 && self.case.is_op(s) {
                    self.ready.insert(s);
                    if let Some(r) = self.ranked.as_mut() {
                        r.touch(s);
                    }
                }
            }
        }
    }

    fn run_op(&mut self, op: NodeId) {
        let allocs: Vec<NodeId> = self
            .deps
            .pred(op)
            .iter()
            .copied()
            .filter(|&p| !self.is_done(p))
            .collect();
        for a in allocs {
            self.emit(a);
        }
        self.emit(op);
        let frees: Vec<NodeId> = self
            .deps
            .succ(op)
            .iter()
            .copied()
            .filter(|&s| self.case.is_free(s) && self.remaining[s.index()] == 0 && !self.is_done(s))
            .collect();
        for f in frees {
            self.emit(f);
        }
    }
}

/// Peak of counted (L1+UB) bytes walking `order`'s ALLOC and FREE nodes.
pub fn residency_peak(case: &Case, order: &[NodeId]) -> u64 {
    let counted = counted_levels(case);
    let counts = |b: &BufferId| counted[case.buffer(*b).level.index()];
    let (mut live, mut peak) = (0u64, 0u64);
    for &n in order {
        match case.nodes.get(n.index()) {
            Some(Node::Alloc(b)) if counts(b) => {
                live += case.buffer(*b).size;
                peak = peak.max(live);
            }
            Some(Node::Free(b)) if counts(b) => live -= case.buffer(*b).size,
            _ => {}
        }
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiled::tiled_matmul;

    /// The growth priorities keep their ranks from step to step; ranking every
    /// ready op at every step gives the same schedule, forwards and reversed.
    #[test]
    fn kept_ranks_schedule_as_ranking_every_step() {
        for (m, k, n) in [(2, 3, 2), (3, 4, 5), (6, 5, 3), (8, 8, 8)] {
            let case = tiled_matmul(m, k, n).unwrap();
            for case in [case.reversed(), case] {
                for p in [Priority::Growth, Priority::NonGrowingFirst] {
                    let kept = schedule(&case, p, Run::default()).unwrap();
                    let all = Run {
                        rank_all: true,
                        ..Run::default()
                    };
                    let every = schedule(&case, p, all).unwrap();
                    assert_eq!(kept, every, "{m}x{k}x{n} {p:?}");
                }
            }
        }
    }

    /// A ranked schedule follows its ranks where the levels let it: ranked from
    /// the last node to the first, a tiled matmul opens its C tiles (L0C) last to
    /// first, and the order is topological and keeps one buffer per L0 level;
    /// ranked from the first node, it opens them first to last.
    #[test]
    fn a_ranked_schedule_follows_its_ranks() {
        let case = tiled_matmul(3, 2, 3).unwrap();
        let n = case.nodes.len() as u32;
        let opened = |order: &[NodeId]| -> Vec<usize> {
            order
                .iter()
                .filter_map(|&v| match case.node(v) {
                    Node::Alloc(b) if case.level(case.buffer(*b).level).name == "L0C" => {
                        Some(b.index())
                    }
                    _ => None,
                })
                .collect()
        };
        let check = |order: &[NodeId]| {
            let mut pos = vec![usize::MAX; case.nodes.len()];
            order
                .iter()
                .enumerate()
                .for_each(|(p, v)| pos[v.index()] = p);
            assert!(pos.iter().all(|&p| p != usize::MAX));
            assert!(case
                .edges
                .iter()
                .all(|&(a, b)| pos[a.index()] < pos[b.index()]));
            let single = single_levels(&case);
            let mut live = vec![0; case.levels.len()];
            for &v in order {
                match case.node(v) {
                    Node::Alloc(b) => live[case.buffer(*b).level.index()] += 1,
                    Node::Free(b) => live[case.buffer(*b).level.index()] -= 1,
                    Node::Op(_) => {}
                }
                assert!((0..live.len()).all(|l| !single[l] || live[l] <= 1));
            }
        };
        let backwards: Vec<u32> = (0..n).map(|i| n - 1 - i).collect();
        let order = ranked_schedule(&case, &backwards).unwrap();
        check(&order);
        let tiles = opened(&order);
        assert_eq!(tiles.len(), 9);
        assert!(tiles.windows(2).all(|w| w[0] > w[1]), "{tiles:?}");
        let forwards: Vec<u32> = (0..n).collect();
        let order = ranked_schedule(&case, &forwards).unwrap();
        check(&order);
        let tiles = opened(&order);
        assert!(tiles.windows(2).all(|w| w[0] < w[1]), "{tiles:?}");
    }

    /// The least work after a step, summed the slow way: every later step with one
    /// ready op fewer than the step before, never fewer than one.
    #[test]
    fn the_work_after_a_step_is_the_least_the_steps_left_can_take() {
        for ready in 1..40u64 {
            for left in 1..60u64 {
                let slow: u64 = (1..left).map(|k| ready.saturating_sub(k).max(1)).sum();
                assert_eq!(work_after(ready, left), slow, "{ready} ready, {left} left");
            }
        }
    }

    /// Giving up once the limit is sure to be passed changes no outcome: for
    /// limits from far too small to ample, and at the least limit a schedule
    /// needs, the capacity-aware schedules succeed with the same order or fail
    /// alike with and without foresight.
    #[test]
    fn foreseen_failures_are_failures() {
        let (mut ok, mut failed) = (0, 0);
        for (m, k, n) in [(3, 4, 5), (6, 5, 3)] {
            let case = tiled_matmul(m, k, n).unwrap();
            for depth in [1, 4, 16] {
                let run = |limit, foresee| {
                    let run = Run {
                        limit,
                        foresee,
                        ..Run::default()
                    };
                    schedule(&case, Priority::Capacity(depth), run).ok()
                };
                let mut limits = vec![];
                let mut limit = 64;
                while limit < 4_000_000 {
                    limits.push(limit);
                    limit = limit * 5 / 4;
                }
                // the least limit it succeeds at, and the one below
                let (mut lo, mut hi) = (0u64, 4_000_000u64);
                assert!(run(hi, false).is_some());
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if run(mid, false).is_some() {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                limits.extend([lo, hi]);
                for limit in limits {
                    let sure = run(limit, true);
                    let at = format!("{m}x{k}x{n} depth {depth} limit {limit}");
                    assert_eq!(sure, run(limit, false), "{at}");
                    if sure.is_some() {
                        ok += 1;
                    } else {
                        failed += 1;
                    }
                }
            }
        }
        assert!(ok > 20 && failed > 20, "{ok} succeed, {failed} fail");
    }
}
