//! The time-by-address chart: one rectangle per placed tensor, steps across and
//! bytes up, coloured by pool, under lines at the peak and the lower bound.

mod pixels;
mod radix;

use super::axes::{chart_over, mesh};
use super::{
    chart_on, draw_boxes, frame, level_line, mesh_and_boxes, paint_boxes, pixel_size, pool_colour,
    Affine, Bounds, Boxes, Chart, Extent, Frame, View, YAxis, BOUND, INK, PEAK,
};
use crate::kept::Slot;
use memplan::plan::{Placement, Plan};
use pixels::{Painter, Pixels, NAME_HEIGHT, ROOMY};
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// The tensors of a plan by first step and offset, so that a chart zoomed to a few
/// steps or bytes visits only the tensors near them rather than all of them. Made
/// once per plan.
pub struct StepIndex {
    /// Tensors living fewer than `span` steps, in buckets of `span` steps by first
    /// step, each bucket by offset: bucket `k` is `short[starts[k]..starts[k + 1]]`.
    short: Vec<Slot>,
    starts: Vec<usize>,
    /// The largest size in each bucket, so that a bucket's tensors reaching a byte
    /// start at most that far below it.
    largest: Vec<u64>,
    /// The others, by offset, visited at every zoom.
    long: Vec<Slot>,
    long_largest: u64,
    span: u32,
    /// Told apart from every other index, so that a raster painted from one is
    /// never taken for another's.
    id: u64,
}

/// The number of step indexes made so far.
static INDEXES: AtomicU64 = AtomicU64::new(0);

impl StepIndex {
    /// The index of `plan`, tensors coloured by pool.
    pub fn new(plan: &Plan) -> StepIndex {
        StepIndex::coloured(plan, |t| t.pool)
    }

    /// The index of `plan`, each tensor coloured by the palette entry `colour` gives.
    pub fn coloured(plan: &Plan, colour: impl Fn(&Placement) -> u32) -> StepIndex {
        let span = (plan.steps / 64).max(1);
        let (mut short, mut long): (Vec<Slot>, Vec<Slot>) = plan
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| Slot {
                pool: colour(t),
                ..Slot::of(i, t)
            })
            .partition(|t| t.end.saturating_sub(t.start) < span);
        // ties keep the plan's order, so that the drawing order is the plan's own;
        // by one key, bucket above offset, when the two fit in 64 bits
        let bits = |most: Option<u64>| u64::BITS - most.unwrap_or(0).leading_zeros();
        let offset_bits = bits(short.iter().map(|t| t.offset).max());
        let bucket_bits = bits(short.iter().map(|t| u64::from(t.start / span)).max());
        if offset_bits + bucket_bits <= u64::BITS {
            // (with every offset needing all 64 bits, every bucket is 0)
            radix::sort_by_key(&mut short, |t| {
                let bucket = u64::from(t.start / span);
                bucket.checked_shl(offset_bits).unwrap_or(0) | t.offset
            });
        } else {
            memplan::sort::by_key(&mut short, |t| (t.start / span, t.offset));
        }
        memplan::sort::by_key(&mut long, |t| t.offset);
        let buckets = short.last().map_or(0, |t| (t.start / span) as usize + 1);
        let mut starts = vec![0; buckets + 1];
        let mut largest = vec![0; buckets];
        for t in &short {
            let k = (t.start / span) as usize;
            starts[k + 1] += 1;
            largest[k] = largest[k].max(t.size);
        }
        for k in 0..buckets {
            starts[k + 1] += starts[k];
        }
        let long_largest = long.iter().map(|t| t.size).max().unwrap_or(0);
        StepIndex {
            short,
            starts,
            largest,
            long,
            long_largest,
            span,
            id: INDEXES.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Position in the plan's tensors of the box drawn over `step` and `bytes`, if
    /// any: the tensor lives through the step (`start <= step < end + 1`) and holds
    /// the byte.
    pub fn at(&self, step: f64, bytes: f64) -> Option<usize> {
        self.near((step, step), (bytes, bytes))
            .flatten()
            .find(|t| {
                step >= f64::from(t.start)
                    && step < f64::from(t.end) + 1.0
                    && bytes >= t.offset as f64
                    && bytes < (t.offset + t.size) as f64
            })
            .map(|t| t.index as usize)
    }

    /// Every tensor in drawing order: the buckets of short lives one after the
    /// other, then the long lives.
    fn all(&self) -> impl Iterator<Item = Slot> + '_ {
        self.short.iter().chain(&self.long).copied()
    }

