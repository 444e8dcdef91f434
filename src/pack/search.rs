//! `search` (and `auto`): the best `best-of` plan as a start, then the exact
//! search of [`canon`](super::canon) for lower capacities. `auto` differs in the
//! passes its start always makes to the end (see [`Start`]). With a capacity it
//! stops as soon as a plan fits (or proves none does); without one, decisions at
//! the lower bound and at probed capacities below the best peak take turns (see
//! [`minimise`]). The plan is proven optimal when its peak is the lower bound or the
//! capacity one byte below it was proven infeasible. An instance too large for
//! the exact search (see [`SIZE_LIMIT`]) gets `best-of` with the whole budget.
//!
//! Why one file: the start, the capacities tried in turn ([`minimise`] and its
//! helper) and the proof of a plan share one budget and the best plan so far; the
//! exact search itself lives in `canon`. The tests are the last 110 lines.

use super::best_of::{self, Start};
use super::budget::Budget;
use super::canon::{decide, Decider, Decision};
use super::sections::Sections;
use super::{PackOptions, Packed};
use crate::liveness::{max_live_bytes, Buffer};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Largest number of (buffer, section) and overlap entries the search accepts.
const SIZE_LIMIT: usize = 4_000_000;

/// Share of the budget for the greedy start, and its most work in passes over
/// the buffers.
const START_SHARE: f64 = 0.15;
const START_PASSES: u64 = 100;

/// The plan from `start` (see [`Start`]) and the exact search after it.
pub(super) fn pack(
    buffers: &[Buffer],
    opts: PackOptions,
    budget: &mut Budget,
    start: Start,
) -> Packed {
    let bound = max_live_bytes(buffers);
    let Some(problem) = Sections::new(buffers, SIZE_LIMIT) else {
        // too large for the exact search: all of the budget goes to best-of
        return Packed {
            offsets: best_of::pack(buffers, opts, budget, start).offsets,
            proven_bound: bound,
        };
    };
    let passes = START_PASSES.saturating_mul(buffers.len() as u64);
    let warm = best_of::pack_sharing(buffers, opts, budget, start, START_SHARE, passes);
    let mut best = Packed {
        offsets: warm.offsets,
        proven_bound: bound,
    };
    let mut best_peak = warm.peak;
    if best_peak == bound || opts.capacity.is_some_and(|c| best_peak <= c) {
        return best;
    }
    let start_peak = best_peak;
    let mut adopt = |fit: Vec<u64>, best: &mut Packed, budget: &mut Budget| {
        let offsets = problem.offsets_by_buffer(&fit, buffers.len());
        let peak = super::peak(buffers, &offsets);
        if peak < best_peak {
            best_peak = peak;
            best.offsets = offsets;
            budget.report("search", peak, bound);
        }
        best_peak
    };
    if let Some(capacity) = opts.capacity {
        match decide(&problem, capacity, opts.align, budget) {
            Decision::Fits(fit) => {
                adopt(fit, &mut best, budget);
            }
            Decision::Infeasible => best.proven_bound = capacity + 1,
            Decision::Unknown => {}
        }
        return best;
    }
    let (lo, hi) = minimise(
        &problem,
        opts.align,
        bound,
        start_peak,
        budget,
        |fit, budget| adopt(fit, &mut best, budget),
    );
    best.proven_bound = lo.min(hi);
    best
}

/// Work units a probe may spend before it is given up, at first (less with a
/// short budget, see [`PROBES_AT_LEAST`]); the allowance doubles each time the
/// probes have tried every capacity left.
const PROBE_UNITS: u64 = 50 * super::budget::WORK_PER_MS;

/// A probe's first allowance is at most this share of the budget left.
const PROBES_AT_LEAST: u64 = 16;

/// Probes given up kept to be resumed, at most (the oldest go first).
const PARKED: usize = 8;

/// A probe decides the capacity this share of the way down from the best peak
/// towards `from` (1/8); once `from` is that close to the best peak, the probes
/// start again from the floor with twice the allowance.
const CLIMB: u64 = 8;

