#!/usr/bin/env bash
# Builds the browser visualizer: the core as wasm, bound for the web into www/pkg, and
# the gallery's copies of a few corpus files into www/gallery (when ../shared/corpus
# is there; the committed examples need nothing).
#   ./build.sh          build
#   ./build.sh serve    build, then serve the repo root on 127.0.0.1:${PORT:-8000}
#   ./build.sh tools    only install what the build needs (./test.sh runs it first)
set -euo pipefail
cd "$(dirname "$0")"

target=wasm32-unknown-unknown

if ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi

# wasm-bindgen-cli must match the wasm-bindgen crate exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [[ "$have" != "$want" ]]; then
    echo "installing wasm-bindgen-cli $want (found: ${have:-none})"
    cargo install wasm-bindgen-cli --version "=$want" --debug
fi

# wasm-opt comes from npm's binaryen (package.json), not from a system package: older
# binaryen releases (Debian's 108) write wasm that the browser rejects.
if [[ ! -x node_modules/.bin/wasm-opt ]]; then
    npm ci --no-audit --no-fund
fi
if [[ "${1:-}" == "tools" ]]; then
    exit 0
fi

# [profile.wasm-release] (Cargo.toml): release, linked whole, sized down but for the core
# and the painter; CARGO_TARGET_DIR is honoured. One module per feature of memplan-wasm
# (crates/wasm/Cargo.toml): `page` draws in the page; the worker starts with `worker`
# (graphs in memplan's formats and CSV) and loads `models` (ONNX, TFLite), `npu` or
# `snapshot` (PyTorch memory snapshots) only for a file that needs it.
target_dir=${CARGO_TARGET_DIR:-target}
rm -f www/pkg/memplan.js www/pkg/memplan_bg.wasm www/pkg/memplan.d.ts www/pkg/memplan_bg.wasm.d.ts
for module in page worker models npu snapshot; do
    cargo build --profile wasm-release -p memplan-wasm --target "$target" \
        --no-default-features --features "$module"
    wasm-bindgen --target web --out-dir www/pkg --out-name "memplan_$module" \
        "$target_dir/$target/wasm-release/memplan_wasm.wasm"
    # -ocimfs: wasm-opt would inline every function that has one caller, whatever its
    # size; V8 first runs a function's unoptimised code and swaps in the optimised code at
    # its next call, so a long loop must call its body as a function to get the fast code
    # (see pack::placing::Placing::run), and a large one-caller function stays a call.
    node_modules/.bin/wasm-opt -Oz --one-caller-inline-max-function-size 1000 --enable-bulk-memory \
        --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
        --enable-reference-types --enable-multivalue \
        "www/pkg/memplan_${module}_bg.wasm" -o "www/pkg/memplan_${module}_bg.wasm"
    echo "built www/pkg/memplan_$module ($(stat -c %s "www/pkg/memplan_${module}_bg.wasm") bytes of wasm)"
done

corpus=${CORPUS:-${MEMPLAN_CORPUS:-../shared/corpus}}
gallery=(
    npu/FlashAttention_Case0.json
    graphs/light_squeezenet.json
    minimalloc/A.1048576.csv
)
mkdir -p www/gallery
copied=0
for file in "${gallery[@]}"; do
    if [[ -f "$corpus/$file" ]]; then
        cp "$corpus/$file" www/gallery/
        copied=$((copied + 1))
    else
        echo "note: $corpus/$file not found; the gallery will say so when it is chosen"
    fi
done
echo "gallery: $copied of ${#gallery[@]} corpus files copied into www/gallery"

if [[ "${1:-}" == "serve" ]]; then
    exec node www/serve.mjs "${PORT:-8000}"
fi
