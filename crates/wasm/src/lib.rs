//! The browser's entry: a thin `#[wasm_bindgen]` layer over the core.
//!
//! Planning runs in a Web Worker: one [`Session`] per loaded graph keeps the graph and
//! its analysis and answers with plan reports as JSON text; an NPU case gets an
//! [`npu::NpuSession`] instead. The page's own instance only draws: a
//! [`draw::Drawing`] (or [`npu_draw::NpuDrawing`]) is made from those reports, since
//! plotters measures text through the page's DOM. Every error crosses as a JS `Error`
//! with the core's message.

mod canvas;
mod draw;
mod errors;
mod heap;
mod npu;
mod npu_draw;
mod session;
mod teach;
#[cfg(test)]
mod tests;

pub(crate) use canvas::{canvas_area, view, with_raster};
pub use errors::Thrown;
pub(crate) use errors::{js_error, to_js, to_json};
pub use session::Session;

use memplan::Strategy;
use memplan_formats::{self as formats, format_size};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// True when `bytes` hold an NPU scheduling case, which [`npu::NpuSession`] reads.
#[wasm_bindgen(js_name = isNpuCase)]
pub fn is_npu_case(bytes: &[u8]) -> bool {
    formats::is_npu_case(bytes)
}

#[derive(Serialize)]
struct StrategyInfo {
    name: &'static str,
    about: &'static str,
}

/// The plan slot JS names: 0 (the default) or 1.
fn slot_index(slot: Option<u8>) -> Result<usize, Thrown> {
    match slot.unwrap_or(0) {
        s @ (0 | 1) => Ok(usize::from(s)),
        s => Err(Thrown::new(&format!("no plan slot {s} (expected 0 or 1)"))),
    }
}

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
