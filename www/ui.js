// Writing results into the page. Names from files are always inserted as text.

/** Fills the strategy menu with every strategy, selecting `chosen`. */
export function fillStrategies(select, list, chosen) {
  select.replaceChildren(...list.map(({ name }) => new Option(name, name, false, name === chosen)));
}

/** Shows a problem in the error box: a short title and the details. */
export function showError(box, title, detail, hint) {
  const head = document.createElement('strong');
  head.textContent = title;
  const body = document.createElement('span');
  body.textContent = capitalise(detail);
  box.replaceChildren(head, body);
  if (hint) {
    const more = document.createElement('div');
    more.className = 'hint';
    more.textContent = hint;
    box.append(more);
  }
  box.hidden = false;
}

/** Hides the error box. */
export function clearError(box) {
  box.hidden = true;
  box.replaceChildren();
}

/** Writes a plan report's numbers into the summary cards. */
export function showSummary(out, report, info, formatSize) {
  const plan = report;
  const arena = report.placed;
  out.tensors.textContent = `${arena}`;
  if (arena !== info.tensors) {
    const all = document.createElement('small');
    all.textContent = ` of ${info.tensors}`;
    out.tensors.append(all);
  }
  out.tensors.title = `${arena} tensors placed in the arena, ${info.ops.length} ops, ${plan.steps} steps`;
  out.naive.textContent = formatSize(plan.naive_bytes);
  out.lowerBound.textContent = formatSize(plan.lower_bound);
  out.peak.textContent = formatSize(plan.peak_bytes);
  out.ratio.textContent = `${report.ratio.toFixed(2)}×`;
  showCapacity(out, report, formatSize);
  out.pools.textContent = `${plan.pools}`;
  out.pools.title = `${plan.pools} pools, ${formatSize(plan.pooled_bytes)} in all`;
  out.valid.textContent = report.valid ? 'valid' : `${report.violations.length} violations`;
  out.valid.className = report.valid ? 'valid' : 'invalid';
  out.violations.replaceChildren(...report.violations.slice(0, 20).map((v) => {
    const li = document.createElement('li');
    li.textContent = v;
    return li;
  }));
  out.violations.hidden = report.valid;
}

/** Shows whether the plan fits the capacity it was asked for, and by how much it misses. */
function showCapacity(out, report, formatSize) {
  const { capacity } = report;
  const plan = report;
  out.capacityStat.hidden = capacity === null || capacity === undefined;
  if (out.capacityStat.hidden) return;
  const over = plan.peak_bytes - capacity;
  out.capacity.textContent = over <= 0 ? `fits ${formatSize(capacity)}` : `${formatSize(over)} over`;
  out.capacity.className = over <= 0 ? 'valid' : 'invalid';
  out.capacity.title = over <= 0
    ? `The plan's peak, ${formatSize(plan.peak_bytes)}, fits in ${formatSize(capacity)}.`
    : `The best plan found needs ${(plan.peak_bytes / capacity).toFixed(4)}× the capacity of ${formatSize(capacity)}.`;
}

/** Describes tensor `t` of the plan: a name line and a list of details. */
export function tensorDetails(t, info, formatSize) {
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = t.name;
  const rows = [
    ['size', formatSize(t.size)],
    ['steps', t.start === t.end ? `${t.start}` : `${t.start}–${t.end}`],
    ['offset', `${formatSize(t.offset)} – ${formatSize(t.offset + t.size)}`],
    ['pool', `${t.pool}`],
    ['producer', opLabel(info, info.producer[t.id]) ?? 'none (graph input)'],
    ['consumers', listOps(info, info.consumers[t.id] ?? [])],
  ];
  return [name, detailList(rows)];
}

/** Describes step `step` of the live-bytes curve: bytes alive and the share of the bound. */
export function stepDetails(step, bytes, lowerBound, formatSize) {
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = `step ${step}`;
  const share = lowerBound > 0 ? ` (${Math.round((100 * bytes) / lowerBound)}% of the bound)` : '';
  const line = document.createElement('div');
  line.textContent = `${formatSize(bytes)} live${share}`;
  return [name, line];
}

