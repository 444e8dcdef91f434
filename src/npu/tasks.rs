//! Problem 2: orders searched at the level of tasks, with a fast spill model.
//!
//! A task is a sink op (one whose successors are all FREEs) with the ops that lead
//! only to it; ops leading to several sinks are shared and run with the first task
//! that needs them. Any permutation of the tasks gives a valid order: each task
//! in turn runs its undone ancestors, furthest from the sink first.
//!
//! Tasks may also run in groups of `width` consecutive tasks of the permutation,
//! interleaved step by step (ops by distance to their sink), when the levels hold
//! the own buffers of that many tasks at once: two tiles of a matmul accumulating
//! side by side share one operand on every step. A nearest-neighbour chain
//! (`chain.rs`) gives the annealing a start that already walks neighbouring tasks.
//!
//! The model: the accesses to buffers that several tasks read, flattened in
//! emission order, replayed with furthest-next-use eviction at the levels'
//! capacities (no addresses). Simulated annealing over the permutation (swaps,
//! moves, reversals) with a deterministic random sequence and a budget in replayed
//! accesses; the allocator of `spill.rs` judges the orders it returns.

use super::cache::spill_cost;
use super::case::{Case, Node};
use crate::order::Deps;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Starting temperature of the annealing, in units of the largest buffer.
const HEAT: f64 = 0.75;

/// Marks an op shared by several tasks.
const SHARED: u32 = u32::MAX;

pub struct Tasks<'a> {
    case: &'a Case,
    deps: Deps,
    /// Task of each node (ops only), or [`SHARED`].
    task_of: Vec<u32>,
    /// Longest path in ops from each op to a sink.
    height: Vec<u32>,
    /// Position of each node in the base order.
    base_pos: Vec<u32>,
    /// Per task, the accesses of its own ops to buffers of several tasks:
    /// `(height, base position, buffer)`, sorted.
    accesses: Vec<Vec<(u32, u32, u32)>>,
    /// Capacity of each level left for the shared buffers.
    capacity: Vec<u64>,
    /// Tasks run side by side.
    width: usize,
    /// Per task, its distinct buffers of several tasks, sorted.
    shared: Vec<Vec<u32>>,
    /// Per buffer of several tasks, the tasks that use it.
    readers: Vec<Vec<u32>>,
    /// Replayed accesses so far: the cost of the search.
    pub work: u64,
    scratch: Scratch,
}

