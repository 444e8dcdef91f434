// The page: has the planning worker read a graph or an NPU case and plan it, draws
// the charts of its reports, and keeps the view in the URL.

import * as ui from './ui.js';
import * as planner from './planner.js';
import * as graph from './graph.js';
import * as npu from './npu.js';
import * as charts from './charts.js';
import { packedProfile } from './render.js';
import * as teach from './teach.js';
import { FIRST, GALLERY, example } from './gallery.js';
import { readGraph, readText, readView, unpackGraph, viewUrl } from './share.js';
import * as write from './write.js';
import { demoView } from './bundle.js';
import { showBodies, showShapeForm } from './file-panels.js';
import * as sharing from './sharing.js';
import * as snapshotView from './snapshot.js';
import * as replayView from './replay.js';

const $ = (id) => document.getElementById(id);
const galleryBox = $('gallery');
const strategySelect = $('strategy');
const compareSelect = $('compare');
const alignInput = $('align');
const budgetInput = $('budget');
const clockBox = $('wall-clock');
const capacityInput = $('capacity');
const colourSelect = $('colour-by');
const strategyAbout = $('strategy-about');
const problemSelect = $('problem');
const methodSelect = $('method');
const npuCompareSelect = $('npu-compare');
const capacityBox = $('capacities');
const fileInput = $('file');
const resetButton = $('reset-zoom');
const errorBox = $('error');
const graphKind = $('graph-kind');
const graphName = $('graph-name');
const graphSource = $('graph-source');
const dropZone = $('drop');
const modeParts = {
  graph: [$('graph-options'), $('graph-summary'), $('graph-view')],
  npu: [$('npu-options'), $('npu-summary'), $('npu-view')],
};

const DEFAULT_STRATEGY = 'greedy-size';
/** A PyTorch snapshot's strategy unless one is asked for: greedy-size's ties walk a growing cache forward in time and end up to 1.21x above the live peak, `auto` (greedy-size's pass and its backward twin, then the search) reaches it on every corpus snapshot. */
const SNAPSHOT_STRATEGY = 'auto';
/** A packed report above this many bytes (about 100,000 tensors) takes the page long enough to read that it lets other work in before the next. */
const LARGE_REPORT = 4 << 20;
const FORMATS_HINT = 'memplan reads ONNX and TFLite models, its own JSON and text graphs, corpus JSON graphs, MiniMalloc CSV (id,lower,upper,size), NPU cases (contest JSON with Nodes and Edges) and PyTorch memory snapshots (.pickle or .pickle.gz).';
const SNAPSHOT_HINT = 'memplan reads PyTorch memory snapshots as torch.cuda.memory._dump_snapshot writes them: a pickle of plain data (dicts, lists, numbers, strings), or that pickle gzipped. It never runs code from a pickle, so a pickle that asks to is refused.';

/** The file a standalone page holds (`{ name, blob, view }`, set by www/standalone.js), or null in the served page. */
const standalone = globalThis.memplanStandalone ?? null;
let wasm = null;
let planToken = 0;
const state = {
  mode: 'graph', drawing: null, info: null, report: null, compare: null, selected: null,
  origin: null, strategies: [], file: null,
};

/** Shows the controls, numbers and charts of `mode` (graph or npu) only. */
function setMode(mode) {
  state.mode = mode;
  for (const [name, parts] of Object.entries(modeParts)) {
    for (const part of parts) part.hidden = name !== mode;
  }
  graphKind.textContent = mode === 'npu' ? 'NPU case' : 'graph';
}

