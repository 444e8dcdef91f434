//! The time-by-address chart: one rectangle per placed tensor, steps across and
//! bytes up, coloured by pool, under lines at the peak and the lower bound.

use super::{axes, frame, level_line, pool_colour, Chart, Frame, View, BOUND, INK, PEAK};
use crate::plan::{Placement, Plan};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws `plan` on `area`: tensor `start..=end` by `offset..offset + size`.
pub fn time_address<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let max = plan.peak_bytes.max(plan.lower_bound);
    let (chart, unit_bytes, top) = axes(area, plan.steps, max, view)?;
    draw_tensors(&chart, plan, unit_bytes, view)?;
    level_line(
        &chart,
        plan.peak_bytes,
        unit_bytes,
        ("peak", PEAK, true, false),
        view,
    )?;
    let bound = ("lower bound", BOUND, false, true);
    level_line(&chart, plan.lower_bound, unit_bytes, bound, view)?;
    if plan.tensors.is_empty() {
        let plot = chart.plotting_area().strip_coord_spec();
        let at = view.px(12.0) as i32;
        plot.draw(&Text::new("nothing to place", (at, at), view.font(13.0)))?;
    }
    Ok(frame(&chart, unit_bytes, top, view))
}

/// One filled rectangle per tensor, with a thin white edge when it is large enough;
/// the highlighted tensor is outlined and the others fade.
fn draw_tensors<DB: DrawingBackend>(
    chart: &Chart<DB>,
    plan: &Plan,
    unit_bytes: f64,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let area = chart.plotting_area();
    let fade = if view.highlight.is_some() { 0.45 } else { 0.9 };
    let corners = |t: &Placement| {
        [
            (t.start, t.offset as f64 / unit_bytes),
            (t.end + 1, (t.offset + t.size) as f64 / unit_bytes),
        ]
    };
    let edge = WHITE.stroke_width(view.px(1.0));
    let roomy = view.px(6.0) as i32;
    for t in &plan.tensors {
        let colour = pool_colour(t.pool);
        let alpha = if view.highlight == Some(t.id) {
            1.0
        } else {
            fade
        };
        area.draw(&Rectangle::new(corners(t), colour.mix(alpha).filled()))?;
        let (w, h) = pixel_size(chart, corners(t));
        if w >= roomy && h >= roomy {
            area.draw(&Rectangle::new(corners(t), edge))?;
        }
    }
    for t in &plan.tensors {
        name_inside(chart, t, corners(t), view)?;
    }
    if let Some(t) = plan.tensors.iter().find(|t| view.highlight == Some(t.id)) {
        let outline = INK.stroke_width(view.px(2.5));
        area.draw(&Rectangle::new(corners(t), outline))?;
    }
    Ok(())
}

/// Width and height in backend pixels of the rectangle with data `corners`.
fn pixel_size<DB: DrawingBackend>(chart: &Chart<DB>, corners: [(u32, f64); 2]) -> (i32, i32) {
    let (x0, y0) = chart.backend_coord(&corners[0]);
    let (x1, y1) = chart.backend_coord(&corners[1]);
    (x1 - x0, y0 - y1)
}

/// Writes the tensor's name inside its rectangle when it fits.
fn name_inside<DB: DrawingBackend>(
    chart: &Chart<DB>,
    t: &Placement,
    corners: [(u32, f64); 2],
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, _) = chart.backend_coord(&corners[0]);
    let (_, y0) = chart.backend_coord(&corners[1]);
    let (w, h) = pixel_size(chart, corners);
    let pad = view.px(4.0) as i32;
    // white reads on full colours, ink on the faded ones
    let faded = view.highlight.is_some_and(|id| id != t.id);
    let font = view.font(11.0).color(if faded { &INK } else { &WHITE });
    if h < view.px(16.0) as i32 || w < 4 * pad {
        return Ok(());
    }
    let plot = chart.plotting_area().strip_coord_spec();
    let (tw, _) = plot.estimate_text_size(&t.name, &font)?;
    if tw as i32 + 2 * pad > w {
        return Ok(());
    }
    let (bx, by) = plot.get_base_pixel();
    plot.draw(&Text::new(
        t.name.clone(),
        (x0 - bx + pad, y0 - by + pad),
        font,
    ))
}
