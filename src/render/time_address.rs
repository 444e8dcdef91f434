//! The time-by-address chart: one rectangle per placed tensor, steps across and
//! bytes up, coloured by pool, under lines at the peak and the lower bound.

use super::{
    axes, clip, frame, level_line, pixel_size, pool_colour, Chart, Extent, Frame, View, YAxis,
    BOUND, INK, PEAK,
};
use crate::plan::{Placement, Plan};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws `plan` on `area`: tensor `start..=end` by `offset..offset + size`.
pub fn time_address<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let max = plan.peak_bytes.max(plan.lower_bound).max(1);
    let extent = Extent {
        x: (0.0, f64::from(plan.steps.max(1))),
        x_desc: "step",
        y_top: max as f64 * 1.12,
        y: YAxis::Bytes,
    };
    let (chart, unit_bytes) = axes(area, extent, view)?;
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
    Ok(frame(&chart, unit_bytes, view))
}

/// The data corners of tensor `t`'s rectangle.
fn corners(t: &Placement, unit_bytes: f64) -> [(f64, f64); 2] {
    [
        (f64::from(t.start), t.offset as f64 / unit_bytes),
        (
            f64::from(t.end + 1),
            (t.offset + t.size) as f64 / unit_bytes,
        ),
    ]
}

/// One filled rectangle per tensor on show, with a thin white edge when it is large
/// enough; the highlighted tensor is outlined and the others fade.
fn draw_tensors<DB: DrawingBackend>(
    chart: &Chart<DB>,
    plan: &Plan,
    unit_bytes: f64,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let area = chart.plotting_area();
    let fade = if view.highlight.is_some() { 0.45 } else { 0.9 };
    let edge = WHITE.stroke_width(view.px(1.0));
    let roomy = view.px(6.0) as i32;
    let shown: Vec<(&Placement, [(f64, f64); 2])> = plan
        .tensors
        .iter()
        .filter_map(|t| clip(chart, corners(t, unit_bytes)).map(|c| (t, c)))
        .collect();
    for &(t, c) in &shown {
        let colour = pool_colour(t.pool);
        let alpha = if view.highlight == Some(u64::from(t.id)) {
            1.0
        } else {
            fade
        };
        area.draw(&Rectangle::new(c, colour.mix(alpha).filled()))?;
        let (w, h) = pixel_size(chart, c);
        if w >= roomy && h >= roomy {
            area.draw(&Rectangle::new(c, edge))?;
        }
    }
    for &(t, c) in &shown {
        name_inside(chart, t, c, view)?;
    }
    if let Some(&(_, c)) = shown
        .iter()
        .find(|(t, _)| view.highlight == Some(u64::from(t.id)))
    {
        let outline = INK.stroke_width(view.px(2.5));
        area.draw(&Rectangle::new(c, outline))?;
    }
    Ok(())
}

/// Writes the tensor's name inside its rectangle when it fits.
fn name_inside<DB: DrawingBackend>(
    chart: &Chart<DB>,
    t: &Placement,
    corners: [(f64, f64); 2],
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, _) = chart.backend_coord(&corners[0]);
    let (_, y0) = chart.backend_coord(&corners[1]);
    let (w, h) = pixel_size(chart, corners);
    let pad = view.px(4.0) as i32;
    // white reads on full colours, ink on the faded ones
    let faded = view.highlight.is_some_and(|id| id != u64::from(t.id));
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
