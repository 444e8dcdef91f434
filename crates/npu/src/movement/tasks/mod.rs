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
//! The model (`replay.rs`): the accesses to buffers that several tasks read,
//! flattened in emission order, replayed with furthest-next-use eviction at the
//! levels' capacities (no addresses). Simulated annealing over the permutation
//! (`anneal.rs`: swaps, moves, reversals) with a deterministic random sequence and
//! a budget in replayed accesses; the allocator of `movement/spill` judges the
//! orders it returns.

use crate::case::{BufferId, Case, Node, NodeId};
use crate::deps::{node_deps, NodeDeps};
use replay::{replay, Scratch};
use resume::Replay;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod anneal;
mod chain;
mod replay;
mod resume;

/// Marks an op shared by several tasks.
const SHARED: u32 = u32::MAX;

/// Residents looked at per access (for evictions), in a replay of the first
/// permutation, from which the search replays orders only where they can
/// differ (`resume.rs`): that pays for keeping the states to resume from when
/// the accesses are costly. On the public cases Matmul_Case0's 3 to 4 break even,
/// Matmul_Case1's 7 to 14 run 1.3x faster, FlashAttention_Case1's 1 runs 1.1x to
/// 1.25x slower.
const DENSE: u64 = 4;

pub struct Tasks<'a> {
    case: &'a Case,
    deps: NodeDeps,
    /// Task of each node (ops only), or [`SHARED`].
    task_of: Vec<u32>,
    /// Longest path in ops from each op to a sink.
    height: Vec<u32>,
    /// Position of each node in the base order.
    base_pos: Vec<u32>,
    /// Per task, the accesses of its own ops to buffers of several tasks:
    /// `(height, base position, buffer)`, sorted.
    accesses: Vec<Vec<(u32, u32, BufferId)>>,
    /// Per task, the buffers of its `accesses`, in the same order.
    sequence: Vec<Vec<BufferId>>,
    /// Capacity of each level left for the shared buffers.
    capacity: Vec<u64>,
    /// Tasks run side by side.
    width: usize,
    /// Per task, its distinct buffers of several tasks, sorted.
    shared: Vec<Vec<BufferId>>,
    /// Per buffer of several tasks (by index), the tasks that use it.
    readers: Vec<Vec<u32>>,
    /// Replayed accesses so far, as if every order were replayed whole (what
    /// the budget counts): the cost of the search.
    pub work: u64,
    scratch: Scratch,
    /// Where evictions are many, the replay kept of the permutation taken last
    /// ([`Tasks::take`]), which replays later ones only where they can differ
    /// (`resume.rs`); decided on the first permutation.
    resumed: Option<Replay>,
    decided: bool,
    /// The permutation taken last and the one tried last.
    current: Vec<u32>,
    tried: Vec<u32>,
    starts: Vec<u32>,
}

