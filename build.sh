#!/usr/bin/env bash
# Builds the browser visualizer: the core as wasm, bound for the web into www/pkg, and
# the gallery's copies of a few corpus files into www/gallery (when ../shared/corpus
# is there; the committed examples need nothing).
#   ./build.sh          build
#   ./build.sh serve    build, then serve the repo root on 127.0.0.1:${PORT:-8000}
#   ./build.sh tools    only install what the build needs (./test.sh runs it first)
#   ./build.sh wheels   the Python package into dist/: an abi3 wheel for linux x86_64
#                       and one for aarch64, both manylinux2014, and the sdist; builds
#                       the page first when it is not built (the wheels embed it)
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-}

# The page is built when every file www/site.txt lists (but the optional `?` lines) is
# there.
page_built() {
    local line
    while read -r line; do
        [[ -z "$line" || "$line" == \#* || "$line" == \?* ]] && continue
        [[ -f "$line" ]] || return 1
    done <www/site.txt
}

# `./build.sh wheels`: the wheels cross-compile with zig as the linker (PyPI's
# ziglang, in the build venv target/python/build), which links against glibc 2.17's
# symbols, so one build machine makes manylinux2014 wheels for both architectures
# without docker (see docs/python.md). auditwheel confirms each tag and twine checks
# the metadata of every file.
wheels() {
    local venv=target/python/build line
    [[ -x "$venv/bin/pip" ]] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "maturin>=1.9,<2" "ziglang==0.17.1" "auditwheel>=6,<7" "twine>=6" abi3audit
    local arches=(x86_64 aarch64) arch
    for arch in "${arches[@]}"; do
        if ! rustup target list --installed | grep -qx "$arch-unknown-linux-gnu"; then
            rustup target add "$arch-unknown-linux-gnu"
        fi
    done
    mkdir -p dist
    rm -f dist/memplan-*
    local start
    for arch in "${arches[@]}"; do
        echo "== wheel for linux $arch (manylinux2014, zig)"
        start=$SECONDS
        # maturin finds zig through the venv's python (-m ziglang)
        PATH="$PWD/$venv/bin:$PATH" "$venv/bin/maturin" build --release --quiet -m crates/python/Cargo.toml \
            --zig --target "$arch-unknown-linux-gnu" --compatibility manylinux2014 --out dist
        echo "(built in $((SECONDS - start)) s)"
    done
    echo "== sdist"
    # (without cargo's note, for each workspace crate it lists, that it names no homepage)
    "$venv/bin/maturin" sdist -m crates/python/Cargo.toml --out dist 2>&1 | grep -vE \
        '^(From `cargo package --list|warning: manifest has no documentation|  \||  = note: see https://doc.rust-lang.org/cargo/reference/manifest.html#package-metadata)'
    local sdist=(dist/memplan-*.tar.gz) missing=()
    # the sdist must hold the page, or a module built from it has none
    local listed top line
    listed=$(tar tzf "${sdist[0]}")
    top=$(basename "${sdist[0]}" .tar.gz)
    while read -r line; do
        [[ -z "$line" || "$line" == \#* || "$line" == \?* ]] && continue
        grep -qxF "$top/$line" <<<"$listed" || missing+=("$line")
    done <www/site.txt
    if [[ ${#missing[@]} -gt 0 ]]; then
        echo "build.sh: the sdist lacks the page's ${missing[*]}" >&2
        exit 1
    fi
    "$venv/bin/twine" check --strict dist/memplan-*
    # auditwheel reads the module's symbols: the tag it finds must be the file's
    local file shown tag summary=()
    for file in dist/memplan-*.whl; do
        shown=$("$venv/bin/auditwheel" show "$file")
        echo "$shown"
        tag=$(sed -n 's/^"\(manylinux[^"]*\)"\.$/\1/p' <<<"$shown" | head -1)
        if [[ -z "$tag" || "$(basename "$file")" != *".$tag.whl" ]]; then
            echo "build.sh: auditwheel finds ${tag:-no manylinux tag} for $(basename "$file")" >&2
            exit 1
        fi
        summary+=("$(basename "$file"): $(stat -c %s "$file") bytes, auditwheel: $tag")
    done
    summary+=("$(basename "${sdist[0]}"): $(stat -c %s "${sdist[0]}") bytes, the sdist (the page's files in it)")
    echo "== dist/"
    printf '%s\n' "${summary[@]}"
}

if [[ "$mode" == wheels ]] && page_built; then
    echo "the page is built (www/site.txt's files are there); building the wheels"
    wheels
    exit 0
fi

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
if [[ "$mode" == "tools" ]]; then
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

if [[ "$mode" == "serve" ]]; then
    exec node www/serve.mjs "${PORT:-8000}"
fi
if [[ "$mode" == "wheels" ]]; then
    wheels
fi
