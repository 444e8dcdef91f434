//! The time-by-address chart: one rectangle per placed tensor, steps across and
//! bytes up, coloured by pool, under lines at the peak and the lower bound.

use super::{
    chart_on, draw_boxes, frame, level_line, mesh_and_boxes, paint_boxes, pixel_size, pool_colour,
    Affine, Bounds, Boxes, Chart, Extent, Frame, View, YAxis, BOUND, INK, PEAK,
};
use memplan::plan::{Placement, Plan};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws `plan` on `area`: tensor `start..=end` by `offset..offset + size`.
pub fn time_address<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    time_address_with(area, plan, view, Boxes::Shapes)
}

/// Draws `plan` on `area` like [`time_address`], the tensors' boxes painted by `boxes`.
pub fn time_address_with<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    view: &View,
    boxes: Boxes,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    time_address_indexed(area, plan, None, view, boxes)
}

/// The tensors of a plan by first step, so that a chart zoomed to a few steps visits
/// only the tensors alive near them rather than all of them. Made once per plan.
pub struct StepIndex {
    /// Tensors living fewer than `span` steps, by first step.
    short: Vec<Slot>,
    /// The others, visited at every zoom.
    long: Vec<Slot>,
    span: u32,
}

/// What drawing needs of a tensor, packed and in drawing order so that a loop over a
/// million of them reads memory in sequence.
#[derive(Clone, Copy)]
struct Slot {
    start: u32,
    end: u32,
    offset: u64,
    size: u64,
    /// Colour number: the pool, or another key the index was made with.
    pool: u32,
    id: u32,
    /// Position in the plan's tensors.
    index: u32,
}

impl Slot {
    fn of(index: usize, t: &Placement) -> Slot {
        Slot {
            start: t.start,
            end: t.end,
            offset: t.offset,
            size: t.size,
            pool: t.pool,
            id: t.id,
            index: index as u32,
        }
    }
}

impl StepIndex {
    /// The index of `plan`, tensors coloured by pool.
    pub fn new(plan: &Plan) -> StepIndex {
        StepIndex::coloured(plan, |t| t.pool)
    }

    /// The index of `plan`, each tensor coloured by the palette entry `colour` gives.
    pub fn coloured(plan: &Plan, colour: impl Fn(&Placement) -> u32) -> StepIndex {
        let span = (plan.steps / 64).max(1);
        let (mut short, long): (Vec<Slot>, Vec<Slot>) = plan
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| Slot {
                pool: colour(t),
                ..Slot::of(i, t)
            })
            .partition(|t| t.end.saturating_sub(t.start) < span);
        short.sort_by_key(|t| t.start);
        StepIndex { short, long, span }
    }

    /// Position in the plan's tensors of the box drawn over `step` and `bytes`, if
    /// any: the tensor lives through the step (`start <= step < end + 1`) and holds
    /// the byte.
    pub fn at(&self, step: f64, bytes: f64) -> Option<usize> {
        self.around(step, step)
            .find(|t| {
                step >= f64::from(t.start)
                    && step < f64::from(t.end) + 1.0
                    && bytes >= t.offset as f64
                    && bytes < (t.offset + t.size) as f64
            })
            .map(|t| t.index as usize)
    }

    /// The tensors that may show between steps `x0` and `x1` (some that do not, too).
    fn around(&self, x0: f64, x1: f64) -> impl Iterator<Item = Slot> + '_ {
        // a short tensor shows when start < x1 and end + 1 > x0, so start > x0 - span
        let lo = (x0 - f64::from(self.span)).floor().max(0.0) as u32;
        let hi = x1.ceil().max(0.0) as u32;
        let from = self.short.partition_point(|t| t.start < lo);
        let to = self.short.partition_point(|t| t.start <= hi);
        self.short[from..to.max(from)]
            .iter()
            .chain(&self.long)
            .copied()
    }
}

