//! The page's side of an NPU case: the solution the worker reported, read back from
//! its JSON and drawn (a time-by-address chart per level, the spill timeline, the
//! per-pipe Gantt chart). Level charts paint their boxes into a kept [`Raster`].

use super::{canvas_area, js_error, to_js, view, with_raster};
use crate::Thrown;
use memplan::npu::case::Pipe;
use memplan::npu::export::{LevelView, NodeView, ResidencyView, SpillView, View as NpuView};
use memplan::npu::problem::Problem;
use memplan::npu::solve::Method;
use memplan_render::{self as render, Boxes, Raster};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

/// The parts of a solve report (see `NpuSession::solve`) that drawing needs.
#[derive(Deserialize)]
struct Report {
    view: ViewText,
    node_bufs: Vec<Vec<u64>>,
}

/// [`NpuView`] as JSON carries it: names as owned text.
#[derive(Deserialize)]
struct ViewText {
    case: String,
    problem: u8,
    method: String,
    recipe: String,
    p1_peak: u64,
    spills: usize,
    extra_movement: u64,
    makespan: Option<u64>,
    steps: usize,
    levels: Vec<LevelText>,
    nodes: Vec<NodeText>,
}

#[derive(Deserialize)]
struct LevelText {
    name: String,
    capacity: u64,
    residencies: Vec<ResidencyText>,
    spills: Vec<SpillText>,
}

#[derive(Deserialize)]
struct ResidencyText {
    buffer: u64,
    offset: u64,
    size: u64,
    start: u32,
    end: u32,
}

#[derive(Deserialize)]
struct SpillText {
    buffer: u64,
    bytes: u64,
    out_step: u32,
    in_step: u32,
    new_offset: u64,
}

#[derive(Deserialize)]
struct NodeText {
    id: u32,
    op: String,
    pipe: Option<String>,
    start: Option<u64>,
    end: Option<u64>,
}

/// A solution on show, with the nodes each schedule position touches.
#[wasm_bindgen]
pub struct NpuDrawing {
    view: NpuView,
    node_bufs: Vec<Vec<u64>>,
    raster: Raster,
}

#[wasm_bindgen]
impl NpuDrawing {
    /// Reads the solve report in JSON text `json`.
    #[wasm_bindgen(constructor)]
    pub fn new(json: &str) -> Result<NpuDrawing, Thrown> {
        let report: Report = serde_json::from_str(json).map_err(js_error)?;
        Ok(NpuDrawing {
            view: npu_view(report.view)?,
            node_bufs: report.node_bufs,
            raster: Raster::new(),
        })
    }

    /// Draws level `level`'s time-by-address chart on `canvas`, outlining buffer
    /// `highlight`, zoomed to `window`; returns its frame.
    #[wasm_bindgen(js_name = drawLevel)]
    pub fn draw_level(
        &mut self,
        canvas: HtmlCanvasElement,
        scale: f64,
        level: usize,
        highlight: Option<f64>,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let steps = self.view.steps;
        let level = self
            .view
            .levels
            .get(level)
            .ok_or_else(|| Thrown::new(&format!("no level {level}")))?;
        let view = view(scale, highlight.map(|h| h as u64), window)?;
        let frame = with_raster(canvas, &mut self.raster, |root, raster, put| {
            render::level_chart_with(root, level, steps, &view, Boxes::Raster(raster, put))
        })?;
        to_js(&frame)
    }

    /// Draws the spill timeline on `canvas`; returns its frame.
    #[wasm_bindgen(js_name = drawSpills)]
    pub fn draw_spills(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<f64>,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let view = view(scale, highlight.map(|h| h as u64), window)?;
        let root = canvas_area(canvas)?;
        let frame = render::spill_timeline(&root, &self.view.levels, self.view.steps, &view)
            .map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Draws the per-pipe Gantt chart on `canvas`, the nodes that touch buffer
    /// `highlight` outlined; returns its frame.
    #[wasm_bindgen(js_name = drawGantt)]
    pub fn draw_gantt(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<f64>,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let view = view(scale, None, window)?;
        let marked: Vec<bool> = match highlight {
            Some(h) => self
                .node_bufs
                .iter()
                .map(|bufs| bufs.contains(&(h as u64)))
                .collect(),
            None => Vec::new(),
        };
        let root = canvas_area(canvas)?;
        let frame = render::gantt(&root, &self.view.nodes, &marked, &view).map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Every chart of the solution as one SVG document.
    pub fn svg(&self) -> Result<String, Thrown> {
        render::npu_svg(&self.view, 1100).map_err(|e| Thrown::new(&e))
    }

    /// The solution's view (levels, residencies, spills, timed nodes) as JSON text.
    pub fn json(&self) -> Result<String, Thrown> {
        serde_json::to_string_pretty(&self.view).map_err(js_error)
    }
}

/// The view `text` describes; fails on a method or pipe the core does not know.
fn npu_view(text: ViewText) -> Result<NpuView, Thrown> {
    let method = Method::from_name(&text.method).map_err(js_error)?.name();
    let nodes = text
        .nodes
        .into_iter()
        .map(|n| {
            let pipe = match n.pipe {
                Some(name) => Some(
                    Pipe::from_name(&name)
                        .ok_or_else(|| Thrown::new(&format!("unknown pipe `{name}`")))?
                        .name(),
                ),
                None => None,
            };
            Ok(NodeView {
                id: n.id,
                op: n.op,
                pipe,
                start: n.start,
                end: n.end,
            })
        })
        .collect::<Result<_, Thrown>>()?;
    Ok(NpuView {
        case: text.case,
        problem: Problem::from_number(text.problem).map_err(js_error)?,
        method,
        recipe: text.recipe,
        p1_peak: text.p1_peak,
        spills: text.spills,
        extra_movement: text.extra_movement,
        makespan: text.makespan,
        steps: text.steps,
        levels: text.levels.into_iter().map(level_view).collect(),
        nodes,
    })
}

fn level_view(l: LevelText) -> LevelView {
    LevelView {
        name: l.name,
        capacity: l.capacity,
        residencies: l
            .residencies
            .into_iter()
            .map(|r| ResidencyView {
                buffer: r.buffer,
                offset: r.offset,
                size: r.size,
                start: r.start,
                end: r.end,
            })
            .collect(),
        spills: l
            .spills
            .into_iter()
            .map(|s| SpillView {
                buffer: s.buffer,
                bytes: s.bytes,
                out_step: s.out_step,
                in_step: s.in_step,
                new_offset: s.new_offset,
            })
            .collect(),
    }
}
