//! Does a packing into `capacity` bytes exist? A depth-first search over canonical
//! solutions, in the spirit of MiniMalloc (Moffitt, ASPLOS 2023):
//!
//! - every buffer sits as low as the buffers already placed allow (its *floor*:
//!   the highest top among placed buffers it overlaps, aligned), and buffers are
//!   placed in non-decreasing (offset, rank) order, so each packing pushed down is
//!   reached once;
//! - candidates are tried lowest floor first;
//! - a buffer whose floor is at or above the lowest top any other unplaced buffer
//!   could reach is skipped: that other buffer fits below it, so the same packing
//!   is reached with it first (dominance);
//! - a section fails when its floor (the highest placed top, the lowest floor of
//!   its unplaced buffers, and the current offset) plus its unplaced bytes exceed
//!   the capacity (inference);
//! - once no unplaced buffer crosses a section boundary, both sides are solved
//!   independently (decomposition);
//! - static ranks from three orders (length, area, section total) tried round robin
//!   with a doubling node limit, so one bad order cannot stall the search.
//!
//! Invariant: every change to the state is logged and undone on the way back, so
//! the state after any return equals the state before the call.

use super::align_up;
use super::budget::Budget;
use super::sections::Sections;
use std::cmp::Reverse;

const NONE: u64 = u64::MAX;

/// The answer for one capacity.
pub(super) enum Decision {
    /// Offsets by problem buffer, each `offset + size <= capacity`.
    Fits(Vec<u64>),
    /// Proven: no packing fits.
    Infeasible,
    /// The budget ran out first.
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Found,
    NotFound,
    /// The node limit of this round ran out.
    Aborted,
    /// The budget ran out.
    OutOfTime,
}

#[derive(Clone, Copy)]
enum Rank {
    LengthAreaTotal,
    TotalAreaLength,
    TotalLengthArea,
}

const RANKS: [Rank; 3] = [
    Rank::LengthAreaTotal,
    Rank::TotalAreaLength,
    Rank::TotalLengthArea,
];

enum Change {
    MinOffset(u32, u64),
    Floor(u32, u64),
}

/// The search's state for one capacity. Every round leaves it as it found it
/// (see the invariant above) but for the work counted.
struct Solver<'p> {
    p: &'p Sections,
    capacity: u64,
    align: u64,
    offset: Vec<u64>,
    min_offset: Vec<u64>,
    /// `min_offset` of each unplaced buffer, `u64::MAX` for a placed one: what a
    /// section's floor is raised to, read in one load per member.
    open: Vec<u64>,
    floor: Vec<u64>,
    /// Unplaced bytes per section.
    total: Vec<u64>,
    /// Unplaced buffers crossing the boundary after each section.
    cuts: Vec<u32>,
    solution: Vec<u64>,
    log: Vec<Change>,
    stamp: Vec<u32>,
    epoch: u32,
    /// Scratch vectors kept for reuse, so that a node allocates nothing: the
    /// candidates of the nodes on the current path, the parts being solved, the
    /// keys of the part being ranked, the sections a placement touched.
    spare_cands: Vec<Vec<(u64, u32)>>,
    spare_parts: Vec<Vec<u32>>,
    keyed: Vec<([u128; 3], u32)>,
    affected: Vec<u32>,
    nodes_left: u64,
    /// Work done so far, in entries visited (buffers, sections, overlaps, log
    /// entries), and how much of it is charged to the budget already.
    steps: u64,
    charged: u64,
}

/// Entries visited by the search per work unit: about 2.5 µs (1,200 until the nodes
/// stopped allocating and scanning every member of a touched section).
const STEPS_PER_UNIT: u64 = 4800;

/// Searches for a packing of `p` into `capacity` bytes with offsets multiple of `align`.
pub(super) fn decide(p: &Sections, capacity: u64, align: u64, budget: &mut Budget) -> Decision {
    let mut decider = match Decider::new(p, capacity, align) {
        Ok(decider) => decider,
        Err(decision) => return decision,
    };
    loop {
        if let Some(decision) = decider.round(budget) {
            return decision;
        }
    }
}

/// The search for one capacity, a round at a time, so that searches for
/// several capacities can take turns (see `search`): each round tries one of
/// the [`RANKS`] under the current node limit, which doubles once all three
/// have had it.
pub(super) struct Decider<'p> {
    solver: Solver<'p>,
    all: Vec<u32>,
    limit: u64,
    /// Index into [`RANKS`] of the next round.
    next: usize,
}

