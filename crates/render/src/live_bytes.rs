//! The live-bytes curve: bytes alive at each step, a step function, under a line at
//! the lower bound (its maximum).
//!
//! Each pixel column of a window is drawn from the changes inside it: up to
//! [`EXACT`] corner by corner, more as the column shows them (where the curve enters
//! the column, its lowest and highest inside it in their order, and where it
//! leaves). The lowest and highest come from [`Extremes`], those of each run of
//! [`RUN`] changes, so a redraw costs the columns, not the millions of changes of a
//! long trace.

use super::{axes, clip, frame, level_line, Extent, Frame, View, Window, YAxis, BOUND, GRID};
use plotters::coord::Shift;
use plotters::prelude::*;

const CURVE: RGBColor = RGBColor(78, 121, 167);

/// Changes a pixel column may hold and still be drawn exactly.
const EXACT: usize = 3;

/// Changes of a profile summarised by one entry of [`Extremes`].
const RUN: usize = 64;

/// The lowest and highest of each run of [`RUN`] changes of a profile (as indices,
/// the first of each): made once for a profile, it finds the lowest and highest of
/// any range of changes in time proportional to the range's length over [`RUN`].
#[derive(Debug, Clone, Default)]
pub struct Extremes {
    runs: Vec<(u32, u32)>,
}

impl Extremes {
    /// The extremes of `profile`'s runs (`(step, bytes)` at each change).
    pub fn of(profile: &[(u32, u64)]) -> Extremes {
        let runs = profile
            .chunks(RUN)
            .enumerate()
            .map(|(k, run)| {
                let (least, most) = scan(run);
                let at = (k * RUN) as u32;
                (at + least as u32, at + most as u32)
            })
            .collect();
        Extremes { runs }
    }

    /// The indices of the first lowest and the first highest of `profile[from..to]`
    /// (not empty), `profile` being the one these extremes were made of.
    fn between(&self, profile: &[(u32, u64)], from: usize, to: usize) -> (usize, usize) {
        let first_run = from.div_ceil(RUN);
        let last_run = (to / RUN).max(first_run);
        let head = from..(first_run * RUN).min(to);
        let tail = (last_run * RUN).max(head.end)..to;
        let (mut least, mut most) = (from, from);
        let mut take = |l: usize, m: usize| {
            if profile[l].1 < profile[least].1 {
                least = l;
            }
            if profile[m].1 > profile[most].1 {
                most = m;
            }
        };
        if !head.is_empty() {
            let (l, m) = scan(&profile[head.clone()]);
            take(head.start + l, head.start + m);
        }
        for &(l, m) in &self.runs[first_run..last_run] {
            take(l as usize, m as usize);
        }
        if !tail.is_empty() {
            let (l, m) = scan(&profile[tail.clone()]);
            take(tail.start + l, tail.start + m);
        }
        (least, most)
    }

    /// The highest bytes of `profile`, the one these extremes were made of.
    fn most(&self, profile: &[(u32, u64)]) -> u64 {
        let at = |&(_, m): &(u32, u32)| profile.get(m as usize).map_or(0, |p| p.1);
        self.runs.iter().map(at).max().unwrap_or(0)
    }
}

/// The positions of the first lowest and first highest bytes of `changes` (not empty).
/// A call of its own: a wasm engine optimises a function for its later calls, not
/// for the rest of a long loop it is in.
#[inline(never)]
fn scan(changes: &[(u32, u64)]) -> (usize, usize) {
    let (mut least, mut most) = (0, 0);
    for (k, &(_, b)) in changes.iter().enumerate() {
        if b < changes[least].1 {
            least = k;
        }
        if b > changes[most].1 {
            most = k;
        }
    }
    (least, most)
}

/// Draws `profile` (`(step, bytes)` at each change, as from
/// [`memplan::liveness::profile`]) over `steps` steps, with the `lower_bound` line and
/// the steps `span` (first, last) of a selected tensor shaded. Zooms across only.
pub fn live_bytes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    profile: &[(u32, u64)],
    lower_bound: u64,
    steps: u32,
    span: Option<(u32, u32)>,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    live_bytes_under(area, profile, None, lower_bound, steps, span, view, 0)
}

