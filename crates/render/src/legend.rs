//! Labels on pale boxes, row labels, and the legend of colours and names.

use super::{Chart, View};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws `text` at `pos` on a pale box so it stays legible over the chart.
pub(crate) fn label<DB: DrawingBackend>(
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
pub(crate) fn row_label<DB: DrawingBackend>(
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
pub(crate) type LegendLayout = (Vec<(i32, i32)>, u32);

/// The swatches of a legend laid out in lines as wide as `area`, from `left`.
pub(crate) fn legend_layout<DB: DrawingBackend>(
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
pub(crate) fn legend<DB: DrawingBackend>(
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