/** Has the worker read file `name` (`data`: a Blob, or bytes) and, when it can, shows it with `options` (from a link); on failure keeps the old one, and shows why (or hands the error to `failed`). The page never reads a file itself, so a model of gigabytes opens. */
async function load(data, name, origin, options = {}, failed = null) {
  let opened;
  const read = { dims: { ...(options.dims ?? {}) }, values: { ...(options.values ?? {}) } };
  try {
    const started = performance.now();
    opened = await planner.request('open', { data, name, read, entries: options.entries ?? '' });
    performance.measure('memplan:open', { start: started });
  } catch (e) {
    if (e instanceof planner.Cancelled) return false;
    // nothing shown yet (a link to a file that does not open): the header says so
    if (!state.info) graphName.textContent = 'not loaded';
    if (failed) {
      failed(e);
      return false;
    }
    if (e.kind === 'needs-shape' && typeof e.value === 'string') {
      // a data-dependent size: the form asks for an upper bound and reopens
      const asked = e.value;
      showShapeForm([], { [asked]: read.values[asked] ?? '' }, (dims, values) => load(data, name, origin, { ...options, dims, values }), read.dims);
      ui.showError(errorBox, `Could not open ${name}`, e.message, `Give an upper bound for ${asked} in the form below the numbers; memplan plans the arena for it.`);
      return false;
    }
    if (Array.isArray(e.dims) && e.dims.length) {
      // a model that does not run with its free dims as they were: the form asks for them
      showShapeForm(e.dims, read.values, (dims, values) => load(data, name, origin, { ...options, dims, values }), read.dims, { failed: true });
      ui.showError(errorBox, `Could not open ${name}`, e.message, 'Give its free input dimensions values it can run with in the form below the numbers.');
      return false;
    }
    const cycle = e.kind === 'cycle';
    const pickled = /\.(pickle|pkl|gz)$/i.test(name) || /pickle|gzip|snapshot/i.test(e.message);
    ui.showError(errorBox, `Could not open ${name}`, e.message, cycle ? 'Every op must come after the ops that produce its inputs.' : pickled ? SNAPSHOT_HINT : FORMATS_HINT);
    return false;
  }
  planner.keep({ data, name, read, entries: options.entries ?? '' });
  state.read = read;
  state.file = { data, name };
  state.tooBig = null;
  state.drawing?.free();
  const drawing = opened.mode === 'graph' ? new wasm.Drawing() : null;
  Object.assign(state, { mode: opened.mode, drawing, info: JSON.parse(opened.info), selected: null, report: null, compare: null, origin });
  Object.assign(state, { snapshot: opened.snapshot ?? null, snapshotSummary: null, replay: null, second: null, pair: [1, 0] });
  replayView.reset();
  graph.showPairs(state);
  charts.setWindows(null);
  applyOptions(state.snapshot && options.strategy === undefined ? { ...options, strategy: SNAPSHOT_STRATEGY } : options);
  setMode(state.mode);
  snapshotView.enter(state.snapshot, state.mode);
  if (state.mode === 'npu') npu.setupCase(state, options.caps);
  else {
    graph.registerCharts(state, wasm.formatSize);
    graph.applyColouring(state, colourSelect.value, wasm.paletteColour);
  }
  graphName.textContent = state.info.name;
  graphSource.textContent = origin.label;
  showBodies(state.info, focusBody);
  const reopen = (dims, values) => load(data, name, origin, { ...currentView(), dims, values });
  // a shared graph has its dims fixed in it: nothing to ask
  showShapeForm(origin.link?.g ? [] : state.info.free_dims ?? [], read.values, reopen, read.dims, { bounds: origin.link?.g ? [] : state.info.bounds ?? [] });
  markExample(origin.example ?? null);
  teach.loaded(state.mode, state.info, options, origin.example ?? null);
  ui.clearError(errorBox);
  const selected = options.select === undefined ? null : Number(options.select);
  await replan(selected);
  return true;
}

/** Shows body `index` (-1: the main graph) as the graph on show and plans it. */
async function focusBody(index) {
  try {
    const { info } = await planner.request('focus', { index });
    Object.assign(state, { info: JSON.parse(info), selected: null, report: null, compare: null });
  } catch (e) {
    if (!(e instanceof planner.Cancelled)) ui.showError(errorBox, 'Could not open that body', e.message);
    return;
  }
  charts.setWindows(null);
  graph.registerCharts(state, wasm.formatSize);
  graph.applyColouring(state, colourSelect.value, wasm.paletteColour);
  showBodies(state.info, focusBody);
  await replan(null);
}

