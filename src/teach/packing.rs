//! Offset packing one buffer at a time, with its reasons: the placed buffers it
//! overlaps in time, the gaps between them (which fit, and whose bytes a gap that
//! does not fit would run into), the offset taken and the running peak.
//!
//! Walks the fit strategies (`first-fit`, `greedy-size`, `best-fit`). The offsets
//! are the strategy's own; the gaps are rebuilt beside them, and the offset the fit
//! rule picks among those gaps ([`PackMove::rule_offset`]) must be the same (a test
//! checks it on every corpus graph and on random graphs).

use crate::interference::birth_order;
use crate::liveness::Buffer;
use crate::pack::{align_up, Strategy};
use serde::{Deserialize, Serialize};

/// How a buffer's offset was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapRule {
    /// The lowest gap that fits (first-fit).
    LowestGap,
    /// The smallest gap that fits (greedy-size, best-fit).
    SmallestGap,
    /// No gap fits: on top of everything it overlaps.
    Top,
}

/// A placed buffer that shares a step with the one being placed (tensor id, bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Neighbour {
    pub tensor: u32,
    pub from: u64,
    pub to: u64,
}

/// Free bytes between neighbours: `from..to` (`to` absent for the space on top),
/// between `below` and `above` (tensor ids; none below is the arena's floor).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub from: u64,
    pub to: Option<u64>,
    pub below: Option<u32>,
    pub above: Option<u32>,
    /// True when the buffer fits here (after alignment); when false, `above` is
    /// what it would collide with.
    pub fits: bool,
}

/// One buffer placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackMove {
    pub tensor: u32,
    pub size: u64,
    pub start: u32,
    pub end: u32,
    /// Placed neighbours in time, by address.
    pub neighbours: Vec<Neighbour>,
    /// The gaps among them, low to high; the last one is the space on top.
    pub gaps: Vec<Gap>,
    /// The offset the strategy gave the buffer.
    pub offset: u64,
    /// The gap (index in `gaps`) that holds `offset`.
    pub gap: Option<usize>,
    pub rule: GapRule,
    /// The offset the fit rule picks among `gaps`; equal to `offset` when the reasons are right.
    pub rule_offset: u64,
    /// The highest byte used by the buffers placed so far.
    pub peak_after: u64,
}

/// A strategy's packing as a walk: its visit order in words, and one move per buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackTrace {
    pub strategy: String,
    /// How the strategy orders the buffers, in words.
    pub order: String,
    pub moves: Vec<PackMove>,
}

/// The strategies whose packing can be walked through.
pub const WALKABLE: [Strategy; 3] = [Strategy::FirstFit, Strategy::GreedySize, Strategy::BestFit];

/// The walk of `strategy`'s packing of `buffers` into `offsets` (its own result),
/// aligned to `align`; `None` for a strategy that is not a single fit pass.
pub fn trace(
    buffers: &[Buffer],
    strategy: Strategy,
    offsets: &[u64],
    align: u64,
) -> Option<PackTrace> {
    let ids = || (0..buffers.len() as u32).collect::<Vec<u32>>();
    let by = |key: &dyn Fn(&Buffer, u32) -> (u64, u64, u32)| {
        let mut v = ids();
        crate::sort::by_key(&mut v, |&i| key(&buffers[i as usize], i));
        v
    };
    let walk = |visit: &[u32], fit| walk(buffers, visit, fit, offsets, align);
    let (order, moves) = match strategy {
        Strategy::FirstFit => (
            "in birth order, each at the lowest gap that fits",
            walk(&birth_order(buffers), GapRule::LowestGap),
        ),
        Strategy::GreedySize => (
            "largest first, each in the smallest gap that fits, else on top",
            walk(
                &by(&|b, i| (u64::MAX - b.size, u64::from(b.life.start), i)),
                GapRule::SmallestGap,
            ),
        ),
        Strategy::BestFit => {
            let spatial = by(&|b, i| (u64::MAX - b.size, u64::MAX - b.life.duration(), i));
            let moves = walk(&spatial, GapRule::SmallestGap);
            if moves.iter().all(|m| m.rule_offset == m.offset) {
                (
                    "largest first (longest on ties), each in the smallest gap that fits",
                    moves,
                )
            } else {
                let temporal = by(&|b, i| (u64::MAX - b.life.duration(), u64::MAX - b.size, i));
                (
                    "longest-lived first (largest on ties), each in the smallest gap that fits",
                    walk(&temporal, GapRule::SmallestGap),
                )
            }
        }
        _ => return None,
    };
    Some(PackTrace {
        strategy: strategy.name().to_string(),
        order: order.to_string(),
        moves,
    })
}

