//! NPU plans: one time-by-address chart per memory level (a rectangle per stay of a
//! buffer, spill edges marked, under the level's capacity and its most live units).

use super::style::{buffer_colour, BOUND, INK, PEAK, SPILL};
use super::{
    chart_on, draw_boxes, frame, mark_level, mesh_and_boxes, paint_boxes, pixel_size, Bounds,
    Boxes, Chart, Extent, Frame, View, YAxis,
};
use memplan_npu::export::{LevelView, ResidencyView};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws `level` over `steps` schedule positions on `area`: each residency from its
/// first to its last position by `offset..offset + size`.
pub fn level_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    level: &LevelView,
    steps: usize,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    level_chart_with(area, level, steps, view, Boxes::Shapes)
}

/// Draws `level` like [`level_chart`], the residencies' boxes painted by `boxes`.
pub fn level_chart_with<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    level: &LevelView,
    steps: usize,
    view: &View,
    boxes: Boxes,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let high = level
        .residencies
        .iter()
        .map(|r| r.offset + r.size)
        .max()
        .unwrap_or(0);
    let extent = Extent {
        x: (0.0, steps.max(1) as f64),
        x_desc: "step",
        y_top: level.capacity.max(high).max(1) as f64 * 1.1,
        y: YAxis::Units,
    };
    let (mut chart, unit) = chart_on(area, extent, view)?;
    let bounds = Bounds::of(&chart);
    mesh_and_boxes(
        &mut chart,
        (extent, unit),
        view,
        boxes,
        |chart| draw_boxes(chart, stay_boxes(level, bounds, view), ROOMY, view),
        |chart, raster| paint_boxes(chart, stay_boxes(level, bounds, view), ROOMY, view, raster),
    )?;
    for (r, c) in shown(level, bounds) {
        name_inside(&chart, r, c, view)?;
    }
    let outline = INK.stroke_width(view.px(2.5));
    for (_, c) in shown(level, bounds).filter(|(r, _)| view.highlight == Some(r.buffer)) {
        chart.plotting_area().draw(&Rectangle::new(c, outline))?;
    }
    draw_spill_edges(&chart, level, view)?;
    let capacity = format!("capacity {}", level.capacity);
    mark_level(
        &chart,
        level.capacity as f64,
        &capacity,
        (PEAK, true, false),
        view,
    )?;
    let live = max_live(&level.residencies);
    let text = format!("most live {live}");
    mark_level(&chart, live as f64, &text, (BOUND, false, true), view)?;
    if level.residencies.is_empty() {
        let plot = chart.plotting_area().strip_coord_spec();
        let at = view.px(12.0) as i32;
        let note = format!("no buffers in {}", level.name);
        plot.draw(&Text::new(note, (at, at * 3), view.font(13.0)))?;
    }
    Ok(frame(&chart, unit, view))
}

fn corners(r: &ResidencyView) -> [(f64, f64); 2] {
    [
        (f64::from(r.start), r.offset as f64),
        (f64::from(r.end + 1), (r.offset + r.size) as f64),
    ]
}

/// The residencies of `level` inside `bounds`, each with its corners cut to them.
fn shown(
    level: &LevelView,
    bounds: Bounds,
) -> impl Iterator<Item = (&ResidencyView, [(f64, f64); 2])> {
    level
        .residencies
        .iter()
        .filter_map(move |r| bounds.clip(corners(r)).map(|c| (r, c)))
}

/// How opaque residency `r` is drawn: the highlighted buffer's fully, others fade.
fn alpha(r: &ResidencyView, view: &View) -> f64 {
    match view.highlight {
        Some(id) if id == r.buffer => 1.0,
        Some(_) => 0.35,
        None => 0.85,
    }
}

/// Stays shown get a white edge from this many CSS pixels up.
const ROOMY: f64 = 5.0;

/// The boxes of the stays in `bounds`: buffer colour, faded unless chosen.
fn stay_boxes<'l>(
    level: &'l LevelView,
    bounds: Bounds,
    view: &'l View,
) -> impl Iterator<Item = (RGBColor, f64, [(f64, f64); 2])> + 'l {
    shown(level, bounds).map(move |(r, c)| (buffer_colour(r.buffer), alpha(r, view), c))
}

/// Writes `b<id>` inside a residency when it fits.
fn name_inside<DB: DrawingBackend>(
    chart: &Chart<DB>,
    r: &ResidencyView,
    c: [(f64, f64); 2],
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = pixel_size(chart, c);
    let pad = view.px(3.0) as i32;
    if h < view.px(15.0) as i32 {
        return Ok(());
    }
    let faded = view.highlight.is_some_and(|id| id != r.buffer);
    let font = view.font(10.5).color(if faded { &INK } else { &WHITE });
    let text = format!("b{}", r.buffer);
    let plot = chart.plotting_area().strip_coord_spec();
    let (tw, _) = plot.estimate_text_size(&text, &font)?;
    if tw as i32 + 2 * pad > w {
        return Ok(());
    }
    let (x0, _) = chart.backend_coord(&c[0]);
    let (_, y1) = chart.backend_coord(&c[1]);
    let (bx, by) = plot.get_base_pixel();
    plot.draw(&Text::new(text, (x0 - bx + pad, y1 - by + pad), font))
}

/// A red edge where a buffer leaves the level (spill out) and where it comes back.
fn draw_spill_edges<DB: DrawingBackend>(
    chart: &Chart<DB>,
    level: &LevelView,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = SPILL.stroke_width(view.px(2.5));
    for s in &level.spills {
        for r in level.residencies.iter().filter(|r| r.buffer == s.buffer) {
            let edge = if r.end == s.out_step {
                f64::from(r.end + 1)
            } else if r.start == s.in_step {
                f64::from(r.start)
            } else {
                continue;
            };
            let x = chart.x_range();
            if edge < x.start || edge > x.end {
                continue;
            }
            let y = chart.y_range();
            let low = (r.offset as f64).max(y.start);
            let high = ((r.offset + r.size) as f64).min(y.end);
            if low < high {
                chart
                    .plotting_area()
                    .draw(&PathElement::new(vec![(edge, low), (edge, high)], style))?;
            }
        }
    }
    Ok(())
}

/// The most units alive at once over `residencies`.
pub(super) fn max_live(residencies: &[ResidencyView]) -> u64 {
    let mut events: Vec<(u32, i128)> = residencies
        .iter()
        .flat_map(|r| {
            [
                (r.start, i128::from(r.size)),
                (r.end + 1, -i128::from(r.size)),
            ]
        })
        .collect();
    memplan::sort::by_key(&mut events, |&(at, delta)| (at, delta));
    let (mut now, mut most) = (0i128, 0i128);
    for (_, delta) in events {
        now += delta;
        most = most.max(now);
    }
    most as u64
}