/// Like [`live_bytes`], with the bytes axis reaching at least `ceiling`: room for
/// what a viewer draws over the chart (a PyTorch snapshot's reserved bytes), and
/// the profile's [`Extremes`] when the caller keeps them between drawings (else
/// they are made here).
#[allow(clippy::too_many_arguments)]
pub fn live_bytes_under<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    profile: &[(u32, u64)],
    extremes: Option<&Extremes>,
    lower_bound: u64,
    steps: u32,
    span: Option<(u32, u32)>,
    view: &View,
    ceiling: u64,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let view = &View {
        window: Window {
            y0: 0.0,
            y1: 1.0,
            ..view.window
        },
        ..*view
    };
    let made;
    let extremes = match extremes {
        Some(extremes) => extremes,
        None => {
            made = Extremes::of(profile);
            &made
        }
    };
    let most = extremes.most(profile).max(ceiling);
    let extent = Extent {
        x: (0.0, f64::from(steps.max(1))),
        x_desc: "step",
        y_top: most.max(lower_bound).max(1) as f64 * 1.12,
        y: YAxis::Bytes,
    };
    let (mut chart, unit_bytes) = axes(area, extent, view)?;
    if let Some((first, last)) = span {
        let y = chart.y_range();
        let band = [(f64::from(first), y.start), (f64::from(last + 1), y.end)];
        if let Some(c) = clip(&chart, band) {
            let shade = GRID.mix(0.9).filled();
            chart.plotting_area().draw(&Rectangle::new(c, shade))?;
        }
    }
    let x = chart.x_range();
    let columns = chart.plotting_area().dim_in_pixel().0 as usize;
    let points = curve(profile, extremes, steps.max(1), (x.start, x.end), columns)
        .into_iter()
        .map(|(s, b)| (s, b as f64 / unit_bytes));
    chart.draw_series(
        AreaSeries::new(points, 0.0, CURVE.mix(0.22))
            .border_style(CURVE.stroke_width(view.px(2.0))),
    )?;
    let bound = ("lower bound", BOUND, false, true);
    level_line(&chart, lower_bound, unit_bytes, bound, view)?;
    Ok(frame(&chart, unit_bytes, view))
}

/// The line to draw of the step function of `profile` (with its `extremes`) over
/// `steps` between `x0` and `x1` on `columns` pixel columns: in a column of at most
/// [`EXACT`] changes, each change's vertical edge; in one of more, the edge of its
/// first change, its first lowest and first highest in their order, and its last
/// change. The line through those covers the same heights in every column as the
/// whole staircase and meets the next column at the same height, so at the chart's
/// resolution it is the same line, in at most six points a column.
fn curve(
    profile: &[(u32, u64)],
    extremes: &Extremes,
    steps: u32,
    (x0, x1): (f64, f64),
    columns: usize,
) -> Vec<(f64, u64)> {
    let profile = &profile[..profile.partition_point(|&(s, _)| s <= steps)];
    // a chart not laid out yet has no column: one, so that a long profile is never
    // drawn whole (millions of corners filled on a pixel, seconds of it)
    let columns = columns.max(1);
    let width = (x1 - x0).max(f64::MIN_POSITIVE);
    let column = |s: u32| {
        let c = ((f64::from(s) - x0) / width * columns as f64).floor();
        if c > 0.0 {
            (c as usize).min(columns - 1)
        } else {
            0
        }
    };
    let before = |i: usize| i.checked_sub(1).map_or(0, |k| profile[k].1);
    let corner = |k: usize| (f64::from(profile[k].0), profile[k].1);
    let from = profile.partition_point(|&(s, _)| f64::from(s) <= x0);
    let to = profile
        .partition_point(|&(s, _)| f64::from(s) < x1)
        .max(from);
    let mut out = Vec::with_capacity(6 * columns.min(to - from) + 3);
    out.push((x0, before(from)));
    let mut i = from;
    while i < to {
        let c = column(profile[i].0);
        let j = i + profile[i..to].partition_point(|&(s, _)| column(s) <= c);
        if j - i <= EXACT {
            let mut last = before(i);
            for &(s, b) in &profile[i..j] {
                out.extend([(f64::from(s), last), (f64::from(s), b)]);
                last = b;
            }
        } else {
            let (least, most) = extremes.between(profile, i, j);
            let mut keep = [i, least, most, j - 1];
            keep.sort_unstable();
            out.push((f64::from(profile[i].0), before(i)));
            let mut previous = None;
            for k in keep {
                if previous != Some(k) {
                    out.push(corner(k));
                    previous = Some(k);
                }
            }
        }
        i = j;
    }
    out.push((x1, before(to)));
    if profile.get(to).is_some_and(|&(s, _)| f64::from(s) == x1) {
        out.push(corner(to));
    }
    out
}

