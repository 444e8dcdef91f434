// The charts on the page: each is drawn by a session, hovered, clicked, zoomed and
// panned the same way. A chart is `{ canvas, wrap, tip, group, zoomY, draw, hit, describe, idOf }`.

import { fitCanvas, fittedSize, plotFraction } from './render.js';
import { FULL, isFull, pan, zoomAt } from './zoom.js';
import { placeTooltip } from './ui.js';

const charts = new Map();
const zoom = { steps: FULL, cycles: FULL };
const frames = new Map();
const hooks = { select: () => {}, highlight: () => null, changed: () => {} };
let pending = false;
let drag = null;

/** Sets what a click selects with, what is highlighted, and who hears of zoom changes. */
export function configure(next) {
  Object.assign(hooks, next);
}

/** Adds `chart` (replacing one on the same canvas) and wires its canvas once. */
export function register(chart) {
  const fresh = !chart.canvas.dataset.wired;
  charts.set(chart.canvas.id, chart);
  if (fresh) wireCanvas(chart.canvas);
}

/** Drops every chart whose canvas id `keep` rejects. */
export function retain(keep) {
  for (const id of [...charts.keys()]) if (!keep(id)) charts.delete(id);
  for (const id of [...frames.keys()]) if (!charts.has(id)) frames.delete(id);
}

/** The current zoom windows by group (`steps`, `cycles`). */
export function windows() {
  return { ...zoom };
}

/** Shows all of every chart. */
export function resetZoom() {
  zoom.steps = FULL;
  zoom.cycles = FULL;
  hooks.changed();
  redraw();
}

/** True when some chart is zoomed in. */
export function zoomed() {
  return !isFull(zoom.steps) || !isFull(zoom.cycles);
}

/** Draws every visible chart now, timing each as a `memplan:draw:<canvas id>` performance measure. */
export function drawAll() {
  const highlight = hooks.highlight();
  for (const chart of charts.values()) drawOne(chart, highlight);
}

/** Draws `chart` if it is on show (the `memplan:draw:ID` performance measure). */
function drawOne(chart, highlight) {
  if (chart.canvas.offsetParent === null) return;
  const scale = fitCanvas(chart.canvas);
  const started = performance.now();
  frames.set(chart.canvas.id, chart.draw(scale, highlight ?? undefined, zoom[chart.group]));
  performance.measure(`memplan:draw:${chart.canvas.id}`, { start: started });
}

/** {@link drawAll}, one chart per task: between two charts the page answers what waits (a click, a key), unless `stale()` then says a newer plan came (the rest is left to it). */
export async function drawEach(stale) {
  const highlight = hooks.highlight();
  for (const chart of [...charts.values()]) {
    if (stale()) return;
    drawOne(chart, highlight);
    await new Promise((done) => setTimeout(done, 0));
  }
}

/** {@link redraw} only if a chart on show is drawn at another size than its box has now (or not drawn): a resize of the page that moved no chart redraws nothing, which on a plan of a million tensors is a long task saved. */
export function redrawIfResized() {
  for (const chart of charts.values()) {
    const c = chart.canvas;
    if (c.offsetParent === null) continue;
    const { width, height } = fittedSize(c);
    if (c.width !== width || c.height !== height || !frames.has(c.id)) {
      redraw();
      return;
    }
  }
}

/** Draws every chart at the next frame, once however often it is asked. */
export function redraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    // a large plan: one chart per task (see drawEach)
    if (hooks.large?.()) drawEach(() => false).catch((e) => hooks.failed?.(e));
    else if (hooks.draw) hooks.draw();
    else drawAll();
  });
}

/** The frame a chart was last drawn with. */
export function frameOf(id) {
  return frames.get(id) ?? null;
}

/** The item under the pointer of `event` on its chart, with the chart and the pointer in CSS pixels. */
function pointed(event) {
  const chart = charts.get(event.currentTarget.id);
  const frame = frames.get(event.currentTarget.id);
  if (!chart || !frame) return null;
  const box = chart.canvas.getBoundingClientRect();
  const x = event.clientX - box.left;
  const y = event.clientY - box.top;
  return { chart, frame, x, y, item: chart.hit(frame, x, y) };
}

