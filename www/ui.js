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
  const { plan } = report;
  const arena = plan.tensors.length;
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
  const list = document.createElement('dl');
  list.className = 'details';
  for (const [key, value] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = key;
    const dd = document.createElement('dd');
    dd.textContent = value;
    list.append(dt, dd);
  }
  return [name, list];
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