#[cfg(test)]
/// The corners of the step function: a vertical edge at every change, flat up to
/// `steps`.
fn staircase(profile: &[(u32, u64)], steps: u32) -> Vec<(u32, u64)> {
    let mut out = Vec::with_capacity(profile.len() * 2 + 2);
    let mut last = 0;
    for &(step, bytes) in profile.iter().filter(|&&(s, _)| s <= steps) {
        if out.is_empty() && step > 0 {
            out.push((0, 0));
        }
        if !out.is_empty() {
            out.push((step, last));
        }
        out.push((step, bytes));
        last = bytes;
    }
    if out.is_empty() {
        out.push((0, 0));
    }
    if out.last().is_some_and(|&(s, _)| s < steps) {
        out.push((steps, last));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{curve, staircase, Extremes, EXACT, RUN};

    /// The part of the step function with corners `points` (by step) between `x0`
    /// and `x1`: the exact line, as a reference.
    fn within(points: &[(u32, u64)], x0: f64, x1: f64) -> Vec<(f64, u64)> {
        // the value of the last corner before `x` (or at it, when `inclusive`)
        let upto = |x: f64, inclusive: bool| {
            let n = points
                .partition_point(|&(s, _)| f64::from(s) < x || (inclusive && f64::from(s) == x));
            n.checked_sub(1).map_or(0, |k| points[k].1)
        };
        let at = |x: f64| upto(x, true);
        let mut out = vec![(x0, at(x0))];
        let from = points.partition_point(|&(s, _)| f64::from(s) <= x0);
        let to = points.partition_point(|&(s, _)| f64::from(s) < x1);
        out.extend(
            points[from..to.max(from)]
                .iter()
                .map(|&(s, b)| (f64::from(s), b)),
        );
        let before = upto(x1, false);
        out.push((x1, before));
        if at(x1) != before {
            out.push((x1, at(x1)));
        }
        out
    }

    /// [`curve`] with the extremes made on the spot.
    fn drawn(
        profile: &[(u32, u64)],
        steps: u32,
        window: (f64, f64),
        columns: usize,
    ) -> Vec<(f64, u64)> {
        curve(profile, &Extremes::of(profile), steps, window, columns)
    }

    /// `line` without the points inside a flat run (which draw nothing).
    fn plain(line: Vec<(f64, u64)>) -> Vec<(f64, u64)> {
        let flat = |k: usize| {
            k > 0 && k + 1 < line.len() && line[k - 1].1 == line[k].1 && line[k + 1].1 == line[k].1
        };
        (0..line.len())
            .filter(|&k| !flat(k))
            .map(|k| line[k])
            .collect()
    }

    /// Each pixel column's lowest and highest of `line` over `columns` columns
    /// from `x0` to `x1`.
    fn spans(line: &[(f64, u64)], (x0, x1): (f64, f64), columns: usize) -> Vec<(u64, u64)> {
        let column = |x: f64| {
            let c = ((x - x0) / (x1 - x0) * columns as f64).floor();
            if c > 0.0 {
                (c as usize).min(columns - 1)
            } else {
                0
            }
        };
        let mut span = vec![(u64::MAX, 0); columns];
        for &(x, b) in line {
            let c = &mut span[column(x)];
            *c = (c.0.min(b), c.1.max(b));
        }
        span
    }

    #[test]
    fn a_summarised_window_covers_each_columns_heights() {
        let mut next = crate::test_numbers(7);
        for (changes, gap) in [(10_000, 1), (20_000, 3), (3_000, 2)] {
            let mut step = 0;
            let profile: Vec<(u32, u64)> = (0..changes)
                .map(|_| {
                    step += 1 + next(gap) as u32;
                    (step, next(1000))
                })
                .collect();
            let steps = step + 5;
            let extremes = Extremes::of(&profile);
            for (window, columns) in [
                ((1234.5, 8765.25), 300),
                ((0.0, f64::from(steps)), 997),
                ((17.0, 5000.0), 64),
            ] {
                let exact = within(&staircase(&profile, steps), window.0, window.1);
                let kept = curve(&profile, &extremes, steps, window, columns);
                assert!(
                    kept.len() < exact.len(),
                    "{} of {}",
                    kept.len(),
                    exact.len()
                );
                assert!(kept.len() <= 6 * columns + 3, "{} points", kept.len());
                assert_eq!(kept.first(), exact.first());
                assert_eq!(kept.last(), exact.last());
                // corners of the staircase, in its order
                let mut rest = exact.iter();
                let lost = kept.iter().position(|p| !rest.any(|q| q == p));
                assert_eq!(lost, None, "{:?}", lost.map(|k| kept[k]));
                assert_eq!(
                    spans(&kept, window, columns),
                    spans(&exact, window, columns)
                );
            }
        }
    }

    #[test]
    fn a_window_of_few_changes_a_column_is_drawn_exactly() {
        let mut next = crate::test_numbers(11);
        for _ in 0..300 {
            let steps = 1 + next(60) as u32;
            let mut profile = Vec::new();
            let mut step = next(3) as u32;
            while step <= steps + 2 {
                profile.push((step, next(5)));
                step += 1 + next(4) as u32;
            }
            let mut ends = [
                next(4 * u64::from(steps)) as f64 / 3.0,
                next(4 * u64::from(steps)) as f64 / 3.0,
            ];
            ends.sort_by(f64::total_cmp);
            if ends[0] == ends[1] {
                ends[1] += 0.5;
            }
            let window = (ends[0], ends[1]);
            for columns in [steps as usize, 3 * steps as usize / EXACT + 1] {
                assert_eq!(
                    plain(drawn(&profile, steps, window, columns)),
                    plain(within(&staircase(&profile, steps), window.0, window.1)),
                    "{profile:?} over {steps} steps, {window:?} in {columns} columns"
                );
            }
        }
    }

    #[test]
    fn extremes_find_the_first_lowest_and_highest_of_any_range() {
        let mut next = crate::test_numbers(3);
        let profile: Vec<(u32, u64)> = (0..5 * RUN as u32 + 17).map(|s| (s, next(40))).collect();
        let extremes = Extremes::of(&profile);
        for _ in 0..2000 {
            let from = next(profile.len() as u64) as usize;
            let to = from + 1 + next((profile.len() - from) as u64) as usize;
            let part = &profile[from..to];
            let least = part.iter().map(|p| p.1).min().unwrap();
            let most = part.iter().map(|p| p.1).max().unwrap();
            let first = |v: u64| from + part.iter().position(|p| p.1 == v).unwrap();
            assert_eq!(
                extremes.between(&profile, from, to),
                (first(least), first(most)),
                "{from}..{to}"
            );
        }
        assert_eq!(
            extremes.most(&profile),
            profile.iter().map(|p| p.1).max().unwrap()
        );
    }

    #[test]
    fn a_window_cuts_the_steps_at_its_ends() {
        let profile = [(0, 0), (1, 5), (3, 2), (4, 0)];
        assert_eq!(
            drawn(&profile, 6, (2.0, 3.5), 100),
            vec![(2.0, 5), (3.0, 5), (3.0, 2), (3.5, 2)]
        );
        // a change right at the end is a vertical edge, not a slope
        assert_eq!(
            drawn(&profile, 6, (3.5, 4.0), 100),
            vec![(3.5, 2), (4.0, 2), (4.0, 0)]
        );
    }

    #[test]
    fn a_chart_without_columns_still_keeps_a_column_of_points() {
        // a canvas not laid out yet: a million corners must not all be drawn
        let profile: Vec<(u32, u64)> = (0..1_000_000u32).map(|i| (i, u64::from(i % 7))).collect();
        let kept = drawn(&profile, 1_000_000, (0.0, 1_000_000.0), 0);
        assert!(kept.len() <= 8, "{} points kept", kept.len());
        assert_eq!(kept.first().map(|p| p.0), Some(0.0));
        assert_eq!(kept.last().map(|p| p.0), Some(1_000_000.0));
    }

    #[test]
    fn staircase_has_vertical_edges_and_reaches_the_end() {
        let points = staircase(&[(0, 0), (1, 5), (3, 2), (4, 0)], 6);
        assert_eq!(
            points,
            vec![
                (0, 0),
                (1, 0),
                (1, 5),
                (3, 5),
                (3, 2),
                (4, 2),
                (4, 0),
                (6, 0)
            ]
        );
    }

    #[test]
    fn staircase_of_nothing_is_flat() {
        assert_eq!(staircase(&[], 3), vec![(0, 0), (3, 0)]);
        // a first change after step 0 rises at its step, not from step 0
        assert_eq!(
            staircase(&[(2, 4)], 3),
            vec![(0, 0), (2, 0), (2, 4), (3, 4)]
        );
    }
}
