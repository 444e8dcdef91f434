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
//!
//! Why one file: it is one data structure, the segment tree and its merged range
//! sets, whose insert and query share the canonical-node walk above; the tests
//! are the last 25 lines.

use super::align_up;
use super::Fit;
use crate::liveness::Buffer;

/// Disjoint byte ranges `[from, to)`, sorted, none touching the next one (ends
/// rounded up to the grain).
type Ranges = Vec<(u64, u64)>;

pub(super) struct Busy {
    /// Distinct start steps, sorted: the leaves.
    starts: Vec<u32>,
    /// `leaf_of[t]`: the number of starts below step `t`, for every step up to
    /// one past the last start (empty when the steps are too sparse for a table:
    /// then `starts` is searched).
    leaf_of: Vec<u32>,
    /// Ranges merge when one ends within this of the next (see the module).
    grain: u64,
    /// Number of leaves; node `v`'s children are `2v` and `2v + 1`, leaf `k` is
    /// node `leaves + k` (a bottom-up tree: any number of leaves works).
    leaves: usize,
    /// The nodes, by index (a leaf is nobody's ancestor: its `own` stays empty).
    nodes: Vec<Node>,
    /// Sets of the current query, the empty ones left out: node `v`'s `under` as
    /// `2v`, its `own` as `2v + 1`.
    query: Vec<u32>,
    /// The merge's state: the current range of each set (see [`pick`]).
    heads: Vec<Head>,
    round: u32,
    /// Work done so far: sets gathered, ranges merged and ranges recorded (see
    /// [`Busy::steps`]).
    steps: u64,
}

/// A node's sets and its mark, in one cache line: a query or an insertion visits
/// a few dozen nodes scattered over the tree, each once.
#[derive(Clone, Default)]
#[repr(align(64))]
struct Node {
    /// Everything recorded at or below the node.
    under: Ranges,
    /// The buffers recorded on the node.
    own: Ranges,
    /// The query that last gathered the node as an ancestor: `seen == round`.
    seen: u32,
}

/// Lines of a set's ranges asked for ahead by [`Busy::prefetch`] (four ranges a
/// line). In wasm, where asking is a load, more pay: a million-buffer greedy-size
/// plan in V8 takes 8.9 s with 2, 7.5 s with 8, 7.1 s with 16 or 32.
const PREFETCH_LINES: usize = if cfg!(target_arch = "x86_64") { 8 } else { 16 };

/// Asks the processor to bring `value`'s cache line in, without waiting for it.
/// Where there is no prefetch instruction (wasm), a load of one of its words
/// whose value nothing waits for does the same: the processor goes on past it
/// while the line comes in.
#[inline(always)]
pub(super) fn prefetch<T: Line>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache and never faults; the address is
    // that of a live reference anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(value.word());
}

/// What [`prefetch`] can ask for: a value with a word in its first cache line.
pub(super) trait Line {
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn word(&self) -> u64;
}

impl Line for Node {
    fn word(&self) -> u64 {
        self.under.len() as u64
    }
}

impl Line for (u64, u64) {
    fn word(&self) -> u64 {
        self.0
    }
}

impl Line for u32 {
    fn word(&self) -> u64 {
        u64::from(*self)
    }
}

impl Line for Buffer {
    fn word(&self) -> u64 {
        self.size
    }
}

