// The planning worker: reads graphs and NPU cases and plans or solves them off the
// page's thread. Every answer is `{ id, ok, value | error }`, after any number of
// `{ id, progress }` notes from a search; reports travel as JSON text, plan reports
// with their summary beside them. A panic answers `{ id, ok: false, fatal: true,
// error }` with its message.

import init, { NpuSession, Session, isNpuCase, panicForTests, takePanic } from './pkg/memplan.js';

const ready = init();
let open = null;

/**
 * Plan report `text` without its tensors and order, with `plan.placed` counting the
 * tensors: all the page's own code reads. Parsed here, so that a million tensors do
 * not stop the page; the page's wasm parses the whole report for the charts.
 */
function summary(text) {
  const report = JSON.parse(text);
  report.plan.placed = report.plan.tensors.length;
  delete report.plan.tensors;
  delete report.plan.order;
  return report;
}

/** The open session if it is of `mode`, else an error that says what is open. */
function current(mode) {
  if (open?.mode === mode) return open.session;
  throw new Error(open ? `the open file is not ${mode === 'npu' ? 'an NPU case' : 'a graph'}` : 'no file is open');
}

const handlers = {
  /** Reads `bytes` of file `name`; the previous session stays when it cannot be read. */
  open({ bytes, name }) {
    const mode = isNpuCase(bytes) ? 'npu' : 'graph';
    const session = mode === 'npu' ? new NpuSession(bytes, name) : new Session(bytes, name);
    open?.session.free();
    open = { mode, session };
    return { mode, info: session.info() };
  },
  /** Plans the graph with `strategy` and `options` (align, budget_ms, wall_clock, capacity), and with `compare` too when given; a search reports progress as it goes. */
  plan({ strategy, options, compare }, progress) {
    const session = current('graph');
    const plan = (name) => session.plan(name, options, (p) => progress({ strategy: name, ...p }));
    const report = plan(strategy);
    const other = compare ? plan(compare) : null;
    return { report, summary: summary(report), compare: other, compareSummary: other && summary(other) };
  },
  /** Walks plan `report` (JSON text this session made) for the Learn view. */
  lesson({ report }) {
    return current('graph').lesson(report);
  },
  /** Solves the NPU case, timing the solve, and summarises the `compare` method when given. */
  solve({ problem, method, capacities, compare }) {
    const session = current('npu');
    const started = performance.now();
    const report = session.solve(problem, method, capacities);
    const millis = performance.now() - started;
    return { report, millis, compare: compare ? session.summary(problem, compare) : null };
  },
};

/** Panics in wasm with `message`, as a bug would, for the tests of the way back. */
handlers.panic = ({ message }) => panicForTests(message);

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    await ready;
    const progress = (value) => self.postMessage({ id, progress: value });
    self.postMessage({ id, ok: true, value: handlers[op](args, progress) });
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      // a panic: this instance may be left broken, so the page starts a fresh worker
      const why = takePanic() ?? e.message;
      self.postMessage({ id, ok: false, fatal: true, error: `the planner hit a bug and was restarted: ${why}` });
      return;
    }
    self.postMessage({ id, ok: false, error: e?.message ?? String(e) });
  }
};
