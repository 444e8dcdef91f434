//! Reserved memory over time: the segments of the trace (`segment_alloc` /
//! `segment_free`, and the mapped ranges of expandable segments, `segment_map` /
//! `segment_unmap`) as pieces with a first and last step, completed by the final
//! `segments` list for what was reserved before recording started.
//!
//! Invariant: at every step the pieces alive do not overlap in address, and their
//! sizes sum to the reserved bytes at that step.

use super::entry::{Action, Entry};
use super::Segment;
use std::collections::BTreeMap;

/// A segment of the final `segments` list, with its active blocks
/// `(address, size, requested size, stack)`.
pub(super) struct Final {
    pub addr: u64,
    pub size: u64,
    pub stream: i64,
    pub expandable: bool,
    pub small: bool,
    pub pool: Option<(i64, i64)>,
    pub blocks: Vec<(u64, u64, u64, Option<u32>)>,
}

/// The rebuilt pieces.
pub(super) struct Pieces {
    pub list: Vec<Segment>,
}

pub(super) fn rebuild(
    entries: &[Entry],
    streams: &[i64],
    finals: &[Final],
    notes: &mut Vec<String>,
) -> Pieces {
    let last = (entries.len() as u32).saturating_sub(1);
    let mut list: Vec<Segment> = Vec::new();
    let mut open: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        let step = i as u32;
        match e.action {
            Action::SegmentAlloc | Action::SegmentMap => {
                let piece = Segment {
                    addr: e.addr,
                    size: e.size,
                    stream: streams[e.stream()],
                    start: step,
                    end: last,
                    expandable: e.action == Action::SegmentMap,
                    pool: None,
                    small: small_by_size(e.size, e.action == Action::SegmentMap),
                };
                // a range still open where this one starts is over
                release(
                    &mut list,
                    &mut open,
                    e.addr,
                    e.size,
                    step.saturating_sub(1),
                    last,
                );
                open.insert(e.addr, list.len());
                list.push(piece);
            }
            Action::SegmentFree | Action::SegmentUnmap => {
                // gone after this entry: reserved up to the entry before it
                let before = step.saturating_sub(1);
                let missing = release(&mut list, &mut open, e.addr, e.size, before, last);
                for (addr, size) in missing {
                    // reserved before recording started
                    list.push(Segment {
                        addr,
                        size,
                        stream: streams[e.stream()],
                        start: 0,
                        end: before,
                        expandable: e.action == Action::SegmentUnmap,
                        pool: None,
                        small: small_by_size(size, e.action == Action::SegmentUnmap),
                    });
                }
            }
            _ => {}
        }
    }
    let mut before = 0u64;
    for f in finals {
        for (addr, size) in uncovered(&list, &open, f.addr, f.size) {
            before += size;
            open.insert(addr, list.len());
            list.push(Segment {
                addr,
                size,
                stream: f.stream,
                start: 0,
                end: last,
                expandable: f.expandable,
                pool: None,
                small: f.small,
            });
        }
        for &p in open
            .range(f.addr..f.addr.saturating_add(f.size))
            .map(|(_, p)| p)
        {
            list[p].pool = f.pool;
            list[p].expandable |= f.expandable;
            list[p].small = f.small;
        }
    }
    if before > 0 && !entries.is_empty() {
        notes.push(format!(
            "{before} bytes of segments were reserved before recording started"
        ));
    }
    Pieces { list }
}

/// A segment's pool by its size where nothing says: a small pool's segment is
/// 2 MiB, and an expandable small pool maps 2 MiB pages where a large one maps
/// 20 MiB pages.
fn small_by_size(size: u64, expandable: bool) -> bool {
    match expandable {
        true => !size.is_multiple_of(20 << 20),
        false => size == 2 << 20,
    }
}

