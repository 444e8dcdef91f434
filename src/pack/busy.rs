//! The address ranges taken, at some step of a lifetime, by the buffers placed so
//! far: their union, as maximal gaps in address order, without listing every
//! placed buffer that overlaps the lifetime (dense packings have thousands of
//! those and few gaps).
//!
//! The leaves of a segment tree over time are the distinct start steps; a buffer
//! covers those from its start to its end (its own start at least), and two
//! lifetimes overlap exactly when their leaf ranges meet (the later start is in
//! both). A placed buffer is recorded on the canonical nodes of its leaf range.
//! Each node keeps, as merged disjoint ranges:
//! - `own`: the bytes of the buffers recorded on it (alive over all its leaves);
//! - `under`: `own` and the `under` of its children (everything at or below it).
//!
//! The buffers overlapping a range are those recorded at or below one of its
//! canonical nodes, or above one: the union is that of `under` of the canonical
//! nodes and `own` of their ancestors, O(log n) sets.
//!
//! With an alignment and no empty buffer, two ranges also merge across a hole
//! that ends at the next multiple of the alignment: every offset is aligned, so
//! such a hole takes nothing with bytes, and the gaps that fit and the top stay
//! exactly those of the true union (an empty buffer can go into such a hole, so
//! with one the ranges merge only when they touch).

use super::align_up;
use super::Fit;
use crate::liveness::Buffer;

/// Disjoint byte ranges `[from, to)`, sorted, none touching the next one (ends
/// rounded up to the grain).
type Ranges = Vec<(u64, u64)>;

pub(super) struct Busy {
    /// Distinct start steps, sorted: the leaves.
    starts: Vec<u32>,
    /// Ranges merge when one ends within this of the next (see the module).
    grain: u64,
    /// Number of leaves; node `v`'s children are `2v` and `2v + 1`, leaf `k` is
    /// node `leaves + k` (a bottom-up tree: any number of leaves works).
    leaves: usize,
    /// `under` of node `v` at `v`; `own` of an inner node `v` at `2 * leaves + v`
    /// (a leaf is nobody's ancestor: its `own` is never asked for).
    sets: Vec<Ranges>,
    /// Sets of the current query (indices into `sets`), the empty ones left out.
    query: Vec<usize>,
    /// The merge's state: the current range of each set (see [`pick`]).
    heads: Vec<Head>,
    /// Ancestors already gathered by the current query: `seen[v] == round`.
    seen: Vec<u32>,
    round: u32,
    /// Work done so far: sets gathered, ranges merged and ranges recorded (see
    /// [`Busy::steps`]).
    steps: u64,
}

impl Busy {
    /// For `buffers` placed at multiples of `align`.
    pub(super) fn new(buffers: &[Buffer], align: u64) -> Busy {
        let mut starts: Vec<u32> = buffers.iter().map(|b| b.life.start).collect();
        starts.sort_unstable();
        starts.dedup();
        let leaves = starts.len().max(1);
        let grain = if buffers.iter().any(|b| b.size == 0) {
            1
        } else {
            align.max(1)
        };
        Busy {
            starts,
            grain,
            leaves,
            sets: vec![Ranges::new(); 3 * leaves],
            query: Vec::new(),
            heads: Vec::new(),
            seen: vec![0; 2 * leaves],
            round: 0,
            steps: 0,
        }
    }

    /// Nodes `[lo, hi)` of the leaves of `buffer`: the starts within its life.
    fn nodes(&self, buffer: &Buffer) -> (usize, usize) {
        let life = buffer.life;
        (
            self.starts.partition_point(|&s| s < life.start) + self.leaves,
            self.starts.partition_point(|&s| s <= life.end) + self.leaves,
        )
    }

    /// The work done so far, in steps that each cost about the same: a set
    /// gathered for a query, a range merged, a range recorded on a node.
    pub(super) fn steps(&self) -> u64 {
        self.steps
    }

    /// Records `buffer` as placed at `offset` (it must have bytes).
    pub(super) fn insert(&mut self, buffer: &Buffer, offset: u64) {
        let (from, to) = (offset, offset + buffer.size);
        let (mut lo, mut hi) = self.nodes(buffer);
        while lo < hi {
            if lo & 1 == 1 {
                self.record(lo, from, to);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                self.record(hi, from, to);
            }
            lo >>= 1;
            hi >>= 1;
        }
    }

    /// Adds `[from, to)` to `own` of `node` and to `under` of it and its ancestors,
    /// stopping at the first that has it already (so do all above it).
    fn record(&mut self, node: usize, from: u64, to: u64) {
        self.steps += 1;
        if node < self.leaves {
            add(&mut self.sets[2 * self.leaves + node], from, to, self.grain);
        }
        let mut v = node;
        while v >= 1 && add(&mut self.sets[v], from, to, self.grain) {
            self.steps += 1;
            v >>= 1;
        }
    }

