//! A whole NPU solution as one SVG document: a chart per level that holds
//! buffers, the spill timeline and the per-pipe Gantt chart, under a title.

use super::{gantt, level_chart, spill_rows, spill_timeline, View};
use memplan_npu::export::{LevelView, View as NpuView};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The NPU solution `npu` as one SVG document `width` pixels wide: a chart per level
/// that holds buffers, the spill timeline and the per-pipe Gantt chart, under a title.
pub fn npu_svg(npu: &NpuView, width: u32) -> Result<String, String> {
    let levels: Vec<&LevelView> = npu
        .levels
        .iter()
        .filter(|l| !l.residencies.is_empty())
        .collect();
    let spill_height = 80 + 16 * spill_rows(&npu.levels).rows.min(40);
    let heights: Vec<u32> = levels
        .iter()
        .map(|_| 260)
        .chain([spill_height, 300])
        .collect();
    let title = 40;
    let height = title + heights.iter().sum::<u32>();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_npu(&root, npu, &levels, &heights).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn draw_npu<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    npu: &NpuView,
    levels: &[&LevelView],
    heights: &[u32],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let view = View::default();
    let makespan = npu.makespan.map_or("none".to_string(), |m| m.to_string());
    let title = format!(
        "{}: problem {}, {} ({} spills, extra movement {}, makespan {})",
        npu.case,
        npu.problem,
        npu.method.name(),
        npu.spills,
        npu.extra_movement,
        makespan
    );
    let body = root.titled(&title, view.font(16.0))?;
    let breaks: Vec<u32> = heights
        .iter()
        .scan(0, |at, h| {
            *at += h;
            Some(*at)
        })
        .collect();
    let parts = body.split_by_breakpoints([] as [u32; 0], &breaks[..breaks.len() - 1]);
    for (part, level) in parts.iter().zip(levels) {
        let caption = format!("{}: time by address", level.name);
        let part = part.titled(&caption, view.font(14.0))?;
        level_chart(&part, level, npu.steps, &view)?;
    }
    let spills =
        parts[levels.len()].titled("spills: out of and back into each level", view.font(14.0))?;
    spill_timeline(&spills, &npu.levels, npu.steps, &view)?;
    let pipes = parts[levels.len() + 1].titled("pipes: cycles of each node", view.font(14.0))?;
    gantt(&pipes, &npu.nodes, &[], &view)?;
    Ok(())
}
