//! The live-bytes curve: bytes alive at each step, a step function, under a line at
//! the lower bound (its maximum).

use super::{axes, clip, frame, level_line, Extent, Frame, View, Window, YAxis, BOUND, GRID};
use plotters::coord::Shift;
use plotters::prelude::*;

const CURVE: RGBColor = RGBColor(78, 121, 167);

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
    live_bytes_under(area, profile, lower_bound, steps, span, view, 0)
}

/// Like [`live_bytes`], with the bytes axis reaching at least `ceiling`: room for
/// what a viewer draws over the chart (a PyTorch snapshot's reserved bytes).
pub fn live_bytes_under<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    profile: &[(u32, u64)],
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
    let most = profile
        .iter()
        .map(|&(_, b)| b)
        .max()
        .unwrap_or(0)
        .max(ceiling);
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
    let points = window_of(profile, steps.max(1), (x.start, x.end));
    let points = per_column(points, (x.start, x.end), columns)
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

/// The part of the step function of `profile` over `steps` between `x0` and `x1`:
/// the staircase of the changes from the last at or before `x0` to the first at or
/// after `x1` alone, the rest of a long profile left unvisited.
fn window_of(profile: &[(u32, u64)], steps: u32, (x0, x1): (f64, f64)) -> Vec<(f64, u64)> {
    let profile = &profile[..profile.partition_point(|&(s, _)| s <= steps)];
    let from = profile
        .partition_point(|&(s, _)| f64::from(s) <= x0)
        .saturating_sub(1);
    let to = (profile.partition_point(|&(s, _)| f64::from(s) < x1) + 1).min(profile.len());
    within(&staircase(&profile[from..to.max(from)], steps), x0, x1)
}