impl<'a> Tasks<'a> {
    /// The tasks of `case`, with `base` (a topological order of all nodes) breaking
    /// ties inside a task, run `width` at a time. `None` when there are fewer than
    /// three tasks, or when `width > 1` and the levels cannot hold the own buffers
    /// of `width` tasks beside the largest buffer of several tasks.
    pub fn new(case: &'a Case, base: &[u32], width: usize) -> Option<Tasks<'a>> {
        let deps = Deps::from_edges(case.nodes.len(), &case.edges);
        let n = case.nodes.len();
        let is_op = |i: usize| matches!(case.nodes[i], Node::Op(_));
        let mut base_pos = vec![0u32; n];
        for (p, &id) in base.iter().enumerate() {
            base_pos[id as usize] = p as u32;
        }
        let mut task_of = vec![SHARED; n];
        let mut height = vec![0u32; n];
        let mut sinks = 0u32;
        // reverse topological: successors first
        for &id in base.iter().rev() {
            let i = id as usize;
            if !is_op(i) {
                continue;
            }
            let succ_ops: Vec<usize> = deps.succ[i]
                .iter()
                .map(|&s| s as usize)
                .filter(|&s| is_op(s))
                .collect();
            if succ_ops.is_empty() {
                task_of[i] = sinks;
                sinks += 1;
                continue;
            }
            height[i] = 1 + succ_ops.iter().map(|&s| height[s]).max().unwrap_or(0);
            let first = task_of[succ_ops[0]];
            if succ_ops.iter().all(|&s| task_of[s] == first) {
                task_of[i] = first;
            }
        }
        if sinks < 3 {
            return None;
        }
        let mut readers: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
        let mut accesses: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); sinks as usize];
        for (i, node) in case.nodes.iter().enumerate() {
            let Node::Op(op) = node else { continue };
            if task_of[i] == SHARED {
                continue;
            }
            for &b in &op.bufs {
                let r = &mut readers[b as usize];
                if !r.contains(&task_of[i]) {
                    r.push(task_of[i]);
                }
                accesses[task_of[i] as usize].push((height[i], base_pos[i], b));
            }
        }
        let mut capacity: Vec<u64> = case.levels.iter().map(|l| l.capacity).collect();
        // per level, the largest buffer of one task and of several
        let mut largest_own = vec![0u64; case.levels.len()];
        let mut largest_shared = vec![0u64; case.levels.len()];
        for (b, r) in readers.iter().enumerate() {
            let buf = &case.buffers[b];
            let largest = match r.len() {
                0 => continue,
                1 => &mut largest_own[buf.level],
                _ => &mut largest_shared[buf.level],
            };
            *largest = (*largest).max(buf.size);
        }
        let width = width.max(1);
        for l in 0..capacity.len() {
            let own = largest_own[l].saturating_mul(width as u64);
            if width > 1 && own.saturating_add(largest_shared[l]) > capacity[l] {
                return None;
            }
            capacity[l] = capacity[l].saturating_sub(own);
        }
        for list in &mut accesses {
            list.retain(|&(_, _, b)| readers[b as usize].len() > 1);
            list.sort_unstable_by_key(|&(h, p, _)| (Reverse(h), p));
        }
        let shared: Vec<Vec<u32>> = accesses
            .iter()
            .map(|list| {
                let mut bufs: Vec<u32> = list.iter().map(|a| a.2).collect();
                bufs.sort_unstable();
                bufs.dedup();
                bufs
            })
            .collect();
        for r in &mut readers {
            if r.len() < 2 {
                r.clear();
            }
            r.sort_unstable();
        }
        Some(Tasks {
            case,
            deps,
            task_of,
            height,
            base_pos,
            accesses,
            capacity,
            width,
            shared,
            readers,
            work: 0,
            scratch: Scratch::new(case),
        })
    }

    /// Tasks run side by side.
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn len(&self) -> usize {
        self.accesses.len()
    }

    /// Accesses one evaluation of the model replays.
    pub fn accesses_per_run(&self) -> u64 {
        self.accesses.iter().map(|a| a.len() as u64).sum()
    }

    /// Tasks in the order their sinks appear in `order`.
    pub fn permutation_of(&self, order: &[u32]) -> Vec<u32> {
        let n = self.case.nodes.len();
        let mut perm: Vec<u32> = order
            .iter()
            .filter(|&&id| (id as usize) < n)
            .filter(|&&id| {
                let i = id as usize;
                matches!(self.case.nodes[i], Node::Op(_))
                    && self.task_of[i] != SHARED
                    && self.deps.succ[i]
                        .iter()
                        .all(|&s| !matches!(self.case.nodes[s as usize], Node::Op(_)))
            })
            .map(|&id| self.task_of[id as usize])
            .collect();
        perm.dedup();
        perm
    }

    /// Modelled data movement of running the tasks in `perm`.
    pub fn cost(&mut self, perm: &[u32]) -> u64 {
        let mut seq = std::mem::take(&mut self.scratch.seq);
        seq.clear();
        for group in perm.chunks(self.width) {
            self.interleave(group, &mut seq);
        }
        self.work += seq.len() as u64;
        let moved = replay(self.case, &self.capacity, &seq, &mut self.scratch);
        self.scratch.seq = seq;
        moved
    }

    /// Appends to `seq` the accesses of the tasks of `group` run side by side:
    /// merged by distance to the sink, then by base position.
    fn interleave(&self, group: &[u32], seq: &mut Vec<u32>) {
        if let [t] = group {
            seq.extend(self.accesses[*t as usize].iter().map(|a| a.2));
            return;
        }
        let lists: Vec<&[(u32, u32, u32)]> = group
            .iter()
            .map(|&t| self.accesses[t as usize].as_slice())
            .collect();
        let mut at = vec![0usize; lists.len()];
        loop {
            let next = (0..lists.len())
                .filter(|&k| at[k] < lists[k].len())
                .min_by_key(|&k| {
                    let (h, p, _) = lists[k][at[k]];
                    (Reverse(h), p)
                });
            let Some(k) = next else { break };
            seq.push(lists[k][at[k]].2);
            at[k] += 1;
        }
    }

    /// The nearest-neighbour chain of the tasks (see `chain.rs`), ties to the
    /// earlier task of `start`.
    pub fn chain(&self, start: &[u32]) -> Vec<u32> {
        super::chain::chain(&self.shared, &self.readers, self.width, start)
    }

    /// The order of all nodes that runs the tasks of `perm`: ops by (rank of the
    /// task, distance to the sink, base position), each ALLOC just before its first
    /// user, each FREE right after its last. A shared op runs with the first task
    /// that needs it: one step ahead of the op that needs it when `ahead` (its
    /// buffer loaded while the step before runs), else in the same step (the buffer
    /// takes room only when needed, as the spill model assumes).
    pub fn order(&self, perm: &[u32], ahead: bool) -> Vec<u32> {
        let case = self.case;
        let n = case.nodes.len();
        let is_op = |i: usize| matches!(case.nodes[i], Node::Op(_));
        let mut rank = vec![0u32; self.len()];
        for (k, &t) in perm.iter().enumerate() {
            rank[t as usize] = (k / self.width) as u32;
        }
        // (task rank, distance to the sink); a shared op runs with the first task
        // that needs it, with or a step ahead of the op that needs it
        let mut need = vec![(u32::MAX, Reverse(0u32)); n];
        let mut by_pos: Vec<usize> = (0..n).filter(|&i| is_op(i)).collect();
        by_pos.sort_unstable_by_key(|&i| Reverse(self.base_pos[i]));
        for &i in &by_pos {
            need[i] = match self.task_of[i] {
                SHARED => self.deps.succ[i]
                    .iter()
                    .filter(|&&s| is_op(s as usize))
                    .map(|&s| {
                        let (r, Reverse(h)) = need[s as usize];
                        (r, Reverse(h + u32::from(ahead)))
                    })
                    .min()
                    .unwrap_or((0, Reverse(0))),
                t => (rank[t as usize], Reverse(self.height[i])),
            };
        }
        let key = |i: usize| (need[i], self.base_pos[i], i as u32);
        let mut waiting: Vec<u32> = (0..n)
            .map(|i| {
                self.deps.pred[i]
                    .iter()
                    .filter(|&&p| is_op(p as usize))
                    .count() as u32
            })
            .collect();
        let mut remaining: Vec<u32> = (0..n).map(|i| self.deps.pred[i].len() as u32).collect();
        let mut heap: BinaryHeap<Reverse<_>> = (0..n)
            .filter(|&i| is_op(i) && waiting[i] == 0)
            .map(|i| Reverse(key(i)))
            .collect();
        let mut done = vec![false; n];
        let mut out = Vec::with_capacity(n);
        let emit = |i: usize, out: &mut Vec<u32>, done: &mut Vec<bool>| {
            done[i] = true;
            out.push(i as u32);
        };
        while let Some(Reverse(k)) = heap.pop() {
            let op = k.2 as usize;
            for &p in &self.deps.pred[op] {
                if !done[p as usize] {
                    emit(p as usize, &mut out, &mut done);
                    for &s in &self.deps.succ[p as usize] {
                        remaining[s as usize] -= 1;
                    }
                }
            }
            emit(op, &mut out, &mut done);
            for &s in &self.deps.succ[op] {
                let s = s as usize;
                remaining[s] -= 1;
                waiting[s] -= 1;
                if is_op(s) && waiting[s] == 0 {
                    heap.push(Reverse(key(s)));
                } else if !is_op(s) && remaining[s] == 0 {
                    emit(s, &mut out, &mut done);
                }
            }
        }
        // buffers no op uses
        out.extend((0..n as u32).filter(|&i| !done[i as usize]));
        out
    }

    /// Simulated annealing over the task order from `start`, until `budget`
    /// accesses have been replayed: the best permutation found and its cost.
    pub fn anneal(&mut self, start: &[u32], budget: u64, seed: u64) -> (Vec<u32>, u64) {
        let mut rng = XorShift(seed | 1);
        let mut perm = start.to_vec();
        let mut cost = self.cost(&perm);
        let (mut best, mut best_cost) = (perm.clone(), cost);
        let len = perm.len();
        let typical = self.case.buffers.iter().map(|b| b.size).max().unwrap_or(1) as f64;
        let first = self.work;
        while self.work - first < budget && len > 1 {
            let progress = (self.work - first) as f64 / budget as f64;
            let temperature = typical * HEAT * (1.0 - progress).powi(2);
            let mut next = perm.clone();
            // with groups, half of the moves take whole groups: they keep the
            // pairings the other half try
            let g = self.width;
            if g > 1 && len >= 2 * g && rng.below(2) == 0 {
                let groups = len / g;
                let (a, b) = (rng.below(groups), rng.below(groups));
                if a == b {
                    continue;
                }
                let (lo, hi) = (a.min(b), a.max(b));
                match rng.below(3) {
                    0 => {
                        let (left, right) = next.split_at_mut(hi * g);
                        left[lo * g..(lo + 1) * g].swap_with_slice(&mut right[..g]);
                    }
                    1 if a < b => next[a * g..(b + 1) * g].rotate_left(g),
                    1 => next[b * g..(a + 1) * g].rotate_right(g),
                    _ => next[lo * g..(hi + 1) * g].reverse(),
                }
            } else {
                let i = rng.below(len);
                let j = rng.below(len);
                if i == j {
                    continue;
                }
                match rng.below(3) {
                    0 => next.swap(i, j),
                    1 => {
                        let t = next.remove(i);
                        next.insert(j, t);
                    }
                    _ => next[i.min(j)..=i.max(j)].reverse(),
                }
            }
            let c = self.cost(&next);
            let accept = c <= cost
                || (temperature > 0.0 && rng.unit() < (-((c - cost) as f64) / temperature).exp());
            if accept {
                perm = next;
                cost = c;
                if cost < best_cost {
                    best_cost = cost;
                    best = perm.clone();
                }
            }
        }
        (best, best_cost)
    }
}

