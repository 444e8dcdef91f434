// The Learn view: steps through a lesson the worker makes from the plan on show
// (execution steps, the greedy colouring, offset packing), draws its charts at each
// moment, explains the moment in words, and offers small exercises. The moment
// (stage and step) lives in the URL so that a shared link opens it.

import { fitCanvas, tensorAt } from './render.js';
import { exampleButton } from './ui.js';
import { colourWords, liveWords, packWords } from './teach-words.js';
import { EXERCISES, exercise, isRight } from './teach-exercises.js';

const $ = (id) => document.getElementById(id);
const tabs = $('view-tabs');
const planTab = $('tab-plan');
const learnTab = $('tab-learn');
const view = $('learn-view');
const stageButtons = [...document.querySelectorAll('#learn-stages button')];
const prevButton = $('learn-prev');
const nextButton = $('learn-next');
const playButton = $('learn-play');
const slider = $('learn-step');
const position = $('learn-position');
const explainTitle = $('learn-title');
const explainLines = $('learn-lines');
const explainRule = $('learn-rule');
const graphCanvas = $('learn-graph');
const timeCanvas = $('learn-time');
const liveCanvas = $('learn-live');
const exerciseList = $('learn-exercises');
const exerciseBox = $('learn-exercise');
const question = $('learn-question');
const answerForm = $('learn-answer-form');
const answerInput = $('learn-answer');
const answerUnit = $('learn-unit');
const feedback = $('learn-feedback');

export const STAGES = ['live', 'colour', 'pack'];
const PLAY_MS = 1200;

const hooks = {
  request: null, LessonDrawing: null, size: (b) => `${b} B`, openExample: () => {}, remember: () => {}, showError: () => {},
};
const lesson = {
  active: false, stage: 'live', index: 0, handle: null, shown: null, data: null, plan: null, drawing: null,
  info: null, example: null, token: 0, timer: null, note: null, spots: [], frame: null,
};

/** Wires the view's controls; `next` gives the worker request, the wasm drawing class and the page's hooks. */
export function setup(next) {
  Object.assign(hooks, next);
  planTab.addEventListener('click', () => activate(false));
  learnTab.addEventListener('click', () => activate(true));
  for (const button of stageButtons) button.addEventListener('click', () => setStage(button.dataset.stage));
  prevButton.addEventListener('click', () => go(lesson.index - 1));
  nextButton.addEventListener('click', () => go(lesson.index + 1));
  playButton.addEventListener('click', togglePlay);
  slider.addEventListener('input', () => go(Number(slider.value)));
  document.addEventListener('keydown', onKey);
  answerForm.addEventListener('submit', (e) => {
    e.preventDefault();
    checkAnswer();
  });
  exerciseList.replaceChildren(...EXERCISES.map(exerciseButton));
  exerciseList.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-exercise]');
    if (!button) return;
    const ex = exercise(button.dataset.exercise);
    hooks.openExample(ex.id, { ...ex.options, view: 'learn', step: '0' });
  });
  graphCanvas.addEventListener('click', (e) => jumpTo(nodeAt(e)));
  graphCanvas.addEventListener('mousemove', (e) => pointAt(graphCanvas, nodeAt(e)));
  timeCanvas.addEventListener('click', (e) => jumpTo(boxAt(e)));
  timeCanvas.addEventListener('mousemove', (e) => pointAt(timeCanvas, boxAt(e)));
  new ResizeObserver(() => { if (lesson.active) draw(); }).observe(view);
}

function exerciseButton(ex) {
  return exampleButton(ex, 'exercise');
}

/** A file was opened (`mode` graph or npu) with `options` from a link or an exercise; `info` describes the graph. */
export function loaded(mode, info, options, exampleId) {
  stopPlay();
  lesson.info = info;
  lesson.example = exampleId;
  lesson.data = null;
  tabs.hidden = mode !== 'graph';
  if (mode !== 'graph') {
    show(false);
    return;
  }
  if (options.view !== undefined) show(options.view === 'learn');
  if (STAGES.includes(options.stage)) lesson.stage = options.stage;
  lesson.index = /^\d+$/.test(options.step ?? '') ? Number(options.step) : 0;
  showExercise();
}

/** A new plan is on show: the worker's report `handle`, kept in slot 0 of the page's `drawing`; walks it when the view is open. */
export function planned(handle, drawing) {
  lesson.handle = handle;
  lesson.shown = drawing;
  if (lesson.active) refresh();
}

/** What the URL keeps of this view. */
export function viewParams() {
  return lesson.active ? { view: 'learn', stage: lesson.stage, step: lesson.index } : {};
}

/** Opens (`on`) or leaves the view, then keeps the URL in step. */
function activate(on) {
  if (on === lesson.active) return;
  show(on);
  if (on) refresh();
  hooks.remember();
}

function show(on) {
  lesson.active = on;
  document.body.classList.toggle('learning', on);
  view.hidden = !on;
  planTab.setAttribute('aria-selected', `${!on}`);
  learnTab.setAttribute('aria-selected', `${on}`);
  if (!on) stopPlay();
}

