//! The page's side of a graph: the plan reports the worker made, drawn on canvases.
//! The time-by-address chart paints its boxes into a [`Raster`] kept between redraws.

use super::{canvas_area, slot_index, view, with_raster, SLOTS};
use crate::errors::{js_error, to_js};
use crate::Thrown;
use memplan::plan::Plan;
use memplan::PlanReport;
use memplan_formats::packed;
use memplan_render::{self as render, Boxes, Paint, Raster, StepIndex};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

/// A plan report the worker made (see `Session::planPacked`), with the tensors
/// of its packed form put back.
struct Shown {
    report: PlanReport,
    /// The packed head it came with: this report without its tensors, with
    /// `placed` counting them and the session's handle.
    head: String,
    /// Its profile's extremes, for the live-bytes chart of any window.
    extremes: render::Extremes,
}

impl Drawing {
    /// The index of `slot`, its step index made if it is not yet (the first
    /// drawing or hover after `setPacked` makes it).
    fn indexed(&mut self, slot: Option<u8>) -> Result<usize, Thrown> {
        let at = slot_index(slot)?;
        if self.indexes[at].is_none() {
            let index = self.step_index(&report(&self.reports, slot)?.plan);
            self.indexes[at] = Some(index);
        }
        Ok(at)
    }

    /// The step index of `plan` under the current colour keys; a tensor without a
    /// key keeps its pool's colour.
    fn step_index(&self, plan: &Plan) -> StepIndex {
        match &self.keys {
            Some(keys) => {
                StepIndex::coloured(plan, |t| keys.get(t.id as usize).copied().unwrap_or(t.pool))
            }
            None => StepIndex::new(plan),
        }
    }
}

/// Palette entry `k` as `#rrggbb`, for legends beside the charts.
#[wasm_bindgen(js_name = paletteColour)]
pub fn palette_colour(k: u32) -> String {
    render::palette_hex(k)
}

/// The plans on show: the main view's (slot 0), the comparison's (slot 1) and, for
/// a PyTorch snapshot, the allocator's replayed layout (slot 2).
#[wasm_bindgen]
pub struct Drawing {
    reports: [Option<Shown>; SLOTS],
    /// Each report's tensors by first step, for zoomed redraws.
    indexes: [Option<StepIndex>; SLOTS],
    /// Colour key per tensor id instead of the pool (e.g. the producer's op type).
    keys: Option<Vec<u32>>,
    /// Each slot's time-by-address pixels, kept so that a pan shifts them.
    rasters: [Raster; SLOTS],
    /// How the time-by-address boxes are painted: fast, or every tensor visited (the
    /// reference the page's tests hold the fast painter to).
    paint: Paint,
    /// The least top of the live-bytes chart's bytes axis (see
    /// [`Drawing::set_live_ceiling`]).
    live_ceiling: u64,
    /// Each slot's least top of its address axis (see [`Drawing::set_top`]).
    tops: [u64; SLOTS],
}

impl Default for Drawing {
    fn default() -> Self {
        Drawing::new()
    }
}

#[wasm_bindgen]
impl Drawing {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Drawing {
        Drawing {
            reports: [None, None, None],
            indexes: [None, None, None],
            keys: None,
            rasters: [Raster::new(), Raster::new(), Raster::new()],
            paint: Paint::Fast,
            live_ceiling: 0,
            tops: [0; SLOTS],
        }
    }

    /// Keeps the report `packed` (as `Session.planPacked` makes it) for drawing in
    /// `slot` (0, 1 or 2). Its step index is made by its first drawing or hover
    /// (see `indexed`), so that a page can answer between the two on a report of
    /// a million tensors.
    #[wasm_bindgen(js_name = setPacked)]
    pub fn set_packed(&mut self, slot: u8, packed: &[u8]) -> Result<(), Thrown> {
        let slot = slot_index(Some(slot))?;
        let (head, profile, tensors) = packed::unpack(packed).map_err(|e| Thrown::new(&e))?;
        // as bytes: every JSON text the wasm reads goes through one reader (size)
        let mut report: PlanReport = serde_json::from_slice(head.as_bytes()).map_err(js_error)?;
        report.plan.tensors = tensors;
        report.profile = profile;
        self.indexes[slot] = None;
        self.reports[slot] = Some(Shown {
            extremes: render::Extremes::of(&report.profile),
            report,
            head: head.to_string(),
        });
        Ok(())
    }

