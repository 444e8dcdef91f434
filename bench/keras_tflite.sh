#!/usr/bin/env bash
# Keras models through TensorFlow's TFLite converter (float, dynamic-range and int8),
# every tensor's bytes against the TFLite interpreter's at batch 1 and 3
# (bench/keras_tflite.py). Not run in CI: it
# installs tensorflow-cpu (about 600 MB) into a venv of its own.
#   bench/keras_tflite.sh [MEMPLAN]   (default: target/release/memplan, built first)
set -euo pipefail
cd "$(dirname "$0")/.."
memplan=${1:-}
if [[ -z "$memplan" ]]; then
    cargo build --release --quiet -p memplan-cli
    memplan=target/release/memplan
fi
venv=${KERAS_VENV:-target/keras-venv}
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q tensorflow-cpu
"$venv/bin/python" bench/keras_tflite.py "$memplan" "${KERAS_DIR:-target/keras-tflite}"
