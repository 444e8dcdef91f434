// PyTorch's caching allocator replayed on the page: a settings field (free text in
// PYTORCH_CUDA_ALLOC_CONF's syntax, with presets) and a cap; a replay's figures in a
// line; a sweep of the usual settings as a table with its one-line answer. The
// worker replays; main.js puts the replayed layout in the drawing's third slot.

import { count } from './ui.js';

const $ = (id) => document.getElementById(id);
const form = $('replay-form');
const confInput = $('replay-conf');
const capInput = $('replay-capacity');
const runButton = $('replay-run');
const sweepButton = $('replay-sweep');
const line = $('replay-line');
const sweepBox = $('sweep-box');
const answer = $('sweep-answer');
const rows = $('sweep-rows');
const secondBox = $('second-box');
const secondInput = $('snap-second');

/** Forgets the last replay and sweep (a new file). */
export function reset() {
  line.hidden = true;
  sweepBox.hidden = true;
  secondBox.hidden = true;
  rows.replaceChildren();
  for (const input of [confInput, capInput]) input.removeAttribute('aria-invalid');
}

/** Wires the form: `request(op, args)` asks the worker, `shown(result)` takes a replay (`{ layout, replay, boundaries }`, the replay parsed), `compared(result)` a second snapshot (`{ layout, comparison, details, name }`, the comparison parsed), `failed(what, message)` says an error, `formatSize` writes bytes. */
export function register({ request, shown, compared, failed, formatSize }) {
  const busy = (on) => { runButton.disabled = sweepButton.disabled = on; };
  const args = () => ({ conf: confInput.value, capacity: capInput.value });
  const blame = (message) => {
    confInput.toggleAttribute('aria-invalid', /ALLOC_CONF|backend|fraction/.test(message));
    capInput.toggleAttribute('aria-invalid', /^capacity/.test(message));
  };
  const replay = async () => {
    busy(true);
    try {
      const result = await request('replay', args());
      const r = JSON.parse(result.replay);
      blame('');
      showLine(r, formatSize);
      hideSecond();
      shown({ ...result, replay: r });
    } catch (e) {
      blame(e.message);
      failed('Could not replay the allocator', e.message);
    } finally {
      busy(false);
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    replay();
  });
  secondInput.addEventListener('change', async () => {
    const file = secondInput.files?.[0];
    if (!file) return;
    busy(true);
    try {
      const result = await request('second', { data: file, name: file.name });
      const comparison = JSON.parse(result.comparison);
      showSecond(comparison, formatSize);
      compared({ ...result, comparison, name: file.name });
    } catch (e) {
      failed(`Could not compare with ${file.name}`, e.message);
    } finally {
      secondInput.value = '';
      busy(false);
    }
  });
  sweepButton.addEventListener('click', async () => {
    busy(true);
    try {
      const s = JSON.parse(await request('sweep', { capacity: capInput.value }));
      blame('');
      showSweep(s, formatSize, (conf) => {
        confInput.value = conf;
        replay();
      });
    } catch (e) {
      blame(e.message);
      failed('Could not sweep the allocator settings', e.message);
    } finally {
      busy(false);
    }
  });
}

/** A settings text for people: torch's defaults when empty. */
function label(conf) {
  return conf === '' ? "torch's defaults" : conf;
}

/** The replay's figures in one line: settings, reserved peak, unallocated then, cudaMalloc calls, the failure, and how the recorded settings' replay agrees with the recording. */
function showLine(r, formatSize) {
  const head = document.createElement('strong');
  head.textContent = `Replayed under ${label(r.alloc_conf)}${r.recorded_settings ? ' (as recorded)' : ''}${r.capacity ? ` with a cap of ${formatSize(r.capacity)}` : ''}: `;
  const figures = document.createElement('span');
  figures.textContent = `reserved peak ${formatSize(r.reserved_peak)} at entry ${count(r.peak_entry)}, ${formatSize(r.reserved_peak - r.allocated_at_peak)} of it unallocated; ${count(r.segments)} cudaMalloc calls. `;
  const outcome = document.createElement('span');
  if (r.oom) {
    outcome.className = 'invalid';
    outcome.textContent = `Out of memory at entry ${count(r.oom.entry)}: ${formatSize(r.oom.request)} requested with ${formatSize(r.oom.allocated)} allocated and ${formatSize(r.oom.reserved)} reserved. `;
  } else {
    outcome.textContent = 'The run finishes. ';
  }
  const parts = [head, figures, outcome];
  const a = r.agreement;
  if (a) {
    const agree = document.createElement('span');
    agree.className = 'muted';
    agree.textContent = `The recorded settings' replay matches the recording on ${count(a.entries_equal)} of ${count(a.entries)} entries and puts ${count(a.blocks_equal)} of ${count(a.blocks)} blocks at their recorded address.`;
    parts.push(agree);
  }
  line.replaceChildren(...parts);
  line.hidden = false;
}

