//! The time-by-address boxes in a raster, placed on whole pixels of the chart's own
//! scale so that a pan reuses what is already painted.
//!
//! A box's pixels are its step and byte ends times a fixed number of pixels per step
//! and per byte, rounded: pixels of the whole chart at that zoom ("world" pixels),
//! whatever the window. The window is a rectangle of world pixels with a whole-pixel
//! origin, and every box is cut to it in pixels. Moving the window by whole pixels
//! moves every box by as many, so after a pan the raster's pixels are shifted and
//! only the strips that came into view are painted: the same pixels as painting the
//! new window afresh (`tests/painting.rs` holds the two to each other).

use super::{Paint, StepIndex};
use crate::kept::{Kept, Key, Slot};
use crate::raster::{on_white, Raster};
use crate::style::{pool_colour, GRID, PALETTE};
use crate::{View, Window};
use plotters::style::{RGBColor, WHITE};

/// A rectangle of world pixels: columns `x0..x1` rightwards, rows `y0..y1` upwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    x0: i32,
    x1: i32,
    y0: i32,
    y1: i32,
}

impl Rect {
    fn meet(self, o: Rect) -> Option<Rect> {
        let r = Rect {
            x0: self.x0.max(o.x0),
            x1: self.x1.min(o.x1),
            y0: self.y0.max(o.y0),
            y1: self.y1.min(o.y1),
        };
        (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
    }

    fn wide(self) -> i32 {
        self.x1 - self.x0
    }

    fn high(self) -> i32 {
        self.y1 - self.y0
    }
}

/// A window's width and height (fractions of the chart) are rounded to multiples of
/// one over this, so that a pan, which moves both ends by the same amount and so
/// changes their difference in its last bits at most, keeps the scale to the bit.
const QUANTUM: f64 = (1u64 << 40) as f64;

/// The chart's mapping of steps and bytes onto world pixels, and of the window
/// onto the raster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pixels {
    per_step: f64,
    per_byte: f64,
    /// The window's first world column and row.
    origin: (i32, i32),
    /// The plot in the raster: its left column, top row, width and height.
    plot: (i32, i32, i32, i32),
}

impl Pixels {
    /// The mapping that shows `window` (fractions of `steps` across and of `top`
    /// bytes up) on the raster's pixels `plot`.
    pub(crate) fn new(
        window: Window,
        (steps, top): (f64, f64),
        plot: (i32, i32, i32, i32),
    ) -> Pixels {
        let w = window.clamped();
        let q = |v: f64| (v * QUANTUM).round() / QUANTUM;
        let (_, _, wide, high) = plot;
        let per_step = f64::from(wide.max(1)) / (q(w.x1 - w.x0) * steps);
        let per_byte = f64::from(high.max(1)) / (q(w.y1 - w.y0) * top);
        let origin = (
            (w.x0 * steps * per_step).round() as i32,
            (w.y0 * top * per_byte).round() as i32,
        );
        Pixels {
            per_step,
            per_byte,
            origin,
            plot,
        }
    }

