//! The page's side of an NPU case: the solution the worker reported, read back from
//! its JSON into the core's own view type and drawn (a time-by-address chart per
//! level, the spill timeline, the per-pipe Gantt chart). Level charts paint their
//! boxes into a kept [`Raster`].

use super::{canvas_area, view, with_raster};
use crate::errors::{js_error, to_js};
use crate::Thrown;
use memplan_npu::export::View as NpuView;
use memplan_render::{self as render, Boxes, Raster};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

/// The parts of a solve report (see `NpuSession::solve`) that drawing needs.
#[derive(Deserialize)]
struct Report {
    view: NpuView,
    node_bufs: Vec<Vec<u64>>,
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
        // as bytes: every JSON text the wasm reads goes through one reader (size)
        let report: Report = serde_json::from_slice(json.as_bytes()).map_err(js_error)?;
        Ok(NpuDrawing {
            view: report.view,
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
        let frame = with_raster(canvas, &mut self.raster, false, |root, raster, put| {
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
