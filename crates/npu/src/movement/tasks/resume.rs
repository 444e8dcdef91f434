//! The task search's spill model (`replay.rs`) replaying only where an order can
//! differ from the one taken last, for cases where evictions are many.
//!
//! The search tries orders that differ from its current one in a span of groups;
//! [`Replay`] keeps the current order's replay and replays a new order only where
//! it can differ. Before the span: furthest-next-use looks ahead, so a choice
//! made before the span can change with it, but only an eviction whose two
//! furthest residents are both next used at or after the span's start (else the
//! furthest one leaves whatever the span holds). The replay resumes from the state
//! kept before the group holding the first such eviction (or the span's first
//! group). After the span the accesses are the current order's: once the state
//! before a group equals the current order's there (the same residents; next uses
//! and data seen follow), the rest moves what it moved before.
//!
//! Why one file: [`Replay`] is one incremental replay; where it resumes, what it
//! keeps per group and when it rejoins the kept order are one invariant (the state
//! before a group equals a full replay's there), split apart they could only be
//! read together. The tests, last 110 lines, hold it to the full replay.

use super::replay::{entry, furthest, leave, Buffer, NOT_RESIDENT};
use crate::case::{BufferId, Case};

/// The current order's sequence and replay, kept for the orders tried after it.
pub(super) struct Replay {
    buffers: Vec<Buffer>,
    capacity: Vec<u64>,
    /// The current order's accesses and the next access of each (a position).
    seq: Vec<BufferId>,
    next: Vec<u32>,
    /// Positions of each buffer's accesses in `seq`, sorted: the buffer's run
    /// begins at `occ_start` (by index) and ends where the next buffer's begins.
    occ_start: Vec<u32>,
    occ: Vec<u32>,
    /// The state before each group of the current order.
    marks: Vec<Mark>,
    /// Per group: the latest next access of an eviction's second-furthest
    /// resident in that group (0 when none).
    local: Vec<u32>,
    /// Per group: the largest `local` of the groups before it.
    reach: Vec<u32>,
    /// Data the current order moves.
    total: u64,
    /// Counts replays (see [`Buffer::seen`]).
    run_id: u32,
    /// The order tried last, not yet taken.
    tried: Option<Tried>,
    /// States (and `local`s) a replay records for [`Replay::take`].
    fresh: Vec<Mark>,
    fresh_local: Vec<u32>,
    /// Working memory: the next accesses of the span tried; per buffer of a
    /// reordered span, where its accesses there begin in its run; the levels'
    /// residents as [`entry`]s, in no order (as in `replay.rs`); the room used.
    cand_next: Vec<u32>,
    spans: Vec<(BufferId, u32)>,
    residents: Vec<Vec<u64>>,
    used: Vec<u64>,
}

/// The replay's state before a group: where it begins, the data moved before it,
/// a hash of the resident set and the residents.
#[derive(Clone, Default)]
struct Mark {
    pos: u32,
    moved: u64,
    hash: u64,
    residents: Vec<u32>,
}

/// An order tried: its span of changed groups and their accesses (and where
/// each group begins in them), the group before which its replay resumed and the
/// one before which it met the current order's state (or the group count), the
/// data moved.
struct Tried {
    first: usize,
    end: usize,
    mid: Vec<BufferId>,
    mid_starts: Vec<u32>,
    resume: usize,
    met: usize,
    cost: u64,
}

impl Replay {
    pub(super) fn new(case: &Case, capacity: &[u64]) -> Replay {
        Replay {
            buffers: Buffer::all(case),
            capacity: capacity.to_vec(),
            seq: Vec::new(),
            next: Vec::new(),
            occ_start: vec![0; case.buffers.len() + 1],
            occ: Vec::new(),
            marks: Vec::new(),
            local: Vec::new(),
            reach: Vec::new(),
            total: 0,
            run_id: 0,
            tried: None,
            fresh: Vec::new(),
            fresh_local: Vec::new(),
            cand_next: Vec::new(),
            spans: Vec::new(),
            residents: vec![Vec::new(); case.levels.len()],
            used: vec![0; case.levels.len()],
        }
    }

