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
    let view = &View {
        window: Window {
            y0: 0.0,
            y1: 1.0,
            ..view.window
        },
        ..*view
    };
    let most = profile.iter().map(|&(_, b)| b).max().unwrap_or(0);
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
    let points = within(&staircase(profile, steps.max(1)), x.start, x.end)
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

/// The part of the step function with corners `points` between `x0` and `x1`.
fn within(points: &[(u32, u64)], x0: f64, x1: f64) -> Vec<(f64, u64)> {
    let upto = |x: f64, inclusive: bool| {
        points
            .iter()
            .take_while(|&&(s, _)| f64::from(s) < x || (inclusive && f64::from(s) == x))
            .last()
            .map_or(0, |&(_, b)| b)
    };
    let at = |x: f64| upto(x, true);
    let mut out = vec![(x0, at(x0))];
    out.extend(
        points
            .iter()
            .filter(|&&(s, _)| f64::from(s) > x0 && f64::from(s) < x1)
            .map(|&(s, b)| (f64::from(s), b)),
    );
    let before = upto(x1, false);
    out.push((x1, before));
    if at(x1) != before {
        out.push((x1, at(x1)));
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
    use super::{staircase, within};

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