    /// Runs of tensors, in drawing order, that hold every tensor that may show
    /// between steps `x0` and `x1` and bytes `y0` and `y1` (and some that do not).
    fn near<'i>(
        &'i self,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
    ) -> impl Iterator<Item = &'i [Slot]> {
        let low = if y0 > 0.0 { y0.floor() as u64 } else { 0 };
        let high = if y1 > 0.0 { y1.ceil() as u64 } else { 0 };
        // of tensors by offset, those that may hold a byte of `low..=high`:
        // offset <= high and offset + size > low, so offset + largest > low
        let within = move |slots: &'i [Slot], largest: u64| -> &'i [Slot] {
            let from = slots.partition_point(|t| t.offset.saturating_add(largest) <= low);
            let to = slots.partition_point(|t| t.offset <= high);
            &slots[from..to.max(from)]
        };
        // a short tensor shows when start < x1 and end + 1 > x0, so start > x0 - span
        let span = f64::from(self.span);
        let buckets = self.starts.len().saturating_sub(1);
        let first = ((x0 - span) / span).floor();
        let last = (x1 / span).floor();
        let first = if first > 0.0 { first as usize } else { 0 };
        let last = if last > 0.0 {
            (last as usize).saturating_add(1)
        } else {
            1
        };
        let last = last.min(buckets);
        (first.min(last)..last)
            .map(move |k| {
                let bucket = &self.short[self.starts[k]..self.starts[k + 1]];
                within(bucket, self.largest[k])
            })
            .chain(std::iter::once(within(&self.long, self.long_largest)))
    }
}

/// How an indexed chart finds and paints the boxes of its tensors in a raster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// Only the tensors the index finds near the window, and after a pan only those
    /// near the strips that came into view, the rest of the raster's pixels moved.
    Fast,
    /// Every tensor visited in the index's order, into a raster painted afresh: the
    /// reference that [`Paint::Fast`] must match pixel for pixel.
    Full,
}

/// Like [`time_address_with`]; with `index` (made from this `plan`) a zoomed chart
/// visits only the tensors near the steps and bytes on show.
pub fn time_address_indexed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    index: Option<&StepIndex>,
    view: &View,
    boxes: Boxes,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    time_address_painted(area, plan, index, view, boxes, Paint::Fast)
}

/// Like [`time_address_indexed`], the boxes found and painted as `paint` says.
pub fn time_address_painted<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plan: &Plan,
    index: Option<&StepIndex>,
    view: &View,
    boxes: Boxes,
    paint: Paint,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let max = plan.peak_bytes.max(plan.lower_bound).max(view.top).max(1);
    let extent = Extent {
        x: (0.0, f64::from(plan.steps.max(1))),
        x_desc: "step",
        y_top: max as f64 * 1.12,
        y: YAxis::Bytes,
    };
    let (mut chart, unit_bytes, named) = match (boxes, index) {
        (Boxes::Raster(raster, put), Some(index)) => {
            let (chart, unit_bytes, named) =
                paint_raster(area, extent, index, view, paint, raster)?;
            put(raster);
            (chart, unit_bytes, Some(named))
        }
        (boxes, _) => {
            let (mut chart, unit_bytes) = chart_on(area, extent, view)?;
            let find = Find {
                plan,
                index,
                bounds: Bounds::of(&chart),
                unit_bytes,
                paint,
            };
            mesh_and_boxes(
                &mut chart,
                (extent, unit_bytes),
                view,
                boxes,
                |chart| draw_boxes(chart, tensor_boxes(find, view), ROOMY, view),
                |chart, raster| paint_boxes(chart, tensor_boxes(find, view), ROOMY, view, raster),
            )?;
            (chart, unit_bytes, None)
        }
    };
    if named.is_some() {
        mesh(&mut chart, extent, unit_bytes, view, false)?;
    }
    let bounds = Bounds::of(&chart);
    let find = Find {
        plan,
        index,
        bounds,
        unit_bytes,
        paint,
    };
    let mut chosen = None;
    let pixels = Affine::of(&chart);
    let tall = f64::from(view.px(NAME_HEIGHT)) - 1.0;
    let tried: Box<dyn Iterator<Item = Slot>> = match named {
        Some(named) => Box::new(named.into_iter()),
        None => find.candidates(),
    };
    for t in tried {
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

/// Paints the boxes of the tensors `index` finds on show into `raster` (sized to the
/// backend), on whole pixels of the chart's scale so that a pan shifts what the
/// raster holds (see `pixels`). Returns the chart over the window as painted, its y
/// unit and the tensors whose names may fit.
fn paint_raster<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    extent: Extent,
    index: &StepIndex,
    view: &View,
    paint: Paint,
    raster: &mut super::Raster,
) -> Result<Painted<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    // where the plot lands does not depend on what it shows
    let (probe, _) = chart_on(area, extent, view)?;
    let (x, y) = (probe.x_range(), probe.y_range());
    let (left, bottom) = probe.backend_coord(&(x.start, y.start));
    let (right, top) = probe.backend_coord(&(x.end, y.end));
    let plot = (left, top, right - left, bottom - top);
    let pixels = Pixels::new(view.window, (extent.x.1, extent.y_top.max(1.0)), plot);
    let (steps, bytes) = pixels.ranges();
    let (chart, unit_bytes) = chart_over(area, extent, steps, bytes, view)?;
    // grid lines at whole multiples of the ticks' step: the same values, so the same
    // pixels, for every window that has that step; those just outside the window
    // too, since the painter cuts them to it in pixels
    let y = chart.y_range();
    let ticks = RangedCoordf64::from(y.clone()).key_points(6usize);
    let step = match ticks.as_slice() {
        [a, b, ..] if b > a => Some(significant(b - a)),
        _ => None,
    };
    // the lines' bytes depend on the step in bytes alone, which the raster's key holds
    let step = step.map(|s| s * unit_bytes);
    let lines = match step {
        Some(step) => {
            let (from, to) = (y.start * unit_bytes / step, y.end * unit_bytes / step);
            (from.floor() as i64 - 1..=to.ceil() as i64 + 1)
                .map(|k| k as f64 * step)
                .collect()
        }
        None => ticks.iter().map(|v| v * unit_bytes).collect(),
    };
    let painter = Painter::new(pixels, view, lines, step);
    let key = painter.key(index, (raster.width(), raster.height()), view);
    let named = painter.paint_window(index, key, paint, raster);
    Ok((chart, unit_bytes, named))
}