/// Data moved replaying `seq` with furthest-next-use eviction at `capacity`; a
/// buffer leaves for good after its last access.
pub(super) fn replay(case: &Case, capacity: &[u64], seq: &[u32], scratch: &mut Scratch) -> u64 {
    let Scratch {
        seq: _,
        next,
        later,
        resident,
        seen,
        heaps,
    } = scratch;
    next.clear();
    next.resize(seq.len(), u32::MAX);
    for &b in seq {
        later[b as usize] = u32::MAX;
        resident[b as usize] = NOT_RESIDENT;
        seen[b as usize] = false;
    }
    for p in (0..seq.len()).rev() {
        let b = seq[p] as usize;
        next[p] = later[b];
        later[b] = p as u32;
    }
    let mut used = vec![0u64; case.levels.len()];
    heaps.iter_mut().for_each(|h| h.clear());
    let mut limit = vec![STALE_LIMIT; heaps.len()];
    let mut moved = 0u64;
    for (p, &b) in seq.iter().enumerate() {
        let buf = &case.buffers[b as usize];
        let level = buf.level;
        if resident[b as usize] == NOT_RESIDENT {
            if std::mem::replace(&mut seen[b as usize], true) {
                moved += spill_cost(case, b);
            }
            while used[level] + buf.size > capacity[level] {
                let Some(entry) = heaps[level].pop() else {
                    break;
                };
                let (at, v) = ((entry >> 32) as u32, entry as u32);
                if resident[v as usize] == at {
                    resident[v as usize] = NOT_RESIDENT;
                    used[level] -= case.buffers[v as usize].size;
                }
            }
            used[level] += buf.size;
        }
        if next[p] == u32::MAX {
            resident[b as usize] = NOT_RESIDENT;
            used[level] -= buf.size;
        } else {
            resident[b as usize] = next[p];
            let heap = &mut heaps[level];
            heap.push((next[p] as u64) << 32 | b as u64);
            // drop stale entries now and then, so the heap stays near the residents
            if heap.len() > limit[level] {
                heap.retain(|&e| resident[e as u32 as usize] == (e >> 32) as u32);
                limit[level] = (2 * heap.len()).max(STALE_LIMIT);
            }
        }
    }
    moved
}

