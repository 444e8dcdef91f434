#!/usr/bin/env bash
# Measures memplan on the shared corpus and writes docs/results.md: every figure
# there comes from this run, with the date, the commit and the machine on top.
# Run it again to refresh the numbers; do not edit docs/results.md by hand.
#   bench/results.sh [OUT]   (default docs/results.md; about 10 minutes on 2 cores)
# Needs ../shared/corpus (or MEMPLAN_CORPUS). Optional sections, each said to be
# skipped when it cannot run: the scale benchmark (bench/snapshot_scale.sh: python3,
# node, /usr/bin/time; about 5 minutes more, the 1 GB snapshot kept in /tmp); the wasm modules and their benchmark (a page built
# by ./build.sh, and node), the page's timings (also Chromium at /usr/bin/chromium
# and npm's playwright-core), the peers (OmniMalloc in target/peers-venv, which
# bench/peers.sh installs).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/results.md}
corpus=${MEMPLAN_CORPUS:-../shared/corpus}
if [[ ! -d "$corpus" ]]; then
    echo "results: the shared corpus is missing at $corpus" >&2
    exit 1
fi
cargo build --release --quiet -p memplan-cli || exit 1
bin=target/release/memplan
doc=$(mktemp)
trap 'rm -f "$doc"' EXIT
started=$(date +%s)
failures=0

say() { printf '%s\n' "$@" >>"$doc"; }

# run TITLE KIND COMMAND...: a section with the command and its output, as markdown
# (KIND md) or in a code block (KIND text), with its time and any non-zero exit
run() {
    local title=$1 kind=$2
    shift 2
    echo "results: $title: $*" >&2
    local t0 t1 output status
    t0=$(date +%s.%N)
    output=$("$@" 2>&1)
    status=$?
    t1=$(date +%s.%N)
    say "" "### $title" "" "\`$*\` ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s)" ""
    if [[ $kind == md ]]; then
        say "$output"
    else
        say '```' "$output" '```'
    fi
    if [[ $status -ne 0 ]]; then
        failures=$((failures + 1))
        say "" "**The command exited with status $status.**"
    fi
}