/// The moves of placing `visit` one at a time at `offsets`, explained by `fit`.
fn walk(
    buffers: &[Buffer],
    visit: &[u32],
    fit: GapRule,
    offsets: &[u64],
    align: u64,
) -> Vec<PackMove> {
    let mut placed: Vec<u32> = Vec::new();
    let mut peak = 0u64;
    let mut moves = Vec::with_capacity(visit.len());
    for &i in visit {
        let b = &buffers[i as usize];
        let mut neighbours: Vec<Neighbour> = placed
            .iter()
            .map(|&j| &buffers[j as usize])
            .zip(placed.iter())
            .filter(|(o, _)| o.size > 0 && !o.life.is_disjoint(&b.life))
            .map(|(o, &j)| Neighbour {
                tensor: o.tensor.0,
                from: offsets[j as usize],
                to: offsets[j as usize] + o.size,
            })
            .collect();
        crate::sort::by_key(&mut neighbours, |n| (n.from, n.to, n.tensor));
        let gaps = gaps(&neighbours, b.size, align);
        let (rule, rule_offset) = pick(&gaps, fit, align);
        let offset = offsets[i as usize];
        let gap = gaps
            .iter()
            .position(|g| g.from <= offset && g.to.is_none_or(|to| offset + b.size <= to));
        peak = peak.max(offset + b.size);
        moves.push(PackMove {
            tensor: b.tensor.0,
            size: b.size,
            start: b.life.start,
            end: b.life.end,
            neighbours,
            gaps,
            offset,
            gap,
            rule,
            rule_offset,
            peak_after: peak,
        });
        placed.push(i);
    }
    moves
}

/// The free spaces among `neighbours` (sorted by address) for `size` bytes, the
/// space on top last.
fn gaps(neighbours: &[Neighbour], size: u64, align: u64) -> Vec<Gap> {
    let mut out = Vec::new();
    let (mut cursor, mut below) = (0u64, None);
    for n in neighbours {
        if n.from > cursor {
            out.push(Gap {
                from: cursor,
                to: Some(n.from),
                below,
                above: Some(n.tensor),
                fits: align_up(cursor, align) + size <= n.from,
            });
        }
        if n.to > cursor {
            cursor = n.to;
            below = Some(n.tensor);
        }
    }
    out.push(Gap {
        from: cursor,
        to: None,
        below,
        above: None,
        fits: true,
    });
    out
}

/// The offset `fit` picks among `gaps`, and whether it was a gap or the top.
fn pick(gaps: &[Gap], fit: GapRule, align: u64) -> (GapRule, u64) {
    let inner = gaps.iter().filter(|g| g.fits && g.to.is_some());
    let chosen = match fit {
        GapRule::LowestGap => inner.min_by_key(|g| g.from),
        _ => inner.min_by_key(|g| (g.to.unwrap_or(u64::MAX) - g.from, g.from)),
    };
    match chosen {
        Some(g) => (fit, align_up(g.from, align)),
        None => {
            let top = gaps.last().map_or(0, |g| g.from);
            (GapRule::Top, align_up(top, align))
        }
    }
}
