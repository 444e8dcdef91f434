//! The live-bytes curve: bytes alive at each step, a step function, under a line at
//! the lower bound (its maximum).

use super::{axes, frame, level_line, Frame, View, BOUND};
use plotters::coord::Shift;
use plotters::prelude::*;

const CURVE: RGBColor = RGBColor(78, 121, 167);

/// Draws `profile` (`(step, bytes)` at each change, as from
/// [`crate::liveness::profile`]) over `steps` steps, with the `lower_bound` line.
pub fn live_bytes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    profile: &[(u32, u64)],
    lower_bound: u64,
    steps: u32,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let most = profile.iter().map(|&(_, b)| b).max().unwrap_or(0);
    let (mut chart, unit_bytes, top) = axes(area, steps, most.max(lower_bound), view)?;
    let points = staircase(profile, steps.max(1))
        .into_iter()
        .map(|(s, b)| (s, b as f64 / unit_bytes));
    chart.draw_series(
        AreaSeries::new(points, 0.0, CURVE.mix(0.22))
            .border_style(CURVE.stroke_width(view.px(2.0))),
    )?;
    let bound = ("lower bound", BOUND, false, true);
    level_line(&chart, lower_bound, unit_bytes, bound, view)?;
    Ok(frame(&chart, unit_bytes, top, view))
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
    use super::staircase;

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
