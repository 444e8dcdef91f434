//! The canvas backend the page draws with: plotters-canvas, except that text is
//! measured with the canvas's own `measureText`. Plotters' default adds a span to the
//! page per measure, which lays out the whole page each time: a chart with a few
//! hundred names inside its boxes took hundreds of milliseconds to draw.

use memplan_render::plotters::prelude::*;
use memplan_render::plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

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
