//! Charts of a plan, written once over plotters' [`DrawingBackend`]: the same code
//! draws on a canvas in the browser and into an SVG string natively.
//!
//! Each chart returns a [`Frame`]: where its plotting area landed, in CSS pixels,
//! and the data ranges it spans, so that a caller can map a pointer back to data.

mod live_bytes;
mod time_address;

pub use live_bytes::live_bytes;
pub use time_address::time_address;

use crate::plan::Plan;
use plotters::coord::types::{RangedCoordf64, RangedCoordu32};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

/// A chart of steps (x) by bytes in an axis unit (y).
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordu32, RangedCoordf64>>;

/// How a chart is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Device pixels per CSS pixel: fonts, lines and margins grow with it.
    pub scale: f64,
    /// Tensor id to emphasise in the time-by-address chart.
    pub highlight: Option<u32>,
}

impl Default for View {
    fn default() -> Self {
        View {
            scale: 1.0,
            highlight: None,
        }
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

const INK: RGBColor = RGBColor(55, 65, 81);
const GRID: RGBColor = RGBColor(229, 231, 235);
const PEAK: RGBColor = RGBColor(190, 40, 50);
const BOUND: RGBColor = RGBColor(20, 130, 90);

/// Pool colours, repeated when there are more pools.
const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(89, 161, 79),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

fn pool_colour(pool: u32) -> RGBColor {
    PALETTE[pool as usize % PALETTE.len()]
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
    format!("{text} {unit}")
}

/// Steps across and bytes up to `max` (and some room above for labels), in the unit
/// that suits `max`. Returns the chart, its unit in bytes and the axis top in bytes.
fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    steps: u32,
    max: u64,
    view: &View,
) -> Result<(Chart<'a, DB>, f64, f64), DrawingAreaErrorKind<DB::ErrorType>> {
    let top = max.max(1) as f64 * 1.12;
    let (unit, unit_bytes) = unit_for(top as u64);
    let unit_bytes = unit_bytes as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(view.px(10.0))
        .margin_right(view.px(18.0))
        .x_label_area_size(view.px(34.0))
        .y_label_area_size(view.px(74.0))
        .build_cartesian_2d(0..steps.max(1), 0.0..top / unit_bytes)?;
    let y_label = |v: &f64| tick(*v, unit);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID.stroke_width(view.px(1.0)))
        .axis_style(INK.mix(0.6).stroke_width(view.px(1.0)))
        .label_style(view.font(12.0))
        .axis_desc_style(view.font(12.0))
        .x_desc("step")
        .y_label_formatter(&y_label)
        .x_labels(12)
        .y_labels(6)
        .draw()?;
    Ok((chart, unit_bytes, top))
}

/// The frame of `chart`, whose axis reaches `top` bytes.
fn frame<DB: DrawingBackend>(chart: &Chart<DB>, unit_bytes: f64, top: f64, view: &View) -> Frame {
    let x = chart.x_range();
    Frame::new(
        chart.backend_coord(&(x.start, top / unit_bytes)),
        chart.backend_coord(&(x.end, 0.0)),
        (f64::from(x.start), f64::from(x.end)),
        (0.0, top),
        view,
    )
}

/// A horizontal line at `bytes` across the plot, labelled `name` and the size,
/// at the right end when `right` else at the left.
fn level_line<DB: DrawingBackend>(
    chart: &Chart<DB>,
    bytes: u64,
    unit_bytes: f64,
    (name, colour, right, dashed): (&str, RGBColor, bool, bool),
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let x = chart.x_range();
    let y = bytes as f64 / unit_bytes;
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
    let text = format!("{name} {}", crate::formats::format_size(bytes));
    let font = view.font(12.0).color(&colour);
    let (tw, th) = plot.estimate_text_size(&text, &font)?;
    let pad = view.px(6.0) as i32;
    let tx = if right {
        width as i32 - tw as i32 - pad
    } else {
        pad
    };
    label(&plot, &text, (tx, line_y - base_y - th as i32 - pad), &font)
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
        crate::formats::format_size(plan.peak_bytes),
        crate::formats::format_size(plan.lower_bound)
    );
    let top = top.titled(&title, view.font(16.0))?;
    time_address(&top, plan, &view)?;
    let bottom = bottom.titled("live bytes per step", view.font(14.0))?;
    live_bytes(&bottom, profile, plan.lower_bound, plan.steps, &view)?;
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
