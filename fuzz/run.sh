#!/usr/bin/env bash
# Runs every fuzz target for a bounded time, one after another, and prints the
# executions and crashes of each. Usage: fuzz/run.sh [SECONDS per target] [TARGET...]
# Seeds are copied from ../shared/corpus (and the examples) into the gitignored
# fuzz/corpus/<target>/ at run time; crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
shift || true
shared=../../shared/corpus
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(native_json corpus_json minimalloc_csv detect npu_json npu_csv contest tflite onnx plan_check packed text snapshot alloc_conf)
fi

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz and a nightly toolchain are needed (cargo install cargo-fuzz)" >&2
  exit 1
fi

# copy FILES... into corpus dir $1 (files above 300 KB skipped: they slow each run)
seed() {
  local dir=corpus/$1
  shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 300000 ] || continue
    cp -f "$f" "$dir/seed-$(basename "$f")"
  done
}

# the tiny NPU example as the CSV pair, nodes and edges joined by a NUL byte
npu_csv_seed() {
  mkdir -p corpus/npu_csv
  python3 - ../examples/npu_tiny_matmul.json corpus/npu_csv/seed-tiny <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
cols = ["Id", "Op", "BufId", "Size", "Type", "Pipe", "Cycles", "Bufs"]
rows = [",".join(cols)]
for n in case["Nodes"]:
    cells = ["" if n.get(c) is None else str(n[c]) for c in cols[:-1]]
    cells.append('"%s"' % ",".join(str(b) for b in n.get("Bufs", [])))
    rows.append(",".join(cells))
edges = ["StartNodeId,EndNodeId"] + ["%d,%d" % tuple(e) for e in case["Edges"]]
open(sys.argv[2], "wb").write(("\n".join(rows) + "\n").encode() + b"\0" + ("\n".join(edges) + "\n").encode())
PY
}

# contest files (schedule, memory, spill joined by NUL bytes): the published ones,
# and a valid problem-2 result for the tiny example the target checks against
contest_seed() {
  mkdir -p corpus/contest
  local d s case
  for d in "$shared"/npu/published/*/; do
    for s in "$d"*_schedule.txt; do
      case=${s%_schedule.txt}
      { cat "$s"; printf '\0'; cat "${case}_memory.txt" 2>/dev/null || true
        printf '\0'; cat "${case}_spill.txt" 2>/dev/null || true; } \
        >"corpus/contest/seed-$(basename "$d")-$(basename "$case")"
    done
  done
  { seq 0 28; printf '\0'; printf '0:0\n1:192\n2:384\n3:576\n4:0\n5:0\n6:0\n7:0\n8:0\n'; printf '\0'; } \
    >corpus/contest/seed-tiny
}

seed native_json ../examples/transformer_layer.json
seed text ../examples/*.mgraph
seed corpus_json "$shared"/graphs/*.json
seed minimalloc_csv "$shared"/minimalloc/*.csv
seed detect ../examples/transformer_layer.json "$shared"/graphs/hand_recrop.json \
  "$shared"/minimalloc/A.1048576.csv "$shared"/onnx/light_squeezenet.onnx \
  "$shared"/tflite/hand_recrop.tflite ../examples/npu_tiny_matmul.json \
  ../examples/residual_block.mgraph
seed npu_json ../examples/npu_tiny_matmul.json "$shared"/npu/*.json
npu_csv_seed
contest_seed
seed tflite "$shared"/tflite/*.tflite
seed snapshot ../tests/data/mlp_train.pickle ../tests/data/mlp_train.pickle.gz \
  "$shared"/torch/gpt2_oom.pickle "$shared"/torch/resnet50_infer.pickle
seed onnx "$shared"/onnx/*.onnx "$shared"/models/*.onnx "$shared"/onnx-node/*.onnx
mkdir -p corpus/plan_check
# PYTORCH_CUDA_ALLOC_CONF strings, one a file
mkdir -p corpus/alloc_conf
printf '%s' 'expandable_segments:True' >corpus/alloc_conf/seed-expandable
printf '%s' 'max_split_size_mb:128,roundup_power2_divisions:4' >corpus/alloc_conf/seed-split
printf '%s' 'roundup_power2_divisions:[256:1,512:2,1024:4,>:8]' >corpus/alloc_conf/seed-list
printf '%s' 'garbage_collection_threshold:0.6,max_split_size_mb:20,per_process_memory_fraction:0.5' \
  >corpus/alloc_conf/seed-gc
printf '%s' 'backend:native,release_lock_on_cudamalloc:True,pinned_num_register_threads:8' \
  >corpus/alloc_conf/seed-other
# a packed report of two tensors (see crates/formats/src/packed.rs)
mkdir -p corpus/packed
python3 - corpus/packed/seed-two <<'PY'
import struct, sys
head = b'{"plan": {"tensors": []}, "placed": 2}'
out = b"MPK1" + struct.pack("<I", len(head)) + head + struct.pack("<I", 2)
for i, name in enumerate([b"x", b"<y>"]):
    out += struct.pack("<IQIIQII", i, 64 * (i + 1), i, i + 2, 128 * i, i, len(name)) + name
open(sys.argv[1], "wb").write(out)
PY

# build once, then run the binaries: `cargo fuzz run` would rebuild whenever the
# tree changes under it
cargo +nightly fuzz build
bin=target/x86_64-unknown-linux-gnu/release

summary=()
status=0
for t in "${targets[@]}"; do
  echo "== $t ($secs s)"
  mkdir -p "artifacts/$t"
  log=$(mktemp)
  if "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
      -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      >"$log" 2>&1; then
    crashed=0
  else
    crashed=1
    status=1
    grep -E "panicked|ERROR|SUMMARY|Test unit written" "$log" | head -n 8 || true
  fi
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
  result="no crash"
  [ "$crashed" = 0 ] || result="CRASH: $(ls -t "artifacts/$t" | head -n 1)"
  summary+=("$(printf '%-16s %12s executions  %s' "$t" "${execs:-?}" "$result")")
  rm -f "$log"
done
echo "== summary ($secs s per target)"
printf '%s\n' "${summary[@]}"
exit "$status"
