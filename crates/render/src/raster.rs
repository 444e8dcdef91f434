//! A plain RGBA pixel buffer for the many boxes of a chart.
//!
//! A canvas backend issues one call into the page per rectangle; filling a buffer in
//! a tight loop and handing it over whole is far faster. Boxes are painted opaque,
//! their colours already blended onto white, and each is at least one pixel wide and
//! high so that no tensor vanishes at any zoom.

use crate::kept::Kept;
use plotters::style::RGBColor;

/// `width` x `height` pixels, four bytes (RGBA) each, row by row from the top.
#[derive(Clone, Debug, Default)]
pub struct Raster {
    width: usize,
    height: usize,
    bytes: Vec<u8>,
    /// How the time-by-address chart painted these pixels, for its next paint.
    pub(crate) kept: Option<Kept>,
    /// Whether the last paint of that chart shifted the pixels it found here.
    pub(crate) reused: bool,
    /// That chart's earlier paints at other scales, most recent first, with their
    /// pixels: a zoom back to one of them shifts those.
    pub(crate) spare: Vec<(Kept, Vec<u8>)>,
}

/// Bytes of pixels at most kept aside in [`Raster::spare`], and paints at most.
const SPARE_BYTES: usize = 48 << 20;
const SPARE: usize = 4;

impl Raster {
    /// An empty raster; [`Raster::reset`] sizes it.
    pub fn new() -> Raster {
        Raster::default()
    }

    /// Resizes to `width` x `height` and paints every pixel `colour`.
    pub fn reset(&mut self, (width, height): (u32, u32), colour: RGBColor) {
        self.kept = None;
        self.reused = false;
        if (width as usize, height as usize) != (self.width, self.height) {
            self.spare.clear();
        }
        self.width = width as usize;
        self.height = height as usize;
        let rgba = rgba(colour);
        self.bytes.resize(self.width * self.height * 4, 0);
        if rgba.iter().all(|&b| b == rgba[0]) {
            self.bytes.fill(rgba[0]);
        } else {
            for pixel in self.bytes.chunks_exact_mut(4) {
                pixel.copy_from_slice(&rgba);
            }
        }
    }

    pub fn width(&self) -> u32 {
        self.width as u32
    }

    pub fn height(&self) -> u32 {
        self.height as u32
    }

    /// Puts the paint on hand (`held`, what its pixels are) aside, and takes up the
    /// spare paint `usable` accepts, if any: its pixels become this raster's, and
    /// what they are is returned. Spare paints `kin` rejects (another plan or size)
    /// are dropped first.
    pub(crate) fn recall(
        &mut self,
        held: Option<Kept>,
        kin: impl Fn(&Kept) -> bool,
        usable: impl Fn(&Kept) -> bool,
    ) -> Option<Kept> {
        self.spare.retain(|(k, _)| kin(k));
        let found = self.spare.iter().position(|(k, _)| usable(k));
        let Some(held) = held else {
            let (kept, bytes) = self.spare.remove(found?);
            self.bytes = bytes;
            return Some(kept);
        };
        let (kept, bytes) = match found {
            Some(i) => {
                let (k, b) = self.spare.remove(i);
                (Some(k), b)
            }
            // the oldest's pixels are written over rather than a buffer made anew
            None if self.spare.len() >= SPARE => {
                (None, self.spare.pop().map(|s| s.1).unwrap_or_default())
            }
            None => (None, Vec::new()),
        };
        let before = std::mem::replace(&mut self.bytes, bytes);
        self.spare.insert(0, (held, before));
        let mut total = 0;
        let most = self.spare.iter().take_while(|(_, b)| {
            total += b.len();
            total <= SPARE_BYTES
        });
        let keep = most.count().min(SPARE);
        self.spare.truncate(keep);
        kept
    }

    /// Whether the last time-by-address chart painted here moved the pixels of the
    /// one before it (a pan) and painted only what came into view.
    pub fn reused(&self) -> bool {
        self.reused
    }

