//! Boxes and lines in data coordinates: the affine map to pixels, clipping to the
//! window, painting many boxes fast, level lines and their labels.

use super::{label, Chart, Frame, View};
use plotters::prelude::*;

/// The data ranges a chart shows, read once for a loop over many boxes.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) x: (f64, f64),
    pub(crate) y: (f64, f64),
}

impl Bounds {
    pub(crate) fn of<DB: DrawingBackend>(chart: &Chart<DB>) -> Bounds {
        let (x, y) = (chart.x_range(), chart.y_range());
        Bounds {
            x: (x.start, x.end),
            y: (y.start, y.end),
        }
    }

    /// `corners` (data units, any order) cut to these bounds, or `None` when
    /// nothing of them is inside.
    #[inline(always)]
    pub(crate) fn clip(&self, [(xa, ya), (xb, yb)]: [(f64, f64); 2]) -> Option<[(f64, f64); 2]> {
        let left = greater(lesser(xa, xb), self.x.0);
        let right = lesser(greater(xa, xb), self.x.1);
        let low = greater(lesser(ya, yb), self.y.0);
        let high = lesser(greater(ya, yb), self.y.1);
        (left < right && low < high).then_some([(left, low), (right, high)])
    }
}

// `f64::min` and `max` treat NaN apart, which wasm has no instruction for: each is a
// call there, in the loop over every box. Coordinates are never NaN.
#[inline(always)]
pub(crate) fn lesser(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

#[inline(always)]
pub(crate) fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// A chart's data-to-pixel mapping as one scale and shift per axis, read once for
/// a loop over many boxes (plotters' own mapping, up to rounding).
#[derive(Clone, Copy)]
pub(crate) struct Affine {
    pub(crate) x: (f64, f64),
    pub(crate) y: (f64, f64),
}

impl Affine {
    pub(crate) fn of<DB: DrawingBackend>(chart: &Chart<DB>) -> Affine {
        let (x, y) = (chart.x_range(), chart.y_range());
        let (left, bottom) = chart.backend_coord(&(x.start, y.start));
        let (right, top) = chart.backend_coord(&(x.end, y.end));
        let axis = |from: f64, to: f64, p0: i32, p1: i32| {
            let span = to - from;
            let scale = if span > 0.0 {
                f64::from(p1 - p0) / span
            } else {
                0.0
            };
            (scale, f64::from(p0) - scale * from)
        };
        Affine {
            x: axis(x.start, x.end, left, right),
            y: axis(y.start, y.end, bottom, top),
        }
    }

    /// The backend pixel of data point `(x, y)`.
    #[inline(always)]
    pub(crate) fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (
            (self.x.0 * x + self.x.1).round_ties_even() as i32,
            (self.y.0 * y + self.y.1).round_ties_even() as i32,
        )
    }

    /// How many pixels tall `height` data units are.
    #[inline(always)]
    pub(crate) fn height(&self, height: f64) -> f64 {
        (self.y.0 * height).abs()
    }
}

