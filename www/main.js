// The page: loads a graph into a wasm session, plans it and draws the charts.

import * as ui from './ui.js';
import { dataAt, drawCharts, liveAt, tensorAt } from './render.js';

const $ = (id) => document.getElementById(id);
const strategySelect = $('strategy');
const alignInput = $('align');
const strategyAbout = $('strategy-about');
const fileInput = $('file');
const downloadButton = $('download-svg');
const errorBox = $('error');
const graphName = $('graph-name');
const graphSource = $('graph-source');
const timeCanvas = $('time-address');
const timeWrap = $('time-address-wrap');
const liveCanvas = $('live-bytes');
const liveWrap = $('live-bytes-wrap');
const liveTooltip = $('live-tooltip');
const tooltip = $('tooltip');
const selection = $('selection');
const dropZone = $('drop');
const summary = {
  tensors: $('sum-tensors'),
  naive: $('sum-naive'),
  lowerBound: $('sum-lower-bound'),
  peak: $('sum-peak'),
  ratio: $('sum-ratio'),
  pools: $('sum-pools'),
  valid: $('sum-valid'),
  violations: $('violations'),
};

const EXAMPLE = 'examples/transformer_layer.json';
const DEFAULT_STRATEGY = 'greedy-size';
const FORMATS_HINT = 'memplan reads its own JSON graphs, corpus JSON graphs and MiniMalloc CSV (id,lower,upper,size).';

let wasm = null;
const state = { session: null, info: null, report: null, frames: null, selected: null, strategies: [] };

/** Replaces the session with one read from `bytes`; on failure keeps the old one. */
function load(bytes, name, source) {
  let session;
  try {
    session = new wasm.Session(bytes, name);
  } catch (e) {
    const cycle = /cycle/.test(e.message);
    ui.showError(errorBox, `Could not open ${name}`, e.message, cycle ? 'Every op must come after the ops that produce its inputs.' : FORMATS_HINT);
    return false;
  }
  state.session?.free();
  Object.assign(state, { session, info: session.info(), selected: null, report: null });
  graphName.textContent = state.info.name;
  graphSource.textContent = source;
  ui.clearError(errorBox);
  replan();
  return true;
}

/** Plans the session with the chosen strategy and alignment and redraws. */
function replan() {
  if (!state.session) return;
  try {
    state.report = state.session.plan(strategySelect.value, alignInput.value);
  } catch (e) {
    alignInput.setAttribute('aria-invalid', 'true');
    ui.showError(errorBox, 'Could not plan with these options', e.message);
    return;
  }
  alignInput.removeAttribute('aria-invalid');
  ui.clearError(errorBox);
  ui.showSummary(summary, state.report, state.info, wasm.formatSize);
  showSelection();
  draw();
}

/** Redraws both charts at the canvases' current size. */
function draw() {
  if (!state.report) return;
  state.frames = drawCharts(state.session, timeCanvas, liveCanvas, state.selected);
}

/** The placed tensor with id `id` in the current plan. */
function placed(id) {
  return state.report?.plan.tensors.find((t) => t.id === id) ?? null;
}

/** Shows the selected tensor's details under the chart. */
function showSelection() {
  const t = state.selected === null ? null : placed(state.selected);
  selection.hidden = t === null;
  if (t) selection.replaceChildren(...ui.tensorDetails(t, state.info, wasm.formatSize));
}

/** The tensor under a pointer event on the time-by-address chart. */
function hit(event) {
  if (!state.frames) return null;
  const box = timeCanvas.getBoundingClientRect();
  return tensorAt(state.frames.time, state.report.plan.tensors, event.clientX - box.left, event.clientY - box.top);
}

function onHover(event) {
  const t = hit(event);
  if (!t) {
    tooltip.hidden = true;
    return;
  }
  tooltip.replaceChildren(...ui.tensorDetails(t, state.info, wasm.formatSize));
  tooltip.hidden = false;
  const box = timeWrap.getBoundingClientRect();
  ui.placeTooltip(tooltip, timeWrap, event.clientX - box.left, event.clientY - box.top);
}

