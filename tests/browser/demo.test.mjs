// The static demo bundle, in a real Chromium: node tests/browser/demo.test.mjs
// Needs ./build.sh first (www/pkg), the release CLI and the shared corpus. Opens a model
// through the file input, picks a strategy and a tensor, clicks Download demo, unzips
// the bundle into a temporary folder, serves that folder's parent with a plain static
// server and finds, on the first load of the folder, the same numbers, strategy and
// selection with no request outside the folder. Then the same for `memplan demo`'s
// folder of the model, and of an NPU case.

import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { CORPUS, ROOT, check, cli, openAndSelect, requireCorpus, settled, summaryNumbers, text, watch, withBrowser } from './harness.mjs';

const MODEL = join(CORPUS, 'models', 'yolo.ts_fixed.onnx');

requireCorpus();

/** The entries of zip `bytes` (`{ path, bytes }`), each checked against its CRC-32. */
function unzip(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  if (view.getUint32(end, true) !== 0x06054b50) throw new Error('no end-of-archive record');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`entry ${i}: no central header`);
    const [method, crc, packed, size] = [view.getUint16(at + 10, true), view.getUint32(at + 16, true), view.getUint32(at + 20, true), view.getUint32(at + 24, true)];
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const path = bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = bytes.subarray(start, start + packed);
    const data = method === 8 ? inflateRawSync(raw) : raw;
    if (data.length !== size || crc32(data) !== crc) throw new Error(`${path}: size or CRC does not match`);
    entries.push({ path, bytes: data });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

/** A plain static server of `root` (no cache headers, no index rewriting beyond folder/index.html) that logs every path asked for. */
function plainServer(root) {
  const asked = [];
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    asked.push(path);
    let file = normalize(join(root, path));
    if (!file.startsWith(root + sep)) return res.writeHead(404).end();
    if (path.endsWith('/')) file = join(file, 'index.html');
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({ server, asked, url: `http://127.0.0.1:${server.address().port}` })));
}

/** Opens folder `folder` of `root` in a fresh page; answers the page, the requests outside the folder and the failed ones. */
async function openServed(context, root, folder, problems) {
  const { server, asked, url } = await plainServer(root);
  const page = await context.newPage();
  watch(page, problems);
  const outside = [];
  const failed = [];
  page.on('request', (r) => { if (!r.url().startsWith(`${url}/${folder}/`)) outside.push(r.url()); });
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  await page.goto(`${url}/${folder}/`);
  await settled(page);
  return { page, outside, failed, asked, close: async () => { await page.close(); server.close(); } };
}

withBrowser(async (context, url) => {
  const problems = [];
  const work = mkdtempSync(join(tmpdir(), 'memplan-demo-'));
  try {
    const page = context.pages()[0] ?? await context.newPage();
    watch(page, problems);
    await page.goto(url);
    await settled(page);
    await openAndSelect(page, MODEL, 'best-fit');
    const before = await summaryNumbers(page);
    const selected = await page.locator('#selection').textContent();

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-demo').click()]);
    const zipped = readFileSync(await download.path());
    const name = download.suggestedFilename();
    check('Download demo gives a zip named after the graph', /^memplan-demo-.+\.zip$/.test(name) && zipped.length > 100000, `${name} ${zipped.length}`);
    const entries = unzip(zipped);
    const folder = name.replace(/\.zip$/, '');
    check('every entry sits in one folder', entries.every((e) => e.path.startsWith(`${folder}/`)), entries.map((e) => e.path).join(' '));
    const paths = entries.map((e) => e.path.slice(folder.length + 1));
    for (const want of ['index.html', 'www/main.js', 'www/pkg/memplan_page_bg.wasm', 'www/pkg/memplan_worker_bg.wasm', 'www/pkg/memplan_models_bg.wasm', 'www/pkg/memplan_npu_bg.wasm', 'demo/graph.json']) {
      check(`the bundle holds ${want}`, paths.includes(want));
    }
    const index = entries.find((e) => e.path === `${folder}/index.html`).bytes.toString('utf8');
    const first = /<meta name="memplan-demo" content="([^"]*)">/.exec(index)?.[1].replace(/&amp;/g, '&') ?? '';
    const select = new URLSearchParams(first).get('select');
    check('its index.html opens the graph with the view first', /^src=demo%2Fgraph\.json&/.test(first) && /strategy=best-fit/.test(first) && select !== null, first);
    const graphJson = entries.find((e) => e.path.endsWith('demo/graph.json')).bytes;
    check('its graph carries no weights', graphJson.length < readFileSync(MODEL).length / 4, `${graphJson.length} bytes`);
    const zipRoot = join(work, 'zip');
    for (const e of entries) {
      mkdirSync(dirname(join(zipRoot, e.path)), { recursive: true });
      writeFileSync(join(zipRoot, e.path), e.bytes);
    }

    const served = await openServed(context, zipRoot, folder, problems);
    const after = await summaryNumbers(served.page);
    check('the unzipped demo shows the model\'s plan on first load', JSON.stringify(after) === JSON.stringify(before), `${JSON.stringify(after)} vs ${JSON.stringify(before)}`);
    check('with the same strategy', (await served.page.locator('#strategy').inputValue()) === 'best-fit');
    check('and the same selection', (await served.page.locator('#selection').textContent()) === selected, selected?.slice(0, 80));
    check('no request leaves the demo\'s folder', served.outside.length === 0, served.outside.join(' '));
    check('and none fails', served.failed.length === 0, served.failed.join(' '));
    check('the address names the demo graph', new URL(served.page.url()).searchParams.get('src') === 'demo/graph.json', served.page.url());
    await served.close();

    // the CLI writes the same bundle as a folder
    const cliRoot = join(work, 'cli');
    cli(['demo', MODEL, '--out', join(cliRoot, 'site'), '--strategy', 'best-fit', '--view', `select=${select}`]);
    const fromCli = await openServed(context, cliRoot, 'site', problems);
    check('memplan demo\'s folder shows the same plan', JSON.stringify(await summaryNumbers(fromCli.page)) === JSON.stringify(before));
    check('with the same strategy and selection', (await fromCli.page.locator('#strategy').inputValue()) === 'best-fit'
      && (await fromCli.page.locator('#selection').textContent()) === selected);
    check('and no request outside it', fromCli.outside.length === 0 && fromCli.failed.length === 0, [...fromCli.outside, ...fromCli.failed].join(' '));
    const listed = readdirSync(join(cliRoot, 'site', 'www')).filter((f) => f.endsWith('.js')).sort();
    check('it copies every page module of the zip', paths.filter((p) => /^www\/[^/]+\.js$/.test(p)).map((p) => p.slice(4)).sort().join() === listed.join(), listed.join());
    await fromCli.close();

    // an NPU case travels as it is
    const npuRoot = join(work, 'npu');
    cli(['demo', join(ROOT, 'examples', 'npu_tiny_matmul.json'), '--out', join(npuRoot, 'site'), '--view', 'problem=1']);
    const npuPage = await openServed(context, npuRoot, 'site', problems);
    const mode = await npuPage.page.locator('#graph-kind').textContent();
    check('an NPU case\'s demo opens the case', mode === 'NPU case' && (await text(npuPage.page, 'graph-name')).length > 0, mode);
    check('with its problem', (await npuPage.page.locator('#problem').inputValue()) === '1');
    check('and no request outside it', npuPage.outside.length === 0 && npuPage.failed.length === 0, [...npuPage.outside, ...npuPage.failed].join(' '));
    await npuPage.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
