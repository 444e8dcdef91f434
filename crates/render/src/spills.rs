//! The spill timeline: a lane per memory level, one bar per spill from the step the
//! buffer leaves the level to the step it comes back, in the buffer's colour, so it
//! links to the buffer's rectangles in the level's chart.

use super::style::{buffer_colour, SPILL};
use super::{
    axes, clip, frame, pixel_size, row_label, Extent, Frame, View, YAxis, BOUND, GRID, INK,
};
use memplan_npu::export::LevelView;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

/// Where one spill sits in the timeline: `levels[level].spills[spill]` on row `row`
/// (row 0 at the top).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpillRow {
    pub level: usize,
    pub spill: usize,
    pub row: u32,
}

/// A level's lane: rows `first..first + rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Lane {
    pub level: usize,
    pub first: u32,
    pub rows: u32,
}

/// The rows of the timeline: every spill's row, every lane, and how many rows in all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpillLayout {
    pub rows: u32,
    pub lanes: Vec<Lane>,
    pub spills: Vec<SpillRow>,
}

/// Lays out the spills of `levels`: a lane per level that spills, each spill on the
/// first row of its lane that is free from its out step to its in step.
pub fn spill_rows(levels: &[LevelView]) -> SpillLayout {
    let mut layout = SpillLayout {
        rows: 0,
        lanes: Vec::new(),
        spills: Vec::new(),
    };
    for (level, l) in levels.iter().enumerate() {
        let mut order: Vec<usize> = (0..l.spills.len()).collect();
        memplan::sort::by_key(&mut order, |&k| (l.spills[k].out_step, l.spills[k].in_step));
        let mut free_from: Vec<u32> = Vec::new();
        for k in order {
            let s = &l.spills[k];
            let row = match free_from.iter().position(|&f| f <= s.out_step) {
                Some(row) => row,
                None => {
                    free_from.push(0);
                    free_from.len() - 1
                }
            };
            free_from[row] = s.in_step + 1;
            layout.spills.push(SpillRow {
                level,
                spill: k,
                row: layout.rows + row as u32,
            });
        }
        if !free_from.is_empty() {
            let rows = free_from.len() as u32;
            layout.lanes.push(Lane {
                level,
                first: layout.rows,
                rows,
            });
            layout.rows += rows;
        }
    }
    layout
}

/// Draws the spills of `levels` over `steps` schedule positions; the highlighted
/// buffer's bars in full colour and outlined. Zooms across only.
pub fn spill_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    levels: &[LevelView],
    steps: usize,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let layout = spill_rows(levels);
    let rows = f64::from(layout.rows.max(1));
    let extent = Extent {
        x: (0.0, steps.max(1) as f64),
        x_desc: "step",
        y_top: rows,
        y: YAxis::Rows,
    };
    let (chart, unit) = axes(area, extent, view)?;
    let plot = chart.plotting_area();
    let fade = if view.highlight.is_some() { 0.35 } else { 0.9 };
    let x = chart.x_range();
    for lane in &layout.lanes {
        let top = rows - f64::from(lane.first);
        let line = [(x.start, top), (x.end, top)];
        plot.draw(&PathElement::new(
            line.to_vec(),
            GRID.stroke_width(view.px(1.0)),
        ))?;
        let l = &levels[lane.level];
        let centre = top - f64::from(lane.rows) / 2.0;
        row_label(area, &chart, centre, &l.name, view)?;
    }
    let mut marked = Vec::new();
    for r in &layout.spills {
        let s = &levels[r.level].spills[r.spill];
        let y = rows - f64::from(r.row);
        let (left, right) = away(s.out_step, s.in_step);
        let bar = [(left, y - 0.82), (right, y - 0.18)];
        let Some(c) = clip(&chart, bar) else { continue };
        let alpha = if view.highlight == Some(s.buffer) {
            1.0
        } else {
            fade
        };
        plot.draw(&Rectangle::new(
            c,
            buffer_colour(s.buffer).mix(alpha).filled(),
        ))?;
        for (edge, colour) in [(bar[0].0, SPILL), (bar[1].0, BOUND)] {
            if edge >= x.start && edge <= x.end {
                let tick = vec![(edge, y - 0.95), (edge, y - 0.05)];
                plot.draw(&PathElement::new(tick, colour.stroke_width(view.px(2.0))))?;
            }
        }
        bytes_inside(&chart, c, s.buffer, s.bytes, view)?;
        if view.highlight == Some(s.buffer) {
            marked.push(c);
        }
    }
    for c in marked {
        plot.draw(&Rectangle::new(c, INK.stroke_width(view.px(2.5))))?;
    }
    if layout.spills.is_empty() {
        let at = view.px(12.0) as i32;
        let text = "no spills: every buffer stays where it was placed";
        plot.strip_coord_spec()
            .draw(&Text::new(text, (at, at), view.font(13.0)))?;
    }
    Ok(frame(&chart, unit, view))
}

/// The steps a buffer is away from its level: after the stay that ends at `out_step`
/// up to the one that starts at `in_step` (a step wide when they touch).
pub fn away(out_step: u32, in_step: u32) -> (f64, f64) {
    let (left, right) = (f64::from(out_step) + 1.0, f64::from(in_step));
    if right > left {
        (left, right)
    } else {
        (left - 0.5, left + 0.5)
    }
}

/// Writes `b<id> · <bytes>` inside a bar when it fits.
fn bytes_inside<DB: DrawingBackend>(
    chart: &super::Chart<DB>,
    c: [(f64, f64); 2],
    buffer: u64,
    bytes: u64,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = pixel_size(chart, c);
    let font = view.font(10.5).color(&WHITE);
    let text = format!("b{buffer} · {bytes}");
    let plot = chart.plotting_area().strip_coord_spec();
    let (tw, th) = plot.estimate_text_size(&text, &font)?;
    let pad = view.px(5.0) as i32;
    if tw as i32 + 2 * pad > w || (th as i32) > h {
        return Ok(());
    }
    let (x0, _) = chart.backend_coord(&c[0]);
    let (_, y1) = chart.backend_coord(&c[1]);
    let (bx, by) = plot.get_base_pixel();
    let pos = (x0 - bx + pad, y1 - by + (h - th as i32) / 2);
    plot.draw(&Text::new(text, pos, font))
}
