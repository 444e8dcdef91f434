//! Charts of a plan, written once over plotters' [`DrawingBackend`]: the same code
//! draws on a canvas in the browser and into an SVG string natively.
//!
//! Each chart returns a [`Frame`]: where its plotting area landed, in CSS pixels,
//! and the data ranges it spans, so that a caller can map a pointer back to data.
//! A [`Window`] zooms a chart into part of its full extent; what falls outside is
//! clipped before drawing.

/// plotters and its backend interface, as the charts use them: the page's canvas
/// backend (in the wasm crate) draws through these, so plotters stays a dependency
/// of this crate alone.
pub use plotters;
pub use plotters_backend;

mod gantt;
mod interference;
mod lesson;
mod levels;
mod live_bytes;
mod npu;
mod raster;
mod spills;
mod style;
mod time_address;

pub use gantt::gantt;
pub use interference::{interference_graph, Spot};
pub use lesson::{lesson_live_bytes, lesson_time_address};
pub use levels::{level_chart, level_chart_with};
pub use live_bytes::live_bytes;
pub use npu::npu_svg;
pub use raster::Raster;
pub use spills::{away, spill_rows, spill_timeline, Lane, SpillLayout, SpillRow};
pub use style::palette_hex;
pub use time_address::{time_address, time_address_indexed, time_address_with, StepIndex};

use memplan::plan::Plan;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use style::{pool_colour, BOUND, GRID, INK, PALETTE, PEAK};

/// A chart of steps or cycles (x) by bytes in an axis unit, or rows (y).
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How a chart is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Device pixels per CSS pixel: fonts, lines and margins grow with it.
    pub scale: f64,
    /// Tensor (or NPU buffer) id to emphasise.
    pub highlight: Option<u64>,
    /// The part of the full extent on show.
    pub window: Window,
}

impl Default for View {
    fn default() -> Self {
        View {
            scale: 1.0,
            highlight: None,
            window: Window::FULL,
        }
    }
}

/// The part of a chart on show, as fractions of its full extent: `x0..x1` across,
/// `y0..y1` up. Charts whose y axis is not an address ignore `y0..y1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

impl Window {
    pub const FULL: Window = Window {
        x0: 0.0,
        x1: 1.0,
        y0: 0.0,
        y1: 1.0,
    };

    /// The window inside `0..1` each way, at least a thousandth wide and high.
    pub fn clamped(self) -> Window {
        let span = |a: f64, b: f64| {
            let (a, b) = if a.is_finite() && b.is_finite() && a < b {
                (a.max(0.0), b.min(1.0))
            } else {
                (0.0, 1.0)
            };
            if b - a < 1e-3 {
                let mid = ((a + b) / 2.0).clamp(5e-4, 1.0 - 5e-4);
                (mid - 5e-4, mid + 5e-4)
            } else {
                (a, b)
            }
        };
        let (x0, x1) = span(self.x0, self.x1);
        let (y0, y1) = span(self.y0, self.y1);
        Window { x0, x1, y0, y1 }
    }

    /// The part of `lo..hi` on show across.
    fn across(&self, (lo, hi): (f64, f64)) -> (f64, f64) {
        let w = self.clamped();
        (lo + (hi - lo) * w.x0, lo + (hi - lo) * w.x1)
    }

    /// The part of `lo..hi` on show up.
    fn up(&self, (lo, hi): (f64, f64)) -> (f64, f64) {
        let w = self.clamped();
        (lo + (hi - lo) * w.y0, lo + (hi - lo) * w.y1)
    }
}

impl View {
    /// `px` CSS pixels in backend pixels.
    fn px(&self, px: f64) -> u32 {
        (px * self.scale).round().max(1.0) as u32
    }

    fn font(&self, px: f64) -> TextStyle<'static> {
        TextStyle::from(("sans-serif", px * self.scale).into_font()).color(&INK)
    }
}

/// The plotting area of a drawn chart in CSS pixels (`left`, `top`, `width`, `height`)
/// and the data it spans: steps on x, bytes on y (`y_min` at the bottom).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
    pub x_min: f64,
    pub x_max: f64,
    pub y_min: f64,
    pub y_max: f64,
}

impl Frame {
    /// The frame of a plotting area whose corners `(x_min, y_max)` and `(x_max, y_min)`
    /// land on the backend pixels `top_left` and `bottom_right`.
    fn new(
        top_left: (i32, i32),
        bottom_right: (i32, i32),
        x: (f64, f64),
        y: (f64, f64),
        view: &View,
    ) -> Frame {
        let s = view.scale;
        Frame {
            left: f64::from(top_left.0) / s,
            top: f64::from(top_left.1) / s,
            width: f64::from(bottom_right.0 - top_left.0) / s,
            height: f64::from(bottom_right.1 - top_left.1) / s,
            x_min: x.0,
            x_max: x.1,
            y_min: y.0,
            y_max: y.1,
        }
    }
}