/** Puts the tooltip near pointer (x, y) inside `wrap`, flipping to stay inside it. */
export function placeTooltip(tip, wrap, x, y) {
  const gap = 14;
  const { width, height } = wrap.getBoundingClientRect();
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  const left = x + gap + w > width ? Math.max(0, x - gap - w) : x + gap;
  const top = y + gap + h > height ? Math.max(0, y - gap - h) : y + gap;
  tip.style.left = `${left}px`;
  tip.style.top = `${top}px`;
}

function opLabel(info, k) {
  if (k === null || k === undefined) return null;
  const op = info.ops[k];
  return op.kind ? `${op.name} (${op.kind})` : op.name;
}

function listOps(info, ks) {
  if (ks.length === 0) return 'none (graph output)';
  const shown = ks.slice(0, 5).map((k) => opLabel(info, k));
  return ks.length > 5 ? `${shown.join(', ')} and ${ks.length - 5} more` : shown.join(', ');
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `n` with thousands separators. */
export function count(n) {
  return Number(n).toLocaleString('en-US');
}

/** A `<dl>` of [key, value] rows, every value as text. */
function detailList(rows) {
  const list = document.createElement('dl');
  list.className = 'details';
  for (const [key, value] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = key;
    const dd = document.createElement('dd');
    dd.textContent = value;
    list.append(dt, dd);
  }
  return list;
}

/** A bold first line. */
function title(text) {
  const name = document.createElement('div');
  name.className = 'name';
  name.textContent = text;
  return name;
}

/** A muted line of text. */
export function note(text) {
  const p = document.createElement('p');
  p.className = 'muted note';
  p.textContent = text;
  return p;
}

/** Writes an NPU solution's numbers (and the checker's verdict) into the summary cards. */
export function showNpuSummary(out, report, info, millis) {
  const v = report.view;
  out.nodes.textContent = count(info.nodes);
  out.nodes.title = `${count(info.nodes)} nodes, ${count(info.buffers)} buffers, ${count(v.steps)} schedule steps with spills`;
  out.peak.textContent = count(v.p1_peak);
  out.spills.textContent = v.problem === 1 ? '–' : count(v.spills);
  out.movement.textContent = v.problem === 1 ? '–' : count(v.extra_movement);
  out.makespan.textContent = v.makespan === null ? '–' : count(v.makespan);
  out.time.textContent = millis < 1000 ? `${Math.max(1, Math.round(millis))} ms` : `${(millis / 1000).toFixed(2)} s`;
  out.time.title = v.recipe;
  out.valid.textContent = report.valid ? 'valid' : `${report.violation_count} violations`;
  out.valid.className = report.valid ? 'valid' : 'invalid';
  out.valid.title = 'the independent NPU checker on the contest files of this solution';
  out.violations.replaceChildren(...report.violations.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
  out.violations.hidden = report.valid;
}

/** A labelled number input for the capacity of `level`. */
export function capacityInput(level, value) {
  const label = document.createElement('label');
  label.className = 'field capacity';
  const name = document.createElement('span');
  name.textContent = level.name;
  const input = document.createElement('input');
  input.type = 'text';
  input.inputMode = 'numeric';
  input.name = level.name;
  input.id = `cap-${level.name}`;
  input.value = `${value}`;
  input.autocomplete = 'off';
  input.title = `${level.name}: ${level.buffers} buffers; the contest's capacity is ${level.capacity}`;
  label.append(name, input);
  return label;
}

/** A panel with a canvas for the time-by-address chart of level `level` (index `k`). */
export function levelPanel(level, k) {
  const panel = document.createElement('section');
  panel.className = 'panel';
  const head = document.createElement('div');
  head.className = 'panel-head';
  const h2 = document.createElement('h2');
  h2.textContent = `${level.name} · time × address`;
  const about = document.createElement('p');
  about.className = 'muted';
  about.textContent = `${level.buffers} buffers; a box per stay, red edges where a buffer spills out and back in.`;
  const png = document.createElement('button');
  png.type = 'button';
  png.className = 'button secondary small png';
  png.dataset.canvas = `level-${k}`;
  png.textContent = 'PNG';
  head.append(h2, about, png);
  const wrap = document.createElement('div');
  wrap.className = 'chart medium';
  const canvas = document.createElement('canvas');
  canvas.id = `level-${k}`;
  canvas.tabIndex = 0;
  canvas.setAttribute('aria-label', `${level.name} time by address chart`);
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  wrap.append(canvas, tip);
  panel.append(head, wrap);
  return { panel, canvas, wrap, tip };
}

/** Describes one stay of an NPU buffer in a level. */
export function residencyDetails(r, levelName) {
  return [title(`buffer ${r.buffer}`), detailList([
    ['level', levelName],
    ['size', count(r.size)],
    ['steps', `${r.start}–${r.end}`],
    ['offset', `${count(r.offset)} – ${count(r.offset + r.size)}`],
  ])];
}

/** Describes spill `k` of `level`. */
export function spillDetails(level, k) {
  const s = level.spills[k];
  return [title(`buffer ${s.buffer} spills`), detailList([
    ['level', level.name],
    ['out at step', `${s.out_step}`],
    ['back at step', `${s.in_step}`],
    ['moved', count(s.bytes)],
    ['new offset', count(s.new_offset)],
  ])];
}

/** Describes the node at schedule position `p`. */
export function nodeDetails(n, p, bufs) {
  return [title(n.op), detailList([
    ['node', `${n.id} (step ${p})`],
    ['pipe', n.pipe ?? 'none'],
    ['cycles', `${count(n.start)} – ${count(n.end)}`],
    ['buffers', bufs.length ? bufs.join(', ') : 'none'],
  ])];
}

/** Describes NPU buffer `id` over the whole solution: its stays, spills and nodes. */
export function bufferDetails(id, view, nodes) {
  const level = view.levels.find((l) => l.residencies.some((r) => r.buffer === id));
  const stays = level.residencies.filter((r) => r.buffer === id);
  const spills = level.spills.filter((s) => s.buffer === id);
  return [title(`buffer ${id}`), detailList([
    ['level', level.name],
    ['size', count(stays[0].size)],
    ['stays', stays.map((r) => `steps ${r.start}–${r.end} at ${count(r.offset)}`).join('; ')],
    ['spills', spills.length ? spills.map((s) => `out ${s.out_step}, in ${s.in_step}, ${count(s.bytes)} moved`).join('; ') : 'none'],
    ['nodes', `${nodes}`],
  ])];
}

/** The head of one side of a comparison: a name and its numbers. */
export function compareHead(name, rows) {
  const head = document.createElement('div');
  head.className = 'compare-head';
  const h3 = document.createElement('h3');
  h3.textContent = name;
  const list = document.createElement('dl');
  for (const [key, value] of rows) {
    const item = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = key;
    const dd = document.createElement('dd');
    dd.textContent = value;
    item.append(dt, dd);
    list.append(item);
  }
  head.append(h3, list);
  return head;
}

/** A gallery button for each entry. */
export function galleryButtons(entries) {
  return entries.map((entry) => exampleButton(entry, 'example'));
}

/** A button for `entry` ({id, title, about}): its title over a line about it, its id in `data-<key>`. */
export function exampleButton(entry, key) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'example';
  button.dataset[key] = entry.id;
  const name = document.createElement('strong');
  name.textContent = entry.title;
  const kind = document.createElement('span');
  kind.textContent = entry.about;
  button.append(name, kind);
  return button;
}

/** Offers `blob` as a download called `name`. */
export function download(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** `name` safe as a file name. */
export function fileName(name) {
  return name.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'plan';
}

/** `run`, called `ms` after the last of a burst of calls (keystrokes). */
export function debounced(run, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
}
