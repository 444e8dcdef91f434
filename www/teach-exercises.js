// The teaching view's exercises: small graphs, each with one question whose answer
// the page computes from the core's own lesson (never a stored number).

/** Mebibytes of `bytes`, as the answers are asked. */
const mib = (bytes) => bytes / (1 << 20);

/**
 * Each exercise opens a graph (with `options`, as a shared link would) and asks for
 * one number in `unit`; `answer(lesson)` is the core's value, `because` says why.
 */
export const EXERCISES = [
  {
    id: 'transformer', title: 'The article’s Transformer', about: 'exercise · 8 tensors',
    url: 'examples/transformer_layer.json', options: { strategy: 'greedy-size', stage: 'live' },
    question: 'The article says three pools fit this layer in 320 MiB. What is the smallest arena any plan can use, in MiB?',
    unit: 'MiB',
    answer: (lesson) => mib(lesson.lower_bound),
    because: 'At step 4, T4_AttnOut, T5_FFN_Gate and T6_FFN_Up are live together: 3 × 128 = 384 MiB. The 320 MiB is the pools’ total after colouring T4_AttnOut (128 + 128 + 64); colouring T6_FFN_Up makes pool 2 grow to 128 MiB. A pool is as large as its largest member.',
  },
  {
    id: 'teach-chain', title: 'Ping-pong chain', about: 'exercise · 5 tensors',
    url: 'examples/teach/chain.json', options: { strategy: 'first-fit', stage: 'colour' },
    question: 'Each op reads only the previous op’s output. How many pools does the greedy colouring need?',
    unit: 'pools',
    answer: (lesson) => lesson.pools.length,
    because: 'At every step one tensor is read for the last time while the next one is made, so two are live together: two pools, used in turn (ping-pong).',
  },
  {
    id: 'teach-residual', title: 'Residual block', about: 'exercise · 5 tensors',
    url: 'examples/teach/residual.json', options: { strategy: 'greedy-size', stage: 'live' },
    question: 'The skip connection keeps x until the Add. What is the lower bound, in MiB?',
    unit: 'MiB',
    answer: (lesson) => mib(lesson.lower_bound),
    because: 'At step 2, x (16 MiB) waits for the Add while expand and depthwise (64 MiB each) are live: 144 MiB. Without the skip it would be 128 MiB.',
  },
  {
    id: 'teach-pools', title: 'When pools waste', about: 'exercise · 5 tensors',
    url: 'examples/teach/pools_waste.json', options: { strategy: 'first-fit', stage: 'colour' },
    question: 'Laid end to end, each pool as large as its largest member: how many MiB do the pools take?',
    unit: 'MiB',
    answer: (lesson) => mib(lesson.pools.reduce((a, b) => a + b, 0)),
    because: 'Each big tensor shares a pool with small ones at other times, so two pools are sized 64 MiB although only one big tensor is ever live. Offsets (first-fit here) reach the 80 MiB bound.',
  },
  {
    id: 'teach-first-fit', title: 'A first-fit trap', about: 'exercise · 4 tensors',
    url: 'examples/teach/first_fit_trap.json', options: { strategy: 'first-fit', stage: 'pack' },
    question: 'First-fit places tensors in birth order, each at the lowest gap that fits. What peak does it reach, in MiB?',
    unit: 'MiB',
    answer: (lesson) => mib(lesson.packing?.moves.at(-1)?.peak_after ?? 0),
    because: 'The small tensors take the bottom first; when expand (64 MiB) arrives, norm sits at 16–24 MiB and the 16 MiB hole below is too small, so expand goes on top: 88 MiB. Largest first (greedy-size) reaches the 72 MiB bound.',
  },
];

/** The exercise with id `id`, or null. */
export function exercise(id) {
  return EXERCISES.find((e) => e.id === id) ?? null;
}

/** Whether `given` (text typed by the learner) is `expected`, allowing a little rounding. */
export function isRight(given, expected) {
  const value = Number(String(given).replace(/[^0-9.]/g, ''));
  return String(given).trim() !== '' && Number.isFinite(value) && Math.abs(value - expected) < 0.01 * Math.max(1, expected);
}
