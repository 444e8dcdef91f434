#!/usr/bin/env bash
# How the NPU results spread over seeds: `memplan bench-npu --seed N` for N = 1..SEEDS,
# then, per case, the median and mean of Problem 2's movement and Problem 3's
# makespan (bench/results.sh puts it in docs/results.md). Not run in CI: about 20 s
# of two cores per seed.
#   bench/npu-seeds.sh [SEEDS] [MEMPLAN]   (default 16, target/release/memplan built here)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-16}
bin=${2:-}
if [[ -z "$bin" ]]; then
    cargo build --release --quiet -p memplan-cli
    bin=target/release/memplan
fi
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for seed in $(seq 1 "$seeds"); do
    # the first table's rows: case, P1, (pub), base, P2 best, (pub), P3 span, ...
    "$bin" bench-npu --seed "$seed" |
        awk '/^(Conv|Flash|Matmul)/ && !seen[$1]++ { gsub(",", "", $5); gsub(",", "", $7); print $1, $5, $7 }' >>"$rows"
done
awk -v seeds="$seeds" '
    { p2[$1] = p2[$1] " " $2; p3[$1] = p3[$1] " " $3; if (!($1 in at)) { at[$1] = n++; name[n - 1] = $1 } }
    function stats(list,    v, k, m, sum, i, j, t) {
        m = split(substr(list, 2), v, " ")
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        for (i = 1; i <= m; i++) sum += v[i]
        k = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        return sprintf("%12.0f %12.0f %10d %10d", k, sum / m, v[1], v[m])
    }
    END {
        printf "%-22s %-8s %12s %12s %10s %10s   (%d seeds)\n", "case", "problem", "median", "mean", "min", "max", seeds
        for (i = 0; i < n; i++) {
            printf "%-22s %-8s %s\n", name[i], "2 move", stats(p2[name[i]])
            printf "%-22s %-8s %s\n", name[i], "3 span", stats(p3[name[i]])
        }
    }' "$rows"