/** Has the worker walk the plan on show, then shows the current moment. */
async function refresh() {
  if (lesson.handle === null) return;
  const { handle } = lesson;
  const token = ++lesson.token;
  try {
    const text = await hooks.request('lesson', { handle });
    // a newer plan on show walks itself
    if (token !== lesson.token || handle !== lesson.handle) return;
    lesson.drawing?.free();
    lesson.drawing = new hooks.LessonDrawing(text, lesson.shown, 0);
    lesson.data = JSON.parse(text);
    lesson.plan = lesson.drawing.plan();
    lesson.note = null;
  } catch (e) {
    if (token !== lesson.token || e?.name === 'Cancelled' || e?.message === 'cancelled') return;
    lesson.drawing?.free();
    lesson.drawing = null;
    lesson.data = null;
    lesson.note = `This graph cannot be walked through here: ${e.message}. Open one of the exercises below.`;
  }
  go(lesson.index);
}

/** The number of positions of the current stage. */
function length() {
  const d = lesson.data;
  if (!d) return 0;
  if (lesson.stage === 'live') return d.steps.length;
  if (lesson.stage === 'colour') return d.colouring.length;
  return d.packing?.moves.length ?? 0;
}

function setStage(stage) {
  if (!STAGES.includes(stage)) return;
  lesson.stage = stage;
  go(0);
}

/** Shows position `k` of the stage (kept within it); keeps the URL unless `keep` is false. */
function go(k, keep = true) {
  const n = length();
  lesson.index = Math.max(0, Math.min(n - 1, Number.isFinite(k) ? k : 0));
  if (n === 0) lesson.index = 0;
  if (lesson.index >= n - 1) stopPlay();
  for (const b of stageButtons) b.setAttribute('aria-pressed', `${b.dataset.stage === lesson.stage}`);
  slider.max = `${Math.max(0, n - 1)}`;
  slider.value = `${lesson.index}`;
  slider.disabled = n <= 1;
  prevButton.disabled = lesson.index <= 0;
  nextButton.disabled = lesson.index >= n - 1;
  playButton.disabled = n <= 1;
  const what = lesson.stage === 'live' ? 'step' : 'tensor';
  position.textContent = n === 0 ? '–' : `${what} ${lesson.index + 1} of ${n}`;
  explain();
  mark();
  draw();
  if (keep) hooks.remember();
}

/** Writes the moment's explanation as text. */
function explain() {
  const d = lesson.data;
  let words;
  if (!d) {
    words = { title: lesson.note ?? 'Preparing the lesson…', lines: [] };
  } else if (!d.consistent) {
    words = { title: 'The walk-through’s reasons disagree with the planner’s choices: this is a bug in memplan; please report it with this graph.', lines: [] };
  } else if (lesson.stage === 'pack' && !d.packing) {
    words = {
      title: `The walk-through of offsets follows first-fit, greedy-size or best-fit; ${d.strategy} searches instead.`,
      lines: ['Choose one of those three in the Strategy menu to step through its placements.'],
    };
  } else {
    const k = lesson.index;
    const plan = lesson.plan;
    if (lesson.stage === 'live') words = liveWords(d, plan, lesson.info, k, hooks.size);
    else if (lesson.stage === 'colour') words = colourWords(d, plan, k, hooks.size);
    else words = packWords(d, plan, k, hooks.size);
  }
  explainTitle.textContent = words.title;
  explainLines.replaceChildren(...words.lines.map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));
  explainRule.textContent = words.rule ?? '';
  explainRule.hidden = !words.rule;
}

/** Records the moment's facts on the view for tests and assistive tools: the step, live set, current tensor and its pool. */
function mark() {
  const d = lesson.data;
  view.dataset.stage = lesson.stage;
  view.dataset.step = `${lesson.index}`;
  const facts = { live: '', current: '', pool: '', offset: '' };
  if (d && lesson.stage === 'live' && d.steps[lesson.index]) {
    const step = d.steps[lesson.index].step;
    facts.live = lesson.plan.tensors.filter((t) => t.start <= step && step <= t.end).map((t) => t.id).join(',');
  } else if (d && lesson.stage === 'colour' && d.colouring[lesson.index]) {
    const m = d.colouring[lesson.index];
    Object.assign(facts, { current: `${m.tensor}`, pool: `${m.pool}` });
  } else if (d && lesson.stage === 'pack' && d.packing?.moves[lesson.index]) {
    const m = d.packing.moves[lesson.index];
    Object.assign(facts, { current: `${m.tensor}`, offset: `${m.offset}` });
  }
  Object.assign(view.dataset, facts);
}

/** Draws the three charts at the moment; an error is shown in the page, not thrown. */
function draw() {
  if (!lesson.active || !lesson.drawing || view.hidden) return;
  try {
    const { stage, index } = lesson;
    lesson.spots = lesson.drawing.drawGraph(graphCanvas, fitCanvas(graphCanvas), stage, index);
    lesson.frame = lesson.drawing.drawTimeAddress(timeCanvas, fitCanvas(timeCanvas), stage, index, undefined);
    lesson.drawing.drawLiveBytes(liveCanvas, fitCanvas(liveCanvas), stage, index, undefined);
  } catch (e) {
    hooks.showError('Could not draw the lesson', e.message);
  }
}

