//! What the caller of a solve sees while it runs, without the core reading a
//! clock: each strictly better plan as it is found (anytime solving), and a stop
//! the searches ask about as they go.
//!
//! A solve with nobody watching does the same work in the same order and gives
//! the same plan: the callbacks only look, and a stop that never says yes changes
//! nothing.

use super::solution::Solution;

/// The callbacks of one solve; [`Watch::none`] for a plain one.
pub struct Watch<'a> {
    better: Option<&'a mut dyn FnMut(&Solution)>,
    stop: Option<&'a mut dyn FnMut() -> bool>,
    stopped: bool,
    /// Share of the default work the searches may do (1 by default).
    effort: f64,
    /// Threads the independent parts of a search may use (1 by default).
    threads: usize,
    /// Mixed into every search's seed (0, the default, changes none).
    seed: u64,
}

impl<'a> Watch<'a> {
    /// Nobody watching: the solve runs its whole deterministic course.
    pub fn none() -> Watch<'a> {
        Watch {
            better: None,
            stop: None,
            stopped: false,
            effort: 1.0,
            threads: 1,
            seed: 0,
        }
    }

    /// `better` sees every plan better than the ones before (the first valid plan
    /// first, the returned one last); `stop` is asked now and then (a few times a
    /// millisecond at most between asks on the public cases) and, once it says
    /// yes, the searches end and the best plan so far is returned.
    pub fn new(
        better: &'a mut dyn FnMut(&Solution),
        stop: &'a mut dyn FnMut() -> bool,
    ) -> Watch<'a> {
        Watch {
            better: Some(better),
            stop: Some(stop),
            ..Watch::none()
        }
    }

    /// Only improvements, no stop.
    pub fn improvements(better: &'a mut dyn FnMut(&Solution)) -> Watch<'a> {
        Watch {
            better: Some(better),
            ..Watch::none()
        }
    }

    /// The same watch with the searches' work scaled by `effort` (a share of the
    /// default: 0.25 does a quarter of the work, deterministically; at least one
    /// step of each search runs).
    pub fn with_effort(mut self, effort: f64) -> Watch<'a> {
        self.effort = if effort.is_finite() {
            effort.max(0.0)
        } else {
            1.0
        };
        self
    }

    /// The same watch with every search's random choices drawn from other seeds
    /// (0 keeps the default ones): the same work, another plan of the same
    /// searches, for measuring how results spread.
    pub fn with_seed(mut self, seed: u64) -> Watch<'a> {
        self.seed = seed;
        self
    }

    /// A search's seed `s` mixed with the watch's seed, as a function a job on
    /// another thread can take along (`s` itself under seed 0).
    pub(super) fn seeder(&self) -> impl Fn(u64) -> u64 + Copy + Send + Sync {
        let mix = self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        move |s| s ^ mix
    }

    /// The same watch with the independent parts of the searches (the Problem 2
    /// and 3 portfolio's orders, its allocator-judged starts) run on up to
    /// `threads` threads (`memplan::pool`). The plans are the same whatever the
    /// count; only the order in which better ones are seen may differ.
    pub fn with_threads(mut self, threads: usize) -> Watch<'a> {
        self.threads = threads.max(1);
        self
    }

    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// `work` units of a search scaled by the effort (unchanged at 1).
    pub(super) fn scaled(&self, work: u64) -> u64 {
        self.scaler()(work)
    }

    /// [`Watch::scaled`] as a function a job on another thread can take along.
    pub(super) fn scaler(&self) -> impl Fn(u64) -> u64 + Copy + Send + Sync {
        let effort = self.effort;
        move |work| {
            if effort == 1.0 {
                work
            } else {
                ((work as f64 * effort) as u64).max(1)
            }
        }
    }

    /// True once the caller asked to stop (asked again each time until then).
    pub fn stopped(&mut self) -> bool {
        if !self.stopped {
            if let Some(stop) = self.stop.as_mut() {
                self.stopped = stop();
            }
        }
        self.stopped
    }

    /// Whether anyone wants the improvements (they cost a solution each).
    pub(super) fn wants_better(&self) -> bool {
        self.better.is_some()
    }

    pub(super) fn better(&mut self, solution: &Solution) {
        if let Some(better) = self.better.as_mut() {
            better(solution);
        }
    }
}