    /// Takes `seq`, whose groups begin at `starts` (the first at 0), as the
    /// current order, replaying it whole: the data it moves.
    pub(super) fn reset(&mut self, seq: &[BufferId], starts: &[u32]) -> u64 {
        self.seq.clear();
        self.seq.extend_from_slice(seq);
        self.index();
        self.marks.resize_with(starts.len().max(1), Mark::default);
        for (mark, &pos) in self.marks.iter_mut().zip(starts) {
            mark.pos = pos;
        }
        self.marks[0] = Mark::default();
        self.local.clear();
        self.local.resize(self.marks.len(), 0);
        self.reach.clear();
        self.reach.resize(self.marks.len(), 0);
        let groups = self.marks.len();
        let mid_starts: Vec<u32> = self.marks.iter().map(|m| m.pos).collect();
        let mid = seq.to_vec();
        let tried = Tried {
            first: 0,
            end: groups,
            mid,
            mid_starts,
            resume: 0,
            met: groups,
            cost: 0,
        };
        self.tried = Some(tried);
        self.take();
        self.total
    }

    /// Data moved by the current order with groups `first..end` replaced by
    /// `mid` (the same accesses reordered; its groups begin at `mid_starts`,
    /// relative to `mid`, the first at 0), replaying with furthest-next-use
    /// eviction; a buffer leaves for good after its last access.
    pub(super) fn try_order(
        &mut self,
        first: usize,
        end: usize,
        mid: &[BufferId],
        mid_starts: &[u32],
    ) -> u64 {
        let span_start = self.marks[first].pos;
        // the last state kept before any choice the span can change
        let resume = self.reach[..=first]
            .partition_point(|&r| r < span_start)
            .saturating_sub(1)
            .min(first);
        // the last order tried gives its arrays
        let (mut kept_mid, mut kept_starts) = self
            .tried
            .take()
            .map_or_else(Default::default, |t| (t.mid, t.mid_starts));
        kept_mid.clear();
        kept_mid.extend_from_slice(mid);
        kept_starts.clear();
        kept_starts.extend_from_slice(mid_starts);
        let mut tried = Tried {
            first,
            end,
            mid: kept_mid,
            mid_starts: kept_starts,
            resume,
            met: 0,
            cost: 0,
        };
        let (moved, met) = self.run::<false>(&tried, usize::MAX);
        // after the state met the current order's, the rest moves what it moved
        let cost = match self.marks.get(met) {
            Some(mark) => moved + (self.total - mark.moved),
            None => moved,
        };
        tried.met = met;
        tried.cost = cost;
        self.tried = Some(tried);
        cost
    }

    /// Data moved by the current order.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// Takes the order tried last as the current one.
    pub(super) fn take(&mut self) {
        let Some(tried) = self.tried.take() else {
            return;
        };
        // replayed again, keeping the states before its groups
        let (moved, _) = self.run::<true>(&tried, tried.met);
        let Tried {
            first,
            end,
            resume,
            met,
            cost,
            ..
        } = tried;
        let groups = self.marks.len();
        if met < groups {
            // the same states from there on, after other data moved before
            let before = self.marks[met].moved;
            for mark in &mut self.marks[met..] {
                mark.moved = mark.moved - before + moved;
            }
        }
        for (k, fresh) in (resume + 1..met).zip(&mut self.fresh) {
            std::mem::swap(&mut self.marks[k], fresh);
        }
        self.local[resume..met].copy_from_slice(&self.fresh_local[..met - resume]);
        for k in resume + 1..groups {
            self.reach[k] = self.reach[k - 1].max(self.local[k - 1]);
        }
        let (s, e) = (self.marks[first].pos as usize, self.end_pos(end));
        self.seq[s..e].copy_from_slice(&tried.mid);
        self.reindex(s, e);
        self.total = if met < groups { cost } else { moved };
    }

    fn end_pos(&self, end: usize) -> usize {
        self.marks
            .get(end)
            .map_or(self.seq.len(), |m| m.pos as usize)
    }

    /// The next access of every position, each buffer's first access and its
    /// accesses, from `seq`.
    fn index(&mut self) {
        let n = self.buffers.len();
        self.occ_start.clear();
        self.occ_start.resize(n + 1, 0);
        for &b in &self.seq {
            self.occ_start[b.index() + 1] += 1;
        }
        for i in 0..n {
            self.occ_start[i + 1] += self.occ_start[i];
        }
        self.occ.clear();
        self.occ.resize(self.seq.len(), 0);
        self.next.clear();
        self.next.resize(self.seq.len(), NONE);
        for &b in &self.seq {
            self.buffers[b.index()].later = NONE;
        }
        for (p, &b) in self.seq.iter().enumerate().rev() {
            let buf = &mut self.buffers[b.index()];
            self.next[p] = buf.later;
            buf.later = p as u32;
        }
        let mut fill = self.occ_start.clone();
        for (p, &b) in self.seq.iter().enumerate() {
            let buf = &mut self.buffers[b.index()];
            if buf.later == p as u32 {
                buf.first = p as u32;
                buf.later = NONE;
            }
            let slot = &mut fill[b.index()];
            self.occ[*slot as usize] = p as u32;
            *slot += 1;
        }
    }

