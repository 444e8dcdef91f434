// A model of more than 1 GB dropped on the page, in a real Chromium: node tests/browser/huge.test.mjs
// Needs ./build.sh first (www/pkg). The test builds the model in the page as a Blob (a
// MatMul/Relu chain whose weights are 1.26 GB of raw_data, a repeated zero chunk), drops it
// as a file, and checks that it opens and is planned and drawn while the page's JS heap and
// the wasm memories of the page and the worker stay under 256 MB: the worker reads the file
// by ranges and skips the weights.

import { canvasInk, check, settled, text, watch, withBrowser } from './harness.mjs';

const LIMIT = 256 << 20;

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  const size = await page.evaluate(() => {
    const varint = (v, out) => {
      let n = BigInt(v);
      while (n >= 0x80n) { out.push(Number(n & 0x7fn) | 0x80); n >>= 7n; }
      out.push(Number(n));
    };
    const bytes = (field, payload) => { const o = []; varint(field * 8 + 2, o); varint(payload.length, o); return [...o, ...payload]; };
    const int = (field, v) => { const o = []; varint(field * 8, o); varint(v, o); return o; };
    const str = (s) => [...new TextEncoder().encode(s)];
    const node = (name, op, ins, outs) => [...ins.flatMap((i) => bytes(1, str(i))), ...outs.flatMap((o) => bytes(2, str(o))), ...bytes(3, str(name)), ...bytes(4, str(op))];
    const value = (name, dims) => {
      const shape = dims.flatMap((d) => bytes(1, int(1, d)));
      return [...bytes(1, str(name)), ...bytes(2, bytes(1, [...int(1, 1), ...bytes(2, shape)]))];
    };
    const n = 10240;
    const raw = n * n * 4;
    const chunk = new Uint8Array(4 << 20);
    const parts = [];
    let graphLen = 0;
    const push = (arr) => { const u = new Uint8Array(arr); parts.push(u); graphLen += u.length; };
    let prev = 'x';
    for (let k = 0; k < 3; k += 1) {
      const out = k === 2 ? 'z' : `r${k}`;
      push(bytes(1, node(`mm${k}`, 'MatMul', [prev, `w${k}`], [`m${k}`])));
      push(bytes(1, node(`relu${k}`, 'Relu', [`m${k}`], [out])));
      const head = [...int(1, n), ...int(1, n), ...int(2, 1), ...bytes(8, str(`w${k}`))];
      const rawTag = []; varint(9 * 8 + 2, rawTag); varint(raw, rawTag);
      const tensorLen = head.length + rawTag.length + raw;
      const tag = []; varint(5 * 8 + 2, tag); varint(tensorLen, tag);
      push([...tag, ...head, ...rawTag]);
      for (let left = raw; left > 0; left -= chunk.length) parts.push(left >= chunk.length ? chunk : chunk.subarray(0, left));
      graphLen += raw;
      prev = out;
    }
    push(bytes(11, value('x', [16, n])));
    push(bytes(12, value('z', [16, n])));
    const model = [...int(1, 8), ...bytes(8, [...bytes(1, []), ...int(2, 13)])];
    const graphTag = []; varint(7 * 8 + 2, graphTag); varint(graphLen, graphTag);
    const blob = new Blob([new Uint8Array([...model, ...graphTag]), ...parts]);
    const file = new File([blob], 'huge.onnx');
    const dt = new DataTransfer();
    dt.items.add(file);
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return file.size;
  });
  check('the model is over 1 GB', size > 1 << 30, `${size}`);
  await page.waitForFunction(() => document.getElementById('graph-name').textContent === 'huge', null, { timeout: 120000 });
  await settled(page);
  const error = (await page.locator('#error').isVisible()) ? await text(page, 'error') : '';
  check('huge model: opens without an error', error === '', error);
  check('huge model: its 5 arena tensors are planned', (await text(page, 'sum-tensors')).startsWith('5 of'), await text(page, 'sum-tensors'));
  check('huge model: the plan is valid', (await text(page, 'sum-valid')) === 'valid');
  const ink = (await canvasInk(page, 'time-address')).share;
  check('huge model: the time-by-address chart is drawn', ink > 0.05, `${ink}`);
  const heap = await page.evaluate(() => performance.memory.usedJSHeapSize);
  check('huge model: the page\'s JS heap stays under 256 MB', heap < LIMIT, `${heap}`);
  const memory = await page.evaluate(() => window.memplanDebug.memory());
  check('huge model: the page\'s wasm memory stays under 256 MB', memory.page < LIMIT, `${memory.page}`);
  check('huge model: the worker\'s wasm memory stays under 256 MB', memory.worker < LIMIT, `${memory.worker}`);
  console.log(`huge model: ${size} bytes; JS heap ${heap}, page wasm ${memory.page}, worker wasm ${memory.worker} bytes`);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