impl<'a> Tasks<'a> {
    /// The tasks of `case`, with `base` (a topological order of all nodes) breaking
    /// ties inside a task, run `width` at a time. `None` when there are fewer than
    /// three tasks, or when `width > 1` and the levels cannot hold the own buffers
    /// of `width` tasks beside the largest buffer of several tasks.
    pub fn new(case: &'a Case, base: &[NodeId], width: usize) -> Option<Tasks<'a>> {
        let deps = node_deps(case);
        let n = case.nodes.len();
        let mut base_pos = vec![0u32; n];
        for (p, &id) in base.iter().enumerate() {
            base_pos[id.index()] = p as u32;
        }
        let mut task_of = vec![SHARED; n];
        let mut height = vec![0u32; n];
        let mut sinks = 0u32;
        // reverse topological: successors first
        for &id in base.iter().rev() {
            if !case.is_op(id) {
                continue;
            }
            let i = id.index();
            let succ_ops: Vec<usize> = deps
                .succ(id)
                .iter()
                .filter(|&&s| case.is_op(s))
                .map(|s| s.index())
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
        let mut accesses: Vec<Vec<(u32, u32, BufferId)>> = vec![Vec::new(); sinks as usize];
        for (i, node) in case.nodes.iter().enumerate() {
            let Node::Op(op) = node else { continue };
            if task_of[i] == SHARED {
                continue;
            }
            for &b in &op.bufs {
                let r = &mut readers[b.index()];
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
        for (buf, r) in case.buffers.iter().zip(&readers) {
            let largest = match r.len() {
                0 => continue,
                1 => &mut largest_own[buf.level.index()],
                _ => &mut largest_shared[buf.level.index()],
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
            list.retain(|&(_, _, b)| readers[b.index()].len() > 1);
            memplan::sort::by_key(list, |&(h, p, _)| (Reverse(h), p));
        }
        let sequence = accesses
            .iter()
            .map(|list| list.iter().map(|a| a.2).collect())
            .collect();
        let shared: Vec<Vec<BufferId>> = accesses
            .iter()
            .map(|list| {
                let mut bufs: Vec<BufferId> = list.iter().map(|a| a.2).collect();
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
            sequence,
            capacity,
            width,
            shared,
            readers,
            work: 0,
            scratch: Scratch::new(case),
            resumed: None,
            decided: false,
            current: Vec::new(),
            tried: Vec::new(),
            starts: Vec::new(),
        })
    }

    pub fn len(&self) -> usize {
        self.accesses.len()
    }

    /// Accesses one evaluation of the model replays.
    pub fn accesses_per_run(&self) -> u64 {
        self.accesses.iter().map(|a| a.len() as u64).sum()
    }

    /// Tasks in the order their sinks appear in `order`.
    pub fn permutation_of(&self, order: &[NodeId]) -> Vec<u32> {
        let case = self.case;
        let mut perm: Vec<u32> = order
            .iter()
            .filter(|&&id| {
                case.is_op(id)
                    && self.task_of[id.index()] != SHARED
                    && self.deps.succ(id).iter().all(|&s| !case.is_op(s))
            })
            .map(|&id| self.task_of[id.index()])
            .collect();
        perm.dedup();
        perm
    }

    /// Modelled data movement of running the tasks in `perm`; where evictions
    /// are many (see [`DENSE`]), replayed only where it can differ from the
    /// permutation taken last ([`Tasks::take`]).
    pub fn cost(&mut self, perm: &[u32]) -> u64 {
        self.work += self.accesses_per_run();
        let g = self.width;
        let mut seq = std::mem::take(&mut self.scratch.seq);
        let mut starts = std::mem::take(&mut self.starts);
        seq.clear();
        starts.clear();
        let resuming = self.resumed.is_some() && self.current.len() == perm.len();
        let moved = if resuming {
            let differ = |(a, b): (&u32, &u32)| a != b;
            let pairs = || perm.iter().zip(&self.current);
            let span = pairs().position(differ).zip(pairs().rposition(differ));
            // the groups from the first that differs to the last that does
            let groups = span.map_or(&[][..], |(first, last)| {
                &perm[first / g * g..((last / g + 1) * g).min(perm.len())]
            });
            for group in groups.chunks(g) {
                starts.push(seq.len() as u32);
                self.interleave(group, &mut seq);
            }
            let resumed = self.resumed.as_mut().expect("resuming");
            match span {
                Some((first, last)) => resumed.try_order(first / g, last / g + 1, &seq, &starts),
                None => resumed.total(),
            }
        } else {
            for group in perm.chunks(g) {
                starts.push(seq.len() as u32);
                self.interleave(group, &mut seq);
            }
            let moved = replay(self.case, &self.capacity, &seq, &mut self.scratch);
            if !self.decided {
                self.decided = true;
                if self.scratch.scanned >= DENSE * seq.len() as u64 {
                    let mut resumed = Replay::new(self.case, &self.capacity);
                    resumed.reset(&seq, &starts);
                    self.resumed = Some(resumed);
                    self.current.clear();
                    self.current.extend_from_slice(perm);
                }
            }
            moved
        };
        self.tried.clear();
        self.tried.extend_from_slice(perm);
        (self.scratch.seq, self.starts) = (seq, starts);
        moved
    }

    /// Takes the permutation of the last [`Tasks::cost`] as the one later ones
    /// are replayed from (where they are replayed only where they differ).
    pub fn take(&mut self) {
        if let Some(resumed) = &mut self.resumed {
            resumed.take();
            std::mem::swap(&mut self.current, &mut self.tried);
        }
    }

    /// Appends to `seq` the accesses of the tasks of `group` run side by side:
    /// merged by distance to the sink, then by base position.
    fn interleave(&self, group: &[u32], seq: &mut Vec<BufferId>) {
        let key = |a: &(u32, u32, BufferId)| (Reverse(a.0), a.1);
        match group {
            [t] => seq.extend_from_slice(&self.sequence[*t as usize]),
            [a, b] => {
                let (a, b) = (&self.accesses[*a as usize], &self.accesses[*b as usize]);
                let (mut i, mut j) = (0, 0);
                while i < a.len() && j < b.len() {
                    // ties to the first task, as the general merge below
                    if key(&b[j]) < key(&a[i]) {
                        seq.push(b[j].2);
                        j += 1;
                    } else {
                        seq.push(a[i].2);
                        i += 1;
                    }
                }
                seq.extend(a[i..].iter().chain(&b[j..]).map(|x| x.2));
            }
            _ => {
                let lists: Vec<&[(u32, u32, BufferId)]> = group
                    .iter()
                    .map(|&t| self.accesses[t as usize].as_slice())
                    .collect();
                let mut at = vec![0usize; lists.len()];
                loop {
                    let next = (0..lists.len())
                        .filter(|&k| at[k] < lists[k].len())
                        .min_by_key(|&k| key(&lists[k][at[k]]));
                    let Some(k) = next else { break };
                    seq.push(lists[k][at[k]].2);
                    at[k] += 1;
                }
            }
        }
    }

    /// The nearest-neighbour chain of the tasks (see `chain.rs`), ties to the
    /// earlier task of `start`.
    pub fn chain(&self, start: &[u32]) -> Vec<u32> {
        chain::chain(&self.shared, &self.readers, self.width, start)
    }

    /// The order of all nodes that runs the tasks of `perm`: ops by (rank of the
    /// task, distance to the sink, base position), each ALLOC just before its first
    /// user, each FREE right after its last. A shared op runs with the first task
    /// that needs it: one step ahead of the op that needs it when `ahead` (its
    /// buffer loaded while the step before runs), else in the same step (the buffer
    /// takes room only when needed, as the spill model assumes).
    pub fn order(&self, perm: &[u32], ahead: bool) -> Vec<NodeId> {
        let case = self.case;
        let n = case.nodes.len();
        let is_op = |i: NodeId| case.is_op(i);
        let mut rank = vec![0u32; self.len()];
        for (k, &t) in perm.iter().enumerate() {
            rank[t as usize] = (k / self.width) as u32;
        }
        // (task rank, distance to the sink); a shared op runs with the first task
        // that needs it, with or a step ahead of the op that needs it
        let mut need = vec![(u32::MAX, Reverse(0u32)); n];
        let mut by_pos: Vec<NodeId> = case.node_ids().filter(|&i| is_op(i)).collect();
        memplan::sort::by_key(&mut by_pos, |&i| Reverse(self.base_pos[i.index()]));
        for &i in &by_pos {
            need[i.index()] = match self.task_of[i.index()] {
                SHARED => self
                    .deps
                    .succ(i)
                    .iter()
                    .filter(|&&s| is_op(s))
                    .map(|&s| {
                        let (r, Reverse(h)) = need[s.index()];
                        (r, Reverse(h + u32::from(ahead)))
                    })
                    .min()
                    .unwrap_or((0, Reverse(0))),
                t => (rank[t as usize], Reverse(self.height[i.index()])),
            };
        }
        let key = |i: NodeId| (need[i.index()], self.base_pos[i.index()], i);
        let mut waiting: Vec<u32> = case
            .node_ids()
            .map(|i| self.deps.pred(i).iter().filter(|&&p| is_op(p)).count() as u32)
            .collect();
        let mut remaining: Vec<u32> = self.deps.pred.iter().map(|p| p.len() as u32).collect();
        let mut heap: BinaryHeap<Reverse<_>> = case
            .node_ids()
            .filter(|&i| is_op(i) && waiting[i.index()] == 0)
            .map(|i| Reverse(key(i)))
            .collect();
        let mut done = vec![false; n];
        let mut out = Vec::with_capacity(n);
        let emit = |i: NodeId, out: &mut Vec<NodeId>, done: &mut Vec<bool>| {
            done[i.index()] = true;
            out.push(i);
        };
        while let Some(Reverse(k)) = heap.pop() {
            let op = k.2;
            for &p in self.deps.pred(op) {
                if !done[p.index()] {
                    emit(p, &mut out, &mut done);
                    for &s in self.deps.succ(p) {
                        remaining[s.index()] -= 1;
                    }
                }
            }
            emit(op, &mut out, &mut done);
            for &s in self.deps.succ(op) {
                let i = s.index();
                remaining[i] -= 1;
                waiting[i] -= 1;
                if is_op(s) && waiting[i] == 0 {
                    heap.push(Reverse(key(s)));
                } else if !is_op(s) && remaining[i] == 0 {
                    emit(s, &mut out, &mut done);
                }
            }
        }
        // buffers no op uses
        out.extend(case.node_ids().filter(|&i| !done[i.index()]));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::residency::schedule::{list_schedule, Priority};
    use crate::tiled::tiled_matmul;

    /// Tasks run side by side take their accesses merged by distance to the sink,
    /// then base position, ties to the earlier task of the group: a stable sort of
    /// the tasks' lists one after the other.
    #[test]
    fn groups_interleave_as_a_stable_sort_of_their_accesses() {
        let case = tiled_matmul(3, 4, 3).unwrap();
        let base = list_schedule(&case, Priority::Id).unwrap();
        let tasks = Tasks::new(&case, &base, 2).expect("the levels hold two");
        let count = tasks.len() as u32;
        // two tasks (the merge of two lists) and three (the general one)
        for width in [2, 3] {
            for a in 0..count {
                for b in (0..count).filter(|&b| b != a) {
                    let group: Vec<u32> = [a, b, (a + b + 1) % count][..width].to_vec();
                    let mut merged: Vec<(u32, u32, BufferId)> = group
                        .iter()
                        .flat_map(|&t| tasks.accesses[t as usize].iter().copied())
                        .collect();
                    merged.sort_by_key(|&(h, p, _)| (Reverse(h), p));
                    let want: Vec<BufferId> = merged.iter().map(|x| x.2).collect();
                    let mut seq = Vec::new();
                    tasks.interleave(&group, &mut seq);
                    assert_eq!(seq, want, "tasks {group:?}");
                }
            }
        }
    }

    /// The annealing finds the same permutation at the same cost whether it
    /// replays every permutation whole or only where it differs from the one
    /// taken last (an 8x8x8 tiled matmul evicts enough for the latter).
    #[test]
    fn resumed_replays_anneal_as_whole_ones() {
        let case = tiled_matmul(8, 8, 8).unwrap();
        let base = list_schedule(&case, Priority::Id).unwrap();
        for width in [1, 2] {
            let run = |whole: bool| {
                let mut tasks = Tasks::new(&case, &base, width).expect("tasks");
                // deciding before the first replay keeps every replay whole
                tasks.decided = whole;
                let start = tasks.permutation_of(&base);
                let budget = 300 * tasks.accesses_per_run();
                let found = tasks.anneal(&start, budget, 11, &mut || false);
                (found, tasks.resumed.is_some())
            };
            let (resumed, used) = run(false);
            assert!(used, "width {width}: the replays resume");
            let (whole, used) = run(true);
            assert!(!used, "width {width}: the replays are whole");
            assert_eq!(resumed, whole, "width {width}");
        }
    }
}