impl<'p> Decider<'p> {
    /// A search for `capacity`, or the answer when it is plain at once (a buffer
    /// or a section larger than the capacity).
    pub(super) fn new(p: &'p Sections, capacity: u64, align: u64) -> Result<Decider<'p>, Decision> {
        if p.size.iter().any(|&s| s > capacity) {
            return Err(Decision::Infeasible);
        }
        let n_sections = p.sections();
        let mut total = vec![0u64; n_sections];
        let mut cuts = vec![0u32; n_sections];
        for b in 0..p.len() {
            for s in p.lo[b]..p.hi[b] {
                total[s as usize] += p.size[b];
            }
            for s in p.lo[b]..p.hi[b] - 1 {
                cuts[s as usize] += 1;
            }
        }
        if total.iter().any(|&t| t > capacity) {
            return Err(Decision::Infeasible);
        }
        let solver = Solver {
            p,
            capacity,
            align,
            offset: vec![NONE; p.len()],
            min_offset: vec![0; p.len()],
            open: vec![0; p.len()],
            floor: vec![0; n_sections],
            total,
            cuts,
            solution: vec![0; p.len()],
            log: Vec::new(),
            stamp: vec![0; n_sections],
            epoch: 0,
            spare_cands: Vec::new(),
            spare_parts: Vec::new(),
            keyed: Vec::new(),
            affected: Vec::new(),
            nodes_left: 0,
            steps: 0,
            charged: 0,
        };
        Ok(Decider {
            solver,
            all: (0..p.len() as u32).collect(),
            limit: 2 * (p.len() as u64).max(16),
            next: 0,
        })
    }

    pub(super) fn capacity(&self) -> u64 {
        self.solver.capacity
    }

    /// Runs the next round; None when its node limit ran out first (the next
    /// round tries another rank, or a higher limit).
    pub(super) fn round(&mut self, budget: &mut Budget) -> Option<Decision> {
        let rank = RANKS[self.next];
        let solver = &mut self.solver;
        solver.nodes_left = self.limit;
        let status = solver.split(0, solver.p.sections() as u32, &self.all, rank, budget);
        self.next += 1;
        if self.next == RANKS.len() {
            self.next = 0;
            self.limit = self.limit.saturating_mul(2);
        }
        match status {
            Status::Found => Some(Decision::Fits(solver.solution.clone())),
            Status::NotFound => Some(Decision::Infeasible),
            Status::OutOfTime => Some(Decision::Unknown),
            Status::Aborted => None,
        }
    }
}

impl Solver<'_> {
    /// Solves the unplaced buffers of `within` over sections `s_lo..s_hi`, split at
    /// every boundary no unplaced buffer crosses.
    fn split(
        &mut self,
        s_lo: u32,
        s_hi: u32,
        within: &[u32],
        rank: Rank,
        budget: &mut Budget,
    ) -> Status {
        let mut from = s_lo;
        for s in s_lo..s_hi {
            if s + 1 == s_hi || self.cuts[s as usize] == 0 {
                let mut part = self.spare_parts.pop().unwrap_or_default();
                part.clear();
                part.extend(within.iter().copied().filter(|&b| {
                    self.offset[b as usize] == NONE
                        && self.p.lo[b as usize] <= s
                        && self.p.hi[b as usize] > from
                }));
                let status = if part.is_empty() {
                    Status::Found
                } else {
                    self.solve(from, s + 1, &mut part, rank, budget)
                };
                self.spare_parts.push(part);
                if status != Status::Found {
                    return status;
                }
                from = s + 1;
            }
        }
        Status::Found
    }

    /// Ranks `part` statically, then searches it.
    fn solve(
        &mut self,
        s_lo: u32,
        s_hi: u32,
        part: &mut [u32],
        rank: Rank,
        budget: &mut Budget,
    ) -> Status {
        let p = self.p;
        let most = |b: u32| {
            (p.lo[b as usize]..p.hi[b as usize])
                .map(|s| self.total[s as usize])
                .max()
                .unwrap_or(0)
        };
        let length = |b: u32| u128::from(p.length[b as usize]);
        let area = |b: u32| u128::from(p.size[b as usize]) * length(b);
        // each key once per buffer, all three ranks through one sort; the key ends
        // with the buffer, so the unstable sort's order is the only one
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(part.iter().map(|&b| {
            let key = match rank {
                Rank::LengthAreaTotal => [length(b), area(b), u128::from(most(b))],
                Rank::TotalAreaLength => [u128::from(most(b)), area(b), length(b)],
                Rank::TotalLengthArea => [u128::from(most(b)), length(b), area(b)],
            };
            (key, b)
        }));
        keyed.sort_unstable_by_key(|&(key, b)| (Reverse(key), b));
        for (slot, &(_, b)) in part.iter_mut().zip(&keyed) {
            *slot = b;
        }
        self.keyed = keyed;
        self.search(s_lo, s_hi, part, rank, (0, 0), budget)
    }