/** Shows the tooltip of the item under the pointer, or hides it. */
function onHover(event) {
  if (drag?.moved) return;
  const at = pointed(event);
  if (!at) return;
  const { chart, item } = at;
  if (item === null || item === undefined) {
    chart.tip.hidden = true;
    return;
  }
  chart.tip.replaceChildren(...chart.describe(item));
  chart.tip.hidden = false;
  const box = chart.wrap.getBoundingClientRect();
  placeTooltip(chart.tip, chart.wrap, event.clientX - box.left, event.clientY - box.top);
}

/** Selects the item under the pointer (or clears the selection), unless the mouse dragged. */
function onClick(event) {
  if (drag?.moved) {
    drag = null;
    return;
  }
  drag = null;
  const at = pointed(event);
  if (!at || !at.chart.idOf) return;
  const id = at.item === null || at.item === undefined ? null : at.chart.idOf(at.item);
  hooks.select(id === hooks.highlight() ? null : id);
}

/** Zooms the chart's group around the pointer. */
function onWheel(event) {
  const at = pointed(event);
  const fraction = at && plotFraction(at.frame, at.x, at.y);
  if (!fraction) return;
  event.preventDefault();
  const factor = Math.exp(Math.max(-200, Math.min(200, event.deltaY)) * 0.002);
  zoom[at.chart.group] = zoomAt(zoom[at.chart.group], fraction.u, fraction.v, factor, at.chart.zoomY);
  at.chart.tip.hidden = true;
  hooks.changed();
  redraw();
}

function onDown(event) {
  if (event.button !== 0) return;
  const at = pointed(event);
  if (!at) return;
  drag = { chart: at.chart, frame: at.frame, x: event.clientX, y: event.clientY, start: zoom[at.chart.group], moved: false };
}

/** Pans the dragged chart's group by the distance the mouse moved. */
function onMove(event) {
  if (!drag || (event.buttons & 1) === 0) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 4) return;
  drag.moved = true;
  drag.chart.tip.hidden = true;
  const du = -dx / drag.frame.width;
  const dv = dy / drag.frame.height;
  zoom[drag.chart.group] = pan(drag.start, du, dv, drag.chart.zoomY);
  hooks.changed();
  redraw();
}

/** Keys on a focused chart: + and − zoom, arrows pan, 0 resets. */
function onKey(event) {
  const chart = charts.get(event.currentTarget.id);
  if (!chart) return;
  const w = zoom[chart.group];
  const moves = {
    '+': () => zoomAt(w, 0.5, 0.5, 0.8, chart.zoomY),
    '=': () => zoomAt(w, 0.5, 0.5, 0.8, chart.zoomY),
    '-': () => zoomAt(w, 0.5, 0.5, 1.25, chart.zoomY),
    '_': () => zoomAt(w, 0.5, 0.5, 1.25, chart.zoomY),
    ArrowLeft: () => pan(w, -0.1, 0, false),
    ArrowRight: () => pan(w, 0.1, 0, false),
    ArrowUp: () => pan(w, 0, 0.1, chart.zoomY),
    ArrowDown: () => pan(w, 0, -0.1, chart.zoomY),
    0: () => FULL,
  };
  const move = moves[event.key];
  if (!move) return;
  event.preventDefault();
  zoom[chart.group] = move();
  hooks.changed();
  redraw();
}

function wireCanvas(canvas) {
  canvas.dataset.wired = 'true';
  canvas.addEventListener('mousemove', onHover);
  canvas.addEventListener('mouseleave', () => {
    const chart = charts.get(canvas.id);
    if (chart) chart.tip.hidden = true;
  });
  canvas.addEventListener('click', onClick);
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('mousedown', onDown);
  canvas.addEventListener('keydown', onKey);
}

/** Wires the window-wide parts of dragging. */
export function wireDragging() {
  window.addEventListener('mousemove', onMove);
  window.addEventListener('mouseup', () => {
    if (drag && !drag.moved) drag = null;
    else if (drag) setTimeout(() => { drag = null; }, 0);
  });
}

/** Sets the zoom windows from a saved copy. */
export function setWindows(saved) {
  zoom.steps = saved?.steps ?? FULL;
  zoom.cycles = saved?.cycles ?? FULL;
}
