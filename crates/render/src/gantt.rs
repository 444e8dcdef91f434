//! The per-pipe Gantt chart of an NPU plan: a lane per pipe, one bar per node from
//! its start to its finish cycle, coloured by op, with a legend of ops on top.

use super::style::SPILL;
use super::{
    axes, clip, frame, legend, legend_layout, row_label, Extent, Frame, View, YAxis, GRID, INK,
    PALETTE,
};
use memplan_npu::case::Pipe;
use memplan_npu::export::NodeView;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The colour of each op name in `nodes`, in order of name; spills in red tones.
fn op_colours(nodes: &[NodeView]) -> Vec<(String, RGBColor)> {
    let mut ops: Vec<&str> = nodes
        .iter()
        .filter(|n| n.pipe.is_some())
        .map(|n| n.op.as_str())
        .collect();
    memplan::sort::by(&mut ops, Ord::cmp);
    ops.dedup();
    let mut next = 0;
    ops.into_iter()
        .map(|op| {
            let colour = match op {
                "SPILL_OUT" => SPILL,
                "SPILL_IN" => RGBColor(255, 157, 167),
                _ => {
                    // skip the palette's reds, kept for spills
                    let c = [0, 1, 2, 4, 5, 6, 8, 9][next % 8];
                    next += 1;
                    PALETTE[c]
                }
            };
            (op.to_string(), colour)
        })
        .collect()
}

/// Draws `nodes` (schedule positions with their pipe and cycles) on `area`; nodes
/// whose position is `true` in `marked` stand out. Zooms across only.
pub fn gantt<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    nodes: &[NodeView],
    marked: &[bool],
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let colours = op_colours(nodes);
    // the y labels take 64 px and the margin 10: the legend starts over the plot
    let left = view.px(74.0) as i32;
    let (at, height) = legend_layout(area, &colours, left, view)?;
    let (top, body) = area.split_vertically(height);
    let makespan = nodes.iter().filter_map(|n| n.end).max().unwrap_or(0);
    let rows = Pipe::ALL.len() as f64;
    let extent = Extent {
        x: (0.0, makespan.max(1) as f64),
        x_desc: "cycle",
        y_top: rows,
        y: YAxis::Rows,
    };
    let (chart, unit) = axes(&body, extent, view)?;
    legend(&top, &colours, &at, view)?;
    let plot = chart.plotting_area();
    let x = chart.x_range();
    for (k, pipe) in Pipe::ALL.iter().enumerate() {
        let y = rows - k as f64;
        row_label(&body, &chart, y - 0.5, pipe.name(), view)?;
        let line = vec![(x.start, y - 1.0), (x.end, y - 1.0)];
        plot.draw(&PathElement::new(line, GRID.stroke_width(view.px(1.0))))?;
    }
    let any = marked.iter().any(|&m| m);
    let fade = if any { 0.3 } else { 0.9 };
    let mut outlined = Vec::new();
    for (p, n) in nodes.iter().enumerate() {
        let (Some(pipe), Some(start), Some(end)) = (n.pipe, n.start, n.end) else {
            continue;
        };
        let Some(row) = Pipe::ALL.iter().position(|q| *q == pipe) else {
            continue;
        };
        let y = rows - row as f64;
        let bar = [(start as f64, y - 0.85), (end as f64, y - 0.15)];
        let Some(c) = clip(&chart, bar) else { continue };
        let colour = colours
            .iter()
            .find(|(op, _)| *op == n.op)
            .map_or(INK, |&(_, c)| c);
        let on = marked.get(p).copied().unwrap_or(false);
        let alpha = if on { 1.0 } else { fade };
        plot.draw(&Rectangle::new(c, colour.mix(alpha).filled()))?;
        if on {
            outlined.push(c);
        }
    }
    for c in outlined {
        plot.draw(&Rectangle::new(c, INK.stroke_width(view.px(2.0))))?;
    }
    if makespan == 0 {
        let at = view.px(12.0) as i32;
        let text = "no timing: problem 1 orders the nodes but does not time them";
        plot.strip_coord_spec()
            .draw(&Text::new(text, (at, at), view.font(13.0)))?;
    }
    Ok(frame(&chart, unit, view))
}