    /// The offset for `buffer` among the placed buffers overlapping it in time:
    /// the same as `choose` (in `fit.rs`) on their ranges.
    pub(super) fn choose(&mut self, buffer: &Buffer, fit: Fit, align: u64) -> u64 {
        self.gather(buffer);
        self.steps += 1 + self.query.len() as u64;
        pick(
            &mut self.steps,
            &self.sets,
            &self.query,
            &mut self.heads,
            buffer.size,
            fit,
            align,
        )
    }

    /// The sets whose union is the bytes of the placed buffers overlapping `buffer`.
    fn gather(&mut self, buffer: &Buffer) {
        self.query.clear();
        self.round += 1;
        let (mut lo, mut hi) = self.nodes(buffer);
        while lo < hi {
            if lo & 1 == 1 {
                self.canonical(lo);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                self.canonical(hi);
            }
            lo >>= 1;
            hi >>= 1;
        }
    }

    /// `under` of a canonical node of the query, and `own` of its ancestors not
    /// yet gathered (canonical nodes are never ancestors of one another).
    fn canonical(&mut self, node: usize) {
        if !self.sets[node].is_empty() {
            self.query.push(node);
        }
        let mut v = node >> 1;
        while v >= 1 && self.seen[v] != self.round {
            self.seen[v] = self.round;
            let own = 2 * self.leaves + v;
            if !self.sets[own].is_empty() {
                self.query.push(own);
            }
            v >>= 1;
        }
    }
}

/// Adds `[from, to)` (non-empty) to `ranges`, merging it with the ranges it
/// overlaps or touches (ends rounded up to `grain`); false when `ranges` had it
/// all already.
fn add(ranges: &mut Ranges, from: u64, to: u64, grain: u64) -> bool {
    let up = |x: u64| if grain == 1 { x } else { align_up(x, grain) };
    // ranges[i..j]: those that overlap or touch [from, to)
    let i = ranges.partition_point(|&(_, t)| up(t) < from);
    let j = i + ranges[i..].partition_point(|&(f, _)| f <= up(to));
    if i == j {
        ranges.insert(i, (from, to));
        return true;
    }
    let (lo, hi) = (ranges[i].0.min(from), ranges[j - 1].1.max(to));
    if j == i + 1 && (lo, hi) == ranges[i] {
        return false;
    }
    ranges[i] = (lo, hi);
    ranges.drain(i + 1..j);
    true
}

/// A set's current range in the merge of [`pick`].
#[derive(Clone, Copy)]
struct Head {
    from: u64,
    to: u64,
    /// The set (index into the sets) and the range's index in it.
    set: u32,
    at: u32,
}

/// The rule of `choose` (in `fit.rs`) on the union of `sets[query]`: its maximal
/// gaps below its top in address order (from 0), the first that fits (`Lowest`)
/// or the smallest that fits, lowest on ties (`Best`), else the aligned top.
///
/// The sets' ranges are merged by start as `choose` merges the busy ranges (same
/// union, so the same gaps and top); each set skips its ranges below the cursor.
/// `heads` holds the current range of each set by decreasing start. Counts the
/// ranges merged in `steps`.
fn pick(
    steps: &mut u64,
    sets: &[Ranges],
    query: &[usize],
    heads: &mut Vec<Head>,
    size: u64,
    fit: Fit,
    align: u64,
) -> u64 {
    heads.clear();
    heads.extend(query.iter().map(|&s| Head {
        from: sets[s][0].0,
        to: sets[s][0].1,
        set: s as u32,
        at: 0,
    }));
    heads.sort_unstable_by_key(|h| std::cmp::Reverse(h.from));
    let mut cursor = 0u64;
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    while let Some(head) = heads.pop() {
        *steps += 1;
        if head.from > cursor {
            let at = align_up(cursor, align);
            if at + size <= head.from {
                let gap = head.from - cursor;
                match fit {
                    Fit::Lowest => return at,
                    // no later gap that fits is smaller: the first such is kept
                    Fit::Best if gap == size => return at,
                    Fit::Best if best.is_none_or(|(g, _)| gap < g) => best = Some((gap, at)),
                    Fit::Best => {}
                }
            }
        }
        cursor = cursor.max(head.to);
        let set = &sets[head.set as usize];
        // the set's first range ending past the cursor: a step or two, else a search
        let mut i = head.at as usize + 1;
        if i < set.len() && set[i].1 <= cursor {
            i += 1;
            if i < set.len() && set[i].1 <= cursor {
                i += set[i..].partition_point(|&(_, t)| t <= cursor);
            }
        }
        if let Some(&(from, to)) = set.get(i) {
            // back among the heads, most often among the last (the least starts)
            let mut k = heads.len();
            while k > 0 && heads[k - 1].from < from {
                k -= 1;
            }
            let at = i as u32;
            heads.insert(
                k,
                Head {
                    from,
                    to,
                    at,
                    ..head
                },
            );
        }
    }
    best.map_or_else(|| align_up(cursor, align), |(_, at)| at)
}