    fn search(
        &mut self,
        s_lo: u32,
        s_hi: u32,
        order: &[u32],
        rank: Rank,
        last: (u64, u32),
        budget: &mut Budget,
    ) -> Status {
        if self.nodes_left == 0 {
            return Status::Aborted;
        }
        self.nodes_left -= 1;
        // the work since the last node: this node's scan, and the places,
        // checks and undos of the candidates tried before it
        self.steps += 50 + order.len() as u64;
        if budget.charge(self.steps, STEPS_PER_UNIT, &mut self.charged) {
            return Status::OutOfTime;
        }
        let mut cands = self.spare_cands.pop().unwrap_or_default();
        cands.clear();
        cands.extend(
            order
                .iter()
                .enumerate()
                .filter(|(_, &b)| self.offset[b as usize] == NONE)
                .map(|(r, &b)| (self.min_offset[b as usize], r as u32)),
        );
        // the candidates (lowest offset first), each placed and searched on until one
        // leads to a packing; the vector goes back to the spares on every way out
        let status = 'node: {
            if cands.is_empty() {
                break 'node Status::Found;
            }
            self.steps += cands.len() as u64;
            cands.sort_unstable();
            let min_height = cands
                .iter()
                .map(|&(o, r)| o + self.p.size[order[r as usize] as usize])
                .min()
                .unwrap_or(0);
            for &(off, r) in cands.iter() {
                if off >= min_height {
                    break;
                }
                if (off, r) < last {
                    continue;
                }
                let b = order[r as usize];
                let mark = self.log.len();
                self.place(b, off);
                let mut status = Status::NotFound;
                if self.consistent(s_lo, s_hi, off) {
                    status = self.descend(s_lo, s_hi, order, rank, (off, r), budget);
                }
                self.unplace(b, mark);
                if status != Status::NotFound {
                    break 'node status;
                }
            }
            Status::NotFound
        };
        self.spare_cands.push(cands);
        status
    }

    /// Continues after placing `order[last.1]`: splits when it was the last
    /// buffer across a boundary, else searches on.
    fn descend(
        &mut self,
        s_lo: u32,
        s_hi: u32,
        order: &[u32],
        rank: Rank,
        last: (u64, u32),
        budget: &mut Budget,
    ) -> Status {
        let b = order[last.1 as usize];
        let (lo, hi) = (self.p.lo[b as usize], self.p.hi[b as usize]);
        let mut opened = false;
        for s in lo..hi - 1 {
            self.cuts[s as usize] -= 1;
            opened |= self.cuts[s as usize] == 0;
        }
        let status = if opened {
            self.split(s_lo, s_hi, order, rank, budget)
        } else {
            self.search(s_lo, s_hi, order, rank, last, budget)
        };
        for s in lo..hi - 1 {
            self.cuts[s as usize] += 1;
        }
        status
    }

    fn place(&mut self, b: u32, off: u64) {
        let p = self.p;
        let bi = b as usize;
        let top = off + p.size[bi];
        self.offset[bi] = off;
        self.open[bi] = u64::MAX;
        self.solution[bi] = off;
        self.epoch += 1;
        let mut affected = std::mem::take(&mut self.affected);
        affected.clear();
        self.steps += (p.overlaps[bi].len() + (p.hi[bi] - p.lo[bi]) as usize) as u64;
        for &o in &p.overlaps[bi] {
            let oi = o as usize;
            if self.offset[oi] != NONE || self.min_offset[oi] >= top {
                continue;
            }
            self.log.push(Change::MinOffset(o, self.min_offset[oi]));
            self.min_offset[oi] = align_up(top, self.align);
            self.open[oi] = self.min_offset[oi];
            self.steps += u64::from(p.hi[oi] - p.lo[oi]);
            for s in p.lo[oi]..p.hi[oi] {
                if self.stamp[s as usize] != self.epoch {
                    self.stamp[s as usize] = self.epoch;
                    affected.push(s);
                }
            }
        }
        for s in p.lo[bi]..p.hi[bi] {
            let si = s as usize;
            self.log.push(Change::Floor(s, self.floor[si]));
            self.floor[si] = top;
            self.total[si] -= p.size[bi];
        }
        for &s in &affected {
            let si = s as usize;
            self.steps += p.members[si].len() as u64;
            // the least offset of an unplaced member, when above the floor: the
            // scan ends at the first member at or below it
            let floor = self.floor[si];
            let mut lowest = u64::MAX;
            for &m in &p.members[si] {
                let at = self.open[m as usize];
                if at <= floor {
                    lowest = floor;
                    break;
                }
                lowest = lowest.min(at);
            }
            if lowest != u64::MAX && floor < lowest {
                self.log.push(Change::Floor(s, floor));
                self.floor[si] = lowest;
            }
        }
        self.affected = affected;
    }

    fn unplace(&mut self, b: u32, mark: usize) {
        self.steps += (self.log.len() - mark) as u64;
        while self.log.len() > mark {
            match self.log.pop().expect("a change") {
                Change::MinOffset(o, v) => {
                    self.min_offset[o as usize] = v;
                    self.open[o as usize] = v;
                }
                Change::Floor(s, v) => self.floor[s as usize] = v,
            }
        }
        let bi = b as usize;
        for s in self.p.lo[bi]..self.p.hi[bi] {
            self.total[s as usize] += self.p.size[bi];
        }
        self.offset[bi] = NONE;
        self.open[bi] = self.min_offset[bi];
    }

    /// No section of `s_lo..s_hi` needs more than the capacity.
    fn consistent(&mut self, s_lo: u32, s_hi: u32, off: u64) -> bool {
        self.steps += u64::from(s_hi - s_lo);
        (s_lo as usize..s_hi as usize).all(|s| {
            let floor = if self.total[s] > 0 {
                self.floor[s].max(off)
            } else {
                self.floor[s]
            };
            floor + self.total[s] <= self.capacity
        })
    }
}
