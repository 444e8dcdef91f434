// A PyTorch memory snapshot on the page: its summary (peaks, the out-of-memory moment
// and its verdict), what holds the memory at the live peak, each block's details
// with its Python stack, and the live-bytes chart's reserved curve and marks. The
// worker reads the file; this module only writes what it answered into the page.

import { count } from './ui.js';

const $ = (id) => document.getElementById(id);
const summaryBox = $('snapshot-summary');
const panel = $('snapshot-panel');
const oomLine = $('snap-oom');
const holdersHead = $('snap-holders-head');
const holdersBody = $('snap-holders');
const stepInput = $('snap-step');
const stepNote = $('snap-step-note');
const selection = $('snapshot-selection');
const legend = $('snap-legend');
const colourSelect = $('colour-by');
/** Parts of the graph view a snapshot replaces: the generic summary, the single chart (the comparison shows both layouts) and the strategy comparison menu. */
const replaced = [$('graph-summary'), $('time-address-panel'), $('compare-field')];
/** Frames shown in a block's stack before "and N more": in the selection's details, and in a tooltip (with shortened paths). */
const FRAMES = 12;
const TIP_FRAMES = 5;

/** Shows the snapshot parts of the page when `details` (from the worker's `open`) is a snapshot's, else the graph's own parts (`mode`: the page's mode, whose summary stays as it set it). */
export function enter(details, mode) {
  const on = Boolean(details);
  if (on) document.body.dataset.snapshot = 'true';
  else delete document.body.dataset.snapshot;
  for (const part of replaced) part.hidden = on || (part.id === 'graph-summary' && mode !== 'graph');
  summaryBox.hidden = !on;
  panel.hidden = !on;
  // the colourings of blocks mean nothing for another file
  if (!on && colourings.includes(colourSelect.value)) colourSelect.value = 'pool';
  selection.hidden = true;
  if (on) showPart(details);
}

/** Says which entries of the recorded trace `details` (a snapshot's) holds: all, or a part opened by range. */
function showPart({ first, steps, recorded }) {
  const whole = first === 0 && steps === recorded;
  $('snap-part-note').textContent = whole
    ? `all ${count(recorded)} entries`
    : `entries ${count(first)}..${count(first + steps)} of ${count(recorded)}`;
  $('snap-entries').value = whole ? '' : `${first}..${first + steps}`;
  $('snap-entries').placeholder = `all: 0..${recorded}`;
}

/** Writes summary `s` (the worker's `snapshot::Summary`) of the plan `report` into the summary cards, the out-of-memory line and the holders' table. */
export function showSummary(s, report, formatSize) {
  const set = (id, text, title = '') => Object.assign($(id), { textContent: text, title });
  set('snap-live', formatSize(s.live_peak), `the most bytes allocated at once, at entry ${count(s.live_peak_step)} (torch's max_memory_allocated)`);
  set('snap-reserved', formatSize(s.reserved_peak), `the most bytes reserved from the driver at once, at entry ${count(s.reserved_peak_step)} (torch's max_memory_reserved)`);
  set('snap-unused', formatSize(s.unused_at_reserved_peak), 'reserved but not allocated at the reserved peak');
  set('snap-gap', formatSize(s.largest_gap_at_reserved_peak), 'the largest reserved address range without a block at the reserved peak: the largest request that would have fitted without reserving more');
  set('snap-plan', formatSize(s.plan_peak), `the peak of memplan's plan of the same blocks (${report.strategy})`);
  set('snap-ratio', `${s.plan_ratio.toFixed(2)}×`, "memplan's plan over the live peak: 1.00× is the least any layout needs");
  const valid = $('snap-valid');
  valid.textContent = report.valid ? 'valid' : `${report.violations.length} violations`;
  valid.className = report.valid ? 'valid' : 'invalid';
  oomLine.hidden = !s.oom;
  if (s.oom) oomLine.replaceChildren(...oomWords(s.oom, formatSize));
  stepInput.max = `${s.steps - 1}`;
  showHolders(s.holders, s.live_peak_step, s, formatSize);
}

