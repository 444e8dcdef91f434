//! One placement: buffers placed one at a time in a visit order, each where the
//! fit rule puts it among the placed buffers overlapping it in time (`busy::Busy`
//! holds their union), with the work charged to a budget as it goes.

use super::budget::Budget;
use super::busy::{prefetch as prefetch_buffer, Busy};
use super::{align_up, Fit, PackOptions};
use crate::liveness::Buffer;

/// Steps of the placement (see `Busy::steps`) per work unit: about 2.5 µs.
pub(super) const STEPS_PER_UNIT: u64 = 40;

/// Whether a charged pass may stop when the budget runs out.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    /// To the end, whatever the budget (the one pass every search makes).
    Whole,
    /// Abandoned as soon as the budget is exhausted.
    Within,
}

/// Buffers placed per call of [`Placing::run`].
const RUN: usize = 4096;

/// Why a placement ended before its last buffer.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// A `Within` pass ran out of budget.
    Budget,
    /// A buffer would have ended above the ceiling (see `fit::Head`).
    Ceiling,
}

/// Spends what a pass of `steps` costs beyond the `charged` units spent on it
/// already: the rest, rounded up, for every pass costs at least a unit.
pub(super) fn settle(budget: &mut Budget, steps: u64, charged: u64) {
    let units = steps.div_ceil(STEPS_PER_UNIT).max(1);
    budget.spend(units - charged);
}

/// A placement under way: the buffers placed so far and their offsets, by index
/// into `buffers`.
pub(super) struct Placing<'a> {
    buffers: &'a [Buffer],
    visit: &'a [u32],
    fit: Fit,
    opts: PackOptions,
    pass: Pass,
    /// No buffer may end above this.
    ceiling: u64,
    pub placed: Busy,
    pub offsets: Vec<u64>,
}

impl<'a> Placing<'a> {
    pub fn new(
        buffers: &'a [Buffer],
        visit: &'a [u32],
        fit: Fit,
        opts: PackOptions,
        pass: Pass,
        ceiling: u64,
    ) -> Placing<'a> {
        Placing {
            buffers,
            visit,
            fit,
            opts,
            pass,
            ceiling,
            placed: Busy::new(buffers, opts.align),
            offsets: vec![0u64; buffers.len()],
        }
    }

    /// Places the buffers at positions `range` of the visit order, charging
    /// `budget` (see [`Placing::run`]).
    pub fn run_all(
        &mut self,
        range: std::ops::Range<usize>,
        mut budget: Option<&mut Budget>,
        charged: &mut u64,
    ) -> Result<(), Cut> {
        // In runs of a few thousand buffers, each a call of its own: a wasm engine
        // compiles a function first without optimising it and swaps in the
        // optimised code at its next call, so a loop over a million buffers in one
        // call would run unoptimised to its end (V8: 2.8 s instead of 2.0 s in the
        // placement).
        for from in range.clone().step_by(RUN) {
            let run = from..range.end.min(from + RUN);
            self.run(run, budget.as_deref_mut(), charged)?;
        }
        Ok(())
    }

    /// Places the buffers at positions `range` of the visit order, the work
    /// charged to `budget` (`charged`: the units charged so far); cut short when
    /// the budget runs out in a `Within` pass or a buffer would end above the
    /// ceiling.
    #[inline(never)]
    fn run(
        &mut self,
        range: std::ops::Range<usize>,
        mut budget: Option<&mut Budget>,
        charged: &mut u64,
    ) -> Result<(), Cut> {
        let (buffers, visit) = (self.buffers, self.visit);
        for n in range {
            // what the next few buffers will read, asked for ahead (a hint only)
            let ahead = |k: usize| visit.get(n + k).map(|&j| &buffers[j as usize]);
            if let Some(&j) = visit.get(n + 6) {
                prefetch_buffer(&buffers[j as usize]);
            }
            if let Some(b) = ahead(4) {
                self.placed.prefetch_leaves(b);
            }
            if let Some(b) = ahead(3) {
                self.placed.prefetch(b, false);
            }
            if let Some(b) = ahead(2) {
                self.placed.prefetch(b, true);
            }
            let i = visit[n];
            let b = &buffers[i as usize];
            let at = self.placed.choose(b, self.fit, self.opts.align);
            if at + b.size > self.ceiling {
                return Err(Cut::Ceiling);
            }
            self.offsets[i as usize] = at;
            // empty buffers never stand in anyone's way
            if b.size > 0 {
                self.placed.insert(b, at);
            }
            if let Some(budget) = budget.as_deref_mut() {
                let out = budget.charge(self.placed.steps(), STEPS_PER_UNIT, charged);
                if out && self.pass == Pass::Within {
                    return Err(Cut::Budget);
                }
            }
        }
        Ok(())
    }
}

/// An offset for `size` bytes avoiding every range in `busy` (half-open, any order).
pub(super) fn choose(busy: &mut [(u64, u64)], size: u64, fit: Fit, align: u64) -> u64 {
    busy.sort_unstable();
    let mut cursor = 0u64;
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    for &(from, to) in busy.iter() {
        let at = align_up(cursor, align);
        if from > cursor && at + size <= from {
            let gap = from - cursor;
            match fit {
                Fit::Lowest => return at,
                Fit::Best if best.is_none_or(|(g, _)| gap < g) => best = Some((gap, at)),
                Fit::Best => {}
            }
        }
        cursor = cursor.max(to);
    }
    best.map_or_else(|| align_up(cursor, align), |(_, at)| at)
}
