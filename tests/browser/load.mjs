// How long the page takes to open, in headless Chromium: a script, not a test (nothing
// is asserted).
//   node tests/browser/load.mjs [--root DIR] [--runs K] [--mbit M] [--rtt MS]
// Serves the built page in DIR (default: this checkout; another checkout's root to
// compare builds) and opens it K times (default 7) with an empty cache, each in a fresh
// browser profile; prints the median and range of the time from navigation to the first
// example planned and drawn (the page's data-ready), and the wasm bytes fetched. With
// --mbit, the network is throttled to M Mbit/s each way with --rtt MS of latency (default
// 40 ms) through Chromium's network emulation.

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { ROOT, launch, settled } from './harness.mjs';
import { serve } from '../../www/serve.mjs';

const { values: opts } = parseArgs({
  options: {
    root: { type: 'string', default: ROOT },
    runs: { type: 'string', default: '7' },
    mbit: { type: 'string' },
    rtt: { type: 'string', default: '40' },
  },
});

const root = resolve(opts.root);
const { server, url } = await serve(root, 0);
const times = [];
let wasm = 0;
try {
  for (let run = 0; run < Number(opts.runs); run += 1) {
    const { context, close } = await launch();
    try {
      const page = context.pages()[0] ?? await context.newPage();
      if (opts.mbit) {
        const cdp = await context.newCDPSession(page);
        const bytesPerSecond = (Number(opts.mbit) * 1e6) / 8;
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false, latency: Number(opts.rtt), downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond,
        });
      }
      let fetched = 0;
      context.on('response', async (r) => {
        if (r.url().endsWith('.wasm')) fetched += (await r.body().catch(() => Buffer.alloc(0))).length;
      });
      const started = Date.now();
      await page.goto(url);
      await settled(page);
      times.push(Date.now() - started);
      wasm = fetched;
    } finally {
      await close();
    }
  }
} finally {
  server.close();
}
times.sort((a, b) => a - b);
const network = opts.mbit ? `${opts.mbit} Mbit/s, ${opts.rtt} ms latency` : 'no throttling';
console.log(`${root}: first example drawn in ${times[times.length >> 1]} ms median (${times[0]}-${times[times.length - 1]} ms over ${times.length} cold loads, ${network}); ${wasm} bytes of wasm fetched`);
