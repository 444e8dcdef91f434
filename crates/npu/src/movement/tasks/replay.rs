//! The spill model of the task search: an access sequence replayed at the levels'
//! capacities with furthest-next-use eviction, counting the data it moves.

use crate::case::{BufferId, Case};

/// Data moved replaying `seq` with furthest-next-use eviction at `capacity`; a
/// buffer leaves for good after its last access.
pub(super) fn replay(
    case: &Case,
    capacity: &[u64],
    seq: &[BufferId],
    scratch: &mut Scratch,
) -> u64 {
    let Scratch {
        seq: _,
        next,
        buffers,
        residents,
        scanned,
    } = scratch;
    *scanned = 0;
    next.clear();
    next.resize(seq.len(), u32::MAX);
    for &b in seq {
        let buf = &mut buffers[b.index()];
        buf.later = u32::MAX;
        buf.at = NOT_RESIDENT;
        buf.seen = 0;
    }
    for p in (0..seq.len()).rev() {
        let buf = &mut buffers[seq[p].index()];
        next[p] = buf.later;
        buf.later = p as u32;
    }
    let mut used = vec![0u64; case.levels.len()];
    residents.iter_mut().for_each(Vec::clear);
    let mut moved = 0u64;
    for (p, &b) in seq.iter().enumerate() {
        let Buffer {
            at,
            level,
            size,
            cost,
            seen,
            ..
        } = buffers[b.index()];
        let level = level as usize;
        let list = &mut residents[level];
        if at == NOT_RESIDENT {
            if seen != 0 {
                moved += cost;
            }
            buffers[b.index()].seen = 1;
            // the furthest next access leaves first (entries are unique)
            while used[level] + size > capacity[level] && !list.is_empty() {
                *scanned += list.len() as u64;
                let (far, _) = furthest::<false>(list);
                let v = leave(list, buffers, far);
                used[level] -= buffers[v.index()].size;
            }
            if next[p] != u32::MAX {
                used[level] += size;
                buffers[b.index()].at = list.len() as u32;
                list.push(entry(next[p], b));
            }
        } else if next[p] == u32::MAX {
            // its last access: it leaves for good
            leave(list, buffers, at as usize);
            used[level] -= size;
        } else {
            list[at as usize] = entry(next[p], b);
        }
    }
    moved
}

/// The place in a level's `list` of the entry with the furthest next access
/// (entries are unique), and when `SECOND` the next access of the one after it (0
/// when there is none).
#[inline(always)]
pub(super) fn furthest<const SECOND: bool>(list: &[u64]) -> (usize, u32) {
    let (mut far, mut furthest, mut second) = (0, 0u64, 0u64);
    for (k, &e) in list.iter().enumerate() {
        if e > furthest {
            if SECOND {
                second = furthest;
            }
            (far, furthest) = (k, e);
        } else if SECOND && e > second {
            second = e;
        }
    }
    (far, (second >> 32) as u32)
}

/// Takes the resident at `at` out of its level's list (the last one moves into
/// its place): the buffer.
pub(super) fn leave(list: &mut Vec<u64>, buffers: &mut [Buffer], at: usize) -> BufferId {
    let gone = BufferId(list.swap_remove(at) as u32);
    buffers[gone.index()].at = NOT_RESIDENT;
    if let Some(&moved) = list.get(at) {
        buffers[moved as u32 as usize].at = at as u32;
    }
    gone
}

pub(super) const NOT_RESIDENT: u32 = u32::MAX;

/// A resident in its level's list: its next access, then the buffer (no two
/// alike: one access per position).
pub(super) fn entry(next: u32, b: BufferId) -> u64 {
    u64::from(next) << 32 | u64::from(b.0)
}

/// What the replay knows of one buffer, in one place (one cache line read per
/// access instead of several arrays and the case's buffer).
#[derive(Clone, Copy)]
pub(super) struct Buffer {
    /// The next access while walking backwards.
    pub(super) later: u32,
    /// Its place in its level's list, else [`NOT_RESIDENT`].
    pub(super) at: u32,
    /// Its first access in the current order (`resume.rs`).
    pub(super) first: u32,
    /// Not zero once accessed (here); the replay that last found it not
    /// resident (`resume.rs`).
    pub(super) seen: u32,
    pub(super) level: u32,
    pub(super) size: u64,
    /// What one spill of it moves.
    pub(super) cost: u64,
}

impl Buffer {
    /// The case's buffers as the replays know them.
    pub(super) fn all(case: &Case) -> Vec<Buffer> {
        case.buffers
            .iter()
            .map(|b| Buffer {
                later: u32::MAX,
                at: NOT_RESIDENT,
                first: u32::MAX,
                seen: 0,
                level: b.level.index() as u32,
                size: b.size,
                cost: b.spill_cost(),
            })
            .collect()
    }
}