    /// Moves the pixels of the `size` box at `at` (left, top) by `by` (right, down),
    /// inside that box: those moved out of it are lost, those moved from outside it
    /// are left as they were.
    pub fn shift(
        &mut self,
        (left, top): (i32, i32),
        (wide, high): (i32, i32),
        (dx, dy): (i32, i32),
    ) {
        let clamp = |v: i32, most: usize| v.clamp(0, most as i32) as usize;
        let (x0, x1) = (clamp(left, self.width), clamp(left + wide, self.width));
        let (y0, y1) = (clamp(top, self.height), clamp(top + high, self.height));
        // destination columns and rows: those whose source is inside the box too
        let (to_x0, to_x1) = (
            clamp(x0 as i32 + dx.max(0), x1),
            clamp(x1 as i32 + dx.min(0), x1),
        );
        let (to_y0, to_y1) = (
            clamp(y0 as i32 + dy.max(0), y1),
            clamp(y1 as i32 + dy.min(0), y1),
        );
        if to_x0 >= to_x1 || to_y0 >= to_y1 {
            return;
        }
        let stride = self.width * 4;
        let from_x = (to_x0 as i32 - dx) as usize;
        let length = (to_x1 - to_x0) * 4;
        let mut copy = |y: usize| {
            let from = (y as i32 - dy) as usize * stride + from_x * 4;
            self.bytes
                .copy_within(from..from + length, y * stride + to_x0 * 4);
        };
        // rows moving down are copied from the bottom up, so none is overwritten first
        if dy > 0 {
            (to_y0..to_y1).rev().for_each(&mut copy);
        } else {
            (to_y0..to_y1).for_each(&mut copy);
        }
    }

    /// The pixels as RGBA bytes, as `ImageData` wants them.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Paints pixels `x0..x1` by `y0..y1` (ends exclusive, in either order) `colour`,
    /// at least one pixel each way, clipped to the raster.
    pub fn fill(&mut self, (x0, y0): (i32, i32), (x1, y1): (i32, i32), colour: RGBColor) {
        let (left, right) = at_least_one(x0, x1);
        let (top, bottom) = at_least_one(y0, y1);
        let clamp = |v: i32, most: usize| v.clamp(0, most as i32) as usize;
        let (left, right) = (clamp(left, self.width), clamp(right, self.width));
        let (top, bottom) = (clamp(top, self.height), clamp(bottom, self.height));
        if left >= right || top >= bottom {
            return;
        }
        let rgba = rgba(colour);
        let stride = self.width * 4;
        let rows = self.bytes[top * stride..bottom * stride].chunks_exact_mut(stride);
        if right - left < WIDE {
            for row in rows {
                for pixel in row[left * 4..right * 4].chunks_exact_mut(4) {
                    pixel.copy_from_slice(&rgba);
                }
            }
            return;
        }
        let mut rows = rows.map(|row| &mut row[left * 4..right * 4]);
        let Some(first) = rows.next() else { return };
        for pixel in first.chunks_exact_mut(4) {
            pixel.copy_from_slice(&rgba);
        }
        for row in rows {
            row.copy_from_slice(first);
        }
    }

    /// Paints the column of pixels `x` by `top..bottom` `colour`, clipped to the
    /// raster: what [`Raster::fill`] does for a box a pixel wide and `bottom > top`.
    #[inline]
    pub fn column(&mut self, x: i32, (top, bottom): (i32, i32), colour: RGBColor) {
        if x < 0 || x as usize >= self.width {
            return;
        }
        let clamp = |v: i32| v.clamp(0, self.height as i32) as usize;
        let (top, bottom) = (clamp(top), clamp(bottom));
        let rgba = rgba(colour);
        let stride = self.width * 4;
        let first = top * stride + x as usize * 4;
        for y in top..bottom {
            let at = first + (y - top) * stride;
            if let Some(pixel) = self.bytes.get_mut(at..at + 4) {
                pixel.copy_from_slice(&rgba);
            }
        }
    }