    /// The steps across and the bytes up on show.
    pub(crate) fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let w = self.window();
        (
            (
                f64::from(w.x0) / self.per_step,
                f64::from(w.x1) / self.per_step,
            ),
            (
                f64::from(w.y0) / self.per_byte,
                f64::from(w.y1) / self.per_byte,
            ),
        )
    }

    fn window(&self) -> Rect {
        let (x0, y0) = self.origin;
        let (_, _, wide, high) = self.plot;
        Rect {
            x0,
            x1: x0.saturating_add(wide),
            y0,
            y1: y0.saturating_add(high),
        }
    }

    /// The world pixels of tensor `t`'s box: at least one each way, so that no
    /// tensor vanishes at any zoom. Byte counts stay below 2^63 (the arena is capped
    /// at 4 EiB), where the signed conversion is one instruction.
    #[inline(always)]
    fn world(&self, t: Slot) -> Rect {
        let across = |step: u32| (f64::from(step) * self.per_step).round_ties_even() as i32;
        let up = |bytes: u64| (bytes as i64 as f64 * self.per_byte).round_ties_even() as i32;
        let (x0, y0) = (across(t.start), up(t.offset));
        Rect {
            x0,
            x1: across(t.end + 1).max(x0.saturating_add(1)),
            y0,
            y1: up(t.offset + t.size).max(y0.saturating_add(1)),
        }
    }

    /// The world row at `bytes` (the edge below the row holding the byte).
    fn row(&self, bytes: f64) -> i32 {
        (bytes * self.per_byte).round_ties_even() as i32
    }

    /// Rect `r` in the raster: left, top, right and bottom (ends exclusive).
    #[inline(always)]
    fn on_raster(&self, r: Rect) -> Edges {
        let (ox, oy) = self.origin;
        let (left, top, _, high) = self.plot;
        let bottom = top + high;
        Edges {
            left: left + (r.x0 - ox),
            top: bottom - (r.y1 - oy),
            right: left + (r.x1 - ox),
            bottom: bottom - (r.y0 - oy),
        }
    }

    /// Steps and bytes that hold every tensor whose box, or its edge `margin`
    /// pixels beyond it, may reach into `r`.
    fn data(&self, r: Rect, margin: i32) -> ((f64, f64), (f64, f64)) {
        let m = f64::from(margin);
        (
            (
                (f64::from(r.x0) - m) / self.per_step,
                (f64::from(r.x1) + m) / self.per_step,
            ),
            (
                (f64::from(r.y0) - m) / self.per_byte,
                (f64::from(r.y1) + m) / self.per_byte,
            ),
        )
    }
}

/// A rectangle of raster pixels, ends exclusive.
#[derive(Clone, Copy)]
struct Edges {
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

impl Edges {
    /// Fills what of `self` lies inside `clip`.
    #[inline(always)]
    fn fill_in(self, clip: Edges, colour: RGBColor, raster: &mut Raster) {
        let (left, right) = (self.left.max(clip.left), self.right.min(clip.right));
        let (top, bottom) = (self.top.max(clip.top), self.bottom.min(clip.bottom));
        if left >= right || top >= bottom {
            return;
        }
        if right - left == 1 {
            raster.column(left, (top, bottom), colour);
        } else {
            raster.fill((left, top), (right, bottom), colour);
        }
    }
}

/// Paints tensors' boxes with the colours, edges and the naming rule of one view.
pub(crate) struct Painter {
    pixels: Pixels,
    colours: [RGBColor; PALETTE.len()],
    highlight: Option<u64>,
    edge: i32,
    roomy: i32,
    name_wide: i32,
    name_high: i32,
    tall: f64,
    /// The grid lines, in bytes, and the bytes between them.
    lines: Vec<f64>,
    grid: Option<f64>,
    line_width: i32,
}

/// A tensor's name is written inside its box from this many CSS pixels high.
pub(crate) const NAME_HEIGHT: f64 = 16.0;

/// Tensors shown get a white edge from this many CSS pixels up.
pub(crate) const ROOMY: f64 = 6.0;

impl Painter {
    /// `lines` are the grid's lines in bytes, `grid` the bytes between two (when
    /// they are a whole multiple of it apart).
    pub(crate) fn new(pixels: Pixels, view: &View, lines: Vec<f64>, grid: Option<f64>) -> Painter {
        let faded = match view.highlight {
            Some(_) => 0.45,
            None => 0.9,
        };
        Painter {
            pixels,
            colours: PALETTE.map(|c| on_white(c, faded)),
            highlight: view.highlight,
            edge: view.px(1.0) as i32,
            roomy: view.px(ROOMY) as i32,
            // name_inside measures with plotters' own mapping, a pixel or two off this one
            name_wide: 4 * view.px(4.0) as i32 - 4,
            name_high: view.px(NAME_HEIGHT) as i32 - 4,
            tall: f64::from(view.px(NAME_HEIGHT)) - 1.0,
            lines,
            grid,
            line_width: view.px(1.0) as i32,
        }
    }

