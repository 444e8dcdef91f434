//! Charts of a plan, written once over plotters' [`DrawingBackend`]: the same code
//! draws on a canvas in the browser and into an SVG string natively.
//!
//! Each chart returns a [`Frame`]: where its plotting area landed, in CSS pixels,
//! and the data ranges it spans, so that a caller can map a pointer back to data.
//! A [`Window`] zooms a chart into part of its full extent; what falls outside is
//! clipped before drawing.

/// plotters and its backend interface, as the charts use them: the page's canvas
/// backend (in the wasm crate) draws through these, so plotters stays a dependency
/// of this crate alone.
pub use plotters;
pub use plotters_backend;

mod axes;
mod boxes;
mod gantt;
mod interference;
mod kept;
mod legend;
mod lesson;
mod levels;
mod live_bytes;
mod npu;
mod raster;
mod report;
mod spills;
mod style;
mod time_address;
mod view;

pub use gantt::gantt;
pub use interference::{interference_graph, Spot};
pub use lesson::{lesson_live_bytes, lesson_time_address};
pub use levels::{level_chart, level_chart_with};
pub use live_bytes::{live_bytes, live_bytes_under, Extremes};
pub use npu::npu_svg;
pub use raster::Raster;
pub use spills::{away, spill_rows, spill_timeline, Lane, SpillLayout, SpillRow};
pub use style::palette_hex;
pub use time_address::{
    time_address, time_address_indexed, time_address_painted, time_address_with, Paint, StepIndex,
};

use style::{pool_colour, BOUND, GRID, INK, PALETTE, PEAK};

pub use axes::Boxes;
pub use report::{svg, svg_pair};
pub use view::{Frame, View, Window};

// The helpers every chart shares, for the chart files to take from here.
use axes::{axes, chart_on, mesh_and_boxes, Extent, YAxis};
use boxes::{
    clip, draw_boxes, frame, level_line, mark_level, paint_boxes, pixel_size, whole, Affine, Bounds,
};
use legend::{label, legend, legend_layout, row_label};
use view::Chart;

/// A seeded generator for the unit tests: each call gives a number below `n`.
#[cfg(test)]
pub(crate) fn test_numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    }
}
