//! The browser's entry: a thin `#[wasm_bindgen]` layer over the core.
//!
//! One [`Session`] per loaded graph keeps the graph and its analysis; JS asks it for
//! plans and has it draw the charts on canvases. An NPU case gets an
//! [`npu::NpuSession`] instead. Values cross as plain JS objects (sizes as numbers);
//! every error crosses as a JS `Error` with the core's message.

mod npu;

use crate::formats::{self, format_size};
use crate::render::{self, View, Window};
use crate::{analyse, check, liveness, Analysis, Graph, Options, PackOptions, Plan, Strategy};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// True when `bytes` hold an NPU scheduling case, which [`npu::NpuSession`] reads.
#[wasm_bindgen(js_name = isNpuCase)]
pub fn is_npu_case(bytes: &[u8]) -> bool {
    formats::is_npu_case(bytes)
}

pub(crate) fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_error)
}

/// The zoom window JS passes (`{x0, x1, y0, y1}` fractions), or all of the chart.
fn window(value: JsValue) -> Result<Window, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Window::FULL);
    }
    let window: Window = serde_wasm_bindgen::from_value(value).map_err(js_error)?;
    Ok(window.clamped())
}

/// How to draw: `scale` device pixels per CSS pixel, `highlight`, `window`.
pub(crate) fn view(scale: f64, highlight: Option<u64>, win: JsValue) -> Result<View, JsError> {
    Ok(View {
        scale,
        highlight,
        window: window(win)?,
    })
}

/// A loaded graph, its analysis and the last plan made from it.
#[wasm_bindgen]
pub struct Session {
    graph: Graph,
    analysis: Analysis,
    options: Options,
    profile: Vec<(u32, u64)>,
    /// The last plan made for the main view (0) and for the comparison (1).
    plans: [Option<Plan>; 2],
}

/// What the page shows about a graph besides its plan: op names for hover details.
#[derive(Serialize)]
struct GraphInfo<'a> {
    name: &'a str,
    tensors: usize,
    ops: Vec<OpInfo<'a>>,
    /// Per tensor id: the producing op's index, if any.
    producer: Vec<Option<u32>>,
    /// Per tensor id: the consuming ops' indices.
    consumers: Vec<Vec<u32>>,
}

#[derive(Serialize)]
struct OpInfo<'a> {
    name: &'a str,
    kind: &'a str,
}

/// A plan with its check and the live-bytes profile it was planned against.
#[derive(Serialize)]
struct PlanReport<'a> {
    plan: &'a Plan,
    valid: bool,
    violations: Vec<String>,
    profile: &'a [(u32, u64)],
    ratio: f64,
}

#[derive(Serialize)]
struct StrategyInfo {
    name: &'static str,
    about: &'static str,
}