/// A byte unit for an axis reaching `max` bytes: its name and size.
fn unit_for(max: u64) -> (&'static str, u64) {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    UNITS
        .into_iter()
        .find(|&(_, size)| max >= size)
        .unwrap_or(("B", 1))
}

/// A tick label: `value` in `unit`, without trailing zeros.
fn tick(value: f64, unit: &str) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if unit.is_empty() {
        text.to_string()
    } else {
        format!("{text} {unit}")
    }
}

/// How a chart's y axis reads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum YAxis {
    /// Bytes, ticked in the unit that suits the range ("100 MiB").
    Bytes,
    /// Plain numbers (NPU sizes are in the case's own units).
    Units,
    /// Rows of a lane chart, labelled by the chart itself; never zoomed.
    Rows,
}

/// What a chart spans before the window: `x` across, `0..y_top` up.
#[derive(Clone, Copy, Debug)]
struct Extent<'s> {
    x: (f64, f64),
    x_desc: &'s str,
    y_top: f64,
    y: YAxis,
}

/// A chart on `area` over the windowed part of `extent`, its mesh drawn. Returns the
/// chart and the size of its y unit in data units (bytes per tick unit).
fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    extent: Extent,
    view: &View,
) -> Result<(Chart<'a, DB>, f64), DrawingAreaErrorKind<DB::ErrorType>> {
    let (mut chart, unit_bytes) = chart_on(area, extent, view)?;
    mesh(&mut chart, extent, unit_bytes, view, true)?;
    Ok((chart, unit_bytes))
}

/// A chart on `area` over the windowed part of `extent`, nothing drawn yet, and the
/// size of its y unit in data units.
fn chart_on<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    extent: Extent,
    view: &View,
) -> Result<(Chart<'a, DB>, f64), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, x1) = view.window.across(extent.x);
    let full_y = (0.0, extent.y_top.max(1.0));
    let (y0, y1) = match extent.y {
        YAxis::Rows => full_y,
        _ => view.window.up(full_y),
    };
    let unit_bytes = match extent.y {
        YAxis::Bytes => unit_for(y1 as u64).1 as f64,
        _ => 1.0,
    };
    let rows = extent.y == YAxis::Rows;
    let chart = ChartBuilder::on(area)
        .margin(view.px(10.0))
        .margin_right(view.px(18.0))
        .x_label_area_size(view.px(34.0))
        .y_label_area_size(view.px(if rows { 64.0 } else { 74.0 }))
        .build_cartesian_2d(x0..x1, y0 / unit_bytes..y1 / unit_bytes)?;
    Ok((chart, unit_bytes))
}

/// Draws the axes, tick labels and, when `grid`, the horizontal grid lines of `chart`.
fn mesh<DB: DrawingBackend>(
    chart: &mut Chart<DB>,
    extent: Extent,
    unit_bytes: f64,
    view: &View,
    grid: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let unit = match extent.y {
        YAxis::Bytes => unit_for((chart.y_range().end * unit_bytes) as u64).0,
        _ => "",
    };
    let rows = extent.y == YAxis::Rows;
    // about one x label per 90 CSS pixels
    let width = f64::from(chart.plotting_area().dim_in_pixel().0);
    let x_labels = ((width / view.scale / 90.0) as usize).clamp(3, 12);
    let y_label = |v: &f64| tick(*v, unit);
    let x_label = |v: &f64| whole(*v);
    let grid_colour = if grid { GRID.to_rgba() } else { TRANSPARENT };
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(grid_colour.stroke_width(view.px(1.0)))
        .axis_style(INK.mix(0.6).stroke_width(view.px(1.0)))
        .label_style(view.font(12.0))
        .axis_desc_style(view.font(12.0))
        .x_desc(extent.x_desc)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .x_labels(x_labels)
        .y_labels(6);
    if rows {
        mesh.disable_y_mesh().y_labels(0);
    }
    mesh.draw()
}

/// How a chart paints its boxes: as plotters rectangles (for SVG), or into a raster
/// as large as the backend and already cleared to white, handed to the backend whole
/// by `put` before the axes, lines and text go over it.
pub enum Boxes<'r> {
    Shapes,
    Raster(&'r mut Raster, &'r mut dyn FnMut(&Raster)),
}