/// The part of the step function with corners `points` (by step) between `x0` and
/// `x1`.
fn within(points: &[(u32, u64)], x0: f64, x1: f64) -> Vec<(f64, u64)> {
    // the value of the last corner before `x` (or at it, when `inclusive`)
    let upto = |x: f64, inclusive: bool| {
        let n =
            points.partition_point(|&(s, _)| f64::from(s) < x || (inclusive && f64::from(s) == x));
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

/// Points [`per_column`] keeps of a column at most.
const KEPT: usize = 6;

/// `points` (a line by `x` from `x0` to `x1`) as `columns` pixel columns show it:
/// when there are more than six a column, of each column only its first and last,
/// and the first and last of its lowest and of its highest, in their order. The line drawn through
/// those covers the same heights in every column, keeps the flat top and bottom,
/// and meets the next column at the same point, so at the chart's resolution it is
/// the same line; a plan of a million tensors has hundreds of thousands of corners
/// across a thousand columns.
fn per_column(points: Vec<(f64, u64)>, (x0, x1): (f64, f64), columns: usize) -> Vec<(f64, u64)> {
    // a chart not laid out yet has no column: one, so that a long profile is never
    // drawn whole (millions of corners filled on a pixel, seconds of it)
    let columns = columns.max(1);
    if points.len() <= KEPT * columns || x1 <= x0 {
        return points;
    }
    let column = |x: f64| {
        let c = ((x - x0) / (x1 - x0) * columns as f64).floor();
        if c > 0.0 {
            (c as usize).min(columns - 1)
        } else {
            0
        }
    };
    let mut out = Vec::with_capacity(KEPT * columns + KEPT);
    let mut start = 0;
    while start < points.len() {
        let c = column(points[start].0);
        let mut end = start + 1;
        while end < points.len() && column(points[end].0) == c {
            end += 1;
        }
        let run = &points[start..end];
        let least = run.iter().map(|p| p.1).min().unwrap_or(0);
        let most = run.iter().map(|p| p.1).max().unwrap_or(0);
        let first = |v: u64| run.iter().position(|p| p.1 == v).unwrap_or(0);
        let last = |v: u64| run.iter().rposition(|p| p.1 == v).unwrap_or(0);
        let mut keep = [
            0,
            first(least),
            last(least),
            first(most),
            last(most),
            run.len() - 1,
        ];
        keep.sort_unstable();
        let mut previous = None;
        for k in keep {
            if previous != Some(k) {
                out.push(run[k]);
                previous = Some(k);
            }
        }
        start = end;
    }
    out
}

/// The corners of the step function: a vertical edge at every change, flat up to
/// `steps`.
fn staircase(profile: &[(u32, u64)], steps: u32) -> Vec<(u32, u64)> {
    let mut out = Vec::with_capacity(profile.len() * 2 + 2);
    let mut last = 0;
    for &(step, bytes) in profile.iter().filter(|&&(s, _)| s <= steps) {
        if !out.is_empty() {
            out.push((step, last));
        }
        out.push((step, bytes));
        last = bytes;
    }
    if out.first().is_none_or(|&(s, _)| s > 0) {
        out.insert(0, (0, 0));
    }
    if out.last().is_some_and(|&(s, _)| s < steps) {
        out.push((steps, last));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{per_column, staircase, window_of, within};

    #[test]
    fn per_column_keeps_each_columns_heights_and_ends() {
        // a jagged staircase of 20,000 corners over 10,000 steps, in 300 columns
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 40
        };
        let profile: Vec<(u32, u64)> = (0..10_000).map(|s| (s, next() % 1000)).collect();
        let points = within(&staircase(&profile, 10_000), 1234.5, 8765.25);
        let columns = 300;
        let kept = per_column(points.clone(), (1234.5, 8765.25), columns);
        assert!(kept.len() <= 6 * columns, "{} points", kept.len());
        assert_eq!(kept.first(), points.first());
        assert_eq!(kept.last(), points.last());
        // a subsequence of the line
        let mut rest = points.iter();
        assert!(kept.iter().all(|p| rest.any(|q| q == p)));
        // the same lowest and highest in every column, reached over the same steps
        let column = |x: f64| (((x - 1234.5) / (8765.25 - 1234.5) * 300.0) as usize).min(299);
        let span = |line: &[(f64, u64)]| {
            let mut span = vec![(u64::MAX, 0); columns];
            for &(x, b) in line {
                let c = &mut span[column(x)];
                *c = (c.0.min(b), c.1.max(b));
            }
            let mut reach = vec![(f64::MAX, f64::MIN, f64::MAX, f64::MIN); columns];
            for &(x, b) in line {
                let (c, r) = (column(x), &mut reach[column(x)]);
                if b == span[c].0 {
                    (r.0, r.1) = (r.0.min(x), r.1.max(x));
                }
                if b == span[c].1 {
                    (r.2, r.3) = (r.2.min(x), r.3.max(x));
                }
            }
            (span, reach)
        };
        assert_eq!(span(&kept), span(&points));
        // few corners stay as they are
        let few = within(&staircase(&profile[..100], 100), 0.0, 100.0);
        assert_eq!(per_column(few.clone(), (0.0, 100.0), 300), few);
    }

    #[test]
    fn within_cuts_the_steps_to_the_window() {
        let points = staircase(&[(0, 0), (1, 5), (3, 2), (4, 0)], 6);
        assert_eq!(
            within(&points, 2.0, 3.5),
            vec![(2.0, 5), (3.0, 5), (3.0, 2), (3.5, 2)]
        );
        // a change right at the end is a vertical edge, not a slope
        assert_eq!(
            within(&points, 3.5, 4.0),
            vec![(3.5, 2), (4.0, 2), (4.0, 0)]
        );
    }

    #[test]
    fn a_window_of_the_profile_is_that_of_the_whole_staircase() {
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
            assert_eq!(
                window_of(&profile, steps, window),
                within(&staircase(&profile, steps), window.0, window.1),
                "{profile:?} over {steps} steps, {window:?}"
            );
        }
    }

    #[test]
    fn a_chart_without_columns_still_keeps_a_column_of_points() {
        // a canvas not laid out yet: a million corners must not all be drawn
        let points: Vec<(f64, u64)> = (0..1_000_000u32)
            .map(|i| (f64::from(i), u64::from(i % 7)))
            .collect();
        let kept = per_column(points, (0.0, 1_000_000.0), 0);
        assert!(kept.len() <= super::KEPT, "{} points kept", kept.len());
        assert_eq!(kept.first().map(|p| p.0), Some(0.0));
        assert_eq!(kept.last().map(|p| p.0), Some(999_999.0));
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
    }
}
