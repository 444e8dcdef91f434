#!/usr/bin/env bash
# The scale benchmark: what a user waits for on big inputs, each command timed as a
# whole (wall time and peak resident memory, from /usr/bin/time), as a markdown table.
# - a snapshot of about 1 GB made by repeating llama_generate_long's real trace
#   (bench/big_snapshot.py; Python, about 3 minutes and 5 GB while it writes; kept
#   at OUT for the next run): `plan --json` with the default strategy and with
#   greedy-size, one copy of the trace opened alone with `--entries`, and
#   `bench-snapshot`'s open and plan times;
# - a million-buffer MiniMalloc CSV (tests/browser/big.mjs, the page's million-tensor
#   instance; node): `plan --strategy greedy-size --json`.
# Usage: bench/snapshot_scale.sh [SIZE_MB (default 1000)] [OUT (default /tmp/memplan-big.pickle)]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000}
out=${2:-/tmp/memplan-big.pickle}
corpus=${MEMPLAN_CORPUS:-../shared/corpus}
source="$corpus/torch/llama_generate_long.pickle"
if [[ ! -x /usr/bin/time ]]; then
    echo "snapshot_scale: /usr/bin/time is missing (apt-get install -y time)" >&2
    exit 1
fi
if [[ ! -f "$out" ]]; then
    python3 bench/big_snapshot.py "$source" "$out" "$size" >&2
fi
cargo build --release --quiet -p memplan-cli
bin=target/release/memplan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
csv="$work/million.csv"
node -e "import('./tests/browser/big.mjs').then((m) => require('fs').writeFileSync(process.argv[1], m.bigCsv(1000000)))" "$csv"
# one copy of the trace: the source's entries, from the middle copy on
per_copy=$(python3 -c "import pickle,sys; s=pickle.load(open(sys.argv[1],'rb')); print(max(len(t) for t in s['device_traces']))" "$source")

# row WHAT COMMAND...: the command's wall time, peak resident memory and the line of
# its output that starts with `plan ` or `peak ` (what it made)
row() {
    local what=$1
    shift
    "/usr/bin/time" -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
        echo "snapshot_scale: $* failed: $(tail -1 "$work/err")" >&2
        exit 1
    }
    read -r wall kb <"$work/time"
    local made
    made=$(grep -m1 -E '^(plan|peak) ' "$work/out" | sed -E 's/^(plan|peak) +//; s/\|/\\|/g')
    # the command as a user would type it: memplan, and the files by their names
    local shown="${*/#$bin/memplan}"
    shown=${shown//$work\//}
    shown=${shown//$(dirname "$out")\//}
    printf '| %s | `%s` | %.1f | %.0f | %s |\n' "$what" "$shown" "$wall" "$((kb / 1024))" "$made"
}

mb=$(($(stat -c %s "$out") / 1000000))
# (a part of one entry says how many the trace has)
entries=$("$bin" plan "$out" --entries 0..1 | sed -n 's/.*entries 0\.\.1 of \([0-9]*\).*/\1/p')
mid=$((entries / per_copy / 2 * per_copy))
echo "A snapshot of $mb MB ($entries entries: llama_generate_long's trace repeated), and a million-buffer CSV."
echo
echo "| input | command | wall s | peak RSS MiB | made |"
echo "|---|---|---|---|---|"
row "$mb MB snapshot" "$bin" plan "$out" --json "$work/plan.json"
row "$mb MB snapshot" "$bin" plan "$out" --strategy greedy-size --json "$work/plan.json"
row "one copy of it ($per_copy entries)" "$bin" plan "$out" --entries "$mid..$((mid + per_copy))" --json "$work/plan.json"
row "a million buffers (CSV)" "$bin" plan "$csv" --strategy greedy-size --json "$work/plan.json"
echo
"$bin" bench-snapshot "$out" --markdown