/// `leaf_of` is kept when it has at most this many entries per buffer (plus a
/// few): memory stays linear.
const TABLE_PER_BUFFER: usize = 4;

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
        let last = starts.last().map_or(0, |&s| s as usize);
        let mut leaf_of = Vec::new();
        if last < TABLE_PER_BUFFER * buffers.len() + 64 {
            leaf_of.reserve_exact(last + 2);
            let mut k = 0usize;
            for t in 0..=last + 1 {
                while k < starts.len() && (starts[k] as usize) < t {
                    k += 1;
                }
                leaf_of.push(k as u32);
            }
        }
        Busy {
            starts,
            leaf_of,
            grain,
            leaves,
            nodes: vec![Node::default(); 2 * leaves],
            query: Vec::new(),
            heads: Vec::new(),
            round: 0,
            steps: 0,
        }
    }

    /// Nodes `[lo, hi)` of the leaves of `buffer`: the starts within its life.
    fn nodes(&self, buffer: &Buffer) -> (usize, usize) {
        let life = buffer.life;
        if let Some(&top) = self.leaf_of.last() {
            let at = |t: usize| self.leaf_of[t.min(self.leaf_of.len() - 1)] as usize;
            let hi = if (life.end as usize) < self.leaf_of.len() {
                at(life.end as usize + 1)
            } else {
                top as usize
            };
            return (at(life.start as usize) + self.leaves, hi + self.leaves);
        }
        (
            self.starts.partition_point(|&s| s < life.start) + self.leaves,
            self.starts.partition_point(|&s| s <= life.end) + self.leaves,
        )
    }

    /// Asks for the memory that [`Busy::nodes`] reads for `buffer`, a few
    /// buffers ahead of its turn (see [`Busy::prefetch`]).
    pub(super) fn prefetch_leaves(&self, buffer: &Buffer) {
        let life = buffer.life;
        if let Some(t) = self.leaf_of.get(life.start as usize) {
            prefetch(t);
        }
        if let Some(t) = self.leaf_of.get(life.end as usize + 1) {
            prefetch(t);
        }
    }

    /// Asks for the memory that placing `buffer` reads: the nodes its query
    /// and its insertion visit (`data == false`), or once those are at hand,
    /// the first ranges of their sets (`data == true`). Only a hint: the plan
    /// and the steps are the same without it. The greedy orders visit time at
    /// random, so without it almost every node a placement visits is a cache
    /// miss, one after the other; asked for a buffer or two ahead, they come
    /// in together.
    pub(super) fn prefetch(&self, buffer: &Buffer, data: bool) {
        let touch = |v: usize| {
            let Some(node) = self.nodes.get(v) else {
                return;
            };
            if !data {
                prefetch(node);
                return;
            }
            for set in [&node.under, &node.own] {
                for r in set.iter().step_by(4).take(PREFETCH_LINES) {
                    prefetch(r);
                }
            }
        };
        let (mut lo, mut hi) = self.nodes(buffer);
        if lo >= hi {
            return;
        }
        let (mut left, mut right) = (lo, hi - 1);
        while lo < hi {
            if lo & 1 == 1 {
                touch(lo);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                touch(hi);
            }
            lo >>= 1;
            hi >>= 1;
        }
        // the ancestors of the leaves at both ends (those of the canonical
        // nodes, in a tree with a power of two leaves)
        while left > 1 {
            left >>= 1;
            right >>= 1;
            touch(left);
            if right != left {
                touch(right);
            }
        }
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
            add(&mut self.nodes[node].own, from, to, self.grain);
        }
        let mut v = node;
        while v >= 1 && add(&mut self.nodes[v].under, from, to, self.grain) {
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
            &self.nodes,
            &self.query,
            &mut self.heads,
            buffer.size,
            fit,
            align,
        )
    }

    /// Appends to `out` the ranges whose union is the bytes of the placed buffers
    /// overlapping `buffer` (ranges of several sets, which may overlap).
    pub(super) fn ranges(&mut self, buffer: &Buffer, out: &mut Vec<(u64, u64)>) {
        self.gather(buffer);
        for &s in &self.query {
            let n = &self.nodes[(s >> 1) as usize];
            let set = if s & 1 == 0 { &n.under } else { &n.own };
            self.steps += 1 + set.len() as u64;
            out.extend_from_slice(set);
        }
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
        if !self.nodes[node].under.is_empty() {
            self.query.push(2 * node as u32);
        }
        let mut v = node >> 1;
        while v >= 1 && self.nodes[v].seen != self.round {
            let n = &mut self.nodes[v];
            n.seen = self.round;
            if !n.own.is_empty() {
                self.query.push(2 * v as u32 + 1);
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
        insert(ranges, i, (from, to));
        return true;
    }
    let (lo, hi) = (ranges[i].0.min(from), ranges[j - 1].1.max(to));
    if j == i + 1 && (lo, hi) == ranges[i] {
        return false;
    }
    ranges[i] = (lo, hi);
    remove(ranges, i + 1..j);
    true
}

/// Ranges moved one by one, up to this many moves, when a range goes in or out:
/// most sets are short, and wasm engines copy memory (`memory.copy`, what
/// `Vec::insert` and `drain` become) with a call into the engine that costs more
/// than a few dozen moves in registers.
const FEW_MOVES: usize = 32;

/// `ranges.insert(at, range)`.
fn insert(ranges: &mut Ranges, at: usize, range: (u64, u64)) {
    if ranges.len() - at > FEW_MOVES {
        ranges.insert(at, range);
        return;
    }
    // each range takes the place of the next (a loop the compiler keeps as moves)
    let mut carry = range;
    for slot in &mut ranges[at..] {
        carry = std::mem::replace(slot, carry);
    }
    ranges.push(carry);
}

/// `ranges.drain(gone)`.
fn remove(ranges: &mut Ranges, gone: std::ops::Range<usize>) {
    let tail = ranges.len() - gone.end;
    if tail * gone.len() > FEW_MOVES {
        ranges.drain(gone);
        return;
    }
    for _ in gone.clone() {
        // the last range steps back one place at a time down to the one removed
        let Some(mut carry) = ranges.pop() else {
            return;
        };
        for slot in ranges[gone.start..].iter_mut().rev() {
            carry = std::mem::replace(slot, carry);
        }
    }
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
    nodes: &[Node],
    query: &[u32],
    heads: &mut Vec<Head>,
    size: u64,
    fit: Fit,
    align: u64,
) -> u64 {
    let set = |s: u32| {
        let n = &nodes[(s >> 1) as usize];
        if s & 1 == 0 {
            &n.under
        } else {
            &n.own
        }
    };
    heads.clear();
    heads.extend(query.iter().map(|&s| {
        let (from, to) = set(s)[0];
        Head {
            from,
            to,
            set: s,
            at: 0,
        }
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
        let set = set(head.set);
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
            heads.push(head);
            while k > 0 && heads[k - 1].from < from {
                heads[k] = heads[k - 1];
                k -= 1;
            }
            let at = i as u32;
            heads[k] = Head {
                from,
                to,
                at,
                ..head
            };
        }
    }
    best.map_or_else(|| align_up(cursor, align), |(_, at)| at)
}

#[cfg(test)]
mod tests {
    use super::{insert, remove, Ranges, FEW_MOVES};

    #[test]
    fn moving_ranges_one_by_one_inserts_and_removes_as_vec_does() {
        // lengths on both sides of FEW_MOVES, every position and span
        for len in [0, 1, 2, 5, FEW_MOVES - 1, FEW_MOVES + 3, 3 * FEW_MOVES] {
            let ranges: Ranges = (0..len as u64).map(|k| (2 * k, 2 * k + 1)).collect();
            for at in 0..=len {
                let (mut ours, mut std) = (ranges.clone(), ranges.clone());
                insert(&mut ours, at, (7, 9));
                std.insert(at, (7, 9));
                assert_eq!(ours, std, "insert at {at} of {len}");
                for end in at..=len {
                    let (mut ours, mut std) = (ranges.clone(), ranges.clone());
                    remove(&mut ours, at..end);
                    std.drain(at..end);
                    assert_eq!(ours, std, "remove {at}..{end} of {len}");
                }
            }
        }
    }
}