skipped() { say "" "### $1" "" "Skipped: $2"; }

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
os=$( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") || uname -s)
commit=$(git rev-parse --short HEAD)
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
    commit="$commit (with uncommitted changes)"
fi

say "# Results" "" \
    "Written by \`bench/results.sh\`; run it again to measure anew, do not edit." "" \
    "- date: $(date -u '+%Y-%m-%d %H:%M UTC')" \
    "- commit: $commit" \
    "- machine: $cpu, $(nproc) cores, $mem; $os, Linux $(uname -r)" \
    "- rustc: $(rustc --version)" \
    "- node: $(node --version 2>/dev/null || echo 'not installed')" \
    "- corpus: \`$corpus\` (see its README for what each file is)" \
    "- the whole run: WHOLE_RUN" "" \
    "Every plan below passed memplan's independent checker (a command whose plans fail" \
    "it exits with a non-zero status, said under its table). Ratios are the peak over" \
    "the lower bound of the graph's own order (the most bytes live at one step);" \
    "1.000 is optimal. Times are wall time on the machine above and move by a few" \
    "percent from run to run; so do the plans of wall-clock budgets (budgeted" \
    "strategies get 50 ms per plan in \`memplan bench\` unless a budget is given)."

say "" "## The arena planner"
run "The seed example" text "$bin" plan examples/transformer_layer.json
run "Every strategy on the reference graphs and MiniMalloc's instances" md \
    "$bin" bench "$corpus/graphs" "$corpus/minimalloc" --markdown
run "Real model files (read, imported, planned with greedy-size)" md \
    "$bin" bench "$corpus/tflite" "$corpus/onnx" --strategy greedy-size --markdown
run "MiniMalloc's instances at their capacity, 1 MiB" md \
    "$bin" bench "$corpus/minimalloc" --capacity 1048576 --strategy search --budget 20000 --markdown
run "MiniMalloc's instances minimised, no capacity, 15 s budget" md \
    "$bin" bench "$corpus/minimalloc" --strategy search --budget 15000 --markdown
run "MiniMalloc with deterministic budgets (work units, the same plans on any machine), 50 ms" md \
    "$bin" bench "$corpus/minimalloc" --deterministic --strategy best-of --strategy search --markdown
run "MiniMalloc with deterministic budgets, 200 ms" md \
    "$bin" bench "$corpus/minimalloc" --deterministic --strategy best-of --strategy search --budget 200 --markdown
run "The large instances, every strategy" md \
    "$bin" bench "$corpus/large" --markdown
run "The large instances, 3 s budget" md \
    "$bin" bench "$corpus/large" --strategy greedy-size --strategy best-fit \
    --strategy best-of --strategy search --strategy auto --budget 3000 --markdown

say "" "## Models"
run "Import time and heap, every model at its declared input dims" md \
    "$bin" bench-import "$corpus/models" --markdown

say "" "## PyTorch memory snapshots"
run "Each snapshot opened and planned (auto)" md "$bin" bench-snapshot "$corpus/torch" --markdown
run "PyTorch's caching allocator replayed under each snapshot's own settings (gpt2_oom under its 6 GiB cap), and a sweep" md \
    "$bin" bench-replay "$corpus/torch" --capacity gpt2_oom=6GiB --markdown
for model in "$corpus"/torch/onnx/*.onnx; do
    run "The ONNX export $(basename "$model")" text "$bin" plan "$model"
done
if command -v python3 >/dev/null && command -v node >/dev/null && [[ -x /usr/bin/time ]]; then
    run "At scale: a 1 GB snapshot and a million buffers, each command as a whole" md bench/snapshot_scale.sh
else
    skipped "At scale: a 1 GB snapshot and a million buffers" "needs python3 (to write the snapshot), node and /usr/bin/time"
fi

say "" "## NPU scheduling"
run "Every method on the public cases, beside the best published results" md \
    "$bin" bench-npu "$corpus/npu" --markdown
run "Seeds 1 to 8: median, mean and range of Problem 2's movement and Problem 3's makespan" \
    text bench/npu-seeds.sh 8 "$bin"

say "" "## The page"
pkg=www/pkg
if [[ -f $pkg/memplan_worker_bg.wasm ]]; then
    say "" "### The wasm modules" "" "Bytes of each module in \`www/pkg\` as \`./build.sh\` built it, and gzipped (\`gzip -9\`)." ""
    say "| module | bytes | gzip -9 |" "|---|---:|---:|"
    for wasm in "$pkg"/memplan_*_bg.wasm; do
        name=$(basename "$wasm" _bg.wasm)
        say "| \`$name\` | $(stat -c %s "$wasm") | $(gzip -9c "$wasm" | wc -c) |"
    done
    if command -v node >/dev/null; then
        run "The exact search in wasm, as the page's worker runs it (MiniMalloc at 1 MiB, 20 s budget)" \
            text node tests/browser/bench-wasm.mjs
    else
        skipped "The exact search in wasm" "node is not installed."
    fi
    if command -v node >/dev/null && [[ -x /usr/bin/chromium && -d node_modules/playwright-core ]]; then
        for n in 100000 1000000; do
            run "Planning and drawing $n tensors in Chromium" text node tests/browser/perf.mjs --tensors "$n"
        done
        run "A changed allocator setting replayed and redrawn in Chromium (779k entries)" text \
            node tests/browser/bench-replay.mjs "$corpus/torch/llama_generate_long.pickle"
        run "A 199 MB snapshot read, planned, drawn, panned and zoomed in Chromium (2.7 M entries)" text \
            node tests/browser/bench-big-snapshot.mjs
    else
        skipped "Planning and drawing in Chromium" \
            "needs node, Chromium at /usr/bin/chromium and npm's playwright-core (\`.ci/run\` installs them)."
    fi
else
    skipped "The wasm modules and the page's timings" \
        "the page is not built here (no \`$pkg/memplan_worker_bg.wasm\`): run \`./build.sh\`, then this script."
fi

say "" "## Beside other planners"
venv=${PEERS_VENV:-target/peers-venv}
if [[ -x $venv/bin/python ]] && "$venv/bin/python" -c 'import omnimalloc' 2>/dev/null; then
    run "memplan's strategies and OmniMalloc's allocators, 3 s budget" text bench/peers.sh 3000
else
    skipped "memplan's strategies and OmniMalloc's allocators" \
        "OmniMalloc is not installed in \`$venv\`: \`bench/peers.sh\` installs it from PyPI and prints this table."
fi

whole=$(($(date +%s) - started))
sed -i "s/WHOLE_RUN/$((whole / 60)) min $((whole % 60)) s/" "$doc"
if [[ $failures -gt 0 ]]; then
    say "" "$failures command(s) above exited with a non-zero status."
fi
mkdir -p "$(dirname "$out")"
cp "$doc" "$out"
echo "results: wrote $out in $whole s ($failures command(s) failed)" >&2