/// Draws the mesh of `chart` and its boxes: `shapes` draws them with plotters over
/// the mesh; with a raster, `paint` fills it over the grid lines, the raster is put,
/// and the axes and labels are drawn over it.
fn mesh_and_boxes<DB: DrawingBackend>(
    chart: &mut Chart<DB>,
    (extent, unit_bytes): (Extent, f64),
    view: &View,
    boxes: Boxes,
    shapes: impl FnOnce(&Chart<DB>) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>,
    paint: impl FnOnce(&Chart<DB>, &mut Raster),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match boxes {
        Boxes::Shapes => {
            mesh(chart, extent, unit_bytes, view, true)?;
            shapes(chart)
        }
        Boxes::Raster(raster, put) => {
            raster_grid(chart, raster, view);
            paint(chart, raster);
            put(raster);
            mesh(chart, extent, unit_bytes, view, false)
        }
    }
}

/// The horizontal grid lines the mesh would draw, into `raster`.
fn raster_grid<DB: DrawingBackend>(chart: &Chart<DB>, raster: &mut Raster, view: &View) {
    let (x, y) = (chart.x_range(), chart.y_range());
    let width = view.px(1.0) as i32;
    for v in RangedCoordf64::from(y).key_points(6usize) {
        let (left, at) = chart.backend_coord(&(x.start, v));
        let (right, _) = chart.backend_coord(&(x.end, v));
        let top = at - 1 - (width - 1) / 2;
        raster.fill((left, top), (right, top + width), GRID);
    }
}

/// The data ranges a chart shows, read once for a loop over many boxes.
#[derive(Clone, Copy)]
struct Bounds {
    x: (f64, f64),
    y: (f64, f64),
}

impl Bounds {
    fn of<DB: DrawingBackend>(chart: &Chart<DB>) -> Bounds {
        let (x, y) = (chart.x_range(), chart.y_range());
        Bounds {
            x: (x.start, x.end),
            y: (y.start, y.end),
        }
    }

    /// `corners` (data units, any order) cut to these bounds, or `None` when
    /// nothing of them is inside.
    fn clip(&self, [(xa, ya), (xb, yb)]: [(f64, f64); 2]) -> Option<[(f64, f64); 2]> {
        let left = greater(lesser(xa, xb), self.x.0);
        let right = lesser(greater(xa, xb), self.x.1);
        let low = greater(lesser(ya, yb), self.y.0);
        let high = lesser(greater(ya, yb), self.y.1);
        (left < right && low < high).then_some([(left, low), (right, high)])
    }
}

