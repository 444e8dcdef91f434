// What leaves the page: the downloads (SVG, plan JSON, graph JSON, PNG of a chart),
// the Share link to the view on show (carrying a graph opened from this computer
// when it packs small enough), and the demo bundle, the zip of a static page that
// opens it.

import * as ui from './ui.js';
import * as planner from './planner.js';
import { LINK_LIMIT, packGraph, viewUrl } from './share.js';
import { demoZip } from './bundle.js';

const $ = (id) => document.getElementById(id);
const shareBox = $('share-box');
const shareLink = $('share-link');
const shareNote = $('share-note');
const errorBox = $('error');

/** The page's state, its view as a link carries it, and its address-bar keeper. */
const hooks = { state: null, currentView: () => ({}), remember: () => {} };

/** Wires the buttons to the page's `state`, `currentView()` and `remember()`. */
export function setup(next) {
  Object.assign(hooks, next);
  const state = hooks.state;
  $('download-svg').addEventListener('click', () => exporting('the SVG', () => offer(state.drawing.svg(), 'image/svg+xml', 'svg')));
  $('download-json').addEventListener('click', () => exporting('the plan', () => offer(state.drawing.json(), 'application/json', 'json')));
  $('download-graph').addEventListener('click', async () => {
    try {
      const text = await planner.request('export', {});
      const what = state.mode === 'npu' ? 'case' : 'graph';
      ui.download(new Blob([text], { type: 'application/json' }), `${ui.fileName(state.info.name)}-${what}.json`);
    } catch (e) {
      if (!(e instanceof planner.Cancelled)) ui.showError(errorBox, 'Could not export the graph', e.message);
    }
  });
  $('share').addEventListener('click', onShare);
  $('download-demo').addEventListener('click', downloadDemo);
  document.addEventListener('click', (e) => {
    const button = e.target.closest('button.png');
    if (button) downloadPng(button.dataset.canvas);
  });
}

/** Keeps the link shown (if it is) on the current view. */
export function refresh() {
  if (!shareBox.hidden) showShare();
}

/** Shows the link to the current view, selected for copying, and copies it where allowed. */
function showShare() {
  shareLink.value = viewUrl(location.href, hooks.currentView());
  shareNote.textContent = hooks.state.origin?.link?.g
    ? 'The link carries the graph itself (without weights, in the part after # that no server sees) with these options and this selection.'
    : hooks.state.origin?.link?.t
      ? 'The link carries the text you wrote (in the part after # that no server sees) with these options.'
    : hooks.state.origin?.link
      ? 'The link opens this file with these options and this selection.'
      : hooks.state.packing
        ? 'Packing the graph into the link…'
        : hooks.state.tooBig ?? 'This file was opened from your computer: the link keeps the options but opens the default example.';
  shareBox.hidden = false;
}

/** For a file opened from this computer, makes the link carry its graph when it packs small enough. */
async function carryGraph() {
  if (hooks.state.origin?.link || hooks.state.mode !== 'graph') return;
  try {
    const packed = await packGraph(await planner.request('export', {}));
    if (packed.length <= LINK_LIMIT) {
      hooks.state.origin = { ...hooks.state.origin, link: { g: packed } };
      hooks.remember();
    } else {
      hooks.state.tooBig = `This graph packs to ${packed.length.toLocaleString('en-US')} characters, more than the ${LINK_LIMIT.toLocaleString('en-US')} a link can carry safely: the link keeps the options but opens the default example; use Download demo to share it as a static page, or download its Graph JSON.`;
    }
  } catch {
    // the link then keeps the options only, and says so
  }
}

/** The Share button: shows and copies the link, then has it carry the graph where it can. */
async function onShare() {
  const carry = !hooks.state.origin?.link && hooks.state.mode === 'graph';
  hooks.state.packing = carry;
  await copyShare();
  // packing the graph waits for the worker: the box shows at once, the link follows
  if (carry) {
    carryGraph().finally(() => {
      hooks.state.packing = false;
      if (!shareBox.hidden) copyShare();
    });
  }
}

/** Shows the link, selected, and copies it where allowed. */
async function copyShare() {
  showShare();
  shareLink.select();
  try {
    await navigator.clipboard.writeText(shareLink.value);
    shareNote.textContent = `Copied. ${shareNote.textContent}`;
  } catch {
    // copying needs a permission some browsers withhold; the link is selected instead
  }
}

/** Downloads the demo bundle: this page opening the graph (or NPU case) on show with this view first. */
async function downloadDemo() {
  if (!hooks.state.info) return;
  const release = planner.hold();
  try {
    const name = hooks.state.mode === 'npu' ? 'case.json' : 'graph.json';
    const file = { name, bytes: new TextEncoder().encode(await planner.request('export', {})) };
    const view = { ...hooks.currentView(), src: `demo/${file.name}` };
    for (const key of ['g', 'example', 'dims', 'values']) delete view[key];
    const query = new URL(viewUrl(location.href, view)).search;
    const folder = `memplan-demo-${ui.fileName(hooks.state.info.name)}`;
    ui.download(await demoZip(document.baseURI, folder, file, query), `${folder}.zip`);
  } catch (e) {
    if (!(e instanceof planner.Cancelled)) ui.showError(errorBox, 'Could not make the demo', e.message);
  } finally {
    release();
  }
}

/** Offers `text` of `type` as a download named after the graph and the option shown. */
function offer(text, type, ext) {
  const option = hooks.state.mode === 'npu' ? `p${$('problem').value}-${$('method').value}` : $('strategy').value;
  ui.download(new Blob([text], { type }), `${ui.fileName(hooks.state.info.name)}-${option}.${ext}`);
}

/** Runs an export, showing its error in the page. */
function exporting(what, run) {
  if (!hooks.state.report) return;
  try {
    run();
  } catch (e) {
    ui.showError(errorBox, `Could not export ${what}`, e.message);
  }
}

/** Downloads the canvas `id` as a PNG at its device resolution. */
function downloadPng(id) {
  const canvas = $(id);
  if (!canvas || !hooks.state.report) return;
  canvas.toBlob((blob) => {
    if (!blob) {
      ui.showError(errorBox, 'Could not export the PNG', 'the browser could not encode the chart');
      return;
    }
    ui.download(blob, `${ui.fileName(hooks.state.info.name)}-${id}.png`);
  }, 'image/png');
}
