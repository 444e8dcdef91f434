#!/usr/bin/env bash
# The scale benchmark of PyTorch snapshots: makes a snapshot of about 1 GB by
# repeating llama_generate_long's real trace (bench/big_snapshot.py; Python, about
# 2 minutes and 5 GB while it writes), then times opening it and planning it with
# `memplan bench-snapshot` (open time, heap and peak resident memory, the plan).
# Usage: bench/snapshot_scale.sh [SIZE_MB (default 1000)] [OUT (default /tmp/memplan-big.pickle)]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000}
out=${2:-/tmp/memplan-big.pickle}
corpus=${MEMPLAN_CORPUS:-../shared/corpus}
if [[ ! -f "$out" ]]; then
    python3 bench/big_snapshot.py "$corpus/torch/llama_generate_long.pickle" "$out" "$size"
fi
cargo build --release --quiet
/usr/bin/time -f "whole run: %e s, peak resident %M KB" \
    target/release/memplan bench-snapshot "$out" --markdown