/// A chart over the window as painted, its y unit in bytes, and the tensors whose
/// names may fit in their boxes.
type Painted<'a, DB> = (Chart<'a, DB>, f64, Vec<Slot>);

/// `v` (positive) to three significant digits, so that steps that differ in their
/// last bits are the same step.
fn significant(v: f64) -> f64 {
    let magnitude = 10f64.powi(v.log10().floor() as i32);
    (v / magnitude * 100.0).round() / 100.0 * magnitude
}

/// Where a chart's tensors come from: the plan in its order, or its index (all of
/// it for [`Paint::Full`], the runs near the window for [`Paint::Fast`]).
#[derive(Clone, Copy)]
struct Find<'p> {
    plan: &'p Plan,
    index: Option<&'p StepIndex>,
    bounds: Bounds,
    unit_bytes: f64,
    paint: Paint,
}

impl<'p> Find<'p> {
    /// The tensors that may be inside the bounds.
    fn candidates(self) -> Box<dyn Iterator<Item = Slot> + 'p> {
        let Find {
            plan,
            index,
            bounds,
            unit_bytes,
            paint,
        } = self;
        match (index, paint) {
            (None, _) => Box::new(plan.tensors.iter().enumerate().map(|(i, t)| Slot::of(i, t))),
            (Some(index), Paint::Full) => Box::new(index.all()),
            (Some(index), Paint::Fast) => {
                let bytes = (bounds.y.0 * unit_bytes, bounds.y.1 * unit_bytes);
                Box::new(index.near(bounds.x, bytes).flatten().copied())
            }
        }
    }

    /// The tensors inside the bounds, each with its corners cut to them.
    fn shown(self) -> impl Iterator<Item = (Slot, [(f64, f64); 2])> + 'p {
        let Find {
            bounds, unit_bytes, ..
        } = self;
        self.candidates()
            .filter_map(move |t| bounds.clip(corners(t, unit_bytes)).map(|c| (t, c)))
    }
}

/// The data corners of tensor `t`'s rectangle.
/// Byte counts stay below 2^63 (the arena is capped at 4 EiB), where the signed
/// conversion gives the same value as the unsigned one in one instruction (the
/// unsigned one is a sequence on x86, natively and in V8); units are powers of two
/// (bytes, KiB, MiB...), so multiplying by the inverse is dividing, exactly.
#[inline(always)]
fn corners(t: Slot, unit_bytes: f64) -> [(f64, f64); 2] {
    let per_byte = 1.0 / unit_bytes;
    [
        (f64::from(t.start), t.offset as i64 as f64 * per_byte),
        (
            f64::from(t.end + 1),
            (t.offset + t.size) as i64 as f64 * per_byte,
        ),
    ]
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

/// The boxes of the tensors `find` finds inside its bounds: pool colour, faded
/// unless chosen.
fn tensor_boxes<'p>(
    find: Find<'p>,
    view: &'p View,
) -> impl Iterator<Item = (RGBColor, f64, [(f64, f64); 2])> + 'p {
    find.shown()
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
