// Zoom windows: the part of a chart on show, as fractions of its full extent.

/** All of a chart. */
export const FULL = Object.freeze({ x0: 0, x1: 1, y0: 0, y1: 1 });

const SMALLEST = 1e-3;

/** True when `w` shows all of the chart. */
export function isFull(w) {
  return w.x0 <= 0 && w.x1 >= 1 && w.y0 <= 0 && w.y1 >= 1;
}

/** The span `a..b` scaled by `factor` around fraction `u` of it, kept inside 0..1. */
function scaleSpan(a, b, u, factor) {
  const width = Math.min(1, Math.max(SMALLEST, (b - a) * factor));
  const at = a + u * (b - a);
  const start = Math.min(1 - width, Math.max(0, at - u * width));
  return [start, start + width];
}

/** The span `a..b` moved by `d` of its width, kept inside 0..1. */
function shiftSpan(a, b, d) {
  const width = b - a;
  const start = Math.min(1 - width, Math.max(0, a + d * width));
  return [start, start + width];
}

/** `w` zoomed by `factor` (below 1 zooms in) around the point at fractions (u, v) of the plot; y only when `zoomY`. */
export function zoomAt(w, u, v, factor, zoomY) {
  const [x0, x1] = scaleSpan(w.x0, w.x1, u, factor);
  const [y0, y1] = zoomY ? scaleSpan(w.y0, w.y1, v, factor) : [w.y0, w.y1];
  return { x0, x1, y0, y1 };
}

/** `w` moved by (du, dv) of its own size, right and up; y only when `panY`. */
export function pan(w, du, dv, panY) {
  const [x0, x1] = shiftSpan(w.x0, w.x1, du);
  const [y0, y1] = panY ? shiftSpan(w.y0, w.y1, dv) : [w.y0, w.y1];
  return { x0, x1, y0, y1 };
}