#[wasm_bindgen]
impl Session {
    /// Reads a graph from the bytes of file `name` (any format the core reads)
    /// and analyses it; fails on a malformed file or a cyclic graph.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], name: &str) -> Result<Session, JsError> {
        let stem = std::path::Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("graph");
        let graph = formats::read(bytes, None, stem).map_err(js_error)?;
        let options = Options::default();
        let analysis = analyse(&graph, &options).map_err(js_error)?;
        let profile = liveness::profile(&analysis.liveness.buffers);
        Ok(Session {
            graph,
            analysis,
            options,
            profile,
            plans: [None, None],
        })
    }

    /// The graph's name, size, ops and each tensor's producer and consumers.
    pub fn info(&self) -> Result<JsValue, JsError> {
        let g = &self.graph;
        let mut consumers = vec![Vec::new(); g.tensors.len()];
        for (k, op) in g.ops.iter().enumerate() {
            for t in &op.inputs {
                consumers[t.index()].push(k as u32);
            }
        }
        to_js(&GraphInfo {
            name: &g.name,
            tensors: g.tensors.len(),
            ops: g
                .ops
                .iter()
                .map(|op| OpInfo {
                    name: &op.name,
                    kind: &op.kind,
                })
                .collect(),
            producer: g.producers().iter().map(|p| p.map(|o| o.0)).collect(),
            consumers,
        })
    }

    /// Plans with the strategy named `strategy` and offsets aligned to `align`
    /// (a size such as `64` or `4KiB`; empty for none), checks the plan and keeps it
    /// for drawing in `slot` (0, the default, for the main view; 1 for the comparison).
    pub fn plan(
        &mut self,
        strategy: &str,
        align: &str,
        slot: Option<u8>,
    ) -> Result<JsValue, JsError> {
        let slot = slot_index(slot)?;
        let strategy = Strategy::from_name(strategy).map_err(js_error)?;
        let align = match align.trim() {
            "" => 1,
            text => formats::parse_size(text).map_err(js_error)?,
        };
        let pack = PackOptions::new(align).map_err(js_error)?;
        if pack != self.options.pack {
            let options = Options {
                pack,
                ..self.options
            };
            self.analysis = analyse(&self.graph, &options).map_err(js_error)?;
            self.options = options;
        }
        let plan = self.analysis.plan(&self.graph, strategy);
        let violations = check::check(&self.graph, &plan);
        let report = to_js(&PlanReport {
            plan: &plan,
            valid: violations.is_empty(),
            violations: violations.iter().map(|v| v.to_string()).collect(),
            profile: &self.profile,
            ratio: plan.ratio(),
        });
        self.plans[slot] = Some(plan);
        report
    }

    /// The plan in `slot` with its check, as pretty JSON text.
    pub fn json(&self, slot: Option<u8>) -> Result<String, JsError> {
        let plan = self.plan_in(slot)?;
        let violations = check::check(&self.graph, plan);
        let report = PlanReport {
            plan,
            valid: violations.is_empty(),
            violations: violations.iter().map(|v| v.to_string()).collect(),
            profile: &self.profile,
            ratio: plan.ratio(),
        };
        serde_json::to_string_pretty(&report).map_err(js_error)
    }

    /// Draws the time-by-address chart of the plan in `slot` on `canvas` (sized in
    /// device pixels, `scale` of them per CSS pixel), outlining tensor `highlight`,
    /// zoomed to `window`. Returns the plotting area's frame in CSS pixels.
    #[wasm_bindgen(js_name = drawTimeAddress)]
    pub fn draw_time_address(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<u32>,
        window: JsValue,
        slot: Option<u8>,
    ) -> Result<JsValue, JsError> {
        let plan = self.plan_in(slot)?;
        let view = view(scale, highlight.map(u64::from), window)?;
        let root = canvas_area(canvas)?;
        let frame = render::time_address(&root, plan, &view).map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Draws the live-bytes curve on `canvas`, shading the steps of tensor
    /// `highlight`; returns its frame like [`Session::draw_time_address`].
    #[wasm_bindgen(js_name = drawLiveBytes)]
    pub fn draw_live_bytes(
        &self,
        canvas: HtmlCanvasElement,
        scale: f64,
        highlight: Option<u32>,
        window: JsValue,
    ) -> Result<JsValue, JsError> {
        let plan = self.plan_in(Some(0))?;
        let view = view(scale, None, window)?;
        let span = highlight
            .and_then(|id| plan.tensors.iter().find(|t| t.id == id))
            .map(|t| (t.start, t.end));
        let root = canvas_area(canvas)?;
        let frame = render::live_bytes(
            &root,
            &self.profile,
            plan.lower_bound,
            plan.steps,
            span,
            &view,
        )
        .map_err(js_error)?;
        root.present().map_err(js_error)?;
        to_js(&frame)
    }

    /// Both charts of the main plan as one SVG document.
    pub fn svg(&self) -> Result<String, JsError> {
        render::svg(self.plan_in(Some(0))?, &self.profile, 960, 720).map_err(|e| JsError::new(&e))
    }

    fn plan_in(&self, slot: Option<u8>) -> Result<&Plan, JsError> {
        self.plans[slot_index(slot)?]
            .as_ref()
            .ok_or_else(|| JsError::new("no plan yet: call plan() first"))
    }
}

/// The plan slot JS names: 0 (the default) or 1.
fn slot_index(slot: Option<u8>) -> Result<usize, JsError> {
    match slot.unwrap_or(0) {
        s @ (0 | 1) => Ok(usize::from(s)),
        s => Err(JsError::new(&format!("no plan slot {s} (expected 0 or 1)"))),
    }
}

/// A white drawing area over the whole of `canvas`.
pub(crate) fn canvas_area(
    canvas: HtmlCanvasElement,
) -> Result<DrawingArea<CanvasBackend, plotters::coord::Shift>, JsError> {
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("the canvas has no 2d drawing context"))?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(js_error)?;
    Ok(root)
}

/// Every strategy's name and one-line description, in the core's order.
#[wasm_bindgen]
pub fn strategies() -> Result<JsValue, JsError> {
    let all: Vec<StrategyInfo> = Strategy::ALL
        .iter()
        .map(|s| StrategyInfo {
            name: s.name(),
            about: s.about(),
        })
        .collect();
    to_js(&all)
}

/// `bytes` for people, as the CLI prints it ("384 MiB").
#[wasm_bindgen(js_name = formatSize)]
pub fn format_size_js(bytes: f64) -> String {
    format_size(bytes.max(0.0) as u64)
}
