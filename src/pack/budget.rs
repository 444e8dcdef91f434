//! Budgets for the searching strategies, without `std::time` (it panics on
//! `wasm32-unknown-unknown`): the caller supplies a clock in milliseconds, or the
//! budget counts work units and the run is deterministic.
//!
//! A work unit is about 2.5 µs of native work, counted from what the work
//! visits: a greedy pass one unit per 40 steps of its placement (sets gathered,
//! ranges merged or recorded), the exact search one per 4,800 entries it visits
//! (buffers, sections, overlaps, undo-log entries; 50 per node). On the corpus a
//! deterministic budget takes 0.5 to 1.2 times its nominal time natively.
//! [`WORK_PER_MS`] converts a time budget into units when there is no clock.
//!
//! A budget holds: passes and search nodes check it as they go and stop within
//! a buffer or a node of its end. Only the first greedy pass of a search runs to
//! its end whatever the budget (two for `auto`: `greedy-size`'s and its backward
//! twin's), so a plan always comes back; when that alone takes longer,
//! [`Budget::overran`] says so.

use std::sync::atomic::{AtomicBool, Ordering};

/// Work units standing in for one millisecond when no clock is given.
pub const WORK_PER_MS: u64 = 400;

/// How often (in work units) the clock is read.
const CLOCK_EVERY: u64 = 64;

/// What a search reports while it runs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Progress {
    pub phase: &'static str,
    /// Lowest peak found so far.
    pub best_peak: u64,
    pub lower_bound: u64,
    /// Work units spent so far.
    pub work: u64,
    /// Milliseconds since the start, when there is a clock.
    pub elapsed_ms: Option<f64>,
}

/// A deadline in time (with a clock) or in work units (without), plus an
/// optional progress callback.
pub struct Budget<'a> {
    clock: Option<Clock<'a>>,
    start_ms: f64,
    /// Absolute deadline on the clock.
    deadline_ms: f64,
    work: u64,
    /// Absolute work limit.
    work_limit: u64,
    exhausted: bool,
    /// The limits it was made with (shares narrow the current ones for a while).
    given_ms: f64,
    given_work: u64,
    progress: Option<&'a mut dyn FnMut(&Progress)>,
    /// Set from another thread to end the budget (read when the clock is).
    stop: Option<&'a AtomicBool>,
}

/// Milliseconds, any origin; readable from any thread, so that a search may run
/// part of its work beside its caller until the same deadline.
pub type Clock<'a> = &'a (dyn Fn() -> f64 + Sync);

/// Work or time may exceed the budget by this share before [`Budget::overran`]
/// says so (a pass stops within a buffer of the limit, the clock is read now
/// and then).
const SLACK: f64 = 0.1;

