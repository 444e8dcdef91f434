// NPU mode: asks for solutions of the chosen problem, method and capacities, and draws
// a time-by-address chart per level, the spill timeline and the pipe Gantt chart.

import * as ui from './ui.js';
import { register, retain } from './charts.js';
import { nodeAt, residencyAt, spillAt } from './render.js';

const $ = (id) => document.getElementById(id);
const problemSelect = $('problem');
const methodSelect = $('method');
const compareSelect = $('npu-compare');
const capacityBox = $('capacities');
const levelsBox = $('levels');
const spillsCanvas = $('spills');
const spillsWrap = $('spills-wrap');
const ganttCanvas = $('gantt');
const ganttWrap = $('gantt-wrap');
const selection = $('npu-selection');
const comparePanel = $('compare-panel');
const compareBody = $('compare-body');
const compareNote = $('compare-note');
const summary = {
  nodes: $('npu-nodes'),
  peak: $('npu-peak'),
  spills: $('npu-spills'),
  movement: $('npu-movement'),
  makespan: $('npu-makespan'),
  time: $('npu-time'),
  valid: $('npu-valid'),
  violations: $('violations'),
};

/** Builds the capacity inputs and a chart panel per level that holds buffers, and registers every NPU chart. */
export function setupCase(state, capacities) {
  capacityBox.replaceChildren(...state.info.levels.map((level, k) => {
    const input = ui.capacityInput(level, capacities?.[level.name] ?? level.capacity);
    input.querySelector('input').dataset.level = `${k}`;
    return input;
  }));
  retain(() => false);
  const panels = [];
  state.info.levels.forEach((level, k) => {
    if (level.buffers === 0) return;
    const { panel, canvas, wrap, tip } = ui.levelPanel(level, k);
    panels.push(panel);
    register({
      canvas, wrap, tip, group: 'steps', zoomY: true,
      draw: (scale, highlight, window) => state.drawing.drawLevel(canvas, scale, k, highlight, window),
      hit: (frame, x, y) => residencyAt(frame, state.report.view.levels[k].residencies, x, y),
      describe: (r) => ui.residencyDetails(r, level.name),
      idOf: (r) => r.buffer,
    });
  });
  levelsBox.replaceChildren(...panels);
  register({
    canvas: spillsCanvas, wrap: spillsWrap, tip: spillsWrap.querySelector('.tooltip'), group: 'steps', zoomY: false,
    draw: (scale, highlight, window) => state.drawing.drawSpills(spillsCanvas, scale, highlight, window),
    hit: (frame, x, y) => spillAt(frame, state.report.layout, state.report.view.levels, x, y),
    describe: (r) => ui.spillDetails(state.report.view.levels[r.level], r.spill),
    idOf: (r) => state.report.view.levels[r.level].spills[r.spill].buffer,
  });
  register({
    canvas: ganttCanvas, wrap: ganttWrap, tip: ganttWrap.querySelector('.tooltip'), group: 'cycles', zoomY: false,
    draw: (scale, highlight, window) => state.drawing.drawGantt(ganttCanvas, scale, highlight, window),
    hit: (frame, x, y) => nodeAt(frame, state.report.view.nodes, x, y),
    describe: (p) => ui.nodeDetails(state.report.view.nodes[p], p, state.report.node_bufs[p]),
    idOf: (p) => state.report.node_bufs[p][0] ?? null,
  });
}

/** The capacities typed in, by level order; throws a message naming a bad one. */
export function capacities() {
  return [...capacityBox.querySelectorAll('input')].map((input) => {
    const value = Number(input.value.trim());
    const ok = input.value.trim() !== '' && Number.isInteger(value) && value >= 1;
    input.toggleAttribute('aria-invalid', !ok);
    if (!ok) throw new Error(`the capacity of ${input.name} must be a whole number of at least 1, not “${input.value}”`);
    return value;
  });
}

/** What the worker's `solve` needs: the chosen problem, method, capacities and comparison; throws a message naming a bad capacity. */
export function solveArgs() {
  return {
    capacities: capacities(), problem: Number(problemSelect.value), method: methodSelect.value, compare: compareSelect.value,
  };
}

