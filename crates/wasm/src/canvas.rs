//! The canvas backend the page draws with: plotters-canvas, except that text is
//! measured with the canvas's own `measureText`. Plotters' default adds a span to the
//! page per measure, which lays out the whole page each time: a chart with a few
//! hundred names inside its boxes took hundreds of milliseconds to draw.
//!
//! Below the backend: the drawing areas the charts are drawn on, the raster put
//! on a canvas in one call, and the view JS asks for.

use crate::errors::{js_error, Thrown};
use memplan_render::plotters::prelude::*;
use memplan_render::plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use memplan_render::{Raster, View, Window};
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::{Clamped, JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

type Error = <CanvasBackend as DrawingBackend>::ErrorType;

thread_local! {
    /// Line height by CSS font, measured once the slow way.
    static HEIGHTS: RefCell<HashMap<String, u32>> = RefCell::new(HashMap::new());
}

/// plotters-canvas on one canvas, with its 2d context at hand.
pub struct Canvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
}

impl Canvas {
    /// The backend for `canvas`, or `None` when it has no 2d context.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Canvas> {
        let context = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        Some(Canvas {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
        })
    }

    pub fn context(&self) -> &CanvasRenderingContext2d {
        &self.context
    }
}

/// The CSS font plotters-canvas draws `style` with.
fn css_font<S: BackendTextStyle>(style: &S) -> String {
    format!(
        "{} {}px {}",
        style.style().as_str(),
        style.size(),
        style.family().as_str()
    )
}

impl DrawingBackend for Canvas {
    type ErrorType = Error;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        at: BackendCoord,
        colour: BackendColor,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_pixel(at, colour)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.fill_polygon(vertices, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        at: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Error>> {
        self.inner.draw_text(text, style, at)
    }

    /// The width `measureText` gives, and the line height plotters would give.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Error>> {
        let font = css_font(style);
        let known = HEIGHTS.with(|h| h.borrow().get(&font).copied());
        let height = match known {
            Some(height) => height,
            None => {
                let (_, height) = self.inner.estimate_text_size("Mg", style)?;
                HEIGHTS.with(|h| h.borrow_mut().insert(font.clone(), height));
                height
            }
        };
        self.context.set_font(&font);
        let width = self
            .context
            .measure_text(text)
            .map(|m| m.width().round() as u32)
            .or_else(|_| self.inner.estimate_text_size(text, style).map(|(w, _)| w))?;
        Ok((width, height))
    }
}

/// The zoom window JS passes (`{x0, x1, y0, y1}` fractions), or all of the chart.
fn window(value: JsValue) -> Result<Window, Thrown> {
    if value.is_undefined() || value.is_null() {
        return Ok(Window::FULL);
    }
    let window: Window = serde_wasm_bindgen::from_value(value).map_err(js_error)?;
    Ok(window.clamped())
}

/// How to draw: `scale` device pixels per CSS pixel, `highlight`, `window`.
pub(crate) fn view(scale: f64, highlight: Option<u64>, win: JsValue) -> Result<View, Thrown> {
    Ok(View {
        scale,
        highlight,
        window: window(win)?,
        top: 0,
    })
}

/// A white drawing area over the whole of `canvas`.
pub(crate) fn canvas_area(
    canvas: HtmlCanvasElement,
) -> Result<DrawingArea<Canvas, memplan_render::plotters::coord::Shift>, Thrown> {
    let root = bare_area(canvas)?;
    root.fill(&WHITE).map_err(js_error)?;
    Ok(root)
}

/// A drawing area over the whole of `canvas`, left as it is.
pub(crate) fn bare_area(
    canvas: HtmlCanvasElement,
) -> Result<DrawingArea<Canvas, memplan_render::plotters::coord::Shift>, Thrown> {
    let backend =
        Canvas::new(canvas).ok_or_else(|| Thrown::new("the canvas has no 2d drawing context"))?;
    Ok(backend.into_drawing_area())
}

/// Draws on `canvas` with `draw`, which paints a chart's boxes into `raster` (sized to
/// the canvas and cleared to white first, unless `keep` and it has the canvas's size
/// already) and has it put on the canvas in one `putImageData` before drawing the
/// rest over it.
pub(crate) fn with_raster<T, E: std::fmt::Display>(
    canvas: HtmlCanvasElement,
    raster: &mut Raster,
    keep: bool,
    draw: impl FnOnce(
        &DrawingArea<Canvas, memplan_render::plotters::coord::Shift>,
        &mut Raster,
        &mut dyn FnMut(&Raster),
    ) -> Result<T, E>,
) -> Result<T, Thrown> {
    let size = (canvas.width(), canvas.height());
    if !keep || (raster.width(), raster.height()) != size {
        raster.reset(size, WHITE);
    }
    let backend =
        Canvas::new(canvas).ok_or_else(|| Thrown::new("the canvas has no 2d drawing context"))?;
    let context = backend.context().clone();
    let root = backend.into_drawing_area();
    let mut failed = None;
    let mut put = |raster: &Raster| {
        let image = ImageData::new_with_u8_clamped_array_and_sh(
            Clamped(raster.bytes()),
            raster.width(),
            raster.height(),
        );
        let done = image.and_then(|image| context.put_image_data(&image, 0.0, 0.0));
        if let Err(e) = done {
            failed = Some(e);
        }
    };
    let out = draw(&root, raster, &mut put).map_err(|e| Thrown::new(&e.to_string()))?;
    if let Some(e) = failed {
        return Err(Thrown::new(&format!(
            "could not put the chart's pixels: {e:?}"
        )));
    }
    root.present().map_err(js_error)?;
    Ok(out)
}