/** The out-of-memory line: what failed, and whether a plan of the same blocks and the request fits, in words. */
function oomWords(o, formatSize) {
  const head = document.createElement('strong');
  head.textContent = `Out of memory at entry ${count(o.step)}: a request of ${formatSize(o.size)} failed`;
  const rest = document.createElement('span');
  rest.textContent = ` with ${formatSize(o.allocated)} allocated and ${formatSize(o.reserved)} reserved (${formatSize(o.device_free)} free on the device). `;
  const capacity = o.capacity === o.reserved ? `the ${formatSize(o.capacity)} reserved at the failure` : `the capacity of ${formatSize(o.capacity)}`;
  const verdict = document.createElement('span');
  verdict.className = o.fits ? 'valid' : 'invalid';
  if (o.fits) {
    verdict.textContent = `A plan of the same blocks and the request needs ${formatSize(o.plan_peak)}: it fits in ${capacity}, so the failure is fragmentation.`;
  } else if (o.needed_at_failure > o.capacity) {
    verdict.textContent = `The live bytes and the request alone need ${formatSize(o.needed_at_failure)}, more than ${capacity}: no layout fits; the program needs less memory.`;
  } else {
    verdict.textContent = `memplan's plan of the same blocks and the request needs ${formatSize(o.plan_peak)}, more than ${capacity}.`;
  }
  return [head, rest, verdict];
}

/** A table row of text cells. */
function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) tr.append(Object.assign(document.createElement('td'), { textContent: cell }));
  return tr;
}

/** The top the live-bytes chart's bytes axis must reach for the overlay of summary `s` (the reserved peak, the failed request). */
export function liveCeiling(s) {
  return Math.max(s.reserved_peak, s.oom ? s.oom.allocated + s.oom.size : 0);
}

/** Colours of the overlay: the reserved curve, the marks, a failure. */
const RESERVED = 'rgb(242, 142, 43)';
const INK = 'rgb(40, 44, 52)';
const ALERT = 'rgb(200, 40, 40)';
const REPLAYED = 'rgb(118, 78, 160)';

/** The pixel of (step, bytes) on a chart drawn in `frame` (CSS pixels). */
function pixel(frame, step, bytes) {
  return [
    frame.left + ((step - frame.x_min) / (frame.x_max - frame.x_min)) * frame.width,
    frame.top + ((frame.y_max - bytes) / (frame.y_max - frame.y_min)) * frame.height,
  ];
}

/** Runs `paint(ctx)` on `canvas` in CSS pixels (`scale` device pixels each), clipped to `frame`'s plot. */
function over(canvas, scale, frame, paint) {
  const ctx = canvas.getContext('2d');
  ctx.save();
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.beginPath();
  ctx.rect(frame.left, frame.top, frame.width, frame.height);
  ctx.clip();
  paint(ctx);
  ctx.restore();
}

/** Draws `curve` (`[step, bytes]` at each change) as a step line on a chart drawn in `frame`. */
function stepLine(ctx, frame, curve) {
  ctx.beginPath();
  let last = null;
  for (const [step, bytes] of curve) {
    const [x, y] = pixel(frame, step, bytes);
    if (last === null) ctx.moveTo(x, y);
    else ctx.lineTo(x, last);
    ctx.lineTo(x, y);
    last = y;
  }
  if (last !== null) ctx.lineTo(frame.left + frame.width, last);
  ctx.stroke();
}