    /// Outlines the box `x0..x1` by `y0..y1` with lines `width` pixels wide, centred
    /// on its edges as a canvas strokes them.
    pub fn outline(
        &mut self,
        (x0, y0): (i32, i32),
        (x1, y1): (i32, i32),
        width: i32,
        colour: RGBColor,
    ) {
        let (left, right) = (x0.min(x1), x0.max(x1));
        let (top, bottom) = (y0.min(y1), y0.max(y1));
        let half = width / 2;
        let (l, r) = (left - half, right - half + width);
        self.fill((l, top - half), (r, top - half + width), colour);
        self.fill((l, bottom - half), (r, bottom - half + width), colour);
        self.fill((left - half, top), (left - half + width, bottom), colour);
        self.fill((right - half, top), (right - half + width, bottom), colour);
    }
}

/// Boxes this many pixels wide and more fill one row and copy it to the others.
const WIDE: usize = 16;

/// `a..b` in order, widened to one pixel when empty.
#[inline(always)]
fn at_least_one(a: i32, b: i32) -> (i32, i32) {
    let (lo, hi) = (a.min(b), a.max(b));
    (lo, hi.max(lo + 1))
}

#[inline(always)]
fn rgba(RGBColor(r, g, b): RGBColor) -> [u8; 4] {
    [r, g, b, 255]
}

/// `colour` at opacity `alpha` over white, as one opaque colour.
pub fn on_white(RGBColor(r, g, b): RGBColor, alpha: f64) -> RGBColor {
    // ties to even: one wasm instruction, where `round` is a call
    let mix = |c: u8| (f64::from(c) * alpha + 255.0 * (1.0 - alpha)).round_ties_even() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: RGBColor = RGBColor(255, 0, 0);

    fn pixel(r: &Raster, x: usize, y: usize) -> [u8; 4] {
        let at = (y * r.width + x) * 4;
        r.bytes()[at..at + 4].try_into().unwrap()
    }

    #[test]
    fn fills_clipped_boxes_and_never_less_than_a_pixel() {
        let mut r = Raster::new();
        r.reset((10, 5), RGBColor(255, 255, 255));
        assert_eq!(r.bytes().len(), 200);
        r.fill((8, 1), (20, 3), RED);
        assert_eq!(pixel(&r, 9, 2), [255, 0, 0, 255]);
        assert_eq!(pixel(&r, 7, 2), [255, 255, 255, 255]);
        assert_eq!(pixel(&r, 9, 3), [255, 255, 255, 255]);
        r.fill((3, 4), (3, 4), RED);
        assert_eq!(pixel(&r, 3, 4), [255, 0, 0, 255]);
        r.fill((-5, -5), (-1, -1), RED);
        assert_eq!(pixel(&r, 0, 0), [255, 255, 255, 255]);
    }

    #[test]
    fn shifts_the_pixels_of_a_box_within_it() {
        let (width, height) = (13, 9);
        let mut before = Raster::new();
        before.reset((width, height), RED);
        for (i, b) in before.bytes.iter_mut().enumerate() {
            *b = (i * 7 % 251) as u8;
        }
        let ((left, top), (wide, high)) = ((2, 1), (9, 6));
        for dx in -10..=10 {
            for dy in -7..=7 {
                let mut r = before.clone();
                r.shift((left, top), (wide, high), (dx, dy));
                let inside = |x: i32, y: i32| {
                    (left..left + wide).contains(&x) && (top..top + high).contains(&y)
                };
                for y in 0..height as i32 {
                    for x in 0..width as i32 {
                        let (sx, sy) = (x - dx, y - dy);
                        let want = if inside(x, y) && inside(sx, sy) {
                            pixel(&before, sx as usize, sy as usize)
                        } else {
                            pixel(&before, x as usize, y as usize)
                        };
                        assert_eq!(
                            pixel(&r, x as usize, y as usize),
                            want,
                            "{dx},{dy} at {x},{y}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn blends_onto_white() {
        assert_eq!(
            on_white(RGBColor(0, 100, 255), 0.5),
            RGBColor(128, 178, 255)
        );
        assert_eq!(on_white(RED, 1.0), RED);
    }
}