    /// Makes the step index of the plan in `slot` now (else its first drawing or
    /// hover makes it), so that a page can answer between the two on a large plan.
    pub fn index(&mut self, slot: u8) -> Result<(), Thrown> {
        self.indexed(Some(slot)).map(|_| ())
    }

    /// The report in `slot` without its tensors and its profile, with `placed`
    /// counting the tensors, as JSON text: what the page's own code reads (it
    /// reads the profile from the packed bytes).
    pub fn summary(&self, slot: u8) -> Result<String, Thrown> {
        Ok(shown(&self.reports, Some(slot))?.head.clone())
    }

    /// The tensor of the plan in `slot` whose box covers `step` and `bytes` of the
    /// time-by-address chart (a placement: id, name, size, start, end, offset,
    /// pool), or null.
    #[wasm_bindgen(js_name = tensorAt)]
    pub fn tensor_at(&mut self, slot: u8, step: f64, bytes: f64) -> Result<JsValue, Thrown> {
        let at = self.indexed(Some(slot))?;
        let plan = &report(&self.reports, Some(slot))?.plan;
        let found = self.indexes[at]
            .as_ref()
            .and_then(|index| index.at(step, bytes));
        found.map_or(Ok(JsValue::NULL), |i| to_js(&plan.tensors[i]))
    }

    /// The placement of tensor `id` in the plan in `slot`, or null when the plan
    /// does not place it (it lives outside the arena).
    pub fn tensor(&self, slot: u8, id: u32) -> Result<JsValue, Thrown> {
        let plan = &report(&self.reports, Some(slot))?.plan;
        plan.tensors
            .iter()
            .find(|t| t.id == id)
            .map_or(Ok(JsValue::NULL), to_js)
    }

    /// Colours the time-by-address boxes by `keys` (palette entry per tensor id,
    /// such as the producer's op type), or by pool again when `keys` is undefined.
    #[wasm_bindgen(js_name = setColourKeys)]
    pub fn set_colour_keys(&mut self, keys: Option<Vec<u32>>) {
        self.keys = keys;
        for slot in 0..SLOTS {
            if let Some(shown) = &self.reports[slot] {
                self.indexes[slot] = Some(self.step_index(&shown.report.plan));
            }
        }
    }

    /// Paints the time-by-address boxes by visiting every tensor when `full`, as a
    /// reference for the fast painter (the default), which must draw the same pixels.
    #[wasm_bindgen(js_name = setFullPaint)]
    pub fn set_full_paint(&mut self, full: bool) {
        self.paint = if full { Paint::Full } else { Paint::Fast };
    }

    /// Whether the last time-by-address chart drawn of the plan in `slot` shifted
    /// the pixels of an earlier one (a pan, or a zoom back to a scale drawn
    /// before) and painted only what came into view.
    #[wasm_bindgen(js_name = reusedPixels)]
    pub fn reused_pixels(&self, slot: u8) -> Result<bool, Thrown> {
        Ok(self.rasters[slot_index(Some(slot))?].reused())
    }

    /// Makes the live-bytes chart's bytes axis reach at least `bytes` (0: the
    /// profile's own top), so that the page can draw over it what goes higher (a
    /// PyTorch snapshot's reserved bytes).
    #[wasm_bindgen(js_name = setLiveCeiling)]
    pub fn set_live_ceiling(&mut self, bytes: f64) {
        self.live_ceiling = if bytes.is_finite() && bytes > 0.0 {
            bytes as u64
        } else {
            0
        };
    }