/** Draws over the live-bytes chart (drawn in `frame`): the bytes reserved as a step line (and a replay's, dashed, when `replay` is given), the live and reserved peaks as labelled dots, the failed request as a red line, and a key. */
export function drawLiveOverlay(canvas, scale, frame, details, s, formatSize, replay = null) {
  if (!frame) return;
  over(canvas, scale, frame, (ctx) => {
    ctx.strokeStyle = RESERVED;
    ctx.lineWidth = 2;
    stepLine(ctx, frame, details.reserved);
    if (replay) {
      ctx.strokeStyle = REPLAYED;
      ctx.setLineDash([6, 4]);
      stepLine(ctx, frame, replay.reserved);
      ctx.setLineDash([]);
    }
    const marks = [
      [s.live_peak_step, s.live_peak, `live peak ${formatSize(s.live_peak)}`, false],
      [s.reserved_peak_step, s.reserved_peak, `reserved peak ${formatSize(s.reserved_peak)}`, false],
    ];
    if (s.oom) marks.push([s.oom.step, s.oom.allocated + s.oom.size, `out of memory: ${formatSize(s.oom.size)} requested`, true]);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    marks.forEach(([step, bytes, label, alert], row) => {
      const [x, y] = pixel(frame, step + 0.5, bytes);
      ctx.fillStyle = ctx.strokeStyle = alert ? ALERT : INK;
      if (alert) {
        ctx.setLineDash([5, 5]);
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(x, frame.top);
        ctx.lineTo(x, frame.top + frame.height);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.beginPath();
      ctx.arc(x, y, 3.5, 0, 2 * Math.PI);
      ctx.fill();
      // each label on a row of its own from the top, on the side with room
      const width = ctx.measureText(label).width;
      const right = x + 6 + width < frame.left + frame.width;
      ctx.fillText(label, right ? x + 6 : x - 6 - width, frame.top + 6 + 17 * row);
    });
    const keys = [['live', 'rgb(78, 121, 167)'], ['reserved', RESERVED]];
    if (replay) keys.push([`replayed (${replay.alloc_conf === '' ? "torch's defaults" : replay.alloc_conf})`, REPLAYED]);
    let left = frame.left + 8;
    const y = frame.top + frame.height - 20;
    for (const [text, colour] of keys) {
      ctx.strokeStyle = ctx.fillStyle = colour;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(left, y + 7);
      ctx.lineTo(left + 14, y + 7);
      ctx.stroke();
      ctx.fillText(text, left + 18, y);
      left += 30 + ctx.measureText(text).width;
    }
  });
}

/** Draws a thin dashed line across a time-by-address chart (drawn in `frame`) at each byte offset of `offsets` on show: where one address range of the allocator's layout ends and the next begins. Lines closer than 3 pixels to the last one drawn are left out. */
export function drawBoundaries(canvas, scale, frame, offsets) {
  if (!frame || !offsets) return;
  over(canvas, scale, frame, (ctx) => {
    ctx.strokeStyle = 'rgba(40, 44, 52, 0.55)';
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    let last = null;
    ctx.beginPath();
    for (const offset of offsets) {
      if (offset <= frame.y_min || offset >= frame.y_max) continue;
      const y = Math.round(pixel(frame, frame.x_min, offset)[1]) + 0.5;
      if (last !== null && Math.abs(last - y) < 3) continue;
      last = y;
      ctx.moveTo(frame.left, y);
      ctx.lineTo(frame.left + frame.width, y);
    }
    ctx.stroke();
  });
}

/** Bytes reserved at `step` (the last change at or before it). */
export function reservedAt(details, step) {
  const r = details.reserved;
  let lo = 0;
  let hi = r.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (r[mid][0] <= step) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : r[lo - 1][1];
}

/** Describes block `t` (a placement of either layout: id, size, start, end, offset): size, request, address, stream, lifetime in entries and in time, and its Python stack, innermost frame first; `brief` (a tooltip) shows fewer frames, their paths shortened. */
export function blockDetails(t, details, formatSize, brief = false) {
  const id = t.id;
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = `block ${count(id)} · ${formatSize(t.size)}`;
  const entries = t.end - t.start + 1;
  const rows = [
    ['size', `${formatSize(t.size)} (${count(t.size)} B)`],
    ['requested', `${formatSize(details.requested[id])} (${count(details.requested[id])} B)`],
    ['address', `0x${details.addr[id].toString(16)}`],
    ['stream', `${details.stream[id]}`],
    ['entries', `${count(t.start)}–${count(t.end)} (${count(entries)} ${entries === 1 ? 'entry' : 'entries'})`],
    ['time', `${micros(details.startUs[id])} – ${micros(details.endUs[id])} (${micros(details.endUs[id] - details.startUs[id])})`],
  ];
  const list = document.createElement('dl');
  list.className = 'details';
  for (const [key, value] of rows) {
    list.append(Object.assign(document.createElement('dt'), { textContent: key }), Object.assign(document.createElement('dd'), { textContent: value }));
  }
  return [name, list, stackList(details, details.stack[id], brief)];
}

/** Stack `k` of the snapshot as a list of frames, innermost first; a note when the block was recorded without one. */
function stackList(details, k, brief) {
  const box = document.createElement('div');
  box.className = 'stack';
  if (k < 0) {
    box.textContent = 'no stack recorded (allocated before recording started, or without a Python frame)';
    return box;
  }
  const frames = details.stacks[k];
  const shown = brief ? TIP_FRAMES : FRAMES;
  const list = document.createElement('ol');
  for (const f of frames.slice(0, shown)) {
    const text = brief ? shortPath(details.frames[f]) : details.frames[f];
    list.append(Object.assign(document.createElement('li'), { textContent: text }));
  }
  box.append(list);
  if (frames.length > shown) box.append(Object.assign(document.createElement('div'), { className: 'more', textContent: `and ${frames.length - shown} outer frames more` }));
  return box;
}

/** Frame text `name (path:line)` with the path cut to its last two parts. */
function shortPath(frame) {
  return frame.replace(/\(([^()]*\/)?([^/()]+\/[^/()]+:\d+)\)$/, (whole, dir, tail) => (dir ? `(…/${tail})` : whole));
}

/** Describes entry `step` of the live-bytes chart of a snapshot: live and reserved bytes. */
export function stepDetails(step, live, details, formatSize) {
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = `entry ${count(step)}`;
  const line = document.createElement('div');
  line.textContent = `${formatSize(live)} live, ${formatSize(reservedAt(details, step))} reserved`;
  return [name, line];
}

/** Shows the selected block's details (or hides them): `t` is its placement, or null. */
export function showSelection(t, details, formatSize) {
  selection.hidden = t === null;
  if (t) selection.replaceChildren(...blockDetails(t, details, formatSize));
}

/** `us` microseconds for people: µs, ms or s. */
function micros(us) {
  if (Math.abs(us) < 1000) return `${Math.round(us)} µs`;
  if (Math.abs(us) < 1e6) return `${(us / 1000).toFixed(2)} ms`;
  return `${(us / 1e6).toFixed(3)} s`;
}

/** The colourings only a snapshot has (the values of the page's "Colour by"). */
export const colourings = ['frame', 'stream', 'size'];

/** How many groups a legend names; the rest share the last colour named "others". */
const LEGEND = 12;

/** A colour key per block of snapshot `details` by `by` (`frame`: the innermost frame of its stack; `stream`; `size`: its request's power of two), and the groups' names by key, the largest groups first. */
export function colourKeys(details, by) {
  const n = details.addr.length;
  const group = new Array(n);
  for (let i = 0; i < n; i += 1) {
    if (by === 'frame') group[i] = details.stack[i] < 0 ? '(no stack)' : details.frames[details.stacks[details.stack[i]][0]];
    else if (by === 'stream') group[i] = `stream ${details.stream[i]}`;
    else group[i] = sizeGroup(details.requested[i]);
  }
  const counts = new Map();
  for (const g of group) counts.set(g, (counts.get(g) ?? 0) + 1);
  const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1)).slice(0, LEGEND);
  const key = new Map(names.map((name, k) => [name, k]));
  const others = names.length < counts.size ? names.length : null;
  if (others !== null) names.push('others');
  const keys = Uint32Array.from(group, (g) => key.get(g) ?? others);
  return { keys, names };
}

