#!/usr/bin/env bash
# Runs every test: Rust unit, integration and property tests; the benchmark over the
# shared corpus (it fails if any plan fails the checker); the wasm build and the
# wasm API tests; the real-browser tests of the page in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo test"
cargo test --release

echo "== memplan bench (every plan checked)"
cargo run --release --quiet -- bench
echo "== memplan bench on the large instances (time per strategy; every plan checked)"
cargo run --release --quiet -- bench ../shared/corpus/large

echo "== wasm build"
./build.sh

echo "== wasm API tests (wasm-bindgen-test in Node)"
cargo test --release -p memplan-wasm --lib --target wasm32-unknown-unknown

echo "== browser test"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
for t in tests/browser/*.test.mjs; do
  echo "-- $t"
  node "$t"
done
echo "== all tests passed"
