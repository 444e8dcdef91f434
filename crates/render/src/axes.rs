//! Axes, byte units and ticks, the mesh of a chart, and how its boxes are painted
//! (shapes or a raster).

use super::style::{GRID, INK};
use super::{whole, Chart, Raster, View};
use memplan::units::unit_for;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// A tick label: `value` in `unit`, without trailing zeros.
pub(crate) fn tick(value: f64, unit: &str) -> String {
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
pub(crate) enum YAxis {
    /// Bytes, ticked in the unit that suits the range ("100 MiB").
    Bytes,
    /// Plain numbers (NPU sizes are in the case's own units).
    Units,
    /// Rows of a lane chart, labelled by the chart itself; never zoomed.
    Rows,
}

/// What a chart spans before the window: `x` across, `0..y_top` up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extent<'s> {
    pub(crate) x: (f64, f64),
    pub(crate) x_desc: &'s str,
    pub(crate) y_top: f64,
    pub(crate) y: YAxis,
}

/// A chart on `area` over the windowed part of `extent`, its mesh drawn. Returns the
/// chart and the size of its y unit in data units (bytes per tick unit).
pub(crate) fn axes<'a, DB: DrawingBackend>(
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
pub(crate) fn chart_on<'a, DB: DrawingBackend>(
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
    chart_over(area, extent, (x0, x1), (y0, y1), view)
}

/// A chart on `area` over steps `x0..x1` by data units `y0..y1` of `extent`, nothing
/// drawn yet, and the size of its y unit in data units.
pub(crate) fn chart_over<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    extent: Extent,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    view: &View,
) -> Result<(Chart<'a, DB>, f64), DrawingAreaErrorKind<DB::ErrorType>> {
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
pub(crate) fn mesh<DB: DrawingBackend>(
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
/// by `put` before the axes, lines and text go over it. The time-by-address chart
/// with a step index also takes a raster that holds its own last paint, which a pan
/// shifts rather than paints again.
pub enum Boxes<'r> {
    Shapes,
    Raster(&'r mut Raster, &'r mut dyn FnMut(&Raster)),
}

/// Draws the mesh of `chart` and its boxes: `shapes` draws them with plotters over
/// the mesh; with a raster, `paint` fills it over the grid lines, the raster is put,
/// and the axes and labels are drawn over it.
pub(crate) fn mesh_and_boxes<DB: DrawingBackend>(
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
pub(crate) fn raster_grid<DB: DrawingBackend>(chart: &Chart<DB>, raster: &mut Raster, view: &View) {
    let (x, y) = (chart.x_range(), chart.y_range());
    let width = view.px(1.0) as i32;
    for v in RangedCoordf64::from(y).key_points(6usize) {
        let (left, at) = chart.backend_coord(&(x.start, v));
        let (right, _) = chart.backend_coord(&(x.end, v));
        let top = at - 1 - (width - 1) / 2;
        raster.fill((left, top), (right, top + width), GRID);
    }
}