    /// Makes the time-by-address chart of `slot` reach at least `bytes` up its
    /// address axis (0: its plan's own peak), so that two layouts side by side
    /// share one scale.
    #[wasm_bindgen(js_name = setTop)]
    pub fn set_top(&mut self, slot: u8, bytes: f64) -> Result<(), Thrown> {
        let slot = slot_index(Some(slot))?;
        self.tops[slot] = if bytes.is_finite() && bytes > 0.0 {
            bytes as u64
        } else {
            0
        };
        // the kept pixels were painted at the old scale
        self.rasters[slot] = Raster::new();
        Ok(())
    }

    /// Forgets the plan in `slot`.
    pub fn clear(&mut self, slot: u8) -> Result<(), Thrown> {
        let slot = slot_index(Some(slot))?;
        self.reports[slot] = None;
        self.indexes[slot] = None;
        Ok(())
    }

    /// Draws the time-by-address chart of the plan in `slot` on `canvas` (sized in
    /// device pixels, `scale` of them per CSS pixel), outlining tensor `highlight`,
    /// zoomed to `window`. Returns the plotting area's frame in CSS pixels.
    #[wasm_bindgen(js_name = drawTimeAddress)]
    pub fn draw_time_address(
        &mut self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<u32>,
        window: JsValue,
        slot: Option<u8>,
    ) -> Result<JsValue, Thrown> {
        let at = self.indexed(slot)?;
        let plan = &report(&self.reports, slot)?.plan;
        let index = self.indexes[at].as_ref();
        let mut view = view(scale, highlight.map(u64::from), window)?;
        view.top = self.tops[at];
        let paint = self.paint;
        let frame = with_raster(canvas, &mut self.rasters[at], true, |root, raster, put| {
            let boxes = Boxes::Raster(raster, put);
            render::time_address_painted(root, plan, index, &view, boxes, paint)
        })?;
        to_js(&frame)
    }

    /// Draws the live-bytes curve of the main plan on `canvas`, shading the steps of
    /// tensor `highlight`; returns its frame like [`Drawing::draw_time_address`].
    #[wasm_bindgen(js_name = drawLiveBytes)]
    pub fn draw_live_bytes(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<u32>,
        window: JsValue,
    ) -> Result<JsValue, Thrown> {
        let shown = shown(&self.reports, Some(0))?;
        let (report, extremes) = (&shown.report, &shown.extremes);
        let plan = &report.plan;
        let view = view(scale, None, window)?;
        let span = highlight
            .and_then(|id| plan.tensors.iter().find(|t| t.id == id))
            .map(|t| (t.start, t.end));
        let root = canvas_area(canvas)?;
        let frame = render::live_bytes_under(
            &root,
            &report.profile,
            Some(extremes),
            plan.lower_bound,
            plan.steps,
            span,
            &view,
            self.live_ceiling,
        )
        .map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Both charts of the main plan as one SVG document, every box a real rectangle.
    pub fn svg(&self) -> Result<String, Thrown> {
        let report = report(&self.reports, Some(0))?;
        render::svg(&report.plan, &report.profile, 960, 720).map_err(|e| Thrown::new(&e))
    }

    /// The report in `slot` as pretty JSON text.
    pub fn json(&self, slot: Option<u8>) -> Result<String, Thrown> {
        serde_json::to_string_pretty(report(&self.reports, slot)?).map_err(js_error)
    }
}

fn shown(reports: &[Option<Shown>; SLOTS], slot: Option<u8>) -> Result<&Shown, Thrown> {
    reports[slot_index(slot)?]
        .as_ref()
        .ok_or_else(|| Thrown::new("no plan yet: set a report first"))
}

fn report(reports: &[Option<Shown>; SLOTS], slot: Option<u8>) -> Result<&PlanReport, Thrown> {
    Ok(&shown(reports, slot)?.report)
}

impl Drawing {
    /// The report in `slot`, for the Learn view.
    pub(crate) fn report(&self, slot: u8) -> Result<&PlanReport, Thrown> {
        report(&self.reports, Some(slot))
    }
}
