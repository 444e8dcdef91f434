// The teaching view's explanations: each moment of a lesson in plain words, short
// enough to read while stepping. Returns text only; the page inserts it as text.

/** Names of tensors `ids` of `plan`, joined ("a, b and c"), or `none`. */
function names(plan, ids, none = 'none') {
  const list = ids.map((id) => nameOf(plan, id));
  if (list.length === 0) return none;
  if (list.length === 1) return list[0];
  const shown = list.length > 8 ? [...list.slice(0, 7), `${list.length - 7} more`] : list;
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

function nameOf(plan, id) {
  return plan.tensors.find((t) => t.id === id)?.name ?? `tensor ${id}`;
}

/** Bytes `from`–`to` in words, the floor as 0. */
function span(from, to, size) {
  return `${from === 0 ? '0' : size(from)}–${size(to)}`;
}

/** Steps `start`–`end` in words. */
function steps(start, end) {
  return start === end ? `step ${start}` : `steps ${start}–${end}`;
}

/** The op run at a step, as "Op4 (FFNUp)". */
function opAt(info, k) {
  if (k === null || k === undefined || !info?.ops?.[k]) return null;
  const op = info.ops[k];
  return op.kind ? `${op.name} (${op.kind})` : op.name;
}

/** Words for execution step `k`: who is born and dies, what is live, and the bound. */
export function liveWords(lesson, plan, info, k, size) {
  const s = lesson.steps[k];
  if (!s) return { title: 'Nothing to step through.', lines: [] };
  const op = opAt(info, s.op);
  const live = plan.tensors.filter((t) => t.start <= s.step && s.step <= t.end).map((t) => t.id);
  const lines = [
    `Made here: ${names(plan, s.born)}. Read for the last time: ${names(plan, s.dying)}.`,
    `Live during this step: ${names(plan, live)}, ${size(s.bytes)} in all.`,
  ];
  const peak = lesson.peak_step;
  if (peak === s.step) {
    lines.push(`This is the highest stack of the live-bytes curve: all of these are needed at once, so no plan can use less than ${size(lesson.lower_bound)}. That is the lower bound.`);
  } else if (peak !== null && peak !== undefined) {
    lines.push(`The highest stack is at step ${peak} (${size(lesson.lower_bound)}): that is the lower bound no plan can beat.`);
  }
  return {
    title: `Step ${s.step}${op ? ` runs ${op}` : ''}.`,
    lines,
    rule: 'A tensor lives from the step that makes it to the last step that reads it.',
  };
}

/** Words for colouring move `k`: the pools it finds, the one it takes, the running total. */
export function colourWords(lesson, plan, k, size) {
  const m = lesson.colouring[k];
  if (!m) return { title: 'Nothing to colour.', lines: [] };
  const name = nameOf(plan, m.tensor);
  const lines = m.pools.length === 0 ? ['There are no pools yet.'] : [];
  const shown = m.pools.slice(0, 8);
  for (const p of shown) {
    lines.push(p.busy_with === null
      ? `Pool ${p.pool} (${size(p.size)}) is free.`
      : `Pool ${p.pool} (${size(p.size)}) is busy: ${nameOf(plan, p.busy_with)} is live until step ${p.busy_until}.`);
  }
  if (m.pools.length > shown.length) lines.push(`… and ${m.pools.length - shown.length} more pools.`);
  lines.push(decision(m, name, size));
  lines.push(`Now ${m.pools_after} ${m.pools_after === 1 ? 'pool' : 'pools'}, ${size(m.pooled_after)} in all (each pool as large as its largest member).`);
  return {
    title: `Colouring ${name} (${size(m.size)}, ${steps(m.start, m.end)}), next in birth order.`,
    lines,
    rule: 'A pool is busy while one of its tensors is live; a tensor takes the smallest free pool that holds it, else the largest free one, else a new pool.',
  };
}

function decision(m, name, size) {
  if (m.rule === 'new-pool') {
    return m.pools.length === 0 ? `${name} opens pool ${m.pool}.` : `Every pool is busy, so ${name} opens a new pool, pool ${m.pool}.`;
  }
  if (m.rule === 'smallest-fit') return `${name} takes pool ${m.pool}, the smallest free pool that holds it.`;
  const grows = m.grows ? `, which grows from ${size(m.grows[0])} to ${size(m.grows[1])}` : '';
  return `No free pool holds ${size(m.size)}, so ${name} takes the largest free one, pool ${m.pool}${grows}.`;
}

/** Words for packing move `k`: its neighbours in time, the gaps, the offset and the peak so far. */
export function packWords(lesson, plan, k, size) {
  const walk = lesson.packing;
  const m = walk?.moves[k];
  if (!m) return { title: 'Nothing to place.', lines: [] };
  const name = nameOf(plan, m.tensor);
  const lines = [];
  if (m.neighbours.length === 0) {
    lines.push('Nothing placed so far shares a step with it.');
  } else {
    const near = m.neighbours.slice(0, 6).map((n) => `${nameOf(plan, n.tensor)} at ${span(n.from, n.to, size)}`);
    const more = m.neighbours.length > 6 ? ` and ${m.neighbours.length - 6} more` : '';
    lines.push(`Placed tensors live at the same time: ${near.join(', ')}${more}.`);
  }
  for (const g of m.gaps.filter((g) => g.to !== null).slice(0, 6)) {
    lines.push(g.fits
      ? `The gap ${span(g.from, g.to, size)} (${size(g.to - g.from)}) fits.`
      : `The gap ${span(g.from, g.to, size)} is too small: it would run into ${nameOf(plan, g.above)}.`);
  }
  lines.push(placement(m, plan, name, size));
  lines.push(`Peak so far: ${size(m.peak_after)}${k === walk.moves.length - 1 ? `; the lower bound is ${size(lesson.lower_bound)}` : ''}.`);
  return {
    title: `${walk.strategy} places ${name} (${size(m.size)}, ${steps(m.start, m.end)}).`,
    lines,
    rule: `${walk.strategy}: ${walk.order}.`,
  };
}

function placement(m, plan, name, size) {
  const g = m.gap === null ? null : m.gaps[m.gap];
  const under = g?.below === null || g?.below === undefined ? 'at the bottom' : `above ${nameOf(plan, g.below)}`;
  if (m.rule === 'top' && m.neighbours.length === 0) return `It goes at the bottom, at ${size(m.offset)}: nothing is in its way.`;
  if (m.rule === 'top') {
    const why = m.gaps.length > 1 ? 'No gap fits, so it' : 'It';
    return `${why} goes on top, at ${size(m.offset)} (${under}).`;
  }
  const which = m.rule === 'lowest-gap' ? 'the lowest gap that fits' : 'the smallest gap that fits';
  return `It goes at ${size(m.offset)}, ${under}: ${which}.`;
}
