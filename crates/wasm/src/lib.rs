//! The browser's entry: a thin `#[wasm_bindgen]` layer over the core.
//!
//! Planning runs in a Web Worker: one [`Session`] per loaded graph keeps the graph and
//! its analysis and answers with plan reports as JSON text; an NPU case gets an
//! [`npu::NpuSession`] instead. The page's own instance only draws: a
//! [`draw::Drawing`] (or [`npu_draw::NpuDrawing`]) is made from those reports, since
//! plotters measures text through the page's DOM. Every error crosses as a JS `Error`
//! with the core's message.
//!
//! The page loads what it needs when it needs it (features, built by build.sh into
//! one module each): `page` draws (the page's instance), `worker` reads and plans
//! graphs in memplan's formats and CSV (the worker's first module), `models` adds the
//! ONNX and TFLite importers, `npu` the NPU scheduler; the last two are loaded by the
//! worker only for a model or an NPU case. The default, every feature, is what the
//! tests use.

#[cfg(feature = "page")]
mod canvas;
#[cfg(feature = "page")]
mod draw;
mod errors;
mod heap;
#[cfg(feature = "npu")]
mod npu;
#[cfg(feature = "page")]
mod npu_draw;
#[cfg(feature = "worker")]
mod session;
#[cfg(feature = "snapshot")]
mod snapshot;
#[cfg(feature = "page")]
mod teach;
#[cfg(all(
    test,
    feature = "page",
    feature = "models",
    feature = "npu",
    feature = "snapshot"
))]
mod tests;

#[cfg(feature = "page")]
pub(crate) use canvas::{canvas_area, view, with_raster};
pub use errors::Thrown;
#[cfg(feature = "worker")]
pub use session::Session;

use errors::to_js;
use memplan::Strategy;
use memplan_formats::format_size;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What reads `bytes`: `"npu"` for an NPU scheduling case (the `npu` module's
/// `NpuSession`), `"model"` for an ONNX or TFLite model (the `models` module's
/// `Session`), `"snapshot"` for a PyTorch memory snapshot (a pickle or gzip: the
/// `snapshot` module's `Session`; the first bytes are enough to tell), `"graph"`
/// for anything else (any module's `Session`, which may still find it unreadable).
#[cfg(feature = "worker")]
#[wasm_bindgen(js_name = readerOf)]
pub fn reader_of(bytes: &[u8]) -> String {
    if memplan_formats::is_npu_case(bytes) {
        "npu".into()
    } else if memplan_formats::is_model(bytes) {
        "model".into()
    } else if memplan_formats::is_snapshot(bytes) {
        "snapshot".into()
    } else {
        "graph".into()
    }
}

#[cfg(any(feature = "worker", feature = "npu"))]
#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: milliseconds on the page's (or worker's) clock.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub(crate) fn now_ms() -> f64;
}

#[derive(Serialize)]
struct StrategyInfo {
    name: &'static str,
    about: &'static str,
}

/// The plan slot JS names: 0 (the default), 1 or 2.
#[cfg(feature = "page")]
fn slot_index(slot: Option<u8>) -> Result<usize, Thrown> {
    match slot.unwrap_or(0) {
        s if usize::from(s) < SLOTS => Ok(usize::from(s)),
        s => Err(Thrown::new(&format!(
            "no plan slot {s} (expected 0, 1 or 2)"
        ))),
    }
}

/// The plans a [`Drawing`] holds: the main view's, the comparison's, a replay's.
#[cfg(feature = "page")]
const SLOTS: usize = 3;

/// Every strategy's name and one-line description, in the core's order.
#[wasm_bindgen]
pub fn strategies() -> Result<JsValue, Thrown> {
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