    /// [`Replay::index`] after the accesses in `s..e` were reordered: each
    /// buffer's accesses there fill the same places of its run, in order; the
    /// next accesses of those and of the one before, and first accesses, follow.
    fn reindex(&mut self, s: usize, e: usize) {
        for &b in &self.seq[s..e] {
            self.buffers[b.index()].later = NONE;
        }
        // where each buffer's accesses in the span begin in its run; `later`
        // holds the place of its next one there
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        for p in s..e {
            let b = self.seq[p];
            if self.buffers[b.index()].later == NONE {
                let at = self.occ_start[b.index()] as usize
                    + self.accesses(b).partition_point(|&q| (q as usize) < s);
                spans.push((b, at as u32));
                self.buffers[b.index()].later = at as u32;
            }
            let buf = &mut self.buffers[b.index()];
            self.occ[buf.later as usize] = p as u32;
            buf.later += 1;
        }
        for &(b, at) in &spans {
            let (start, stop) = (
                self.occ_start[b.index()] as usize,
                self.occ_start[b.index() + 1] as usize,
            );
            let last = self.buffers[b.index()].later as usize;
            for j in (at as usize).saturating_sub(1).max(start)..last {
                self.next[self.occ[j] as usize] = if j + 1 < stop { self.occ[j + 1] } else { NONE };
            }
            let buf = &mut self.buffers[b.index()];
            buf.first = self.occ[start];
            buf.later = NONE;
        }
        self.spans = spans;
    }

    /// The positions of `b`'s accesses in the current order.
    fn accesses(&self, b: BufferId) -> &[u32] {
        &self.occ[self.occ_start[b.index()] as usize..self.occ_start[b.index() + 1] as usize]
    }

    /// The first access of `b` at or after `p` in the current order.
    fn access_from(&self, b: BufferId, p: u32) -> u32 {
        let run = self.accesses(b);
        run.get(run.partition_point(|&q| q < p))
            .copied()
            .unwrap_or(NONE)
    }

    /// Replays `tried` from the state before its group `resume`: the data moved
    /// up to the group before which the state met the current order's, and that
    /// group (the group count when it never did). `RECORD` keeps the states before
    /// the groups up to `stop` and the groups' `local`s, for [`Replay::take`], and
    /// stops there.
    fn run<const RECORD: bool>(&mut self, tried: &Tried, stop: usize) -> (u64, usize) {
        let groups = self.marks.len();
        let Tried {
            first,
            end,
            ref mid,
            resume,
            ..
        } = *tried;
        let from = self.marks[resume].pos as usize;
        let span = self.marks[first].pos as usize;
        let span_end = self.end_pos(end);
        let len = self.seq.len();
        self.run_id = self.run_id.wrapping_add(1);
        if self.run_id == 0 {
            self.buffers.iter_mut().for_each(|b| b.seen = 0);
            self.run_id = 1;
        }
        // the span's next accesses: after it, the current order's (the first
        // after the span of each buffer in it follows its last access there)
        for q in span..span_end {
            self.buffers[self.seq[q].index()].later = self.next[q];
        }
        self.cand_next.clear();
        self.cand_next.resize(mid.len(), NONE);
        for (i, &b) in mid.iter().enumerate().rev() {
            let buf = &mut self.buffers[b.index()];
            self.cand_next[i] = buf.later;
            buf.later = (span + i) as u32;
        }
        // the residents before group `resume`, with their next accesses
        let mark = &self.marks[resume];
        self.used.iter_mut().for_each(|u| *u = 0);
        for &r in &mark.residents {
            let r = BufferId(r);
            let old = self.access_from(r, from as u32);
            let buf = &mut self.buffers[r.index()];
            let next = if (span as u32..span_end as u32).contains(&old) {
                buf.later
            } else {
                old
            };
            let list = &mut self.residents[buf.level as usize];
            buf.at = list.len() as u32;
            list.push(entry(next, r));
            self.used[buf.level as usize] += buf.size;
        }
        let mut state = State {
            moved: mark.moved,
            hash: mark.hash,
            local: 0,
            from: from as u32,
        };
        if RECORD {
            self.fresh_local.clear();
            self.fresh_local.push(0);
        }
        let mut group = resume + 1;
        let mut met = groups;
        let mut kept = 0;
        let mut p = from;
        loop {
            // the accesses up to the next group, then that group's state
            let bound = if group < groups {
                self.group_pos(group, tried)
            } else {
                len
            };
            // before the span: a next access in it is the buffer's first there now
            while p < bound.min(span) {
                let (b, mut next) = (self.seq[p], self.next[p]);
                if (span as u32..span_end as u32).contains(&next) {
                    next = self.buffers[b.index()].later;
                }
                self.step::<RECORD>(b, next, &mut state);
                p += 1;
            }
            while p < bound.min(span_end) {
                let i = p - span;
                self.step::<RECORD>(mid[i], self.cand_next[i], &mut state);
                p += 1;
            }
            while p < bound {
                self.step::<RECORD>(self.seq[p], self.next[p], &mut state);
                p += 1;
            }
            if RECORD {
                *self.fresh_local.last_mut().expect("a group") = state.local;
            }
            if group >= groups {
                break;
            }
            if RECORD {
                if group == stop {
                    met = group;
                    break;
                }
                self.keep(kept, p, &mut state);
                kept += 1;
            } else if group >= end && self.meets(group, state.hash) {
                met = group;
                break;
            }
            group += 1;
        }
        // no resident stays marked for the next replay
        for list in &mut self.residents {
            for &e in list.iter() {
                self.buffers[e as u32 as usize].at = NOT_RESIDENT;
            }
            list.clear();
        }
        (state.moved, met)
    }