/// Ends at `step` the open pieces within `[addr, addr + size)`; the parts of a piece
/// outside the range stay reserved as new pieces from `step + 1`. Returns the parts
/// of the range no open piece covered.
fn release(
    list: &mut Vec<Segment>,
    open: &mut BTreeMap<u64, usize>,
    addr: u64,
    size: u64,
    step: u32,
    last: u32,
) -> Vec<(u64, u64)> {
    let end = addr.saturating_add(size);
    let mut hit: Vec<usize> = Vec::new();
    if let Some((_, &p)) = open.range(..addr).next_back() {
        if list[p].addr + list[p].size > addr {
            hit.push(p);
        }
    }
    hit.extend(open.range(addr..end).map(|(_, &p)| p));
    let mut covered = Vec::new();
    for p in hit {
        let s = list[p].clone();
        open.remove(&s.addr);
        list[p].end = step.max(s.start);
        let (lo, hi) = (s.addr.max(addr), (s.addr + s.size).min(end));
        covered.push((lo, hi));
        for (a, b) in [(s.addr, lo), (hi, s.addr + s.size)] {
            if a < b && step < last {
                open.insert(a, list.len());
                list.push(Segment {
                    addr: a,
                    size: b - a,
                    start: step + 1,
                    ..s.clone()
                });
            }
        }
    }
    gaps(addr, end, covered)
}

/// The parts of `[addr, addr + size)` that no open piece covers.
fn uncovered(
    list: &[Segment],
    open: &BTreeMap<u64, usize>,
    addr: u64,
    size: u64,
) -> Vec<(u64, u64)> {
    let end = addr.saturating_add(size);
    let covered = (open.values())
        .map(|&p| (list[p].addr, list[p].addr + list[p].size))
        .filter(|&(a, b)| a < end && b > addr)
        .collect();
    gaps(addr, end, covered)
}

/// `[lo, hi)` minus the ranges in `covered`, as `(address, size)`.
pub(super) fn gaps(lo: u64, hi: u64, mut covered: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    covered.sort_unstable();
    let mut out = Vec::new();
    let mut at = lo;
    for (a, b) in covered {
        if a > at && at < hi {
            out.push((at, a.min(hi) - at));
        }
        at = at.max(b);
    }
    if at < hi {
        out.push((at, hi - at));
    }
    out
}

/// Reserved bytes from each step on, at each change.
pub(super) fn reserved(list: &[Segment], steps: u32) -> Vec<(u32, u64)> {
    let mut delta: BTreeMap<u32, i128> = BTreeMap::new();
    delta.insert(0, 0);
    for s in list {
        *delta.entry(s.start).or_default() += i128::from(s.size);
        if s.end + 1 < steps.max(1) {
            *delta.entry(s.end + 1).or_default() -= i128::from(s.size);
        }
    }
    let mut at = 0i128;
    delta
        .into_iter()
        .map(|(step, d)| {
            at += d;
            (step, at.max(0) as u64)
        })
        .collect()
}

/// The pieces alive at one step, by address, moved forward step by step.
pub(super) struct Live {
    map: BTreeMap<u64, u32>,
    starts: Vec<(u32, u32)>,
    ends: Vec<(u32, u32)>,
    next_start: usize,
    next_end: usize,
}

impl Live {
    pub fn new(list: &[Segment]) -> Live {
        let mut starts: Vec<(u32, u32)> = (list.iter().enumerate())
            .map(|(i, s)| (s.start, i as u32))
            .collect();
        let mut ends: Vec<(u32, u32)> = (list.iter().enumerate())
            .map(|(i, s)| (s.end, i as u32))
            .collect();
        starts.sort_unstable();
        ends.sort_unstable();
        Live {
            map: BTreeMap::new(),
            starts,
            ends,
            next_start: 0,
            next_end: 0,
        }
    }

    /// Moves to `step` (never backwards).
    pub fn advance(&mut self, list: &[Segment], step: u32) {
        while let Some(&(end, p)) = self.ends.get(self.next_end).filter(|e| e.0 < step) {
            let _ = end;
            if self.map.get(&list[p as usize].addr) == Some(&p) {
                self.map.remove(&list[p as usize].addr);
            }
            self.next_end += 1;
        }
        while let Some(&(_, p)) = self.starts.get(self.next_start).filter(|s| s.0 <= step) {
            if list[p as usize].end >= step {
                self.map.insert(list[p as usize].addr, p);
            }
            self.next_start += 1;
        }
    }

    /// The piece alive now that holds `addr`.
    pub fn find(&self, list: &[Segment], addr: u64) -> Option<u32> {
        let (_, &p) = self.map.range(..=addr).next_back()?;
        let s = &list[p as usize];
        (addr < s.addr + s.size).then_some(p)
    }
}