    fn chosen(&self, t: Slot) -> bool {
        self.highlight == Some(u64::from(t.id))
    }

    /// Paints the part of `t`'s box and edge inside `clip` (`on` in the raster);
    /// returns its world box when any of them reaches `clip`.
    #[inline(always)]
    fn paint(&self, t: Slot, clip: Rect, on: Edges, raster: &mut Raster) -> Option<Rect> {
        let b = self.pixels.world(t);
        let edged = b.wide() >= self.roomy && b.high() >= self.roomy;
        let reach = if edged { self.edge } else { 0 };
        if b.x1.saturating_add(reach) <= clip.x0
            || b.x0.saturating_sub(reach) >= clip.x1
            || b.y1.saturating_add(reach) <= clip.y0
            || b.y0.saturating_sub(reach) >= clip.y1
        {
            return None;
        }
        let colour = if self.chosen(t) {
            pool_colour(t.pool)
        } else {
            self.colours[t.pool as usize % PALETTE.len()]
        };
        let r = self.pixels.on_raster(b);
        r.fill_in(on, colour, raster);
        if edged {
            // centred on the box's edges, as a canvas strokes them
            let (w, half) = (self.edge, self.edge / 2);
            let (l, rt) = (r.left - half, r.right - half + w);
            let sides = [
                (l, r.top - half, rt, r.top - half + w),
                (l, r.bottom - half, rt, r.bottom - half + w),
                (r.left - half, r.top, r.left - half + w, r.bottom),
                (r.right - half, r.top, r.right - half + w, r.bottom),
            ];
            for (left, top, right, bottom) in sides {
                let side = Edges {
                    left,
                    top,
                    right,
                    bottom,
                };
                side.fill_in(on, WHITE, raster);
            }
        }
        Some(b)
    }

    /// Whether tensor `t` (world box `b`) is on show and chosen, or shows enough of
    /// its box for its name to fit.
    fn named(&self, t: Slot, b: Rect) -> bool {
        let Some(shown) = b.meet(self.pixels.window()) else {
            return false;
        };
        self.chosen(t)
            || (shown.high() >= self.name_high
                && shown.wide() >= self.name_wide
                && t.size as f64 * self.pixels.per_byte >= self.tall)
    }

    /// The grid lines across `clip` (`on` in the raster).
    fn grid(&self, on: Edges, raster: &mut Raster) {
        let (_, oy) = self.pixels.origin;
        let (_, top, _, high) = self.pixels.plot;
        let w = self.line_width;
        for &bytes in &self.lines {
            let at = top + high - (self.pixels.row(bytes) - oy);
            let line = Edges {
                left: on.left,
                top: at - 1 - (w - 1) / 2,
                right: on.right,
                bottom: at - 1 - (w - 1) / 2 + w,
            };
            line.fill_in(on, GRID, raster);
        }
    }

    /// Paints the strip `clip` of the window: white (when `clear`), the grid, then
    /// the boxes of the tensors `index` finds near it. Adds the tensors to name.
    fn strip(
        &self,
        index: &StepIndex,
        clip: Rect,
        clear: bool,
        raster: &mut Raster,
        named: &mut Vec<Slot>,
    ) {
        let on = self.pixels.on_raster(clip);
        if clear {
            on.fill_in(on, WHITE, raster);
        }
        self.grid(on, raster);
        let (steps, bytes) = self.pixels.data(clip, self.edge + 2);
        for run in index.near(steps, bytes) {
            for &t in run {
                if let Some(b) = self.paint(t, clip, on, raster) {
                    if self.named(t, b) {
                        named.push(t);
                    }
                }
            }
        }
    }