/// Lowers the peak from `hi` towards `lo` (every capacity below `lo` is known
/// infeasible) by deciding capacities in between; returns the final `lo` and
/// `hi`. `adopt` takes each packing found and returns the best peak so far.
///
/// Two searches share the work: on a clock with a spare core, side by side (see
/// [`minimise_beside`]); otherwise (work units, for the same plan everywhere, and
/// the page's one thread) they take turns a round at a time, the one that has
/// spent less going next:
/// - the *floor*: the decision at `lo`, where the optimum is whenever the lower
///   bound can be reached. Proven infeasible, `lo` goes up a grain; a fit there
///   is optimal;
/// - the *probes*: decisions at capacities an eighth of the way down from `hi`
///   towards `from` (at first `lo`; [`CLIMB`]): a fit lowers `hi` to its peak
///   and the next probe goes an eighth further; a proof of no fit raises `lo`
///   (and `from`) past it; a probe still undecided after its allowance is parked
///   and `from` goes past it, unproven. Once `from` is within an eighth of the
///   way from `lo` to `hi`, the probes start again at `lo` with twice the
///   allowance, resuming parked searches at the same capacity.
///
/// Decision times are heavy-tailed and not monotone in the capacity (with
/// `--capacity`, MiniMalloc's D fits 1,035,000 bytes in 0.05 s, 1,039,000 in
/// 0.8 s and 1,037,000 not in 6 s): probes that give up and move on find the
/// low fits that one long decision misses, while the floor still proves the
/// bound when it can be reached. Capacities are decided only at multiples of
/// the [`grain`] of the peaks (1,024 bytes on MiniMalloc's instances), and a
/// proof of no fit raises `lo` by a grain. (A decision at the bound with 0.8
/// of the budget, then a bisection, left D and J at 1.098x and 1.070x of
/// their bounds, above the 1 MiB that `--capacity` fits; probes bisecting from
/// the floor up brought both to 1 MiB or below with most seeds, D with 5 of
/// seeds 0-8; from the top down, where a fit is cheap and every fit counts, D
/// reaches 1,038,336 with every seed tried.)
fn minimise(
    problem: &Sections,
    align: u64,
    lo: u64,
    hi: u64,
    budget: &mut Budget,
    mut adopt: impl FnMut(Vec<u64>, &mut Budget) -> u64,
) -> (u64, u64) {
    let q = grain(problem, align);
    let lo = lo.div_ceil(q) * q;
    // on a clock, the floor may run beside the probes on a core of its own: the
    // probes then have the whole of theirs (with work units, turns keep the plan
    // the same on every machine)
    if let Some((clock, deadline)) = budget.deadline() {
        if let Some(core) = crate::pool::spare_core() {
            return minimise_beside(
                problem,
                align,
                q,
                (lo, hi),
                budget,
                adopt,
                core,
                (clock, deadline),
            );
        }
    }
    let mut bounds = Bounds { lo, hi, q };
    let mut floor = Floor::default();
    let mut probes = Probes::new(budget);
    while bounds.lo < bounds.hi && !budget.exhausted() {
        if !floor.ready(problem, align, &mut bounds) || !probes.ready(problem, align, &mut bounds) {
            continue;
        }
        if probes.probe.is_some() && probes.spent < floor.spent {
            if let Some(fit) = probes.round(budget, &mut bounds) {
                bounds.hi = adopt(fit, budget);
            }
        } else if let Some(fit) = floor.round(budget, &mut bounds) {
            bounds.hi = adopt(fit, budget);
        }
        probes.tidy(&bounds);
        floor.tidy(&bounds);
    }
    (bounds.lo, bounds.hi)
}

