#!/usr/bin/env bash
# memplan's offset strategies beside OmniMalloc 1.0.0's allocators, same files, same
# budget, one table (bench/results.sh runs it once installed). Not run in CI: it
# installs OmniMalloc from PyPI into a venv of its own.
#   bench/peers.sh [BUDGET_MS] [FILE...]   (default 3000 ms, ../shared/corpus/large/*.csv)
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-3000}
shift || true
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    files=(../shared/corpus/large/*.csv)
fi
venv=${PEERS_VENV:-target/peers-venv}
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q omnimalloc==1.0.0
cargo build --release --quiet -p memplan-cli
"$venv/bin/python" bench/peers.py target/release/memplan "$budget" "${files[@]}"
