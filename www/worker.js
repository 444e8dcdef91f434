// The planning worker: reads graphs and NPU cases and plans or solves them off the
// page's thread. Every answer is `{ id, ok, value | error }`; reports travel as JSON text.

import init, { NpuSession, Session, isNpuCase } from './pkg/memplan.js';

const ready = init();
let open = null;

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
  /** Plans the graph with `strategy` and `align`, and with `compare` too when given. */
  plan({ strategy, align, compare }) {
    const session = current('graph');
    const report = session.plan(strategy, align);
    return { report, compare: compare ? session.plan(compare, align) : null };
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

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    await ready;
    self.postMessage({ id, ok: true, value: handlers[op](args) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: e?.message ?? String(e) });
  }
};
