// Graph mode: shows the plans the worker made with the chosen strategies, draws their charts and
// the side-by-side comparison of two strategies.

import * as ui from './ui.js';
import * as snapshot from './snapshot.js';
import { register, retain } from './charts.js';
import { dataAt, liveAt } from './render.js';

const $ = (id) => document.getElementById(id);
const timeCanvas = $('time-address');
const timeWrap = $('time-address-wrap');
const tooltip = $('tooltip');
const liveCanvas = $('live-bytes');
const liveWrap = $('live-bytes-wrap');
const liveTooltip = $('live-tooltip');
const selection = $('selection');
const comparePanel = $('compare-panel');
const compareBody = $('compare-body');
const compareNote = $('compare-note');
const summary = {
  tensors: $('sum-tensors'),
  naive: $('sum-naive'),
  lowerBound: $('sum-lower-bound'),
  peak: $('sum-peak'),
  ratio: $('sum-ratio'),
  capacity: $('sum-capacity'),
  capacityStat: $('sum-capacity-stat'),
  pools: $('sum-pools'),
  valid: $('sum-valid'),
  violations: $('violations'),
};

const legend = $('colour-legend');

/** Colours the time-by-address boxes by pool or, with `by` = `op`, by the type of the op that makes each tensor (graph inputs apart), with a legend in the palette's colours; a snapshot's blocks also by allocating frame, stream or size (see `snapshot.colourKeys`). */
export function applyColouring(state, by, paletteColour) {
  if (!state.drawing || !state.info) return;
  if (state.snapshot && snapshot.colourings.includes(by)) {
    const { keys, names } = snapshot.colourKeys(state.snapshot, by);
    state.drawing.setColourKeys(keys);
    legend.hidden = true;
    snapshot.showLegend(names, paletteColour);
    return;
  }
  snapshot.showLegend(null);
  if (by !== 'op') {
    state.drawing.setColourKeys(undefined);
    legend.hidden = true;
    return;
  }
  const kinds = new Map();
  const keys = new Uint32Array(state.info.tensors);
  state.info.producer.forEach((op, id) => {
    const kind = op === null ? 'graph input' : (state.info.ops[op].kind || 'untyped op');
    if (!kinds.has(kind)) kinds.set(kind, kinds.size);
    keys[id] = kinds.get(kind);
  });
  state.drawing.setColourKeys(keys);
  legend.replaceChildren(...[...kinds].map(([kind, k]) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = paletteColour(k);
    item.append(swatch, kind);
    return item;
  }));
  legend.hidden = false;
}

/** Describes tensor `t` of a plan in a tooltip: a snapshot's block with its stack, or a graph's tensor with its ops. */
function describeTensor(state, t, formatSize, slot = 0) {
  // the second snapshot's blocks are described from its own details
  const details = slot === 2 && state.second ? state.second.details : state.snapshot;
  return state.snapshot ? snapshot.blockDetails(t, details, formatSize, true) : ui.tensorDetails(t, state.info, formatSize);
}

/** Registers the graph charts, drawn by `state.drawing`. */
export function registerCharts(state, formatSize) {
  retain((id) => id === timeCanvas.id || id === liveCanvas.id || id.startsWith('compare-'));
  register({
    canvas: timeCanvas, wrap: timeWrap, tip: tooltip, group: 'steps', zoomY: true,
    draw: (scale, highlight, window) => state.drawing.drawTimeAddress(timeCanvas, scale, highlight, window, 0),
    hit: (frame, x, y) => tensorAt(state, frame, x, y, 0),
    describe: (t) => describeTensor(state, t, formatSize),
    idOf: (t) => t.id,
  });
  register({
    canvas: liveCanvas, wrap: liveWrap, tip: liveTooltip, group: 'steps', zoomY: false,
    draw: (scale, highlight, window) => {
      const frame = state.drawing.drawLiveBytes(liveCanvas, scale, highlight, window);
      if (state.snapshot && state.snapshotSummary) snapshot.drawLiveOverlay(liveCanvas, scale, frame, state.snapshot, state.snapshotSummary, formatSize, state.replay?.replay ?? null);
      return frame;
    },
    hit: (frame, x, y) => stepAt(state, frame, x, y),
    describe: (step) => (state.snapshot
      ? snapshot.stepDetails(step, liveAt(state.profile, step), state.snapshot, formatSize)
      : ui.stepDetails(step, liveAt(state.profile, step), state.report.lower_bound, formatSize)),
  });
}