/** Sets the option controls to what a link asks for, where it names something known. */
function applyOptions(options) {
  const set = (select, value) => {
    if (value !== undefined && [...select.options].some((o) => o.value === value)) select.value = value;
  };
  set(strategySelect, options.strategy);
  set(compareSelect, options.compare);
  set(problemSelect, options.problem);
  set(methodSelect, options.method);
  set(npuCompareSelect, options.compare);
  if (options.align !== undefined) alignInput.value = options.align;
  if (options.budget !== undefined && /^\d+$/.test(options.budget)) budgetInput.value = options.budget;
  if (options.clock !== undefined) clockBox.checked = options.clock === '1';
  if (options.capacity !== undefined) capacityInput.value = options.capacity;
  if (options.colour !== undefined) colourSelect.value = options.colour === 'op' ? 'op' : 'pool';
  showStrategyAbout();
}

/** The plan options of the controls, as the worker's `plan` takes them. */
function planOptions() {
  return { align: alignInput.value, budget_ms: budgetMs(), wall_clock: clockBox.checked, capacity: capacityInput.value };
}

/** The search budget in the input, in ms: 50 when it is not a number, at most ten minutes. */
function budgetMs() {
  const ms = Number(budgetInput.value);
  return Number.isFinite(ms) && budgetInput.value.trim() !== '' ? Math.min(600000, Math.max(0, ms)) : 50;
}

/** Plans (or solves) with the current options in the worker (the `memplan:plan` performance measure), then redraws; keeps `selected` if it still exists. A newer request or a cancel leaves the shown plan as it is. */
async function replan(selected = state.selected) {
  if (!state.info) return;
  const token = ++planToken;
  const release = planner.hold();
  try {
    const npuMode = state.mode === 'npu';
    const started = performance.now();
    // an NPU solve shows its first plan at once and each better one as it comes
    const better = (p) => {
      if (token !== planToken || !p.npu) return;
      state.selected = selected;
      p.best = showSolution({ report: p.report, millis: p.millis, compare: null });
      draw();
    };
    const result = await planner.request(npuMode ? 'solve' : 'plan', npuMode ? npu.solveArgs() : {
      strategy: strategySelect.value, compare: compareSelect.value, options: planOptions(),
    }, npuMode ? better : null);
    if (token !== planToken) return;
    performance.measure('memplan:plan', { start: started });
    state.selected = selected;
    if (npuMode) showSolution(result);
    else if (!await showPlan(result, () => token !== planToken)) return;
  } catch (e) {
    if (token !== planToken) return;
    if (e instanceof planner.Cancelled) {
      restoreControls();
      return;
    }
    if (state.mode === 'graph') (/^capacity/.test(e.message) ? capacityInput : alignInput).setAttribute('aria-invalid', 'true');
    const what = state.mode === 'npu' ? 'Could not solve with these options' : 'Could not plan with these options';
    ui.showError(errorBox, what, e.message);
    return;
  } finally {
    release();
  }
  alignInput.removeAttribute('aria-invalid');
  capacityInput.removeAttribute('aria-invalid');
  ui.clearError(errorBox);
  // a large plan's charts are drawn one per task, the page answering between them
  if (state.largePlan && state.mode !== 'npu') {
    await charts.drawEach(() => token !== planToken).catch(drawFailed);
  } else draw();
  remember();
}

