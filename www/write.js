// The "Write a graph" panel: a graph typed in memplan's text format (one op per
// line), re-planned a moment after each keystroke; a parse error names its line and
// keeps the last good plan on show. It starts from the graph on show or from an
// exercise, and its Share link carries the text (#t=, packed like #g=).

import { EXERCISES } from './teach-exercises.js';
import { LINK_LIMIT, packGraph } from './share.js';

const $ = (id) => document.getElementById(id);
const panel = $('write');
const textBox = $('write-text');
const startSelect = $('write-start');
const status = $('write-status');
const lineBox = $('write-line');
const PAUSE_MS = 300;

/** A graph to start from when the one on show cannot be written as text. */
const STARTER = `# A residual block: one op per line, NAME [TYPE]: INPUTS -> OUTPUTS
graph residual
input x 32MiB
output y 32MiB
conv1 Conv: x -> a=32MiB
relu Relu: a -> b=32MiB
conv2 Conv: b -> c=32MiB
add Add: c x -> y
`;

let hooks = null;
let timer = null;
let typedToken = 0;

/**
 * Wires the panel. `next`: `open(blob, name, origin, failed, options)` opens a file
 * as the page does (calling `failed(error)` instead of showing an error; `options`
 * null for the controls' own), `text()` answers
 * the graph on show as text (rejects when it cannot be written so), `example(id)`
 * opens an exercise.
 */
export function setup(next) {
  hooks = next;
  startSelect.replaceChildren(new Option('the graph on show', ''), new Option('a residual block', 'starter'),
    ...EXERCISES.map((ex) => new Option(`exercise: ${ex.title}`, ex.id)));
  $('write-open').addEventListener('click', () => (panel.hidden ? openFromShow() : close()));
  $('write-close').addEventListener('click', close);
  textBox.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => plan(textBox.value), PAUSE_MS);
  });
  startSelect.addEventListener('change', async () => {
    const choice = startSelect.value;
    startSelect.value = '';
    if (choice === 'starter') return show(STARTER);
    if (choice !== '') await hooks.example(choice);
    await openFromShow();
  });
}

/** Whether the panel is open. */
export function isOpen() {
  return !panel.hidden;
}

/** Opens the panel with the graph on show as text (or the starter graph when it has none), and plans it. */
async function openFromShow() {
  let text;
  try {
    text = await hooks.text();
  } catch (e) {
    show(STARTER, `The graph on show cannot be written as text (${e.message}); here is a small one to start from.`);
    return;
  }
  show(text);
}

/** Opens the panel with `text` and plans it (with `options`, from a link, else the controls'); `note` is said first. Resolves to whether it planned. */
export function show(text, note = '', options = null) {
  panel.hidden = false;
  $('write-open').setAttribute('aria-expanded', 'true');
  textBox.value = text;
  return plan(text, note, options);
}

function close() {
  panel.hidden = true;
  $('write-open').setAttribute('aria-expanded', 'false');
  clearTimeout(timer);
}

/** Plans `text`: the page shows its graph when it reads, else the panel names the line at fault. */
async function plan(text, note = '', options = null) {
  const token = ++typedToken;
  status.textContent = 'Planning…';
  status.className = 'write-status';
  const packed = await packGraph(text);
  if (token !== typedToken) return false;
  const fits = packed.length <= LINK_LIMIT;
  const origin = { label: 'written in this page', link: fits ? { t: packed } : null, typed: true };
  let error = null;
  const opened = await hooks.open(new Blob([text]), 'typed', origin, (e) => { error = e; }, options);
  if (token !== typedToken) return opened;
  if (!opened) {
    showError(text, error);
    return false;
  }
  textBox.setAttribute('aria-invalid', 'false');
  lineBox.hidden = true;
  const long = fits ? '' : ` The text packs to ${packed.length.toLocaleString('en-US')} characters, more than a link carries (${LINK_LIMIT.toLocaleString('en-US')}): use Download demo to share it.`;
  status.textContent = `${note ? `${note} ` : ''}Planned.${long}`;
  status.className = 'write-status';
  return true;
}

/** Says what is wrong with `text` and shows the line it names. */
function showError(text, error) {
  if (!error) return; // cancelled
  textBox.setAttribute('aria-invalid', 'true');
  status.textContent = `Not planned: ${error.message}. The plan on show is the last one that read.`;
  status.className = 'write-status bad';
  const n = Number(/\bline (\d+)/.exec(error.message)?.[1] ?? 0);
  const line = text.split('\n')[n - 1];
  lineBox.hidden = !n || line === undefined;
  if (!lineBox.hidden) lineBox.textContent = `${n} │ ${line}`;
}
