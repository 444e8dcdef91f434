#!/usr/bin/env bash
# The aarch64 wheel where it runs, under emulation: qemu-user runs Debian's arm64
# CPython, which imports the wheel (unzipped onto PYTHONPATH: pip under qemu is slow),
# plans the seed example to 402653184 bytes, reads mlp_train.pickle to torch's live
# peak (489,624,064 B) and replays it to its reserved peak, plans the corpus's GPT-2
# (tests/data/detector.onnx without the corpus) and writes the HTML view; every
# report, and the HTML, must equal byte for byte what the x86_64 wheel gives.
#   crates/python/tests/aarch64.sh AARCH64_WHEEL PYTHON
# PYTHON: an x86_64 python with the x86_64 wheel installed (test.sh's venv).
# Installs qemu-user-static and downloads the arm64 interpreter's packages (into
# target/python/arm64) with apt and dpkg when run as root; where it cannot, it says
# so in one line and exits 0. Takes about 10 s (see docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
wheel=$1
python=$2
dir=$PWD/target/python/arm64

skip() {
    echo "SKIPPED: the aarch64 wheel under emulation: $1"
    exit 0
}
# what apt could not fetch: a skip, but a failure in CI (root on Debian, with apt)
unfetched() {
    if [[ -n "${CI:-}" ]]; then
        echo "aarch64.sh: $1" >&2
        exit 1
    fi
    skip "$1"
}

qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [[ -z "$qemu" ]]; then
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
        skip "qemu-user is missing and cannot be installed here (not root with apt-get): apt-get install qemu-user-static"
    fi
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null; } \
        || unfetched "apt-get install qemu-user-static failed"
    qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
    [[ -n "$qemu" ]] || unfetched "qemu-user-static installed no qemu-aarch64"
fi

# Debian's arm64 CPython (the release's python3, e.g. 3.11 on bookworm) and the
# libraries it and the module load, unpacked into one root for `qemu -L`.
root=$dir/root
if ! compgen -G "$root/usr/bin/python3.*" >/dev/null; then
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
        skip "no arm64 CPython at $root and no apt-get/dpkg as root to fetch Debian's"
    fi
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
        apt-get update -qq
    fi
    ver=$(apt-cache depends python3-minimal:arm64 2>/dev/null \
        | sed -n 's/.*Depends: python\(3\.[0-9]*\)-minimal.*/\1/p' | head -1)
    if [[ -z "$ver" ]]; then
        apt-get update -qq || true
        ver=$(apt-cache depends python3-minimal:arm64 2>/dev/null \
            | sed -n 's/.*Depends: python\(3\.[0-9]*\)-minimal.*/\1/p' | head -1)
    fi
    [[ -n "$ver" ]] || unfetched "apt knows no python3-minimal:arm64"
    rm -rf "$dir/debs" "$root"
    mkdir -p "$dir/debs" "$root"
    # (apt warns that root downloads unsandboxed: that is all it says on success)
    (cd "$dir/debs" && apt-get download -qq "python$ver-minimal:arm64" "libpython$ver-minimal:arm64" \
        "libpython$ver-stdlib:arm64" libc6:arm64 libgcc-s1:arm64 zlib1g:arm64 libexpat1:arm64 2>&1) \
        | { grep -v "^W: Download is performed unsandboxed" || true; }
    compgen -G "$dir/debs/python$ver-minimal_*.deb" >/dev/null || unfetched "apt-get download of Debian's arm64 python$ver failed"
    for deb in "$dir"/debs/*.deb; do
        dpkg -x "$deb" "$root"
    done
fi
interp=$(compgen -G "$root/usr/bin/python3.*" | grep -E '/python3\.[0-9]+$' | head -1)

site=$dir/site
rm -rf "$site"
"$python" -m zipfile -e "$wheel" "$site"

export MEMPLAN_CORPUS="${MEMPLAN_CORPUS:-../shared/corpus}"
snap="$MEMPLAN_CORPUS/torch/mlp_train.pickle"
[[ -f "$snap" ]] || snap=tests/data/mlp_train.pickle
model="$MEMPLAN_CORPUS/models/gpt2.dy_fixed.onnx"
[[ -f "$model" ]] || model=tests/data/detector.onnx
script=$(cat <<'EOF'
import hashlib, json, platform, sys
import memplan
example, snap, model = sys.argv[1:4]
digest = lambda text: hashlib.sha256(text.encode()).hexdigest()[:16]
plan = memplan.plan(example)
assert plan.peak == 402653184 and plan.check(), plan.peak
s = memplan.snapshot(snap, deterministic=True)
assert s.live_peak == 489_624_064 and s.check(), s.live_peak
replay = s.replay()
assert replay.reserved_peak == s.reserved_peak == 494_927_872, replay.reserved_peak
onnx = memplan.plan(model, deterministic=True)
onnx.check()
page = memplan.html(plan).text
print(json.dumps({
    "machine": platform.machine(),
    "peak": plan.peak,
    "live_peak": s.live_peak,
    "plan_peak": s.plan_peak,
    "replay_reserved_peak": replay.reserved_peak,
    "onnx_peak": onnx.peak,
    "json": [digest(plan.to_json()), digest(s.to_json()), digest(json.dumps(replay.to_dict())), digest(onnx.to_json())],
    "html": [len(page), digest(page)],
}))
EOF
)
start=$(date +%s)
arm=$(PYTHONPATH="$site" "$qemu" -L "$root" "$interp" -c "$script" examples/transformer_layer.json "$snap" "$model")
took=$(($(date +%s) - start))
x86=$("$python" -c "$script" examples/transformer_layer.json "$snap" "$model")
echo "aarch64 ($(basename "$interp") under $(basename "$qemu"), ${took}s): $arm"
echo "x86_64: $x86"
[[ "$arm" == *'"machine": "aarch64"'* ]] || { echo "aarch64.sh: the emulated python is not aarch64" >&2; exit 1; }
if [[ "${arm/\"machine\": \"aarch64\"/}" != "${x86/\"machine\": \"x86_64\"/}" ]]; then
    echo "aarch64.sh: the aarch64 wheel's reports differ from the x86_64 wheel's" >&2
    exit 1
fi
echo "the aarch64 wheel gives the x86_64 wheel's plans, snapshot report, replay and HTML"