/** Shows the worker's packed plan reports of the graph: the page's wasm keeps them, the rest of the page reads their summaries (without the tensors, which stay in the wasm, and the live-bytes profile, which the hover reads from the packed bytes). After each report of a large plan, and before it is drawn, the page answers what waits (a click, a key), unless `stale()` then says a newer plan came: answers whether it showed this one. */
async function showPlan({ report, compare, snapshot = null }, stale) {
  const large = report.byteLength > LARGE_REPORT;
  const breathe = async () => {
    if (!large) return true;
    await new Promise((done) => setTimeout(done, 0));
    return !stale();
  };
  // a large report: unpacked, then indexed, each in a task of its own
  const unpack = async (slot, bytes) => {
    state.drawing.setPacked(slot, bytes);
    if (slot === 0) state.profile = packedProfile(bytes);
    if (!await breathe()) return false;
    if (large) state.drawing.index(slot);
    return breathe();
  };
  if (!await unpack(0, report)) return false;
  if (compare) {
    if (!await unpack(1, compare)) return false;
  } else state.drawing.clear(1);
  state.largePlan = large;
  const summary = (slot) => JSON.parse(state.drawing.summary(slot));
  const main = summary(0);
  // a snapshot: its summary, and room on the live-bytes chart for the reserved curve
  state.snapshotSummary = snapshot ? JSON.parse(snapshot) : null;
  setCeiling();
  graph.show(state, main, compare ? summary(1) : null, wasm.formatSize);
  if (state.snapshotSummary) snapshotView.showSummary(state.snapshotSummary, main, wasm.formatSize);
  teach.planned(main.handle, state.drawing);
  return breathe();
}

/** Makes the live-bytes chart's axis reach the snapshot's reserved peak, its failed request and a replay's peak. */
function setCeiling() {
  const s = state.snapshot && state.snapshotSummary;
  const ceiling = s ? Math.max(snapshotView.liveCeiling(s), state.replay?.replay.reserved_peak ?? 0) : 0;
  state.drawing.setLiveCeiling(ceiling);
}

/** Shows a replay of the caching allocator (from replay.js): its layout in the drawing's third slot and in the comparison beside the real one, its reserved curve over the recorded one. */
function showReplay(result) {
  if (!state.snapshot || !state.drawing) return;
  guarded('Could not show the replay', () => state.drawing.setPacked(2, result.layout));
  state.replay = { replay: result.replay, boundaries: result.boundaries, summary: JSON.parse(state.drawing.summary(2)) };
  state.second = null;
  for (const slot of [1, 2]) state.drawing.setTop(slot, 0);
  state.pair = [1, 2];
  setCeiling();
  graph.showPairs(state);
  graph.show(state, state.report, state.compare, wasm.formatSize);
  ui.clearError(errorBox);
  draw();
}

/** Shows a second snapshot beside the first (from replay.js): its real layout in the drawing's third slot, beside the first's on one address scale. */
function showSecond(result) {
  if (!state.snapshot || !state.drawing) return;
  guarded('Could not show the second snapshot', () => state.drawing.setPacked(2, result.layout));
  const summary = JSON.parse(state.drawing.summary(2));
  state.second = { name: result.name, details: result.details, comparison: result.comparison, summary };
  state.replay = null;
  state.pair = [1, 2];
  // one address scale for both real layouts
  const top = Math.max(state.compare?.peak_bytes ?? 0, summary.peak_bytes);
  for (const slot of [1, 2]) state.drawing.setTop(slot, top);
  setCeiling();
  graph.showPairs(state);
  graph.show(state, state.report, state.compare, wasm.formatSize);
  ui.clearError(errorBox);
  draw();
}

/** Asks the worker what holds the memory at entry `step` of the snapshot on show and lists it. */
async function showHolders(step) {
  const s = state.snapshotSummary;
  if (!s || step === null) return;
  try {
    const holders = JSON.parse(await planner.request('holders', { step }));
    if (state.snapshotSummary === s) snapshotView.showHolders(holders, step, s, wasm.formatSize);
  } catch (e) {
    ui.showError(errorBox, 'Could not list what holds the memory', e.message);
  }
}

/** Shows the worker's NPU solution (JSON text) and the comparison's summary; answers the figure it is judged by, in words. */
function showSolution({ report, millis, compare }) {
  const drawing = new wasm.NpuDrawing(report);
  state.drawing?.free();
  state.drawing = drawing;
  const parsed = JSON.parse(report);
  npu.show(state, parsed, compare, millis);
  return npu.figure(parsed.view);
}

/** Sets the option controls back to the plan on show, after a cancel. */
function restoreControls() {
  if (state.mode === 'graph' && state.report) {
    strategySelect.value = state.report.strategy;
    compareSelect.value = state.compare?.strategy ?? '';
    showStrategyAbout();
  } else if (state.mode === 'npu' && state.report) {
    problemSelect.value = `${state.report.view.problem}`;
    methodSelect.value = state.report.view.method;
    npuCompareSelect.value = state.compare?.method ?? '';
  }
  remember();
}