/** The tensor of plan `slot` under (x, y) of a time-by-address chart, or null: the page's wasm looks it up in its copy of the plan. */
function tensorAt(state, frame, x, y, slot) {
  const at = dataAt(frame, x, y);
  return at === null ? null : state.drawing.tensorAt(slot, at.step, at.bytes);
}

/** The step of the live-bytes chart under (x, y), or null outside the plan. */
function stepAt(state, frame, x, y) {
  const at = dataAt(frame, x, y);
  const step = at ? Math.floor(at.step) : -1;
  return step >= 0 && step < state.report.steps ? step : null;
}

/** Shows plan `report` (and `compare`, the comparison's, or null), each a report's summary without its tensors (the page's wasm holds those): the numbers, the comparison and the selection. */
export function show(state, report, compare, formatSize) {
  state.report = report;
  state.compare = compare;
  ui.showSummary(summary, report, state.info, formatSize);
  showCompare(state, formatSize);
  showSelection(state, formatSize);
}

/** Shows the selected tensor's details under the chart. */
export function showSelection(state, formatSize) {
  const t = state.selected === null || !state.report ? null : state.drawing.tensor(0, state.selected);
  if (state.snapshot) {
    snapshot.showSelection(t, state.snapshot, formatSize);
    selection.hidden = true;
    return;
  }
  selection.hidden = t === null;
  if (t) selection.replaceChildren(...ui.tensorDetails(t, state.info, formatSize));
}

/** Fills the comparison panel with both plans' numbers and charts, or hides it. */
function showCompare(state, formatSize) {
  comparePanel.hidden = state.compare === null;
  retain((id) => !id.startsWith('compare-') || state.compare !== null);
  if (state.compare === null) return;
  if (state.snapshot) {
    showLayouts(state, formatSize);
    return;
  }
  const [a, b] = [state.report, state.compare];
  const diff = b.peak_bytes - a.peak_bytes;
  compareNote.textContent = diff === 0
    ? 'Both strategies reach the same peak.'
    : `${diff > 0 ? a.strategy : b.strategy} peaks ${formatSize(Math.abs(diff))} lower.`;
  const columns = [a, b].map((report, slot) => compareColumn(state, report, slot, formatSize));
  compareBody.replaceChildren(...columns);
}

/** A snapshot's layouts, two side by side (`state.pair`, slots): where the caching allocator put each block (slot 1), memplan's plan of the same blocks (slot 0), and the allocator replayed under other settings (slot 2, once replayed). */
function showLayouts(state, formatSize) {
  const s = state.snapshotSummary;
  const r = state.replay?.replay ?? null;
  const second = state.second;
  const pair = r || second ? state.pair : [1, 0];
  const sides = {
    1: ["PyTorch's caching allocator", [
      ['reserved peak', s ? formatSize(s.reserved_peak) : '–'],
      ['live peak', s ? formatSize(s.live_peak) : '–'],
      ['segments', s ? segmentWords(s) : '–'],
    ]],
    0: [`memplan · ${state.report.strategy}`, [
      ['peak', formatSize(state.report.peak_bytes)],
      ['peak / live peak', `${state.report.ratio.toFixed(2)}×`],
      ['checker', state.report.valid ? 'valid' : `${state.report.violations.length} violations`],
    ]],
  };
  if (r) {
    sides[2] = [`replayed · ${r.alloc_conf === '' ? "torch's defaults" : r.alloc_conf}`, [
      ['reserved peak', formatSize(r.reserved_peak)],
      ['cudaMalloc calls', ui.count(r.segments)],
      ['outcome', r.oom ? `out of memory at entry ${ui.count(r.oom.entry)}` : 'finishes'],
    ]];
  }
  if (second) {
    const b = second.comparison.b;
    sides[1][0] = `A · ${sides[1][0]}`;
    sides[2] = [`B · ${second.name}`, [
      ['reserved peak', formatSize(b.reserved_peak)],
      ['live peak', formatSize(b.live_peak)],
      ['cudaMalloc calls', ui.count(b.segments)],
    ]];
  }
  const reports = { 0: state.report, 1: state.compare, 2: state.replay?.summary ?? second?.summary };
  const words = {
    0: `memplan's plan of the same blocks${s ? `, which peaks at ${formatSize(state.report.peak_bytes)} against ${formatSize(s.reserved_peak)} reserved` : ''}`,
    1: "where PyTorch's caching allocator put each block: its segments stacked in address order, a dashed line where one address range ends and the next begins",
    2: r ? `the caching allocator replayed under ${r.alloc_conf === '' ? "torch's defaults" : r.alloc_conf}, laid out the same way${r.oom ? ' (the blocks after its failure sit on top)' : ''}` : '',
  };
  if (second) {
    words[1] = 'where the caching allocator put each block of A (this snapshot), its segments stacked in address order';
    words[2] = `the same for B (${second.name}), on the same address scale`;
  }
  compareNote.textContent = `Left, ${words[pair[0]]}. Right, ${words[pair[1]]}. Zoom, pan and selection are shared.`;
  compareBody.replaceChildren(...pair.map((slot) => compareColumn(state, reports[slot], slot, formatSize, ui.compareHead(...sides[slot]))));
}