/** Shows solution `report`, solved in `millis`, and `compare`, another method's summary (or null). */
export function show(state, report, compare, millis) {
  state.report = report;
  state.compare = compare;
  ui.showNpuSummary(summary, report, state.info, millis);
  $('npu-yardstick').textContent = yardstick(report, state.info);
  sizeSpills(report.layout.rows);
  showCompare(state);
  showSelection(state);
}

/**
 * Best valid published results of the contest's five public cases (the corpus's
 * `npu/published/README.md`; Matmul_Case1's are claims without result files):
 * Problem 1 peak, Problem 2 movement, Problem 3 makespan.
 */
const PUBLISHED = {
  Matmul_Case0: [9216, 12416, 140398],
  Matmul_Case1: [34816, 316672, 1683725],
  FlashAttention_Case0: [4498, 3584, 45270],
  FlashAttention_Case1: [7586, 32852, 225921],
  Conv_Case0: [6912, 46872, 476530],
};

/** The line under the summary: the result's lower bound and ratio ("proven optimal" where they meet), and the best published number for the case. */
function yardstick(report, info) {
  const v = report.view;
  const [value, bound, what] = v.problem === 1 ? [v.p1_peak, report.bounds.p1_peak, 'peak']
    : v.problem === 2 ? [v.extra_movement, report.bounds.extra_movement, 'movement'] : [v.makespan, report.bounds.makespan, 'makespan'];
  const parts = [!bound ? `no useful lower bound of the ${what} is known`
    : value <= bound ? `lower bound of the ${what} ${ui.count(bound)}, which this plan meets: proven optimal`
    : `lower bound of the ${what} ${ui.count(bound)} (this plan ${(value / bound).toFixed(2)}× it)`];
  const published = PUBLISHED[info.name]?.[v.problem - 1];
  if (published) parts.push(`best published ${ui.count(published)}${info.name === 'Matmul_Case1' ? ' (claimed)' : ''}`);
  return `${parts.join('; ')}.`;
}

/** The figure a solution of its problem is judged by, in words. */
export function figure(view) {
  if (view.problem === 1) return `peak L1+UB ${ui.count(view.p1_peak)}`;
  if (view.problem === 2) return `extra movement ${ui.count(view.extra_movement)}`;
  return `makespan ${ui.count(view.makespan)} at movement ${ui.count(view.extra_movement)}`;
}

/** Gives the spill timeline room for its rows. */
function sizeSpills(rows) {
  spillsWrap.style.height = `${Math.min(420, Math.max(120, 70 + rows * 18))}px`;
}

/** Shows the selected buffer's stays, spills and nodes. */
export function showSelection(state) {
  const id = state.selected;
  const view = state.report?.view;
  const found = id !== null && view?.levels.some((l) => l.residencies.some((r) => r.buffer === id));
  selection.hidden = !found;
  if (!found) return;
  const nodes = state.report.node_bufs.filter((bufs) => bufs.includes(id)).length;
  selection.replaceChildren(...ui.bufferDetails(id, view, nodes));
}

/** Fills the comparison panel with both methods' numbers, or hides it. */
function showCompare(state) {
  comparePanel.hidden = state.compare === null;
  if (state.compare === null) return;
  const v = state.report.view;
  const mine = {
    method: v.method, recipe: v.recipe, p1_peak: v.p1_peak, spills: v.spills,
    extra_movement: v.extra_movement, makespan: v.makespan, valid: state.report.valid,
  };
  compareNote.textContent = `Problem ${v.problem}: ${mine.method} against ${state.compare.method}, on the same capacities.`;
  compareBody.replaceChildren(...[mine, state.compare].map((s, slot) => {
    const side = document.createElement('div');
    side.className = 'compare-side';
    side.dataset.slot = `${slot}`;
    side.append(ui.compareHead(s.method, [
      ['spills', ui.count(s.spills)],
      ['extra movement', ui.count(s.extra_movement)],
      ['makespan', s.makespan === null ? '–' : ui.count(s.makespan)],
      ['peak L1+UB', ui.count(s.p1_peak)],
      ['checker', s.valid ? 'valid' : 'invalid'],
    ]), ui.note(s.recipe));
    return side;
  }));
}
