//! Which residents leave when a level has no room: furthest next use (per unit of
//! data moved, or not), or the cheapest contiguous window of residents.

use super::*;

/// Room wanted in a level: `size` units at input step `i`, in a level of
/// `capacity` whose residents are `list` (by offset), `pinned` staying.
pub(super) struct Room<'a> {
    pub(super) case: &'a Case,
    pub(super) list: &'a [(u64, u64, BufferId)],
    pub(super) capacity: u64,
    pub(super) size: u64,
    pub(super) pinned: &'a [BufferId],
    pub(super) i: u32,
}

/// The victims (into `out`, in the order they leave) that the rule of `opts`
/// picks to make `room`: the cheapest window under [`Victim::Window`] where one
/// exists, else one buffer. False when nothing may leave.
pub(super) fn choose(
    room: &Room,
    opts: SpillOptions,
    next: &mut NextUse,
    out: &mut Vec<BufferId>,
) -> bool {
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