impl<'a> Budget<'a> {
    /// The deterministic budget that stands for `ms` milliseconds of native work
    /// ([`WORK_PER_MS`] units each): the same plan on every machine and in the page.
    pub fn work_for_ms(ms: u64) -> Budget<'a> {
        Budget::work(ms.saturating_mul(WORK_PER_MS))
    }

    /// A deterministic budget of `units` work units.
    pub fn work(units: u64) -> Budget<'a> {
        Budget {
            clock: None,
            start_ms: 0.0,
            deadline_ms: f64::INFINITY,
            work: 0,
            work_limit: units,
            exhausted: false,
            given_ms: f64::INFINITY,
            given_work: units,
            progress: None,
            stop: None,
        }
    }

    /// `ms` milliseconds on `clock` (milliseconds, any origin).
    pub fn timed(clock: Clock<'a>, ms: f64) -> Budget<'a> {
        let start_ms = clock();
        Budget {
            clock: Some(clock),
            start_ms,
            deadline_ms: start_ms + ms.max(0.0),
            work: 0,
            work_limit: u64::MAX,
            exhausted: false,
            given_ms: ms.max(0.0),
            given_work: u64::MAX,
            progress: None,
            stop: None,
        }
    }

    /// The clock and the deadline on it, for a budget on a clock.
    pub(crate) fn deadline(&self) -> Option<(Clock<'a>, f64)> {
        self.clock.map(|clock| (clock, self.deadline_ms))
    }

    /// A budget for work beside this one's: until `deadline_ms` on `clock`, or
    /// until `stop` is set, without progress reports.
    pub(crate) fn beside(clock: Clock<'a>, deadline_ms: f64, stop: &'a AtomicBool) -> Budget<'a> {
        let mut budget = Budget::timed(clock, deadline_ms - clock());
        budget.stop = Some(stop);
        budget
    }

    /// Calls `report` on every improvement and now and then while searching.
    pub fn with_progress(mut self, report: &'a mut dyn FnMut(&Progress)) -> Budget<'a> {
        self.progress = Some(report);
        self
    }

    /// Spends `units`; true once the budget is exhausted.
    pub fn spend(&mut self, units: u64) -> bool {
        let before = self.work;
        self.work = self.work.saturating_add(units);
        if self.work >= self.work_limit {
            self.exhausted = true;
        } else if let Some(clock) = self.clock {
            if before / CLOCK_EVERY != self.work / CLOCK_EVERY
                && (clock() >= self.deadline_ms
                    || self.stop.is_some_and(|s| s.load(Ordering::Relaxed)))
            {
                self.exhausted = true;
            }
        }
        self.exhausted
    }

    /// Spends the whole units in `steps` (at `per_unit` steps each) beyond the
    /// `charged` units spent on them already, and records them; true when this
    /// spending exhausted the budget (false when there was no whole unit to spend).
    pub(crate) fn charge(&mut self, steps: u64, per_unit: u64, charged: &mut u64) -> bool {
        let units = steps / per_unit;
        if units <= *charged {
            return false;
        }
        let more = units - *charged;
        *charged = units;
        self.spend(more)
    }

    /// Work units left: those of a work budget, or the time left on the clock
    /// at [`WORK_PER_MS`] units a millisecond (whichever is less).
    pub fn left(&self) -> u64 {
        let work = self.work_limit.saturating_sub(self.work);
        match self.clock {
            Some(clock) => {
                let ms = (self.deadline_ms - clock()).max(0.0);
                work.min((ms * WORK_PER_MS as f64) as u64)
            }
            None => work,
        }
    }

    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    pub fn spent(&self) -> u64 {
        self.work
    }

    /// True when more than the budget plus a tenth was used: time on the clock,
    /// else work units. Only a pass that must end (the one whole greedy pass of a
    /// search, or `auto`'s two) goes that far past it.
    pub fn overran(&self) -> bool {
        let over = |used: f64, given: f64| used > given * (1.0 + SLACK);
        match self.elapsed_ms() {
            Some(ms) => over(ms, self.given_ms),
            None => over(self.work as f64, self.given_work as f64),
        }
    }

    /// Milliseconds since the start, when there is a clock.
    pub fn elapsed_ms(&self) -> Option<f64> {
        self.clock.map(|c| c() - self.start_ms)
    }

    /// Runs `f` with only `share` (0..=1) of what remains; the outer limits are
    /// restored afterwards, and stay exhausted if they were reached.
    pub fn share<R>(&mut self, share: f64, f: impl FnOnce(&mut Budget<'a>) -> R) -> R {
        self.share_at_most(share, u64::MAX, f)
    }

    /// Like [`Budget::share`], spending at most `units` work units too.
    pub fn share_at_most<R>(
        &mut self,
        share: f64,
        units: u64,
        f: impl FnOnce(&mut Budget<'a>) -> R,
    ) -> R {
        let share = share.clamp(0.0, 1.0);
        let (outer_deadline, outer_limit) = (self.deadline_ms, self.work_limit);
        if self.work_limit != u64::MAX {
            let rest = self.work_limit.saturating_sub(self.work);
            self.work_limit = self.work + (rest as f64 * share) as u64;
        }
        self.work_limit = self.work_limit.min(self.work.saturating_add(units));
        if let Some(clock) = self.clock {
            let now = clock();
            self.deadline_ms = now + (self.deadline_ms - now).max(0.0) * share;
        }
        let out = f(self);
        self.deadline_ms = outer_deadline;
        self.work_limit = outer_limit;
        self.exhausted =
            self.work >= self.work_limit || self.clock.is_some_and(|c| c() >= self.deadline_ms);
        out
    }

    /// Tells the progress callback, if any.
    pub fn report(&mut self, phase: &'static str, best_peak: u64, lower_bound: u64) {
        let elapsed_ms = self.elapsed_ms();
        let work = self.work;
        if let Some(report) = self.progress.as_mut() {
            report(&Progress {
                phase,
                best_peak,
                lower_bound,
                work,
                elapsed_ms,
            });
        }
    }
}

/// The generator of the randomised moves (SplitMix64, in [`crate::rng`]).
pub(crate) use crate::rng::Rng;