/** Shows the choice of layouts to compare once a replay exists (and sets it to `state.pair`). */
export function showPairs(state) {
  const field = $('snap-pair-field');
  field.hidden = !state.replay && !state.second;
  const select = $('snap-pair');
  const names = state.second
    ? { '1,0': 'A real · A plan', '1,2': 'A real · B real', '2,0': 'B real · A plan' }
    : { '1,0': 'real · plan', '1,2': 'real · replayed', '2,0': 'replayed · plan' };
  for (const option of select.options) option.textContent = names[option.value];
  select.value = state.pair.join(',');
}

/** A snapshot's segments in words: how many, and how many were mapped into expandable segments or belong to private pools. */
function segmentWords(s) {
  const kinds = [[s.expandable_segments, 'expandable'], [s.private_pool_segments, 'in private pools']].filter(([n]) => n > 0);
  return [ui.count(s.segments), ...kinds.map(([n, what]) => `${ui.count(n)} ${what}`)].join(', ');
}

/** One side of the comparison: the strategy's numbers (or `head`) over its own time-by-address chart. */
function compareColumn(state, report, slot, formatSize, head = null) {
  const plan = report;
  const column = document.createElement('div');
  column.className = 'compare-side';
  column.dataset.slot = `${slot}`;
  head ??= ui.compareHead(plan.strategy, [
    ['peak', formatSize(plan.peak_bytes)],
    ['peak / bound', `${report.ratio.toFixed(2)}×`],
    ['checker', report.valid ? 'valid' : `${report.violations.length} violations`],
  ]);
  const wrap = document.createElement('div');
  wrap.className = 'chart compact';
  const canvas = document.createElement('canvas');
  canvas.id = `compare-${slot}`;
  canvas.tabIndex = 0;
  canvas.setAttribute('aria-label', `Time by address with ${plan.strategy}`);
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  wrap.append(canvas, tip);
  column.append(head, wrap);
  register({
    canvas, wrap, tip, group: 'steps', zoomY: true,
    draw: (scale, highlight, window) => {
      const frame = state.drawing.drawTimeAddress(canvas, scale, highlight, window, slot);
      // the allocator's layout: where one address range ends and the next begins
      if (state.snapshot && slot === 1) snapshot.drawBoundaries(canvas, scale, frame, state.snapshot.boundaries);
      if (state.snapshot && slot === 2 && state.replay) snapshot.drawBoundaries(canvas, scale, frame, state.replay.boundaries);
      if (state.snapshot && slot === 2 && state.second) snapshot.drawBoundaries(canvas, scale, frame, state.second.details.boundaries);
      return frame;
    },
    hit: (frame, x, y) => tensorAt(state, frame, x, y, slot),
    describe: (t) => describeTensor(state, t, formatSize, slot),
    idOf: (t) => t.id,
  });
  return column;
}
