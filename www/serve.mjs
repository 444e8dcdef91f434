// A small static file server for the page: serves a folder on 127.0.0.1.
// Usage: node www/serve.mjs [PORT]   (serves the repo root; PORT 0 picks a free one)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.csv': 'text/csv; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/** The file under `root` that `url` names, or null when it leaves `root`. */
function fileFor(root, url) {
  const path = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  const file = normalize(join(root, path));
  return file === root || file.startsWith(root + sep) ? file : null;
}

/** Answers one request with the file it names (index.html for a folder). */
async function answer(root, req, res) {
  let file = fileFor(root, req.url);
  try {
    if (file === null) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    const missing = e.code === 'ENOENT' || e.code === 'ENOTDIR';
    res.writeHead(missing ? 404 : 500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(missing ? 'not found\n' : 'server error\n');
  }
}

/** Serves `root` on 127.0.0.1:`port`; resolves to the server and its URL. */
export function serve(root, port = 0) {
  const dir = resolve(root);
  const server = createServer((req, res) => answer(dir, req, res));
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      done({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '..', '..');
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8000);
  const { url } = await serve(root, port);
  console.log(`serving ${root} at ${url}`);
}