/** The sweep's rows, its best marked, and its answer; clicking a row replays its settings (`pick(conf)`). */
function showSweep(s, formatSize, pick) {
  answer.textContent = `${s.answer[0].toUpperCase()}${s.answer.slice(1)}. No setting reserves less than the live peak, ${formatSize(s.live_peak)}${s.plan_peak ? `; memplan's plan of the same blocks needs ${formatSize(s.plan_peak)}` : ''}.`;
  rows.replaceChildren(...s.rows.map((r, i) => {
    const tr = document.createElement('tr');
    if (i === s.best) tr.className = 'best';
    if (r.oom) tr.classList.add('failed');
    const cells = [
      `${label(r.alloc_conf)}${i === 0 ? ' (recorded)' : ''}`,
      formatSize(r.reserved_peak),
      formatSize(r.reserved_peak - r.allocated_at_peak),
      count(r.segments),
      r.oom ? `out of memory at entry ${count(r.oom.entry)}` : 'finishes',
    ];
    for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
    tr.title = 'Replay these settings: the layout in the comparison, the reserved curve on the live bytes';
    tr.addEventListener('click', () => pick(r.alloc_conf));
    return tr;
  }));
  sweepBox.hidden = false;
}

/** Two runs side by side (the worker's comparison): their settings and figures in a table, and the allocating frames whose bytes at the live peak changed most. */
function showSecond(c, formatSize) {
  $('second-a').textContent = `A · ${c.a.name}`;
  $('second-b').textContent = `B · ${c.b.name}`;
  const oom = (o) => (o === null ? 'none' : `at entry ${count(o)}`);
  const rowsOf = [
    ['settings', c.a.settings, c.b.settings],
    ['entries', count(c.a.entries), count(c.b.entries)],
    ['live peak', formatSize(c.a.live_peak), formatSize(c.b.live_peak)],
    ['reserved peak', formatSize(c.a.reserved_peak), formatSize(c.b.reserved_peak)],
    ['unallocated at the reserved peak', formatSize(c.a.unused_at_reserved_peak), formatSize(c.b.unused_at_reserved_peak)],
    ['cudaMalloc calls', count(c.a.segments), count(c.b.segments)],
    ['out of memory', oom(c.a.oom), oom(c.b.oom)],
  ];
  $('second-rows').replaceChildren(...rowsOf.map((cells) => {
    const tr = document.createElement('tr');
    for (const cell of cells) tr.append(Object.assign(document.createElement('td'), { textContent: cell }));
    return tr;
  }));
  $('second-frames-head').textContent = c.frames.length
    ? 'The allocating frames whose bytes at the live peak changed most (B − A):'
    : 'Every allocating frame holds the same bytes at both live peaks.';
  $('second-frames').replaceChildren(...c.frames.map((f) => {
    const tr = document.createElement('tr');
    const change = `${f.change < 0 ? '−' : '+'}${formatSize(Math.abs(f.change))}`;
    for (const cell of [change, `${formatSize(f.a)} → ${formatSize(f.b)}`, f.frame]) tr.append(Object.assign(document.createElement('td'), { textContent: cell }));
    return tr;
  }));
  secondBox.hidden = false;
  line.hidden = true;
}

/** Hides the second snapshot's table (a replay took its place in the comparison). */
export function hideSecond() {
  secondBox.hidden = true;
}