/** The pointer of `event` in CSS pixels of its canvas. */
function pointer(event) {
  const box = event.currentTarget.getBoundingClientRect();
  return { x: event.clientX - box.left, y: event.clientY - box.top };
}

/** The tensor id of the graph node under the pointer of `event`, or null. */
function nodeAt(event) {
  const { x, y } = pointer(event);
  const spot = lesson.spots.find((s) => Math.hypot(s.x - x, s.y - y) <= s.r + 4);
  return spot ? spot.tensor : null;
}

/** The tensor id of the time-by-address box under the pointer of `event` (only those drawn), or null. */
function boxAt(event) {
  if (!lesson.frame || !lesson.plan) return null;
  const { x, y } = pointer(event);
  const placed = lesson.stage === 'pack' && lesson.data?.packing
    ? new Set(lesson.data.packing.moves.slice(0, lesson.index + 1).map((m) => m.tensor))
    : null;
  const shown = placed ? lesson.plan.tensors.filter((t) => placed.has(t.id)) : lesson.plan.tensors;
  return tensorAt(lesson.frame, shown, x, y)?.id ?? null;
}

/** Shows that tensor `id` (or nothing) is under the pointer on `canvas`. */
function pointAt(canvas, id) {
  const t = id === null ? null : lesson.plan?.tensors.find((p) => p.id === id);
  canvas.style.cursor = t ? 'pointer' : '';
  canvas.title = t ? `${t.name}: click to go to its ${lesson.stage === 'live' ? 'first step' : 'move'}` : '';
}

/** Goes to tensor `id`'s moment in the current stage: its first step, or its move. */
function jumpTo(id) {
  const d = lesson.data;
  if (id === null || !d) return;
  let k = -1;
  if (lesson.stage === 'live') k = d.steps.findIndex((s) => s.born.includes(id));
  else if (lesson.stage === 'colour') k = d.colouring.findIndex((m) => m.tensor === id);
  else k = d.packing?.moves.findIndex((m) => m.tensor === id) ?? -1;
  if (k >= 0) {
    stopPlay();
    go(k);
  }
}

function togglePlay() {
  if (lesson.timer !== null) {
    stopPlay();
    return;
  }
  if (lesson.index >= length() - 1) go(0);
  lesson.timer = setInterval(() => go(lesson.index + 1), PLAY_MS);
  playButton.textContent = 'Pause';
  playButton.setAttribute('aria-pressed', 'true');
}

function stopPlay() {
  if (lesson.timer === null) return;
  clearInterval(lesson.timer);
  lesson.timer = null;
  playButton.textContent = 'Play';
  playButton.setAttribute('aria-pressed', 'false');
}

/** Keys while the view is open: arrows step, Space plays, Home/End jump, 1-3 choose the stage. */
function onKey(e) {
  if (!lesson.active || e.ctrlKey || e.metaKey || e.altKey) return;
  const target = e.target;
  const typing = target instanceof HTMLInputElement && !['range', 'file', 'checkbox', 'radio', 'button', 'submit'].includes(target.type);
  if (typing || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
  const onSlider = target === slider;
  const keys = {
    ArrowLeft: () => go(lesson.index - 1),
    ArrowRight: () => go(lesson.index + 1),
    Home: () => go(0),
    End: () => go(length() - 1),
    ' ': togglePlay,
    1: () => setStage('live'),
    2: () => setStage('colour'),
    3: () => setStage('pack'),
  };
  if (onSlider && e.key.startsWith('Arrow')) return;
  if (e.key === ' ' && target instanceof HTMLButtonElement) return;
  const run = keys[e.key];
  if (!run) return;
  e.preventDefault();
  run();
}

/** Shows the question of the exercise on show, if the file is one. */
function showExercise() {
  const ex = lesson.example ? exercise(lesson.example) : null;
  exerciseBox.hidden = ex === null;
  for (const b of exerciseList.querySelectorAll('button')) b.setAttribute('aria-pressed', `${b.dataset.exercise === ex?.id}`);
  if (!ex) return;
  question.textContent = ex.question;
  answerUnit.textContent = ex.unit;
  answerInput.value = '';
  feedback.textContent = '';
  feedback.className = 'feedback';
}

/** Checks the typed answer against the core's value for the exercise on show. */
function checkAnswer() {
  const ex = lesson.example ? exercise(lesson.example) : null;
  if (!ex || !lesson.data) return;
  const expected = ex.answer(lesson.data);
  const right = isRight(answerInput.value, expected);
  feedback.className = `feedback ${right ? 'right' : 'wrong'}`;
  feedback.textContent = right
    ? `Right: ${expected} ${ex.unit}. ${ex.because}`
    : 'Not quite. Step through the stages above and try again.';
}
