// The view in the URL: which example or file, which options, what is selected.

const KEYS = ['example', 'src', 'strategy', 'compare', 'align', 'budget', 'clock', 'capacity', 'colour', 'problem', 'method', 'caps', 'select', 'view', 'stage', 'step', 'dims', 'values'];

/** The view a query string asks for; absent keys are left out. */
export function readView(search) {
  const params = new URLSearchParams(search);
  const view = {};
  for (const key of KEYS) {
    const value = params.get(key);
    if (value !== null && value !== '') view[key] = value;
  }
  if (view.select !== undefined && !/^\d+$/.test(view.select)) delete view.select;
  if (view.caps !== undefined) view.caps = readCaps(view.caps);
  if (view.step !== undefined && !/^\d+$/.test(view.step)) delete view.step;
  if (view.view !== undefined && !['plan', 'learn'].includes(view.view)) delete view.view;
  if (view.stage !== undefined && !['live', 'colour', 'pack'].includes(view.stage)) delete view.stage;
  if (view.dims !== undefined) view.dims = readPairs(view.dims, /^\d+$/, Number);
  if (view.values !== undefined) view.values = readPairs(view.values, /^\d+(x\d+)*$|^$/, String);
  return view;
}

/** `seq=128;batch=2` as `{ seq: 128, batch: 2 }`, keeping the values that match `ok`. */
function readPairs(text, ok, as) {
  const out = {};
  for (const item of text.split(';')) {
    const at = item.lastIndexOf('=');
    const [name, value] = [item.slice(0, at), item.slice(at + 1)];
    if (at > 0 && ok.test(value)) out[name] = as(value);
  }
  return out;
}

/** Capacities written as `L1=200,UB=1024` as an object by level name. */
function readCaps(text) {
  const caps = {};
  for (const item of text.split(',')) {
    const [name, value] = item.split('=');
    if (name && /^\d+$/.test(value ?? '')) caps[name.trim()] = Number(value);
  }
  return caps;
}

/** The graph a link carries in its fragment (`#g=...`, never sent to a server), or null. */
export function readGraph(hash) {
  const m = /^#g=([A-Za-z0-9_-]+)$/.exec(hash);
  return m ? m[1] : null;
}

/** The typed graph text a link carries in its fragment (`#t=...`, packed as {@link packGraph} packs), or null. */
export function readText(hash) {
  const m = /^#t=([A-Za-z0-9_-]+)$/.exec(hash);
  return m ? m[1] : null;
}

/** Most characters of a link that carries a graph: chat tools and mail clients cut longer ones (many at 8,000 to 32,000), and every browser opens this many. */
export const LINK_LIMIT = 16000;

/** `text` deflated and written in base64url. */
export async function packGraph(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The text {@link packGraph} packed; rejects what is not such a text. */
export async function unpackGraph(packed) {
  const binary = atob(packed.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).text();
}

/** The URL of page `base` that opens `view`. */
export function viewUrl(base, view) {
  const url = new URL(base);
  url.search = '';
  url.hash = view.g ? `g=${view.g}` : view.t ? `t=${view.t}` : '';
  for (const key of KEYS) {
    let value = view[key];
    if ((view.g || view.t) && (key === 'dims' || key === 'values')) continue; // the graph carries its dims
    if (key === 'caps' && value) value = Object.entries(value).map(([k, v]) => `${k}=${v}`).join(',');
    if ((key === 'dims' || key === 'values') && value) value = Object.entries(value).map(([k, v]) => `${k}=${v}`).join(';');
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, `${value}`);
  }
  return url.href;
}
