//! Budgets for the searching strategies, without `std::time` (it panics on
//! `wasm32-unknown-unknown`): the caller supplies a clock in milliseconds, or the
//! budget counts work units and the run is deterministic.
//!
//! A work unit is about 2.5 µs of native work: a greedy pass over `n` buffers
//! costs `n`, a search node one per 32 buffers and sections it looks at.
//! [`WORK_PER_MS`] converts a time budget into units when there is no clock.

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
    clock: Option<&'a dyn Fn() -> f64>,
    start_ms: f64,
    /// Absolute deadline on the clock.
    deadline_ms: f64,
    work: u64,
    /// Absolute work limit.
    work_limit: u64,
    exhausted: bool,
    progress: Option<&'a mut dyn FnMut(&Progress)>,
}

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
            progress: None,
        }
    }

    /// `ms` milliseconds on `clock` (milliseconds, any origin).
    pub fn timed(clock: &'a dyn Fn() -> f64, ms: f64) -> Budget<'a> {
        let start_ms = clock();
        Budget {
            clock: Some(clock),
            start_ms,
            deadline_ms: start_ms + ms.max(0.0),
            work: 0,
            work_limit: u64::MAX,
            exhausted: false,
            progress: None,
        }
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
            if before / CLOCK_EVERY != self.work / CLOCK_EVERY && clock() >= self.deadline_ms {
                self.exhausted = true;
            }
        }
        self.exhausted
    }

    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    pub fn spent(&self) -> u64 {
        self.work
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