/** Draws every chart; a drawing error is shown, not thrown. */
function draw() {
  if (!state.report) return;
  guarded('Could not draw the charts', () => charts.drawAll());
}

/** Shows the error (or panic) `e` of a drawing that ran apart from {@link draw}, as {@link draw} shows its own. */
function drawFailed(e) {
  guarded('Could not draw the charts', () => { throw e; });
}

/** Runs `run`, which calls into the page's wasm; an error or a panic (a bug) is shown under `title`, not thrown. */
function guarded(title, run) {
  try {
    run();
  } catch (e) {
    const panic = e instanceof WebAssembly.RuntimeError;
    const detail = panic ? `the page's planner hit a bug: ${wasm.takePanic() ?? e.message}` : e.message;
    ui.showError(errorBox, title, detail, panic ? 'The page keeps working; please report the file that caused it.' : undefined);
  }
}

/** Selects tensor or buffer `id` (null for none) in every chart. */
function select(id) {
  state.selected = id;
  if (state.mode === 'npu') npu.showSelection(state);
  else graph.showSelection(state, wasm.formatSize);
  charts.redraw();
  remember();
}

/** The view as a link can carry it. */
function currentView() {
  const view = { ...state.origin?.link };
  if (state.mode === 'npu') {
    Object.assign(view, { problem: problemSelect.value, method: methodSelect.value, compare: npuCompareSelect.value });
    const caps = {};
    for (const [k, level] of state.info.levels.entries()) {
      const input = capacityBox.querySelectorAll('input')[k];
      if (input && input.value.trim() !== `${level.capacity}`) caps[level.name] = input.value.trim();
    }
    if (Object.keys(caps).length) view.caps = caps;
  } else {
    Object.assign(view, { strategy: strategySelect.value, compare: compareSelect.value });
    if (alignInput.value.trim() !== '1') view.align = alignInput.value.trim();
    if (budgetMs() !== 50) view.budget = `${budgetMs()}`;
    if (clockBox.checked) view.clock = '1';
    if (capacityInput.value.trim() !== '') view.capacity = capacityInput.value.trim();
    if (colourSelect.value === 'op') view.colour = 'op';
  }
  Object.assign(view, teach.viewParams());
  if (state.selected !== null) view.select = state.selected;
  if (state.mode === 'graph' && state.read) {
    if (Object.keys(state.read.dims).length) view.dims = { ...state.read.dims };
    if (Object.keys(state.read.values).length) view.values = { ...state.read.values };
  }
  return view;
}

/** The options a typed graph is planned with: the controls', without a selection (the ids change as one types). */
function typedOptions() {
  const view = currentView();
  delete view.select;
  return view;
}

/** Keeps the address bar on the current view, so that reloading or copying it reopens it. */
function remember() {
  if (!state.origin?.link) return;
  try {
    history.replaceState(null, '', viewUrl(location.href, currentView()));
  } catch {
    // a page whose address cannot change (an iframe's srcdoc, a data: URL): the view stays as it is
  }
  sharing.refresh();
}

/** Reads a dropped or picked file into a new session. */
async function openFile(file) {
  if (!file) return;
  const release = planner.hold();
  try {
    await load(file, file.name, { label: 'opened from this computer', link: null });
  } catch (e) {
    ui.showError(errorBox, `Could not read ${file.name}`, e.message);
  } finally {
    release();
  }
}

/** Fetches `url` (relative to the page) and loads it as `origin`; explains a failure in words. */
async function openUrl(url, origin, options = {}) {
  const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || 'graph');
  const release = planner.hold();
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
    await load(await response.blob(), name, origin, options);
  } catch (e) {
    const entry = origin.example ? example(origin.example) : null;
    if (entry) {
      ui.showError(errorBox, `Could not load the example “${entry.title}”`, `${entry.url}: ${e.message}`,
        'Gallery copies of corpus files are made by ./build.sh when ../shared/corpus is present; the committed examples always work.');
    } else {
      ui.showError(errorBox, `Could not fetch ${url}`, e.message);
    }
  } finally {
    release();
  }
}

