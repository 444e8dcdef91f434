//! The repair of an earlier placement: the allocator resumed where a new order
//! parts from an earlier one, and rejoined with the earlier placement's rest once
//! its residents are the same again (see [`place_reusing`](super::place_reusing)).

use super::victims::{choose, Room};
use super::*;

impl<'a> Allocator<'a> {
    /// Takes over `placed`, the placement of an order that agrees with this one
    /// on its first `shared` nodes, as far as it holds (see [`place_reusing`]):
    /// the input step to go on from.
    pub(super) fn resume(&mut self, placed: &Traced, shared: usize) -> usize {
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

    /// Before input step `i` of an order that agrees with the one `placed` was
    /// made for from `i` on: when the residents of every level are those `placed`
    /// had there (same offsets, same list order), the rest of the placement would
    /// make the same choices, so the rest of `placed` is taken, its positions and
    /// spill numbers shifted to this plan's. True when taken (the plan is then
    /// whole).
    pub(super) fn rejoin(&mut self, placed: &Traced, i: usize) -> bool {
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