/// [`minimise`] with the floor on a thread of its own until the same deadline, and
/// the probes on the caller's: the floor reads the best peak and the probes' proofs
/// as they come, the probes the floor's proofs; whichever ends the search stops the
/// other. A fit at the floor is optimal, and ends it too.
#[allow(clippy::too_many_arguments)]
fn minimise_beside(
    problem: &Sections,
    align: u64,
    q: u64,
    (lo, hi): (u64, u64),
    budget: &mut Budget,
    mut adopt: impl FnMut(Vec<u64>, &mut Budget) -> u64,
    core: crate::pool::Core,
    (clock, deadline): (super::budget::Clock, f64),
) -> (u64, u64) {
    // the proven floor and the best peak, shared; `stop` ends the floor's budget
    let shared_lo = AtomicU64::new(lo);
    let shared_hi = AtomicU64::new(hi);
    let (stop, floor_fits) = (AtomicBool::new(false), AtomicBool::new(false));
    let probes_side = || {
        let mut bounds = Bounds { lo, hi, q };
        let mut probes = Probes::new(budget);
        while !budget.exhausted() && !floor_fits.load(Ordering::Relaxed) {
            bounds.lo = bounds.lo.max(shared_lo.load(Ordering::Relaxed));
            if bounds.lo >= bounds.hi {
                break;
            }
            if !probes.ready(problem, align, &mut bounds) {
                shared_lo.fetch_max(bounds.lo, Ordering::Relaxed);
                continue;
            }
            if probes.probe.is_none() {
                // only the floor's capacity is left to decide: the floor decides it
                return bounds;
            }
            if let Some(fit) = probes.round(budget, &mut bounds) {
                bounds.hi = adopt(fit, budget);
                shared_hi.store(bounds.hi, Ordering::Relaxed);
            }
            shared_lo.fetch_max(bounds.lo, Ordering::Relaxed);
            probes.tidy(&bounds);
        }
        stop.store(true, Ordering::Relaxed);
        bounds
    };
    let floor_side = || {
        let mut budget = Budget::beside(clock, deadline, &stop);
        let mut floor = Floor::default();
        loop {
            let mut bounds = Bounds {
                lo: shared_lo.load(Ordering::Relaxed),
                hi: shared_hi.load(Ordering::Relaxed),
                q,
            };
            if bounds.lo >= bounds.hi || budget.exhausted() {
                return None;
            }
            floor.tidy(&bounds);
            if floor.ready(problem, align, &mut bounds) {
                if let Some(fit) = floor.round(&mut budget, &mut bounds) {
                    floor_fits.store(true, Ordering::Relaxed);
                    return Some(fit);
                }
            }
            shared_lo.fetch_max(bounds.lo, Ordering::Relaxed);
        }
    };
    let (mut bounds, fit) = crate::pool::beside(core, probes_side, floor_side);
    bounds.lo = bounds.lo.max(shared_lo.into_inner());
    if let Some(fit) = fit {
        bounds.hi = adopt(fit, budget);
    }
    (bounds.lo.min(bounds.hi), bounds.hi)
}

/// What [`minimise`] knows: every capacity below `lo` is infeasible, `hi` is the
/// best peak, and capacities are decided at multiples of the grain `q`.
struct Bounds {
    lo: u64,
    hi: u64,
    q: u64,
}

/// The decision at the floor and the work it has spent.
#[derive(Default)]
struct Floor<'p> {
    decider: Option<Decider<'p>>,
    spent: u64,
}

impl<'p> Floor<'p> {
    /// Starts the decision at `lo` when there is none; false when `lo` was plainly
    /// infeasible (and raised a grain).
    fn ready(&mut self, problem: &'p Sections, align: u64, bounds: &mut Bounds) -> bool {
        if self.decider.is_none() {
            match Decider::new(problem, bounds.lo, align) {
                Ok(decider) => self.decider = Some(decider),
                Err(Decision::Infeasible) => {
                    bounds.lo += bounds.q;
                    return false;
                }
                Err(_) => unreachable!("a decision is plain only when infeasible"),
            }
        }
        true
    }

    /// A round of the decision; the packing when it fits (at the floor: optimal).
    fn round(&mut self, budget: &mut Budget, bounds: &mut Bounds) -> Option<Vec<u64>> {
        let before = budget.spent();
        let decider = self.decider.as_mut().expect("made by ready");
        let cap = decider.capacity();
        let answer = decider.round(budget);
        self.spent += budget.spent() - before;
        match answer {
            None | Some(Decision::Unknown) => None,
            Some(Decision::Fits(fit)) => {
                self.decider = None;
                Some(fit)
            }
            Some(Decision::Infeasible) => {
                bounds.lo = bounds.lo.max(cap + bounds.q);
                self.decider = None;
                None
            }
        }
    }

    /// Drops the decision once the floor has moved past it.
    fn tidy(&mut self, bounds: &Bounds) {
        if self
            .decider
            .as_ref()
            .is_some_and(|d| d.capacity() != bounds.lo)
        {
            self.decider = None;
        }
    }
}