/** Opens gallery entry `id` with `options`. */
function openExample(id, options = {}) {
  const entry = example(id);
  if (!entry) {
    ui.showError(errorBox, 'No such example', `there is no example called “${id}”`, `The gallery has: ${GALLERY.map((e) => e.id).join(', ')}.`);
    return Promise.resolve();
  }
  return openUrl(entry.url, { label: entry.url, example: id, link: { example: id } }, options);
}

/** Marks the gallery button of example `id` as the one on show. */
function markExample(id) {
  for (const button of galleryBox.querySelectorAll('button')) {
    button.setAttribute('aria-pressed', `${button.dataset.example === id}`);
  }
}

function wireDrop() {
  const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (dropZone.hidden) planner.expectFile();
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

/** In a standalone file, hides what needs the page's server: the gallery and the exercises (files beside the page), Share (a link to a file on this computer) and Download demo (the page's files). */
function hideServerParts() {
  for (const part of [galleryBox.closest('nav'), $('learn-exercises').closest('section'), $('share'), $('download-demo')]) part.hidden = true;
}

/** Loads the wasm module, wires the controls and opens what the URL asks for (or the first example). */
async function setup() {
  try {
    wasm = await import('./pkg/memplan_page.js');
    const exports = await wasm.default();
    planner.setup();
    planner.setSizeFormat(wasm.formatSize);
    // for the tests of the way back from a bug: panics in the worker or in the page's wasm
    window.memplanDebug = {
      panicWorker: (message) => planner.request('panic', { message }),
      panicPage: (message) => guarded('Could not draw the charts', () => wasm.panicForTests(message)),
      // wasm memory of the page and of the worker, in bytes, for the tests of big files
      memory: async () => ({ page: exports.memory.buffer.byteLength, worker: await planner.request('memory', {}) }),
      // draws every chart now, the time-by-address boxes painted by visiting every tensor
      // when `full` (the reference the fast painter must match pixel for pixel)
      drawNow: (full) => {
        state.drawing?.setFullPaint?.(Boolean(full));
        try {
          draw();
        } finally {
          state.drawing?.setFullPaint?.(false);
        }
      },
      // whether the last time-by-address draw of the main plan shifted the pixels of an
      // earlier one (a pan, or a zoom back to a scale drawn before) rather than paint all
      reusedPixels: () => state.drawing?.reusedPixels?.(0) ?? false,
    };
  } catch (e) {
    graphName.textContent = 'not loaded';
    ui.showError(errorBox, 'The planner could not start', e.message, 'Build it with ./build.sh, then reload.');
    return;
  }
  state.strategies = wasm.strategies();
  ui.fillStrategies(strategySelect, state.strategies, DEFAULT_STRATEGY);
  compareSelect.replaceChildren(new Option('none', ''), ...state.strategies.map(({ name }) => new Option(name, name)));
  galleryBox.replaceChildren(...ui.galleryButtons(GALLERY));
  showStrategyAbout();
  charts.configure({
    select, highlight: () => state.selected, changed: () => {}, draw,
    large: () => Boolean(state.largePlan && state.report && state.mode !== 'npu'),
    failed: drawFailed,
  });
  charts.wireDragging();
  write.setup({
    open: (blob, name, origin, failed, options) => load(blob, name, origin, options ?? typedOptions(), failed),
    text: async () => {
      if (state.mode !== 'graph') throw new Error('an NPU case is not a graph of tensors');
      return planner.request('exportText', {});
    },
    example: (id) => openExample(id, { ...(example(id)?.options ?? {}) }),
  });
  sharing.setup({ state, currentView, remember });
  teach.setup({
    request: planner.request, LessonDrawing: wasm.LessonDrawing, size: wasm.formatSize, openExample, remember,
    showError: (title, detail) => ui.showError(errorBox, title, detail),
  });

  strategySelect.addEventListener('change', () => { showStrategyAbout(); replan(); });
  compareSelect.addEventListener('change', () => replan());
  alignInput.addEventListener('input', () => replan());
  budgetInput.addEventListener('change', () => replan());
  clockBox.addEventListener('change', () => replan());
  capacityInput.addEventListener('change', () => replan());
  $('snap-step').addEventListener('change', () => showHolders(snapshotView.chosenStep(state.snapshotSummary)));
  // a part of the trace: the file read again, only those entries kept
  $('snap-part').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!state.snapshot || !state.file) return;
    const { data, name } = state.file;
    load(data, name, state.origin, { ...currentView(), entries: $('snap-entries').value.trim() });
  });
  replayView.register({
    request: planner.request,
    shown: showReplay,
    compared: showSecond,
    failed: (title, detail) => ui.showError(errorBox, title, detail),
    formatSize: wasm.formatSize,
  });
  $('snap-pair').addEventListener('change', (e) => {
    state.pair = e.target.value.split(',').map(Number);
    graph.show(state, state.report, state.compare, wasm.formatSize);
    draw();
  });
  $('snap-peak').addEventListener('click', () => showHolders(state.snapshotSummary?.live_peak_step ?? null));
  colourSelect.addEventListener('change', () => {
    graph.applyColouring(state, colourSelect.value, wasm.paletteColour);
    charts.redraw();
    remember();
  });
  for (const control of [problemSelect, methodSelect, npuCompareSelect]) control.addEventListener('change', () => replan());
  capacityBox.addEventListener('input', ui.debounced(() => replan(), 250));
  galleryBox.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-example]');
    if (button) openExample(button.dataset.example);
  });
  // the picker is open: most files opened are models, so their reader is fetched meanwhile
  fileInput.addEventListener('click', () => planner.expectFile());
  fileInput.addEventListener('change', async () => {
    await openFile(fileInput.files[0]);
    fileInput.value = '';
  });
  resetButton.addEventListener('click', charts.resetZoom);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.selected !== null) select(null);
  });
  wireDrop();
  // a large plan is redrawn only when a chart's size changed (see redrawIfResized)
  new ResizeObserver(() => (state.largePlan ? charts.redrawIfResized() : charts.redraw())).observe(document.querySelector('main'));

  if (standalone) {
    // one self-contained file (www/standalone.js): its own file, with the view it was written with
    hideServerParts();
    await load(standalone.blob, standalone.name, { label: 'inlined in this file', link: null }, readView(`?${standalone.view}`));
    document.body.dataset.ready = 'true';
    return;
  }
  // a demo bundle opens its own graph and view when the address names none
  const first = location.search === '' && location.hash === '' ? demoView(document) : null;
  const options = readView(first ?? location.search);
  const carried = readGraph(location.hash);
  const typed = readText(location.hash);
  if (typed) {
    let text = null;
    try {
      text = await unpackGraph(typed);
    } catch {
      // a damaged link: said below
    }
    if (text === null) {
      await openExample(FIRST, {});
      ui.showError(errorBox, 'Could not read the text this link carries', 'The part of the link after #t= is damaged or cut short (chat tools cut long links); the example is shown instead.');
    } else if (!await write.show(text, '', options)) {
      // the panel says what is wrong with the text; the page shows the example meanwhile
      await openExample(FIRST, {});
    }
  } else if (carried) {
    let opened = false;
    try {
      const text = await unpackGraph(carried);
      opened = await load(new Blob([text]), 'shared.json', { label: 'a shared link', link: { g: carried } }, options);
    } catch {
      // a damaged link: said below
    }
    if (!opened) {
      await openExample(FIRST, {});
      ui.showError(errorBox, 'Could not open the graph this link carries', 'The part of the link after #g= is damaged or cut short (chat tools cut long links); the example is shown instead.');
    }
  } else if (options.src) {
    await openUrl(options.src, { label: options.src, link: { src: options.src } }, options);
  } else {
    await openExample(options.example ?? FIRST, options);
  }
  document.body.dataset.ready = 'true';
}

setup();