/// `v` as a whole number when it is one, else with one decimal.
pub(crate) fn whole(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// The frame of `chart`, whose y unit is `unit_bytes` data units.
pub(crate) fn frame<DB: DrawingBackend>(chart: &Chart<DB>, unit_bytes: f64, view: &View) -> Frame {
    let (x, y) = (chart.x_range(), chart.y_range());
    Frame::new(
        chart.backend_coord(&(x.start, y.end)),
        chart.backend_coord(&(x.end, y.start)),
        (x.start, x.end),
        (y.start * unit_bytes, y.end * unit_bytes),
        view,
    )
}

/// `corners` (data units, any order) cut to what `chart` shows, or `None` when
/// nothing of them is on show.
pub(crate) fn clip<DB: DrawingBackend>(
    chart: &Chart<DB>,
    corners: [(f64, f64); 2],
) -> Option<[(f64, f64); 2]> {
    Bounds::of(chart).clip(corners)
}

/// Width and height in backend pixels of the rectangle with data `corners`.
/// A box of a chart: its colour, its opacity over white, its corners in data units.
pub(crate) type ChartBox = (RGBColor, f64, [(f64, f64); 2]);

/// Filled boxes, each edged in white when both sides reach `roomy` CSS pixels.
pub(crate) fn draw_boxes<DB: DrawingBackend>(
    chart: &Chart<DB>,
    boxes: impl Iterator<Item = ChartBox>,
    roomy: f64,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let area = chart.plotting_area();
    let edge = WHITE.stroke_width(view.px(1.0));
    let roomy = view.px(roomy) as i32;
    for (colour, alpha, c) in boxes {
        area.draw(&Rectangle::new(c, colour.mix(alpha).filled()))?;
        let (w, h) = pixel_size(chart, c);
        if w >= roomy && h >= roomy {
            area.draw(&Rectangle::new(c, edge))?;
        }
    }
    Ok(())
}

/// The same boxes as [`draw_boxes`], painted into `raster` (opacity mixed over white).
pub(crate) fn paint_boxes<DB: DrawingBackend>(
    chart: &Chart<DB>,
    boxes: impl Iterator<Item = ChartBox>,
    roomy: f64,
    view: &View,
    raster: &mut super::raster::Raster,
) {
    let edge = view.px(1.0) as i32;
    let roomy = view.px(roomy) as i32;
    let pixels = Affine::of(chart);
    for (colour, alpha, c) in boxes {
        let colour = if alpha >= 1.0 {
            colour
        } else {
            super::raster::on_white(colour, alpha)
        };
        let (left, bottom) = pixels.at(c[0]);
        let (right, top) = pixels.at(c[1]);
        raster.fill((left, top), (right, bottom), colour);
        if right - left >= roomy && bottom - top >= roomy {
            raster.outline((left, top), (right, bottom), edge, WHITE);
        }
    }
}

pub(crate) fn pixel_size<DB: DrawingBackend>(
    chart: &Chart<DB>,
    corners: [(f64, f64); 2],
) -> (i32, i32) {
    let (x0, y0) = chart.backend_coord(&corners[0]);
    let (x1, y1) = chart.backend_coord(&corners[1]);
    ((x1 - x0).abs(), (y0 - y1).abs())
}

/// A horizontal line at `bytes` across the plot, labelled `name` and `text`,
/// at the right end when `right` else at the left; nothing when it is off the window.
pub(crate) fn level_line<DB: DrawingBackend>(
    chart: &Chart<DB>,
    bytes: u64,
    unit_bytes: f64,
    (name, colour, right, dashed): (&str, RGBColor, bool, bool),
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let text = format!("{name} {}", memplan::units::format_size(bytes));
    mark_level(
        chart,
        bytes as f64 / unit_bytes,
        &text,
        (colour, right, dashed),
        view,
    )
}

/// A horizontal line at `y` (axis units) labelled `text`, like [`level_line`].
pub(crate) fn mark_level<DB: DrawingBackend>(
    chart: &Chart<DB>,
    y: f64,
    text: &str,
    (colour, right, dashed): (RGBColor, bool, bool),
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, ys) = (chart.x_range(), chart.y_range());
    if y < ys.start || y > ys.end {
        return Ok(());
    }
    let ends = [(x.start, y), (x.end, y)];
    let style = colour.stroke_width(view.px(2.0));
    let area = chart.plotting_area();
    if dashed {
        let dash = view.px(6.0);
        area.draw(&plotters::element::DashedPathElement::new(
            ends, dash, dash, style,
        ))?;
    } else {
        area.draw(&PathElement::new(ends.to_vec(), style))?;
    }
    let plot = area.strip_coord_spec();
    let (_, base_y) = plot.get_base_pixel();
    let (width, _) = plot.dim_in_pixel();
    let (_, line_y) = chart.backend_coord(&ends[0]);
    let font = view.font(12.0).color(&colour);
    let (tw, th) = plot.estimate_text_size(text, &font)?;
    let pad = view.px(6.0) as i32;
    let tx = if right {
        width as i32 - tw as i32 - pad
    } else {
        pad
    };
    let ty = (line_y - base_y - th as i32 - pad).max(pad);
    label(&plot, text, (tx, ty), &font)
}
