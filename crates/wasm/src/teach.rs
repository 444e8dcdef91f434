//! The teaching view's side of the page: a [`LessonDrawing`] keeps a lesson (made
//! in the worker by `Session::lesson`) and its plan and draws them at any moment
//! (a stage and a position).

use super::{canvas_area, view, with_raster};
use crate::draw::Drawing;
use crate::errors::{js_error, to_js};
use crate::Thrown;
use memplan::teach::{Lesson, Moment, Stage};
use memplan::PlanReport;
use memplan_render::{self as render, Boxes, Raster};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

/// A moment named by JS: stage `live`, `colour` or `pack`, and a position.
fn moment(stage: &str, index: u32) -> Result<Moment, Thrown> {
    let stage = match stage {
        "live" => Stage::Live,
        "colour" => Stage::Colour,
        "pack" => Stage::Pack,
        other => {
            return Err(Thrown::new(&format!(
                "no stage `{other}` (expected live, colour or pack)"
            )))
        }
    };
    Ok(Moment {
        stage,
        index: index as usize,
    })
}

/// A lesson and the plan it walks, drawn on the page's canvases.
#[wasm_bindgen]
pub struct LessonDrawing {
    lesson: Lesson,
    report: PlanReport,
    raster: Raster,
}

#[wasm_bindgen]
impl LessonDrawing {
    /// Keeps `lesson` (JSON text from the worker) and the plan it walks, the one
    /// `drawing` shows in `slot`.
    #[wasm_bindgen(constructor)]
    pub fn new(lesson: &str, drawing: &Drawing, slot: u8) -> Result<LessonDrawing, Thrown> {
        Ok(LessonDrawing {
            // as bytes: every JSON text the wasm reads goes through one reader (size)
            lesson: serde_json::from_slice(lesson.as_bytes()).map_err(js_error)?,
            report: drawing.report(slot)?.clone(),
            raster: Raster::new(),
        })
    }

    /// The plan walked, as an object (its tensors name the lesson's ids).
    pub fn plan(&self) -> Result<JsValue, Thrown> {
        to_js(&self.report.plan)
    }

    /// What the charts emphasise at the moment (`stage`, `index`), as an object.
    pub fn marks(&self, stage: &str, index: u32) -> Result<JsValue, Thrown> {
        to_js(&moment(stage, index)?.marks(&self.lesson, &self.report.plan))
    }

    /// Draws the time-by-address chart at the moment on `canvas` (device pixels,
    /// `scale` per CSS pixel), zoomed to `window`; returns the plot's frame.
    #[wasm_bindgen(js_name = drawTimeAddress)]
    pub fn draw_time_address(
        &mut self,
        canvas: HtmlCanvasElement,
        scale: f64,
        stage: &str,
        index: u32,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let at = moment(stage, index)?;
        let view = view(scale, None, window)?;
        let (lesson, plan) = (&self.lesson, &self.report.plan);
        let frame = with_raster(canvas, &mut self.raster, false, |root, raster, put| {
            render::lesson_time_address(root, lesson, plan, at, &view, Boxes::Raster(raster, put))
        })?;
        to_js(&frame)
    }

    /// Draws the live-bytes curve at the moment on `canvas`; returns its frame.
    #[wasm_bindgen(js_name = drawLiveBytes)]
    pub fn draw_live_bytes(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        stage: &str,
        index: u32,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let at = moment(stage, index)?;
        let view = view(scale, None, window)?;
        let root = canvas_area(canvas)?;
        let r = &self.report;
        let frame = render::lesson_live_bytes(&root, &self.lesson, &r.plan, &r.profile, at, &view)
            .map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Draws the interference graph at the moment on `canvas`; returns where its
    /// nodes landed (`[{tensor, x, y, r}]` in CSS pixels).
    #[wasm_bindgen(js_name = drawGraph)]
    pub fn draw_graph(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        stage: &str,
        index: u32,
    ) -> Result<JsValue, Thrown> {
        let at = moment(stage, index)?;
        let view = view(scale, None, JsValue::UNDEFINED)?;
        let marks = at.marks(&self.lesson, &self.report.plan);
        let root = canvas_area(canvas)?;
        let spots =
            render::interference_graph(&root, &self.lesson, &self.report.plan, &marks, &view)
                .map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&spots)
    }
}
