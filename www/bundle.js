// The demo bundle: the page's own files (those www/site.txt lists), the graph on show
// and the view to open first, as one .zip that any static host serves as it is. The
// CLI's `memplan demo` writes the same files into a folder.

/** The placeholder in index.html a bundle fills with the view it opens first. */
const DEMO_META = '<meta name="memplan-demo" content="">';

/** The view a bundle's index.html opens first (a query string), or null in the plain page. */
export function demoView(doc) {
  const content = doc.querySelector('meta[name="memplan-demo"]')?.content ?? '';
  return content === '' ? null : `?${content}`;
}

/**
 * A zip of folder `folder` holding the page, `file` (`{ name, bytes }`, written as
 * demo/NAME) and an index.html opening `query` first. `base` is the page's URL, which
 * its files are fetched relative to (from the browser's cache, mostly).
 */
export async function demoZip(base, folder, file, query) {
  const entries = [];
  const list = await fetchText(new URL('www/site.txt', base));
  for (const line of list.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const optional = line.startsWith('?');
    const path = optional ? line.slice(1) : line;
    const response = await fetch(new URL(path, base));
    if (!response.ok) {
      if (optional) continue;
      throw new Error(`the page's file ${path} could not be fetched (${response.status})`);
    }
    let bytes = new Uint8Array(await response.arrayBuffer());
    if (path === 'index.html') bytes = new TextEncoder().encode(withFirstView(new TextDecoder().decode(bytes), query));
    entries.push({ path, bytes });
  }
  entries.push({ path: `demo/${file.name}`, bytes: file.bytes });
  return zip(entries.map((e) => ({ ...e, path: `${folder}/${e.path}` })));
}

/** `index` with the demo placeholder naming `query` (without its `?`) as the first view. */
function withFirstView(index, query) {
  if (!index.includes(DEMO_META)) throw new Error('this page\'s index.html has no demo placeholder');
  const content = query.replace(/^\?/, '').replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return index.replace(DEMO_META, `<meta name="memplan-demo" content="${content}">`);
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname} could not be fetched (${response.status})`);
  return response.text();
}

/** A zip archive (deflated entries, UTF-8 names) of `entries` `{ path, bytes }`. */
async function zip(entries) {
  const parts = [];
  const central = [];
  let offset = 0;
  const { time, date } = dosTime(new Date());
  for (const { path, bytes } of entries) {
    const name = new TextEncoder().encode(path);
    const packed = await deflate(bytes);
    const crc = crc32(bytes);
    const fields = [[0x0800, 2], [8, 2], [time, 2], [date, 2], [crc, 4], [packed.length, 4], [bytes.length, 4], [name.length, 2], [0, 2]];
    const local = header(0x04034b50, [[20, 2], ...fields]);
    parts.push(local, name, packed);
    central.push(header(0x02014b50, [[20, 2], [20, 2], ...fields, [0, 2], [0, 2], [0, 2], [0, 4], [offset, 4]]), name);
    offset += local.length + name.length + packed.length;
  }
  const size = central.reduce((n, p) => n + p.length, 0);
  const end = header(0x06054b50, [[0, 2], [0, 2], [entries.length, 2], [entries.length, 2], [size, 4], [offset, 4], [0, 2]]);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

/** A little-endian record: the signature, then each `[value, bytes]`. */
function header(signature, fields) {
  const length = 4 + fields.reduce((n, [, b]) => n + b, 0);
  const view = new DataView(new ArrayBuffer(length));
  view.setUint32(0, signature, true);
  let at = 4;
  for (const [value, bytes] of fields) {
    if (bytes === 2) view.setUint16(at, value, true);
    else view.setUint32(at, value >>> 0, true);
    at += bytes;
  }
  return new Uint8Array(view.buffer);
}

/** MS-DOS time and date fields of `d`, as zip entries carry them. */
function dosTime(d) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

let table = null;

/** The CRC-32 (IEEE) of `bytes`, as zip entries carry it. */
function crc32(bytes) {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of bytes) crc = table[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