    /// Keeps the state before a group beginning at `p` as the `kept`th fresh one
    /// and opens the group's `local`.
    fn keep(&mut self, kept: usize, p: usize, state: &mut State) {
        if self.fresh.len() <= kept {
            self.fresh.push(Mark::default());
        }
        let m = &mut self.fresh[kept];
        m.pos = p as u32;
        m.moved = state.moved;
        m.hash = state.hash;
        m.residents.clear();
        for list in &self.residents {
            m.residents.extend(list.iter().map(|&e| e as u32));
        }
        self.fresh_local.push(0);
        state.local = 0;
    }

    /// Where group `k` begins in the order `tried`.
    fn group_pos(&self, k: usize, tried: &Tried) -> usize {
        if k > tried.first && k < tried.end {
            self.marks[tried.first].pos as usize + tried.mid_starts[k - tried.first] as usize
        } else {
            self.marks[k].pos as usize
        }
    }

    /// Whether the residents now are those before group `k` of the current order.
    fn meets(&self, k: usize, hash: u64) -> bool {
        let mark = &self.marks[k];
        mark.hash == hash
            && self.residents.iter().map(Vec::len).sum::<usize>() == mark.residents.len()
            && mark
                .residents
                .iter()
                .all(|&r| self.buffers[r as usize].at != NOT_RESIDENT)
    }

    /// One access: `b` at position `p`, next accessed at `next`.
    #[inline(always)]
    fn step<const RECORD: bool>(&mut self, b: BufferId, next: u32, state: &mut State) {
        let buffers = &mut self.buffers;
        let Buffer {
            at,
            level,
            size,
            cost,
            first,
            ..
        } = buffers[b.index()];
        let level = level as usize;
        let list = &mut self.residents[level];
        let used = &mut self.used[level];
        if at == NOT_RESIDENT {
            // accessed before (before the replay began, or in it): data moves back
            if first < state.from || buffers[b.index()].seen == self.run_id {
                state.moved += cost;
            }
            buffers[b.index()].seen = self.run_id;
            // the furthest next access leaves first (entries are unique)
            while *used + size > self.capacity[level] && !list.is_empty() {
                // recording, the group's `local` takes the second furthest (none
                // when alone: 0)
                let (far, second) = furthest::<RECORD>(list);
                if RECORD {
                    state.local = state.local.max(second);
                }
                let v = leave(list, buffers, far);
                state.hash ^= mix(v);
                *used -= buffers[v.index()].size;
            }
            if next != NONE {
                *used += size;
                buffers[b.index()].at = list.len() as u32;
                list.push(entry(next, b));
                state.hash ^= mix(b);
            }
        } else if next == NONE {
            // its last access: it leaves for good
            leave(list, buffers, at as usize);
            state.hash ^= mix(b);
            *used -= size;
        } else {
            list[at as usize] = entry(next, b);
        }
    }
}