// `f64::min` and `max` treat NaN apart, which wasm has no instruction for: each is a
// call there, in the loop over every box. Coordinates are never NaN.
fn lesser(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// A chart's data-to-pixel mapping as one scale and shift per axis, read once for
/// a loop over many boxes (plotters' own mapping, up to rounding).
#[derive(Clone, Copy)]
struct Affine {
    x: (f64, f64),
    y: (f64, f64),
}

impl Affine {
    fn of<DB: DrawingBackend>(chart: &Chart<DB>) -> Affine {
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
    fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (
            (self.x.0 * x + self.x.1).round_ties_even() as i32,
            (self.y.0 * y + self.y.1).round_ties_even() as i32,
        )
    }

    /// How many pixels tall `height` data units are.
    fn height(&self, height: f64) -> f64 {
        (self.y.0 * height).abs()
    }
}

/// `v` as a whole number when it is one, else with one decimal.
fn whole(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// The frame of `chart`, whose y unit is `unit_bytes` data units.
fn frame<DB: DrawingBackend>(chart: &Chart<DB>, unit_bytes: f64, view: &View) -> Frame {
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
fn clip<DB: DrawingBackend>(
    chart: &Chart<DB>,
    corners: [(f64, f64); 2],
) -> Option<[(f64, f64); 2]> {
    Bounds::of(chart).clip(corners)
}

/// Width and height in backend pixels of the rectangle with data `corners`.
/// A box of a chart: its colour, its opacity over white, its corners in data units.
type ChartBox = (RGBColor, f64, [(f64, f64); 2]);

/// Filled boxes, each edged in white when both sides reach `roomy` CSS pixels.
fn draw_boxes<DB: DrawingBackend>(
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
fn paint_boxes<DB: DrawingBackend>(
    chart: &Chart<DB>,
    boxes: impl Iterator<Item = ChartBox>,
    roomy: f64,
    view: &View,
    raster: &mut raster::Raster,
) {
    let edge = view.px(1.0) as i32;
    let roomy = view.px(roomy) as i32;
    let pixels = Affine::of(chart);
    for (colour, alpha, c) in boxes {
        let colour = if alpha >= 1.0 {
            colour
        } else {
            raster::on_white(colour, alpha)
        };
        let (left, bottom) = pixels.at(c[0]);
        let (right, top) = pixels.at(c[1]);
        raster.fill((left, top), (right, bottom), colour);
        if right - left >= roomy && bottom - top >= roomy {
            raster.outline((left, top), (right, bottom), edge, WHITE);
        }
    }
}

fn pixel_size<DB: DrawingBackend>(chart: &Chart<DB>, corners: [(f64, f64); 2]) -> (i32, i32) {
    let (x0, y0) = chart.backend_coord(&corners[0]);
    let (x1, y1) = chart.backend_coord(&corners[1]);
    ((x1 - x0).abs(), (y0 - y1).abs())
}

/// A horizontal line at `bytes` across the plot, labelled `name` and `text`,
/// at the right end when `right` else at the left; nothing when it is off the window.
fn level_line<DB: DrawingBackend>(
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
fn mark_level<DB: DrawingBackend>(
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

/// Both charts of `plan` stacked in one SVG document of `width` x `height` pixels,
/// each under a title.
pub fn svg(plan: &Plan, profile: &[(u32, u64)], width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_report(&root, plan, profile).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn draw_report<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plan: &Plan,
    profile: &[(u32, u64)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let view = View::default();
    let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 * 3 / 5);
    let title = format!(
        "{}: {} (peak {}, lower bound {})",
        plan.graph,
        plan.strategy,
        memplan::units::format_size(plan.peak_bytes),
        memplan::units::format_size(plan.lower_bound)
    );
    let top = top.titled(&title, view.font(16.0))?;
    time_address(&top, plan, &view)?;
    let bottom = bottom.titled("live bytes per step", view.font(14.0))?;
    live_bytes(&bottom, profile, plan.lower_bound, plan.steps, None, &view)?;
    Ok(())
}

/// Draws `text` at `pos` on a pale box so it stays legible over the chart.
fn label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    pos: (i32, i32),
    style: &TextStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.estimate_text_size(text, style)?;
    let (w, h) = (w as i32, h as i32);
    let pad = 3;
    area.draw(&Rectangle::new(
        [
            (pos.0 - pad, pos.1 - pad),
            (pos.0 + w + pad, pos.1 + h + pad),
        ],
        WHITE.mix(0.85).filled(),
    ))?;
    area.draw(&Text::new(text.to_string(), pos, style.clone()))
}

/// Writes `text` left of the plot of `chart`, right-aligned and centred on `y`.
fn row_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart<DB>,
    y: f64,
    text: &str,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = view.font(12.0);
    let (w, h) = area.estimate_text_size(text, &font)?;
    let (px, py) = chart.backend_coord(&(chart.x_range().start, y));
    let (bx, by) = area.get_base_pixel();
    let pos = (
        px - bx - w as i32 - view.px(8.0) as i32,
        py - by - h as i32 / 2,
    );
    area.draw(&Text::new(text.to_string(), pos, font))
}

/// Each legend item's top-left corner, and the height of all the lines.
type LegendLayout = (Vec<(i32, i32)>, u32);

/// The swatches of a legend laid out in lines as wide as `area`, from `left`.
fn legend_layout<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[(String, RGBColor)],
    left: i32,
    view: &View,
) -> Result<LegendLayout, DrawingAreaErrorKind<DB::ErrorType>> {
    let font = view.font(11.5);
    let (width, _) = area.dim_in_pixel();
    let (sw, gap, line) = (
        view.px(10.0) as i32,
        view.px(14.0) as i32,
        view.px(18.0) as i32,
    );
    let top = view.px(6.0) as i32;
    let (mut x, mut y, mut at) = (left, top, Vec::new());
    for (name, _) in items {
        let (tw, _) = area.estimate_text_size(name, &font)?;
        let w = sw + view.px(5.0) as i32 + tw as i32;
        if x > left && x + w > width as i32 {
            x = left;
            y += line;
        }
        at.push((x, y));
        x += w + gap;
    }
    Ok((at, (y + line) as u32))
}

/// A legend of colour swatches and names along the top of `area`, from `left`,
/// wrapped into as many lines as it needs (see [`legend_layout`]).
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[(String, RGBColor)],
    at: &[(i32, i32)],
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = view.font(11.5);
    let sw = view.px(10.0) as i32;
    for ((name, colour), &(x, y)) in items.iter().zip(at) {
        let (_, th) = area.estimate_text_size(name, &font)?;
        let sy = y + (th as i32 - sw) / 2;
        area.draw(&Rectangle::new(
            [(x, sy), (x + sw, sy + sw)],
            colour.filled(),
        ))?;
        area.draw(&Text::new(
            name.clone(),
            (x + sw + view.px(5.0) as i32, y),
            font.clone(),
        ))?;
    }
    Ok(())
}
