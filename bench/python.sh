#!/usr/bin/env bash
# The Python package's figures (docs/python.md): the wheel's size, the time of
# `import memplan`, and memplan.snapshot and memplan.html on the corpus's largest
# PyTorch snapshot, from its path and from the live dict. Prints a markdown table.
#   bench/python.sh   (needs the x86_64 wheel in dist/ and the venv test.sh installs it
#                      into, target/python/venv, and the corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${MEMPLAN_CORPUS:-../shared/corpus}
venv=target/python/venv
wheel=$(ls dist/memplan-*manylinux*_x86_64.whl 2>/dev/null | head -1 || true)
if [[ -z "$wheel" || ! -x "$venv/bin/python" ]]; then
    echo "python.sh: no x86_64 wheel in dist/ or no venv in target/python: run ./test.sh (or its Python steps) first" >&2
    exit 1
fi
snap="$corpus/torch/llama_generate_long.pickle"
[[ -f "$snap" ]] || { echo "python.sh: $snap is missing (the corpus)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| what | figure |"
echo "|---|---|"
echo "| the wheel ($(basename "$wheel")) | $(stat -c %s "$wheel") bytes |"
"$venv/bin/python" - "$snap" "$out" <<'PY'
import os, pickle, subprocess, sys, time

snap, out = sys.argv[1], sys.argv[2]
best = min(
    float(subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import memplan; print(time.perf_counter() - t)"],
                         check=True, capture_output=True, text=True).stdout)
    for _ in range(5)
)
print(f"| `import memplan` (best of 5) | {best * 1e3:.0f} ms |")
import memplan  # noqa: E402

def timed(what, f):
    t = time.perf_counter()
    r = f()
    print(f"| {what} | {time.perf_counter() - t:.2f} s |")
    return r

s = timed(f"`memplan.snapshot` of {os.path.basename(snap)}, from its path", lambda: memplan.snapshot(snap))
with open(snap, "rb") as f:
    live = pickle.load(f)
timed("the same from the live dict (pickled in memory)", lambda: memplan.snapshot(live))
print(f"| its live peak, and memplan's plan ({s.strategy}) | {s.live_peak} B, {s.plan_peak} B |")
view = timed("`memplan.html` of it", lambda: memplan.html(snap, os.path.join(out, "snap.html")))
print(f"| the file `memplan.html` writes | {len(view.text)} bytes |")
PY
