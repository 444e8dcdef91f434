#!/usr/bin/env bash
# Runs every test: Rust unit, integration and property tests; the benchmark over the
# shared corpus (it fails if any plan fails the checker); the wasm build and the
# wasm API tests; the real-browser tests of the page in headless Chromium; the
# Python package: its manylinux wheels and sdist (./build.sh wheels), the x86_64 wheel
# in a fresh venv with its pytest tests (a notebook among them), the aarch64 wheel
# under qemu-user, and the sdist built and installed by pip.
#
# The shared corpus (real models, MiniMalloc instances, NPU cases, PyTorch
# snapshots) is looked for at $MEMPLAN_CORPUS, else ../shared/corpus. Without it,
# outside CI, the tests that need it skip (each says so) and a summary at the end
# counts them; in CI (CI set) a missing corpus fails at once.
set -euo pipefail
cd "$(dirname "$0")"

export MEMPLAN_CORPUS="${MEMPLAN_CORPUS:-../shared/corpus}"
corpus=$MEMPLAN_CORPUS
if [[ ! -d "$corpus" && -n "${CI:-}" ]]; then
    echo "test.sh: the shared corpus is missing at $corpus (required in CI; set MEMPLAN_CORPUS=DIR)" >&2
    exit 1
fi
# every skipped test writes one line here (memplan_testkit::skipped, the browser harness)
MEMPLAN_SKIPS=$(mktemp)
export MEMPLAN_SKIPS
trap 'rm -f "$MEMPLAN_SKIPS"' EXIT

# What the steps below need, installed where this script can, said in one line and
# stopped on where it cannot, before any long build.
need() { echo "test.sh: $1" >&2; exit 1; }
command -v cargo >/dev/null || need "cargo is missing: install Rust from https://rustup.rs"
command -v node >/dev/null || need "node is missing: install Node.js 18 or later (apt-get install -y nodejs npm)"
command -v npm >/dev/null || need "npm is missing: install it (apt-get install -y npm)"
python3 -c 'import venv, ensurepip' 2>/dev/null \
    || need "python3 with venv is missing: install Python 3.9 or later (apt-get install -y python3-venv); the Python package is built and tested in a venv"
if [[ ! -x /usr/bin/chromium ]]; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    fi
    [[ -x /usr/bin/chromium ]] || need "Chromium is missing at /usr/bin/chromium: apt-get install -y chromium (the browser tests drive it)"
fi
if [[ ! -d node_modules/playwright-core ]]; then
    npm ci --no-audit --no-fund
fi
# the wasm target, the wasm-bindgen CLI at the version pinned in Cargo.lock, npm's wasm-opt
./build.sh tools || need "the wasm build's tools did not install (see above)"

echo "== cargo test"
cargo test --release

if [[ -d "$corpus" ]]; then
    echo "== memplan bench (every plan checked)"
    cargo run --release --quiet -- bench "$corpus/graphs" "$corpus/minimalloc"
    echo "== memplan bench on the large instances (time per strategy; every plan checked)"
    cargo run --release --quiet -- bench "$corpus/large"
else
    echo "SKIPPED: memplan bench over the corpus (absent at $corpus)"
    echo "test.sh::bench: the shared corpus is absent at $corpus" >>"$MEMPLAN_SKIPS"
    echo "test.sh::bench-large: the shared corpus is absent at $corpus" >>"$MEMPLAN_SKIPS"
    echo "== memplan bench on the repository's examples (every plan checked)"
    cargo run --release --quiet -- bench examples examples/teach
fi

echo "== wasm build"
CORPUS="$corpus" ./build.sh

echo "== wasm API tests (wasm-bindgen-test in Node)"
cargo test --release -p memplan-wasm --lib --target wasm32-unknown-unknown

echo "== browser test"
for t in tests/browser/*.test.mjs; do
    echo "-- $t"
    node "$t"
done

echo "== Python package: the wheels and the sdist (./build.sh wheels, into dist/)"
# an abi3 manylinux2014 wheel for x86_64 and one for aarch64 (cross-linked with zig),
# the sdist; auditwheel shows each tag and twine checks each file (two release builds:
# 6 min 23 s from cold on 2 cores, 90 s each with crates.io's crates compiled)
./build.sh wheels
py=target/python
# the wheels claim CPython 3.9 and later: their module may use only the stable ABI of 3.9
"$py/build/bin/abi3audit" --strict --summary dist/memplan-*.whl

echo "== Python package: the x86_64 wheel, installed into a fresh venv, and its tests"
# with the notebook's packages: test_notebook.py runs examples/memplan.ipynb in a kernel
# of this venv and opens it, converted to HTML, in Chromium (about 15 s)
rm -rf "$py/venv"
python3 -m venv "$py/venv"
"$py/venv/bin/pip" install --quiet --disable-pip-version-check dist/memplan-*manylinux*_x86_64.whl \
    pytest nbclient ipykernel nbconvert
"$py/venv/bin/pytest" -q -p no:cacheprovider crates/python/tests

echo "== Python package: the aarch64 wheel under emulation (qemu-user, Debian's arm64 CPython)"
# about 10 s: apt fetches qemu-user-static and the arm64 interpreter's packages once
# (7 MB), then the plans, the snapshot and the HTML take 2 s under qemu, compared with
# the x86_64 wheel's; where qemu cannot be had it says so in one line (SKIPPED)
crates/python/tests/aarch64.sh dist/memplan-*manylinux*_aarch64.whl "$py/venv/bin/python"

echo "== Python package: the sdist, built by pip in a fresh venv"
# pip builds the module from the sdist with cargo: a third release build, 2 min 16 s
# on 2 cores (CARGO_TARGET_DIR=target: what target/release already holds of the
# crates.io dependencies is reused; the workspace's crates, unpacked elsewhere, build
# again).
# The installed package must plan, and write a view that draws: the page came with
# the sdist.
rm -rf "$py/sdist"
python3 -m venv "$py/sdist"
CARGO_TARGET_DIR="$PWD/target" "$py/sdist/bin/pip" install --quiet --disable-pip-version-check dist/memplan-*.tar.gz
"$py/sdist/bin/python" - "$py/sdist/plan.html" <<'EOF'
import sys
import memplan
assert "site-packages" in memplan.__file__, memplan.__file__
plan = memplan.plan("examples/transformer_layer.json")
assert plan.peak == 402653184 and plan.check(), plan.peak
memplan.html(plan, sys.argv[1])
print(f"the sdist's package: {memplan.__file__}, peak {plan.peak}")
EOF
node tests/browser/standalone-open.mjs "$py/sdist/plan.html" transformer

skipped=$(sort -u "$MEMPLAN_SKIPS" | wc -l)
if [[ $skipped -gt 0 ]]; then
    echo "== $skipped tests skipped: the corpus at $corpus is absent; set MEMPLAN_CORPUS=DIR to run them"
fi
echo "== all tests passed"