/// What a replay carries from access to access besides the residents.
struct State {
    moved: u64,
    hash: u64,
    /// The group's `local` so far (recording only).
    local: u32,
    /// Where the replay began.
    from: u32,
}

/// A buffer's part of a resident set's hash.
fn mix(b: BufferId) -> u64 {
    let z = (u64::from(b.0) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 31)
}

/// No access (a position past every sequence).
const NONE: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::tasks::replay::tests::{random_case, slow_replay, slow_states};
    use memplan::rng::Rng;

    #[test]
    fn replays_of_changed_spans_move_what_a_slow_replay_of_the_whole_order_moves() {
        let mut rng = Rng::new(7);
        let (mut tries, mut spilled, mut resumed, mut met) = (0, 0, 0, 0);
        for round in 0..60 {
            let (case, capacity, count) = random_case(&mut rng, round);
            // groups of accesses (some empty), as the tasks' groups give
            let mut groups: Vec<Vec<BufferId>> = (0..3 + round % 14)
                .map(|_| {
                    let len = rng.below(30);
                    (0..len)
                        .map(|_| BufferId(rng.below(count) as u32))
                        .collect()
                })
                .collect();
            let starts_of = |groups: &[Vec<BufferId>]| {
                let mut at = 0;
                groups
                    .iter()
                    .map(|g| {
                        at += g.len() as u32;
                        at - g.len() as u32
                    })
                    .collect::<Vec<u32>>()
            };
            let mut replay = Replay::new(&case, &capacity);
            let whole = groups.concat();
            let first = replay.reset(&whole, &starts_of(&groups));
            assert_eq!(
                first,
                slow_replay(&case, &capacity, &whole),
                "round {round}"
            );

            for step in 0..60 {
                // groups first..end reordered, and the accesses inside one
                let a = rng.below(groups.len());
                let b = rng.below(groups.len());
                let (first, end) = (a.min(b), a.max(b) + 1);
                let mut tried = groups.clone();
                let span = &mut tried[first..end];
                for k in (1..span.len()).rev() {
                    span.swap(k, rng.below(k + 1));
                }
                let inner = rng.below(span.len());
                span[inner].reverse();
                let mid = span.concat();
                let fast = replay.try_order(first, end, &mid, &starts_of(span));
                let whole = tried.concat();
                let at = format!("round {round} step {step}");
                assert_eq!(fast, slow_replay(&case, &capacity, &whole), "{at}");
                let t = replay.tried.as_ref().unwrap();
                tries += 1;
                spilled += usize::from(fast > 0);
                resumed += usize::from(t.resume > 0);
                met += usize::from(t.met < groups.len());
                if rng.below(2) == 0 {
                    replay.take();
                    groups = tried;
                    assert_eq!(replay.total(), fast, "{at}");
                    // the states kept equal those of the order replayed afresh
                    let mut afresh = Replay::new(&case, &capacity);
                    afresh.reset(&whole, &starts_of(&groups));
                    let states = slow_states(&case, &capacity, &whole).1;
                    for (k, kept) in afresh.marks.iter().enumerate() {
                        let mut r = kept.residents.clone();
                        r.sort_unstable();
                        assert_eq!(r, states[kept.pos as usize], "afresh {at} group {k}");
                    }
                    for (k, (kept, new)) in replay.marks.iter().zip(&afresh.marks).enumerate() {
                        let sorted = |m: &Mark| {
                            let mut r = m.residents.clone();
                            r.sort_unstable();
                            (m.pos, m.moved, m.hash, r)
                        };
                        assert_eq!(sorted(kept), sorted(new), "{at} group {k}");
                    }
                    assert_eq!(replay.local, afresh.local, "{at}");
                    let states = slow_states(&case, &capacity, &whole).1;
                    for (k, kept) in replay.marks.iter().enumerate() {
                        let mut r = kept.residents.clone();
                        r.sort_unstable();
                        assert_eq!(r, states[kept.pos as usize], "{at} group {k}");
                    }
                }
            }
        }
        let share = |n: usize| n as f64 / tries as f64;
        assert!(
            share(spilled) > 0.8,
            "only {spilled} of {tries} orders spill"
        );
        assert!(
            share(resumed) > 0.2,
            "only {resumed} of {tries} replays resume"
        );
        assert!(
            share(met) > 0.2,
            "only {met} of {tries} replays meet the current one"
        );
    }
}