/// Working memory of [`replay`], kept between calls.
pub(super) struct Scratch {
    /// The access sequence of [`Tasks::cost`](super::Tasks::cost).
    pub(super) seq: Vec<BufferId>,
    next: Vec<u32>,
    buffers: Vec<Buffer>,
    /// Per level: its residents as [`entry`]s, in no order. A level holds a few
    /// dozen of the buffers tasks share, so one pass for the furthest on an
    /// eviction costs less than a heap kept in order on every access (and entries
    /// go stale in it), and an access to a resident rewrites its entry in place.
    residents: Vec<Vec<u64>>,
    /// Residents the last replay looked at for evictions.
    pub(super) scanned: u64,
}

impl Scratch {
    pub(super) fn new(case: &Case) -> Scratch {
        Scratch {
            seq: Vec::new(),
            next: Vec::new(),
            buffers: Buffer::all(case),
            residents: vec![Vec::new(); case.levels.len()],
            scanned: 0,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::case::default_levels;
    use crate::tiled::CaseBuilder;
    use memplan::rng::Rng;

    /// The data a furthest-next-use replay moves, computed the slow way: the next
    /// access of every resident found by looking ahead in `seq`.
    pub(in super::super) fn slow_replay(case: &Case, capacity: &[u64], seq: &[BufferId]) -> u64 {
        slow_states(case, capacity, seq).0
    }

    /// [`slow_replay`], and the residents before each access (and after the last).
    pub(in super::super) fn slow_states(
        case: &Case,
        capacity: &[u64],
        seq: &[BufferId],
    ) -> (u64, Vec<Vec<u32>>) {
        let mut states = Vec::new();
        let next_after = |b: BufferId, p: usize| {
            (p + 1..seq.len())
                .find(|&q| seq[q] == b)
                .unwrap_or(usize::MAX)
        };
        let mut resident: Vec<BufferId> = Vec::new();
        let mut seen: Vec<BufferId> = Vec::new();
        let mut moved = 0;
        for (p, &b) in seq.iter().enumerate() {
            let mut now: Vec<u32> = resident.iter().map(|r| r.0).collect();
            now.sort_unstable();
            states.push(now);
            let buf = case.buffer(b);
            let level = buf.level;
            let used = |resident: &Vec<BufferId>| -> u64 {
                resident
                    .iter()
                    .filter(|&&r| case.buffer(r).level == level)
                    .map(|&r| case.buffer(r).size)
                    .sum()
            };
            if !resident.contains(&b) {
                if seen.contains(&b) {
                    moved += buf.spill_cost();
                }
                seen.push(b);
                while used(&resident) + buf.size > capacity[level.index()] {
                    let victim = resident
                        .iter()
                        .copied()
                        .filter(|&r| case.buffer(r).level == level)
                        .max_by_key(|&r| next_after(r, p));
                    let Some(victim) = victim else { break };
                    resident.retain(|&r| r != victim);
                }
                resident.push(b);
            }
            if next_after(b, p) == usize::MAX {
                resident.retain(|&r| r != b);
            }
        }
        let mut now: Vec<u32> = resident.iter().map(|r| r.0).collect();
        now.sort_unstable();
        states.push(now);
        (moved, states)
    }

    /// A case of `4 + round % 12` buffers of L1 and UB, some loaded by a COPY_IN
    /// (half the cost), with the levels' capacities for the replay: the case,
    /// the capacities and the buffer count.
    pub(in super::super) fn random_case(rng: &mut Rng, round: usize) -> (Case, Vec<u64>, usize) {
        let mut c = CaseBuilder::default();
        let count = 4 + round % 12;
        for i in 0..count {
            let level = if i % 3 == 2 { "UB" } else { "L1" };
            let b = c.alloc(64 * (1 + rng.below(12) as u64), level);
            let pipe = if i % 2 == 0 { "MTE2" } else { "VECTOR" };
            let name = if i % 2 == 0 { "COPY_IN" } else { "ADD" };
            c.op(name, pipe, 1, &[b], &[]);
        }
        let case = c.finish("replay", default_levels()).unwrap();
        let mut capacity: Vec<u64> = case.levels.iter().map(|l| l.capacity).collect();
        capacity[case.level_index("L1").unwrap().index()] = 128 * (2 + round as u64 % 6);
        capacity[case.level_index("UB").unwrap().index()] = 64 * (3 + round as u64 % 5);
        (case, capacity, count)
    }

    #[test]
    fn the_replay_moves_what_a_slow_furthest_next_use_replay_moves() {
        let mut rng = Rng::new(7);
        let mut spilled = 0;
        for round in 0..40 {
            let (case, capacity, count) = random_case(&mut rng, round);
            let seq: Vec<BufferId> = (0..150)
                .map(|_| BufferId(rng.below(count) as u32))
                .collect();
            let mut scratch = Scratch::new(&case);
            let fast = replay(&case, &capacity, &seq, &mut scratch);
            assert_eq!(fast, slow_replay(&case, &capacity, &seq), "round {round}");
            // the same scratch again, on the sequence reversed
            let back: Vec<BufferId> = seq.iter().rev().copied().collect();
            let again = replay(&case, &capacity, &back, &mut scratch);
            assert_eq!(again, slow_replay(&case, &capacity, &back), "round {round}");
            spilled += usize::from(fast > 0);
        }
        assert!(spilled > 30, "only {spilled} of 40 rounds spill");
    }
}