/// The probes: the current one with the units it has spent, those given up
/// (resumed where they stopped when their capacity comes again), where the next
/// starts from, the allowance and the work spent by all.
struct Probes<'p> {
    probe: Option<(Decider<'p>, u64)>,
    parked: Vec<(Decider<'p>, u64)>,
    from: u64,
    allowance: u64,
    spent: u64,
}

impl<'p> Probes<'p> {
    fn new(budget: &Budget) -> Probes<'p> {
        Probes {
            probe: None,
            parked: Vec::new(),
            from: 0,
            // a short budget still leaves room for several probes
            allowance: PROBE_UNITS.min(budget.left() / PROBES_AT_LEAST).max(1),
            spent: 0,
        }
    }

    /// Starts the next probe when there is none and a capacity is left between the
    /// floor and the best peak; false when that capacity was settled at once (a
    /// parked probe resumed, or plainly infeasible: `lo` raised past it).
    fn ready(&mut self, problem: &'p Sections, align: u64, bounds: &mut Bounds) -> bool {
        let Bounds { lo, hi, q } = *bounds;
        if self.probe.is_some() || hi < lo + 2 * q {
            return true;
        }
        self.from = self.from.max(lo);
        if hi - self.from <= (hi - lo) / CLIMB {
            // the capacities left would gain little: again from the floor, longer
            self.from = lo;
            self.allowance = self.allowance.saturating_mul(2);
        }
        // an eighth of the way down from the best peak (a grain at least)
        let cap = hi - ((hi - self.from) / q / CLIMB).max(1) * q;
        if let Some(k) = self.parked.iter().position(|(d, _)| d.capacity() == cap) {
            self.probe = Some(self.parked.swap_remove(k));
            return false;
        }
        match Decider::new(problem, cap, align) {
            Ok(decider) => {
                self.probe = Some((decider, 0));
                true
            }
            Err(_) => {
                // plainly infeasible (a section needs more)
                bounds.lo = cap + q;
                false
            }
        }
    }

    /// A round of the current probe within its allowance; the packing when it fits.
    fn round(&mut self, budget: &mut Budget, bounds: &mut Bounds) -> Option<Vec<u64>> {
        let before = budget.spent();
        let (decider, spent) = self.probe.as_mut().expect("made by ready");
        let cap = decider.capacity();
        let left = self.allowance.saturating_sub(*spent).max(1);
        let answer = budget.share_at_most(1.0, left, |b| decider.round(b));
        *spent += budget.spent() - before;
        self.spent += budget.spent() - before;
        match answer {
            None => None,
            Some(Decision::Fits(fit)) => {
                self.probe = None;
                Some(fit)
            }
            Some(Decision::Infeasible) => {
                bounds.lo = bounds.lo.max(cap + bounds.q);
                self.from = cap + bounds.q;
                self.probe = None;
                None
            }
            Some(Decision::Unknown) if *spent >= self.allowance => {
                self.from = cap + bounds.q;
                self.parked.extend(self.probe.take());
                if self.parked.len() > PARKED {
                    self.parked.remove(0);
                }
                None
            }
            Some(Decision::Unknown) => None,
        }
    }

    /// Probes at or above the best peak, or below the proven floor, are moot.
    fn tidy(&mut self, bounds: &Bounds) {
        let moot = |d: &Decider| d.capacity() >= bounds.hi || d.capacity() < bounds.lo;
        if self.probe.as_ref().is_some_and(|(d, _)| moot(d)) {
            self.probe = None;
        }
        self.parked.retain(|(d, _)| !moot(d));
    }
}