/** The power-of-two size group of a request of `bytes`: `64 KiB – 128 KiB`. */
function sizeGroup(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  const p = Math.max(0, Math.floor(Math.log2(Math.max(1, bytes))));
  const at = (e) => `${2 ** (e % 10)} ${units[Math.floor(e / 10)]}`;
  return `${at(p)} – ${at(p + 1)}`;
}

/** Shows the legend of a snapshot colouring (`names` by key, in the palette's colours), or hides it for null. */
export function showLegend(names, paletteColour) {
  legend.hidden = !names;
  if (!names) return;
  legend.replaceChildren(...names.map((name, k) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = paletteColour(k);
    item.append(swatch, name);
    return item;
  }));
}

/** Shows `holders` (the worker's `snapshotHolders` at `step`) of a snapshot whose summary is `s`: what holds the memory there, by allocating frame. */
export function showHolders(holders, step, s, formatSize) {
  const held = holders.reduce((sum, h) => sum + h.bytes, 0);
  const at = step === s.live_peak_step ? `the live peak (entry ${count(step)}, ${formatSize(s.live_peak)})` : `entry ${count(step)}`;
  holdersHead.textContent = `What holds the memory at ${at}, by the innermost Python frame of each block's stack, largest first:`;
  holdersBody.replaceChildren(...holders.map((h) => row([formatSize(h.bytes), count(h.blocks), h.frame])));
  stepInput.value = `${step}`;
  stepNote.textContent = holders.length ? `${formatSize(held)} in the groups listed` : 'nothing is allocated there';
}

/** The entry the holders' field asks for, within the trace of summary `s`, or null for no number. */
export function chosenStep(s) {
  const v = Number(stepInput.value);
  return stepInput.value.trim() === '' || !Number.isFinite(v) ? null : Math.min(Math.max(0, Math.floor(v)), s.steps - 1);
}