/// Like [`time_address_with`]; with `index` (made from this `plan`) a zoomed chart
/// visits only the tensors near the steps on show.
pub fn time_address_indexed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    index: Option<&StepIndex>,
    view: &View,
    boxes: Boxes,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let max = plan.peak_bytes.max(plan.lower_bound).max(1);
    let extent = Extent {
        x: (0.0, f64::from(plan.steps.max(1))),
        x_desc: "step",
        y_top: max as f64 * 1.12,
        y: YAxis::Bytes,
    };
    let (mut chart, unit_bytes) = chart_on(area, extent, view)?;
    let bounds = Bounds::of(&chart);
    mesh_and_boxes(
        &mut chart,
        (extent, unit_bytes),
        view,
        boxes,
        |chart| {
            draw_boxes(
                chart,
                tensor_boxes(plan, index, bounds, unit_bytes, view),
                ROOMY,
                view,
            )
        },
        |chart, raster| {
            paint_boxes(
                chart,
                tensor_boxes(plan, index, bounds, unit_bytes, view),
                ROOMY,
                view,
                raster,
            )
        },
    )?;
    let mut chosen = None;
    let pixels = Affine::of(&chart);
    let tall = f64::from(view.px(NAME_HEIGHT)) - 1.0;
    for t in candidates(plan, index, bounds) {
        let chosen_here = is_chosen(t.id, view);
        if !chosen_here && pixels.height(t.size as f64 / unit_bytes) < tall {
            continue;
        }
        let Some(c) = bounds.clip(corners(t, unit_bytes)) else {
            continue;
        };
        name_inside(&chart, &plan.tensors[t.index as usize], c, view)?;
        if chosen_here {
            chosen = Some(c);
        }
    }
    if let Some(c) = chosen {
        let outline = INK.stroke_width(view.px(2.5));
        chart.plotting_area().draw(&Rectangle::new(c, outline))?;
    }
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
fn corners(t: Slot, unit_bytes: f64) -> [(f64, f64); 2] {
    [
        (f64::from(t.start), t.offset as f64 / unit_bytes),
        (
            f64::from(t.end + 1),
            (t.offset + t.size) as f64 / unit_bytes,
        ),
    ]
}

/// The tensors of `plan` that may be inside `bounds`: all, or those `index` finds.
fn candidates<'p>(
    plan: &'p Plan,
    index: Option<&'p StepIndex>,
    bounds: Bounds,
) -> Box<dyn Iterator<Item = Slot> + 'p> {
    match index {
        Some(index) => Box::new(index.around(bounds.x.0, bounds.x.1)),
        None => Box::new(plan.tensors.iter().enumerate().map(|(i, t)| Slot::of(i, t))),
    }
}

/// The tensors of `plan` inside `bounds`, each with its corners cut to them.
fn shown<'p>(
    plan: &'p Plan,
    index: Option<&'p StepIndex>,
    bounds: Bounds,
    unit_bytes: f64,
) -> impl Iterator<Item = (Slot, [(f64, f64); 2])> + 'p {
    candidates(plan, index, bounds)
        .filter_map(move |t| bounds.clip(corners(t, unit_bytes)).map(|c| (t, c)))
}

fn is_chosen(id: u32, view: &View) -> bool {
    view.highlight == Some(u64::from(id))
}

/// How opaque tensor `t` is drawn: the highlighted one fully, the others fade.
fn alpha(t: Slot, view: &View) -> f64 {
    match view.highlight {
        _ if is_chosen(t.id, view) => 1.0,
        Some(_) => 0.45,
        None => 0.9,
    }
}

/// A tensor's name is written inside its box from this many CSS pixels high.
const NAME_HEIGHT: f64 = 16.0;

/// Tensors shown get a white edge from this many CSS pixels up.
const ROOMY: f64 = 6.0;

/// The boxes of the tensors in `bounds`: pool colour, faded unless chosen.
fn tensor_boxes<'p>(
    plan: &'p Plan,
    index: Option<&'p StepIndex>,
    bounds: Bounds,
    unit_bytes: f64,
    view: &'p View,
) -> impl Iterator<Item = (RGBColor, f64, [(f64, f64); 2])> + 'p {
    shown(plan, index, bounds, unit_bytes)
        .map(move |(t, c)| (pool_colour(t.pool), alpha(t, view), c))
}

/// Writes the tensor's name inside its rectangle when it fits.
fn name_inside<DB: DrawingBackend>(
    chart: &Chart<DB>,
    t: &Placement,
    corners: [(f64, f64); 2],
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = pixel_size(chart, corners);
    let pad = view.px(4.0) as i32;
    if h < view.px(NAME_HEIGHT) as i32 || w < 4 * pad {
        return Ok(());
    }
    let (x0, _) = chart.backend_coord(&corners[0]);
    let (_, y0) = chart.backend_coord(&corners[1]);
    // white reads on full colours, ink on the faded ones
    let faded = view.highlight.is_some_and(|id| id != u64::from(t.id));
    let font = view.font(11.0).color(if faded { &INK } else { &WHITE });
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
