//! How a chart is drawn (scale, highlight, zoom window) and where it landed (its
//! frame, so a pointer maps back to data).

use super::style::INK;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// A chart of steps or cycles (x) by bytes in an axis unit, or rows (y).
pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How a chart is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Device pixels per CSS pixel: fonts, lines and margins grow with it.
    pub scale: f64,
    /// Tensor (or NPU buffer) id to emphasise.
    pub highlight: Option<u64>,
    /// The part of the full extent on show.
    pub window: Window,
    /// The least top of a time-by-address chart's address axis in bytes (0: the
    /// plan's own), so that two charts side by side share one address scale.
    pub top: u64,
}

impl Default for View {
    fn default() -> Self {
        View {
            scale: 1.0,
            highlight: None,
            window: Window::FULL,
            top: 0,
        }
    }
}

/// The part of a chart on show, as fractions of its full extent: `x0..x1` across,
/// `y0..y1` up. Charts whose y axis is not an address ignore `y0..y1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

impl Window {
    pub const FULL: Window = Window {
        x0: 0.0,
        x1: 1.0,
        y0: 0.0,
        y1: 1.0,
    };

    /// The window inside `0..1` each way, at least a thousandth wide and high.
    pub fn clamped(self) -> Window {
        let span = |a: f64, b: f64| {
            let (a, b) = if a.is_finite() && b.is_finite() && a < b {
                (a.max(0.0), b.min(1.0))
            } else {
                (0.0, 1.0)
            };
            if b - a < 1e-3 {
                let mid = ((a + b) / 2.0).clamp(5e-4, 1.0 - 5e-4);
                (mid - 5e-4, mid + 5e-4)
            } else {
                (a, b)
            }
        };
        let (x0, x1) = span(self.x0, self.x1);
        let (y0, y1) = span(self.y0, self.y1);
        Window { x0, x1, y0, y1 }
    }

    /// The part of `lo..hi` on show across.
    pub(crate) fn across(&self, (lo, hi): (f64, f64)) -> (f64, f64) {
        let w = self.clamped();
        (lo + (hi - lo) * w.x0, lo + (hi - lo) * w.x1)
    }

    /// The part of `lo..hi` on show up.
    pub(crate) fn up(&self, (lo, hi): (f64, f64)) -> (f64, f64) {
        let w = self.clamped();
        (lo + (hi - lo) * w.y0, lo + (hi - lo) * w.y1)
    }
}

impl View {
    /// `px` CSS pixels in backend pixels.
    pub(crate) fn px(&self, px: f64) -> u32 {
        (px * self.scale).round().max(1.0) as u32
    }

    pub(crate) fn font(&self, px: f64) -> TextStyle<'static> {
        TextStyle::from(("sans-serif", px * self.scale).into_font()).color(&INK)
    }
}

/// The plotting area of a drawn chart in CSS pixels (`left`, `top`, `width`, `height`)
/// and the data it spans: steps on x, bytes on y (`y_min` at the bottom).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
    pub x_min: f64,
    pub x_max: f64,
    pub y_min: f64,
    pub y_max: f64,
}

impl Frame {
    /// The frame of a plotting area whose corners `(x_min, y_max)` and `(x_max, y_min)`
    /// land on the backend pixels `top_left` and `bottom_right`.
    pub(crate) fn new(
        top_left: (i32, i32),
        bottom_right: (i32, i32),
        x: (f64, f64),
        y: (f64, f64),
        view: &View,
    ) -> Frame {
        let s = view.scale;
        Frame {
            left: f64::from(top_left.0) / s,
            top: f64::from(top_left.1) / s,
            width: f64::from(bottom_right.0 - top_left.0) / s,
            height: f64::from(bottom_right.1 - top_left.1) / s,
            x_min: x.0,
            x_max: x.1,
            y_min: y.0,
            y_max: y.1,
        }
    }
}
