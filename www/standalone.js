// The bootstrap of a standalone page (`memplan html`, the Python package's
// memplan.html): one HTML file holding the page's modules, its wasm and the file it
// shows, each gzipped in base64 in the JSON table #memplan-standalone. It runs inline
// in that file, in place of main.js, and needs nothing outside it.
//
// A relative reference cannot resolve against a blob: URL, so each module is given
// blob: URLs of its own: every quoted string in it that names a file of the table,
// resolved against the module's own path ('./ui.js' in an import, import('./pkg/
// memplan_page.js'), new URL('./worker.js', import.meta.url), wasm-bindgen's
// 'memplan_page_bg.wasm'), is replaced by that file's blob: URL, the files a module
// names being made first. Then main.js is imported; it opens the inlined file under
// its own name (globalThis.memplanStandalone) and hides what needs a server. The
// worker cannot fetch the page's blob: URLs from a file:// page (it has an origin
// apart), so its files are linked inside it (see `loader`).

/** The planning worker's module; it and the files it names are linked inside the worker. */
const WORKER = 'www/worker.js';

/** `spec` resolved against the folder of page file `from`, or null outside the page. */
function resolve(from, spec) {
  const parts = from.split('/').slice(0, -1);
  for (const part of spec.split('/')) {
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}

/**
 * `make(path)`: the blob: URL of page file `path` of `files` ({ path, type, bytes }), a
 * module's text having each quoted string that names a file of `files` (resolved
 * against the module's path) replaced by that file's blob: URL, made first. The files
 * of `apart` are left as the text names them. Runs in the page and, as text, in the
 * worker: it uses nothing from outside but `resolve`.
 */
function linker(files, apart = new Set()) {
  const quoted = /(['"])([\w.\/-]+)\1/g;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const urls = new Map();
  const making = new Set();
  const make = (path) => {
    if (urls.has(path)) return urls.get(path);
    const file = byPath.get(path);
    if (!file) throw new Error(`the file holds no ${path}`);
    let body = file.bytes;
    if (file.type === 'text/javascript') {
      if (making.has(path)) throw new Error(`the page's modules name each other in a ring at ${path}`);
      making.add(path);
      body = new TextDecoder().decode(file.bytes).replace(quoted, (whole, quote, spec) => {
        const target = resolve(path, spec);
        return byPath.has(target) && !apart.has(target) ? `${quote}${make(target)}${quote}` : whole;
      });
      making.delete(path);
    }
    urls.set(path, URL.createObjectURL(new Blob([body], { type: file.type })));
    return urls.get(path);
  };
  return make;
}

/**
 * The worker's loader, run as a data: URL module: a worker cannot fetch the page's
 * blob: URLs when the page has no origin of its own (file://, a data: URL), so the
 * page posts it the worker's files as its first message and it links them with blob:
 * URLs of its own, imports worker.js and hands it the requests that came meanwhile.
 */
function loader() {
  let early = null;
  const keep = ({ data }) => {
    if (early) {
      early.push(data);
      return;
    }
    early = [];
    start(data.memplanFiles).catch((e) => setTimeout(() => { throw new Error(`the planner's worker could not start: ${e?.message ?? e}`); }));
  };
  self.addEventListener('message', keep);
  async function start(posted) {
    const files = await Promise.all(posted.map(async (f) => ({ ...f, bytes: new Uint8Array(await f.blob.arrayBuffer()) })));
    await import(linker(files)(WORKER));
    self.removeEventListener('message', keep);
    for (const data of early) self.dispatchEvent(new MessageEvent('message', { data }));
  }
}

/** The text of the worker's loader module. */
const LOADER = `const WORKER = ${JSON.stringify(WORKER)};\n${resolve}\n${linker}\n(${loader})();\n`;

/** The page files that `from` names, and those they name, in `files`. */
function reached(files, from) {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const seen = new Set();
  const visit = (path) => {
    const file = byPath.get(path);
    if (!file || seen.has(path)) return;
    seen.add(path);
    if (file.type !== 'text/javascript') return;
    for (const [, , spec] of new TextDecoder().decode(file.bytes).matchAll(/(['"])([\w.\/-]+)\1/g)) visit(resolve(path, spec));
  };
  visit(from);
  return seen;
}

/** The bytes of base64 text `packed` of gzipped bytes. */
async function inflate(packed) {
  const binary = atob(packed);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function start() {
  const table = JSON.parse(document.getElementById('memplan-standalone').textContent);
  const files = await Promise.all(table.files.map(async (f) => ({ path: f.path, type: f.type, bytes: await inflate(f.gz) })));
  const apart = reached(files, WORKER);
  const posted = files.filter((f) => apart.has(f.path)).map((f) => ({ path: f.path, type: f.type, blob: new Blob([f.bytes], { type: f.type }) }));
  const loaderUrl = `data:text/javascript,${encodeURIComponent(LOADER)}`;
  const main = linker(files, apart)('www/main.js');
  const data = await inflate(table.file.gz);
  globalThis.memplanStandalone = {
    name: table.file.name,
    blob: new Blob([data]),
    view: table.view ?? '',
    /** A planning worker that runs the page's worker.js (www/planner.js asks for it). */
    startWorker() {
      const worker = new Worker(loaderUrl, { type: 'module' });
      worker.postMessage({ memplanFiles: posted });
      return worker;
    },
  };
  await import(main);
}

start().catch((e) => {
  const error = document.getElementById('error');
  document.getElementById('graph-name').textContent = 'not loaded';
  error.textContent = `The page could not start: ${e?.message ?? e}. It needs a browser with DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later).`;
  error.hidden = false;
  console.error(e);
});