function onLiveHover(event) {
  const box = liveCanvas.getBoundingClientRect();
  const at = state.frames && dataAt(state.frames.live, event.clientX - box.left, event.clientY - box.top);
  const step = at ? Math.floor(at.step) : -1;
  if (step < 0 || step >= state.report.plan.steps) {
    liveTooltip.hidden = true;
    return;
  }
  const bytes = liveAt(state.report.profile, step);
  liveTooltip.replaceChildren(...ui.stepDetails(step, bytes, state.report.plan.lower_bound, wasm.formatSize));
  liveTooltip.hidden = false;
  const wrap = liveWrap.getBoundingClientRect();
  ui.placeTooltip(liveTooltip, liveWrap, event.clientX - wrap.left, event.clientY - wrap.top);
}

/** Selects tensor `id` (null for none): outlines it and shows its details. */
function select(id) {
  state.selected = id;
  showSelection();
  draw();
}

function onClick(event) {
  const t = hit(event);
  select(t && t.id !== state.selected ? t.id : null);
}

/** Reads a dropped or picked file into a new session. */
async function openFile(file) {
  if (!file) return;
  document.body.dataset.busy = 'true';
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    load(bytes, file.name, 'opened from this computer');
  } catch (e) {
    ui.showError(errorBox, `Could not read ${file.name}`, e.message);
  } finally {
    delete document.body.dataset.busy;
  }
}

/** Fetches a graph from `url` (relative to the page) and loads it. */
async function openUrl(url, source) {
  const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || 'graph');
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
    load(new Uint8Array(await response.arrayBuffer()), name, source ?? url);
  } catch (e) {
    ui.showError(errorBox, `Could not fetch ${url}`, e.message);
  }
}

function downloadSvg() {
  if (!state.report) return;
  const blob = new Blob([state.session.svg()], { type: 'image/svg+xml' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `${state.info.name}-${state.report.plan.strategy}.svg`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function wireDrop() {
  const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dropZone.hidden = false;
  });
  window.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) dropZone.hidden = true;
  });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dropZone.hidden = true;
    openFile(e.dataTransfer.files[0]);
  });
}

function showStrategyAbout() {
  const s = state.strategies.find((s) => s.name === strategySelect.value);
  strategyAbout.textContent = s ? s.about : '';
}

/** Loads the wasm module, wires the controls and opens the first graph. */
async function setup() {
  try {
    wasm = await import('./pkg/memplan.js');
    await wasm.default();
  } catch (e) {
    graphName.textContent = 'not loaded';
    ui.showError(errorBox, 'The planner could not start', e.message, 'Build it with ./build.sh, then reload.');
    return;
  }
  state.strategies = wasm.strategies();
  ui.fillStrategies(strategySelect, state.strategies, DEFAULT_STRATEGY);
  showStrategyAbout();
  strategySelect.addEventListener('change', () => {
    showStrategyAbout();
    replan();
  });
  alignInput.addEventListener('input', replan);
  fileInput.addEventListener('change', async () => {
    await openFile(fileInput.files[0]);
    fileInput.value = '';
  });
  downloadButton.addEventListener('click', downloadSvg);
  timeCanvas.addEventListener('mousemove', onHover);
  timeCanvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  timeCanvas.addEventListener('click', onClick);
  liveCanvas.addEventListener('mousemove', onLiveHover);
  liveCanvas.addEventListener('mouseleave', () => { liveTooltip.hidden = true; });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.selected !== null) select(null);
  });
  wireDrop();
  let pending = false;
  new ResizeObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  }).observe(timeWrap);
  const src = new URLSearchParams(location.search).get('src');
  await (src ? openUrl(src) : openUrl(EXAMPLE, 'example'));
  document.body.dataset.ready = 'true';
}

setup();
