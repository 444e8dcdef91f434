// The planning worker: reads graphs and NPU cases and plans or solves them off the
// page's thread. Every answer is `{ id, ok, value | error }`, after any number of
// `{ id, progress }` notes from a search; NPU reports travel as JSON text, plan
// reports packed (bytes handed over, not copied). A panic answers `{ id, ok: false,
// fatal: true, error }` with its message.

/**
 * The planner's wasm modules by the files they read, each loaded on first need: `graph`
 * (memplan's JSON and text, corpus JSON, MiniMalloc CSV) at once; `model` (those and
 * ONNX and TFLite), `npu` (NPU cases) and `snapshot` (PyTorch memory snapshots) when a
 * file needs them, so a page that never opens a model downloads and compiles no
 * importers.
 */
const MODULES = {
  graph: './pkg/memplan_worker.js',
  model: './pkg/memplan_models.js',
  npu: './pkg/memplan_npu.js',
  snapshot: './pkg/memplan_snapshot.js',
};
const loading = {};
/** The modules loaded, by reader. */
const loaded = {};

/** The module for files of `reader` (a key of {@link MODULES}), with its `memory`; a module that failed to load is tried again at the next need. */
function module(reader) {
  loading[reader] ??= import(MODULES[reader])
    .then(async (m) => {
      loaded[reader] = { ...m, memory: (await m.default()).memory };
      return loaded[reader];
    })
    .catch((e) => {
      delete loading[reader];
      throw new Error(`the planner's ${reader} module could not be loaded: ${e?.message ?? e}`);
    });
  return loading[reader];
}

// the first module loads at once; a failure is tried again at the first request
module('graph').catch(() => {});
/** Files up to this size are read whole; larger ones by ranges. */
const WHOLE = 64 << 20;
let open = null;

/** The open session if it is of `mode`, else an error that says what is open. */
function current(mode) {
  if (open?.mode === mode) return open.session;
  throw new Error(open ? `the open file is not ${mode === 'npu' ? 'an NPU case' : 'a graph'}` : 'no file is open');
}

