"""memplan's offset strategies beside OmniMalloc's allocators on the same files.

Run by bench/peers.sh (which makes the venv); not part of the tests or CI.
    python bench/peers.py MEMPLAN BUDGET_MS FILE...
Each file is a MiniMalloc CSV (id,lower,upper,size; upper exclusive). Prints one
table: peak / lower bound (the most bytes live at one step) and wall seconds of the
call (memplan: the whole CLI process, reading included; OmniMalloc: the allocate
call, the CSV already in memory). Every OmniMalloc result goes through its own
validator; memplan's through memplan's checker (the CLI exits non-zero otherwise).
"""

import csv
import json
import subprocess
import sys
import time

import omnimalloc as om
from omnimalloc.allocators import (
    BestFitAllocator,
    GreedyBySizeAllocator,
    OmniAllocator,
    SupermallocAllocator,
)

MEMPLAN_STRATEGIES = ["greedy-size", "best-fit", "best-of", "search"]


def read(path):
    with open(path, newline="") as f:
        rows = [(int(r["id"]), int(r["lower"]), int(r["upper"]), int(r["size"])) for r in csv.DictReader(f)]
    return rows


def lower_bound(rows):
    events = []
    for _, lo, hi, size in rows:
        events.append((lo, size))
        events.append((hi, -size))
    events.sort(key=lambda e: (e[0], e[1]))  # ends before starts at a step
    live = best = 0
    for _, d in events:
        live += d
        best = max(best, live)
    return best


def omni(rows, budget_s):
    allocs = [om.Allocation(id=i, size=s, start=lo, end=hi) for i, lo, hi, s in rows]
    out = {}
    for name, make in [
        ("omni greedy_by_size", lambda: GreedyBySizeAllocator()),
        ("omni best_fit", lambda: BestFitAllocator()),
        ("omni omni", lambda: OmniAllocator()),
        ("omni supermalloc", lambda: SupermallocAllocator(timeout=budget_s)),
    ]:
        started = time.perf_counter()
        placed = om.allocate(allocs, make(), validate=True)
        seconds = time.perf_counter() - started
        out[name] = (max(a.offset + a.size for a in placed), seconds)
    return out


def memplan(binary, path, budget_ms):
    out = {}
    for strategy in MEMPLAN_STRATEGIES:
        started = time.perf_counter()
        done = subprocess.run(
            [binary, "plan", path, "--strategy", strategy, "--budget", str(budget_ms), "--json", "-"],
            check=True, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - started
        out[f"memplan {strategy}"] = (json.loads(done.stdout)["peak_bytes"], seconds)
    return out


def main():
    binary, budget_ms, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    results = {}
    for path in files:
        rows = read(path)
        bound = lower_bound(rows)
        name = path.rsplit("/", 1)[-1].removesuffix(".csv")
        found = memplan(binary, path, budget_ms)
        found.update(omni(rows, budget_ms / 1000))
        results[name] = (len(rows), bound, found)
        print(f"{name}: {len(rows)} buffers done", file=sys.stderr)
    names = list(next(iter(results.values()))[2])
    print(f"budget {budget_ms} ms for best-of, search and supermalloc; peak / lower bound, seconds\n")
    print("| allocator | " + " | ".join(f"{n} ({c:,})" for n, (c, _, _) in results.items()) + " |")
    print("|---|" + "---:|" * len(results))
    for allocator in names:
        cells = []
        for _, bound, found in results.values():
            peak, seconds = found[allocator]
            cells.append(f"{peak / bound:.4f}x, {seconds:.2f} s")
        print(f"| {allocator} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