const NOT_RESIDENT: u32 = u32::MAX;

/// Entries a heap of [`replay`] may hold before its stale ones are dropped.
const STALE_LIMIT: usize = 1024;

/// Working memory of [`replay`], kept between calls.
pub(super) struct Scratch {
    /// The access sequence of [`Tasks::cost`].
    seq: Vec<u32>,
    next: Vec<u32>,
    /// Per buffer: the next access while walking backwards.
    later: Vec<u32>,
    /// Per buffer: the next access while resident, else [`NOT_RESIDENT`].
    resident: Vec<u32>,
    seen: Vec<bool>,
    /// Per level: resident buffers by next access (stale entries skipped).
    /// Entries are `next access << 32 | buffer`.
    heaps: Vec<BinaryHeap<u64>>,
}

impl Scratch {
    pub(super) fn new(case: &Case) -> Scratch {
        let buffers = case.buffers.len();
        Scratch {
            seq: Vec::new(),
            next: Vec::new(),
            later: vec![u32::MAX; buffers],
            resident: vec![NOT_RESIDENT; buffers],
            seen: vec![false; buffers],
            heaps: vec![BinaryHeap::new(); case.levels.len()],
        }
    }
}

/// A small deterministic random sequence (xorshift64).
pub(super) struct XorShift(pub(super) u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
