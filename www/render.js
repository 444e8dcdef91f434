// Canvas sizing and pointer hit tests for the charts drawn by the wasm session.

/** Sizes `canvas`'s backing store to its CSS box times the device pixel ratio; returns the ratio. */
export function fitCanvas(canvas) {
  const scale = window.devicePixelRatio || 1;
  const { width, height } = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  return scale;
}

/** Draws both charts of the session's last plan; returns their frames. */
export function drawCharts(session, timeCanvas, liveCanvas, highlight) {
  const time = session.drawTimeAddress(timeCanvas, fitCanvas(timeCanvas), highlight ?? undefined);
  const live = session.drawLiveBytes(liveCanvas, fitCanvas(liveCanvas));
  return { time, live };
}

/** The data point (step, bytes) under CSS pixel (x, y) of a chart, or null outside its plot. */
export function dataAt(frame, x, y) {
  const fx = (x - frame.left) / frame.width;
  const fy = (frame.top + frame.height - y) / frame.height;
  if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1)) return null;
  return {
    step: frame.x_min + fx * (frame.x_max - frame.x_min),
    bytes: frame.y_min + fy * (frame.y_max - frame.y_min),
  };
}

/** The placed tensor drawn under CSS pixel (x, y) of the time-by-address chart, or null. */
export function tensorAt(frame, tensors, x, y) {
  const at = dataAt(frame, x, y);
  if (at === null) return null;
  for (const t of tensors) {
    if (at.step >= t.start && at.step < t.end + 1 && at.bytes >= t.offset && at.bytes < t.offset + t.size) {
      return t;
    }
  }
  return null;
}

/** Bytes alive at `step` in a profile of [step, bytes] changes. */
export function liveAt(profile, step) {
  let bytes = 0;
  for (const [s, b] of profile) {
    if (s > step) break;
    bytes = b;
  }
  return bytes;
}