/// The grain of every peak: some packing of least peak has all its offsets,
/// hence its peak, at multiples of it (the exact search's canonical packings:
/// each buffer at 0 or on top of another, rounded up to the alignment). With
/// sizes all multiples of `g` (their greatest common divisor), an offset is a
/// sum of sizes, a multiple of `g`, unless rounded up to the alignment `a`,
/// which keeps it a multiple of `gcd(g, a)`; so no capacity strictly between
/// two multiples of the grain is worth deciding. MiniMalloc's instances have
/// sizes in multiples of 1,024 bytes.
fn grain(problem: &Sections, align: u64) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let sizes = problem.size.iter().fold(0, |g, &s| gcd(g, s));
    let align = align.max(1);
    let grain = if sizes % align == 0 {
        sizes
    } else {
        gcd(sizes, align)
    };
    grain.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Lifetime, TensorId};
    use crate::rng::Rng;

    /// Case `case` of the small instances: 2 to `most` buffers whose sizes share a
    /// factor (the returned unit), packed with the returned alignment.
    fn small_instance(rng: &mut Rng, case: usize, most: usize) -> (u64, u64, Vec<Buffer>) {
        let unit = [4u64, 6, 1024][case % 3];
        let align = [1u64, 4, 8, 3][(case / 3) % 4];
        let buffers = (0..2 + rng.below(most))
            .map(|k| {
                let start = rng.below(6) as u32;
                Buffer {
                    tensor: TensorId(k as u32),
                    size: unit * (1 + rng.below(8) as u64),
                    life: Lifetime::new(start, start + rng.below(4) as u32),
                }
            })
            .collect();
        (unit, align, buffers)
    }

    /// The exact search's problem for `buffers`, their lower bound and the peak
    /// of all of them stacked (each aligned): the range `minimise` searches.
    fn problem_of(buffers: &[Buffer], align: u64) -> (Sections, u64, u64) {
        let problem = Sections::new(buffers, SIZE_LIMIT).expect("small");
        let bound = max_live_bytes(buffers);
        let stacked = buffers.iter().map(|b| b.size.div_ceil(align) * align).sum();
        (problem, bound, stacked)
    }

    /// Small instances whose sizes share a factor, some aligned: `minimise` from
    /// a poor start (every buffer stacked) must end at the least capacity that
    /// the exact search fits when asked about every byte, one at a time (so a
    /// grain too coarse skips it), and prove it with a floor that never passes
    /// it (a proof jumping too far would).
    #[test]
    fn minimising_by_grains_ends_where_a_byte_by_byte_scan_does() {
        let mut rng = Rng::new(5);
        let mut above_bound = 0;
        for case in 0..120 {
            let (unit, align, buffers) = small_instance(&mut rng, case, 6);
            let (problem, bound, stacked) = problem_of(&buffers, align);
            let least = (bound..=stacked)
                .find(|&c| {
                    let mut budget = Budget::work(u64::MAX);
                    matches!(decide(&problem, c, align, &mut budget), Decision::Fits(_))
                })
                .expect("stacked fits");
            let mut budget = Budget::work(10_000_000);
            let (lo, hi) = minimise(&problem, align, bound, stacked, &mut budget, |fit, _| {
                let offsets = problem.offsets_by_buffer(&fit, buffers.len());
                crate::pack::peak(&buffers, &offsets)
            });
            assert_eq!(hi, least, "case {case}: unit {unit}, align {align}");
            // proven exactly there: not short of it, nor past it (a claim that
            // capacities which fit do not)
            assert_eq!(lo, least, "case {case}: unit {unit}, align {align}: floor");
            above_bound += usize::from(least > bound);
        }
        assert!(
            above_bound > 10,
            "only {above_bound} optima above the bound"
        );
    }

    /// The same instances minimised with the floor beside the probes, on a clock:
    /// the same least capacity, proven, whichever side settles it.
    #[test]
    fn minimising_beside_ends_where_minimising_in_turns_does() {
        let mut rng = Rng::new(11);
        let start = std::time::Instant::now();
        let clock = move || start.elapsed().as_secs_f64() * 1e3;
        let mut at_bound = 0;
        for case in 0..120 {
            let (unit, align, buffers) = small_instance(&mut rng, case, 9);
            let (problem, bound, stacked) = problem_of(&buffers, align);
            let peak_of = |fit: &[u64]| {
                let offsets = problem.offsets_by_buffer(fit, buffers.len());
                crate::pack::peak(&buffers, &offsets)
            };
            let mut turns = Budget::work(10_000_000);
            let expected = minimise(&problem, align, bound, stacked, &mut turns, |fit, _| {
                peak_of(&fit)
            });
            let mut budget = Budget::timed(&clock, 60_000.0);
            let (q, deadline) = (grain(&problem, align), budget.deadline().expect("a clock"));
            let lo = bound.div_ceil(q) * q;
            let mut fits = Vec::new();
            let found = minimise_beside(
                &problem,
                align,
                q,
                (lo, stacked),
                &mut budget,
                |fit, _| {
                    fits.push(peak_of(&fit));
                    *fits.iter().min().expect("one")
                },
                crate::pool::core_for_tests(),
                deadline,
            );
            assert_eq!(found, expected, "case {case}: unit {unit}, align {align}");
            at_bound += usize::from(fits.last() == Some(&lo));
        }
        assert!(at_bound > 10, "only {at_bound} settled at the bound");
    }
}