    /// Paints the window into `raster`: the tensors `index` finds
    /// near it, or all of them for [`Paint::Full`]. When the raster holds this
    /// chart painted with the same `key` for a window less than its size away (or
    /// has such a paint put aside, from before a zoom), its pixels are shifted and
    /// only the strips that came into view are painted.
    /// Returns the tensors whose names may fit in their boxes, and the chosen one,
    /// in the plan's order.
    pub(crate) fn paint_window(
        &self,
        index: &StepIndex,
        key: Option<Key>,
        paint: Paint,
        raster: &mut Raster,
    ) -> Vec<Slot> {
        let window = self.pixels.window();
        raster.reused = false;
        // a paint of the same key less than a window away: the one on hand, else
        // one put aside at an earlier zoom
        let usable = |kept: &Kept| {
            let (dx, dy) = (window.x0 - kept.origin.0, window.y0 - kept.origin.1);
            let near = dx.abs() < window.wide() && dy.abs() < window.high();
            paint == Paint::Fast && key.as_ref() == Some(&kept.key) && near
        };
        let kin = |kept: &Kept| {
            key.as_ref()
                .is_some_and(|key| (key.index, key.size) == (kept.key.index, kept.key.size))
        };
        let kept = match raster.kept.take() {
            Some(kept) if usable(&kept) => Some(kept),
            held => raster.recall(held, kin, usable),
        };
        let reuse = kept.map(|kept| {
            let (dx, dy) = (window.x0 - kept.origin.0, window.y0 - kept.origin.1);
            (dx, dy, kept.named)
        });
        let mut named = Vec::new();
        match reuse {
            Some((dx, dy, before)) => {
                let (left, top, wide, high) = self.pixels.plot;
                raster.shift((left, top), (wide, high), (-dx, dy));
                named.extend(
                    before
                        .into_iter()
                        .filter(|&t| self.named(t, self.pixels.world(t))),
                );
                for strip in strips(window, (dx, dy)) {
                    self.strip(index, strip, true, raster, &mut named);
                }
                raster.reused = true;
            }
            None => {
                raster.reset((raster.width(), raster.height()), WHITE);
                match paint {
                    Paint::Fast => self.strip(index, window, false, raster, &mut named),
                    Paint::Full => {
                        let on = self.pixels.on_raster(window);
                        self.grid(on, raster);
                        for t in index.all() {
                            if let Some(b) = self.paint(t, window, on, raster) {
                                if self.named(t, b) {
                                    named.push(t);
                                }
                            }
                        }
                    }
                }
            }
        }
        memplan::sort::by_key(&mut named, |t| t.index);
        named.dedup_by_key(|t| t.index);
        // a reference paint leaves nothing to reuse, so that a paint after it is fresh
        raster.kept = key.filter(|_| paint == Paint::Fast).map(|key| Kept {
            key,
            origin: (window.x0, window.y0),
            named: named.clone(),
        });
        named
    }

    /// What a raster painted by this painter for `index` on `size` pixels depends
    /// on, but for the window's origin; `None` when it cannot be reused (grid
    /// lines that are not evenly spaced).
    pub(crate) fn key(&self, index: &StepIndex, size: (u32, u32), view: &View) -> Option<Key> {
        Some(Key {
            index: index.id,
            size,
            plot: self.pixels.plot,
            per_step: self.pixels.per_step.to_bits(),
            per_byte: self.pixels.per_byte.to_bits(),
            grid: self.grid?.to_bits(),
            scale: view.scale.to_bits(),
            highlight: view.highlight,
        })
    }
}

/// The strips of `window` that come into view when it moves by `(dx, dy)` world
/// pixels (right and up) from where it was: the columns that came in, full height,
/// then the rows that came in across the other columns.
fn strips(window: Rect, (dx, dy): (i32, i32)) -> Vec<Rect> {
    let mut strips = Vec::new();
    let (mut x0, mut x1) = (window.x0, window.x1);
    if dx > 0 {
        strips.push(Rect {
            x0: x1 - dx,
            ..window
        });
        x1 -= dx;
    } else if dx < 0 {
        strips.push(Rect {
            x1: x0 - dx,
            ..window
        });
        x0 -= dx;
    }
    let rows = if dy > 0 {
        Some((window.y1 - dy, window.y1))
    } else if dy < 0 {
        Some((window.y0, window.y0 - dy))
    } else {
        None
    };
    if let Some((y0, y1)) = rows {
        strips.push(Rect { x0, x1, y0, y1 });
    }
    strips
}