const handlers = {
  /** Reads file `name` (`data`: a Blob or bytes), with `read` (free dimensions, data-dependent sizes) for a model and `entries` (`A..B`, empty for all) for a snapshot; the previous session stays when it cannot be read. A file above {@link WHOLE} is read by ranges, so a model of gigabytes never sits whole in memory; only a model or a PyTorch snapshot (read as a stream) may be that large. Answers the mode, the graph's info and, for a snapshot, its details (see `Session.snapshotDetails`). */
  async open({ data, name, read, entries = '' }) {
    let session;
    let kind;
    if (data instanceof Blob && data.size > WHOLE) {
      const reader = new FileReaderSync();
      const readAt = (at, length) => new Uint8Array(reader.readAsArrayBuffer(data.slice(at, at + length)));
      kind = (await module('graph')).readerOf(readAt(0, 16)) === 'snapshot' ? 'snapshot' : 'model';
      const { Session } = await module(kind);
      session = kind === 'snapshot' ? Session.fromSnapshotSource(data.size, readAt, name, entries) : Session.fromSource(data.size, readAt, name, read);
    } else {
      const bytes = data instanceof Blob ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(data)) : data;
      kind = (await module('graph')).readerOf(bytes);
      const m = await module(kind);
      if (kind === 'npu') session = new m.NpuSession(bytes, name);
      else if (kind === 'snapshot') session = m.Session.fromSnapshot(bytes, name, entries);
      else session = new m.Session(bytes, name, read);
    }
    const mode = kind === 'npu' ? 'npu' : 'graph';
    open?.session.free();
    open = { mode, session, snapshot: kind === 'snapshot' };
    const snapshot = open.snapshot ? session.snapshotDetails() : null;
    return { mode, info: session.info(), snapshot };
  },
  /** Plans the graph with `strategy` and `options` (align, budget_ms, wall_clock, capacity), and with `compare` too when given; a search reports progress as it goes. A snapshot's comparison is always the allocator's real layout, with the summary beside it. */
  plan({ strategy, options, compare }, progress) {
    const session = current('graph');
    if (open.snapshot) {
      const { report, layout, summary } = session.planSnapshot(strategy, options, (p) => progress({ strategy, ...p }));
      return { report, compare: layout, snapshot: summary };
    }
    const plan = (name) => session.planPacked(name, options, (p) => progress({ strategy: name, ...p }));
    const report = plan(strategy);
    return { report, compare: compare ? plan(compare) : null };
  },
  /** Replays PyTorch's caching allocator over the open snapshot under settings `conf` (PYTORCH_CUDA_ALLOC_CONF's text, empty for the recorded ones) with at most `capacity` bytes reserved (0: none): the replayed layout (packed), the replay (JSON) and the layout's address boundaries. */
  replay({ conf, capacity }) {
    return current('graph').replaySnapshot(conf, capacity);
  },
  /** A second snapshot (`data`: a Blob or bytes, named `name`) beside the open one: its real layout (packed), the two runs side by side (JSON) and its details. */
  second({ data, name }) {
    const bytes = data instanceof Blob ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(data)) : data;
    return current('graph').compareSnapshot(bytes, name);
  },
  /** The usual allocator settings replayed over the open snapshot, one row each, and the answer (JSON). */
  sweep({ capacity }) {
    return current('graph').sweepSnapshot(capacity);
  },
  /** What holds the memory at entry `step` of the open snapshot, as JSON. */
  holders({ step }) {
    return current('graph').snapshotHolders(step);
  },
  /** Shows body `index` of the graph's ops (-1: the main graph); answers its info. */
  focus({ index }) {
    const session = current('graph');
    session.focus(index);
    return { info: session.info() };
  },
  /** The graph on show as memplan's JSON, without weights; an NPU case as contest JSON. */
  export() {
    return open?.mode === 'npu' ? open.session.exportCase() : current('graph').exportGraph();
  },
  /** The graph on show in memplan's text format (an error for a graph with op bodies). */
  exportText() {
    return current('graph').exportText();
  },
  /** Walks the plan this session reported with `handle`, for the Learn view. */
  lesson({ handle }) {
    return current('graph').lesson(handle);
  },
  /** Solves the NPU case, timing the solve, and summarises the `compare` method when given; the first plan and better ones on the way go out as progress (`{ npu, report, millis }`). */
  solve({ problem, method, capacities, compare }, progress) {
    const session = current('npu');
    const started = performance.now();
    const better = (report) => progress({ npu: true, report, millis: performance.now() - started });
    const report = session.solve(problem, method, capacities, better);
    const millis = performance.now() - started;
    return { report, millis, compare: compare ? session.summary(problem, compare) : null };
  },
};

/** The worker's wasm memory in bytes (all its modules'), for the tests of big files. */
handlers.memory = () => Object.values(loaded).reduce((sum, m) => sum + m.memory.buffer.byteLength, 0);

/** Panics in wasm with `message`, as a bug would, for the tests of the way back. */
handlers.panic = async ({ message }) => (await module('graph')).panicForTests(message);

/** The message of the panic a module took, if one did. */
function takePanic() {
  for (const m of Object.values(loaded)) {
    const message = m.takePanic();
    if (message != null) return message;
  }
  return null;
}

/** Answers one request; requests are answered one at a time in the order they came, even while a module loads. */
async function answer({ id, op, args }) {
  try {
    const progress = (value) => self.postMessage({ id, progress: value });
    const value = await handlers[op](args, progress);
    const bytes = Object.values(value ?? {}).filter((v) => v instanceof Uint8Array);
    self.postMessage({ id, ok: true, value }, bytes.map((v) => v.buffer));
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      // a panic: this instance may be left broken, so the page starts a fresh worker
      const why = takePanic() ?? e.message;
      self.postMessage({ id, ok: false, fatal: true, error: `the planner hit a bug and was restarted: ${why}` });
      return;
    }
    // a core error says what kind it is (parse, invalid, limit, cycle, usage), and a
    // model that did not import with its free dims as they were lists them
    self.postMessage({ id, ok: false, error: e?.message ?? String(e), kind: e?.kind ?? null, value: e?.value ?? null, dims: e?.dims ?? null });
  }
}

let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  // a hint that a file is coming: fetch its module now, beside the queue, answering
  // nothing (a failure shows when the file needs the module)
  if (data.preload) module(data.preload).catch(() => {});
  else queue = queue.then(() => answer(data));
};
