// The planning worker as the page sees it: requests answered by promises, the page
// marked busy while any runs, a progress note with Cancel when one takes over 100 ms,
// and a fresh worker after a cancel that reopens the page's file when next asked.

const SLOW_MS = 100;

const $ = (id) => document.getElementById(id);
const busyBox = $('busy');
const busyText = $('busy-text');
const cancelButton = $('cancel');

/** The error a request rejects with when it is cancelled. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

let worker = null;
let nextId = 1;
const pending = new Map();
let kept = null;
let reopen = false;
let holds = 0;
let slowTimer = null;
let tick = null;
let latest = null;
let started = 0;
/** What the latest request asks of the worker, for the progress note. */
let doing = 'Working';

/** The progress note's words for each request. */
const DOING = { open: 'Reading the file', plan: 'Planning', solve: 'Solving', lesson: 'Walking through the plan' };
/** How the progress note writes sizes; the page sets it. */
let formatSize = (bytes) => `${bytes} B`;

/** Sets how the progress note writes sizes. */
export function setSizeFormat(format) {
  formatSize = format;
}

/** Starts the worker and wires the Cancel button. */
export function setup() {
  start();
  cancelButton.addEventListener('click', cancel);
}

function start() {
  // a standalone file (www/standalone.js) starts the worker from the files it holds
  worker = globalThis.memplanStandalone?.startWorker() ?? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.addEventListener('message', ({ data }) => {
    if (data.progress) note(data.id, data.progress);
    else if (data.fatal) restart(data.id, new Error(data.error));
    else finish(data.id, data.ok ? { value: data.value } : { error: Object.assign(new Error(data.error), { kind: data.kind, value: data.value ?? null, dims: data.dims ?? null }) });
  });
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    for (const id of [...pending.keys()]) finish(id, { error: new Error(e.message || 'the planning worker failed') });
  });
}

/** Settles request `id` with `value` or `error`. */
function finish(id, { value, error }) {
  const request = pending.get(id);
  if (!request) return;
  pending.delete(id);
  if (error) request.reject(error);
  else request.resolve(value);
  request.release();
  if (pending.size === 0) hideProgress();
}

/** Keeps the latest progress of request `id` for the progress note. */
function note(id, progress) {
  const request = pending.get(id);
  if (!request) return;
  request.onProgress?.(progress);
  latest = progress;
  if (tick !== null) showNote();
}

/** The file a fresh worker reopens: the one the page shows (`{ data, name, read }`). */
export function keep(file) {
  kept = file;
}

/** Tells the worker a file is likely to come (one is dragged over the page, or the file picker opened), so that it fetches the model reader's module ahead, unasked-for answers and order aside. */
export function expectFile() {
  worker.postMessage({ preload: 'model' });
}

/** Sends `op` with `args` to the worker; resolves with its answer, rejects with its error or {@link Cancelled}; `onProgress` sees the request's progress notes. */
export function request(op, args, onProgress = null) {
  if (reopen && op !== 'open') {
    reopen = false;
    send('open', kept).catch(() => {});
  }
  const answer = send(op, args, onProgress);
  if (op === 'open') answer.then(() => { reopen = false; }, () => {});
  return answer;
}

function send(op, args, onProgress = null) {
  const id = nextId++;
  doing = DOING[op] ?? 'Working';
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress, release: hold() });
    worker.postMessage({ id, op, args });
    if (slowTimer === null && busyBox.hidden) slowTimer = setTimeout(showProgress, SLOW_MS);
  });
}

/** Marks the page busy until the returned function is called. */
export function hold() {
  holds += 1;
  document.body.dataset.busy = 'true';
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds === 0) delete document.body.dataset.busy;
  };
}

function showProgress() {
  slowTimer = null;
  started = performance.now() - SLOW_MS;
  showNote();
  busyBox.hidden = false;
  tick = setInterval(showNote, 100);
}

/** Writes the progress note: the time so far and, from a search, its best plan yet. */
function showNote() {
  const seconds = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (!latest) {
    busyText.textContent = `${doing}… ${seconds}`;
    return;
  }
  if (latest.npu) {
    busyText.textContent = `Solving… ${seconds}: best so far ${latest.best ?? ''} (on show; Stop keeps it)`;
    return;
  }
  const { strategy, best_peak: peak, lower_bound: bound } = latest;
  const ratio = bound > 0 ? ` (${(peak / bound).toFixed(3)}× the lower bound)` : '';
  busyText.textContent = `Planning with ${strategy}… ${seconds}: best so far ${formatSize(peak)}${ratio}`;
}

function hideProgress() {
  clearTimeout(slowTimer);
  clearInterval(tick);
  slowTimer = null;
  tick = null;
  latest = null;
  busyBox.hidden = true;
}

/** After a panic in the worker: request `id` fails with `error`, the others with a note of it, and a fresh worker reopens the page's file when next asked. */
function restart(id, error) {
  worker.terminate();
  start();
  reopen = kept !== null;
  finish(id, { error });
  for (const other of [...pending.keys()]) finish(other, { error: new Error(`the planner was restarted after a bug: ${error.message}`) });
}

/** Stops the running work: a fresh worker replaces the old one and every pending request rejects with {@link Cancelled}. */
export function cancel() {
  worker.terminate();
  start();
  reopen = kept !== null;
  for (const id of [...pending.keys()]) finish(id, { error: new Cancelled() });
  hideProgress();
}
