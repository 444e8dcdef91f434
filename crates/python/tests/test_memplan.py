"""The Python package as a user meets it: installed from the wheel into a fresh
venv (test.sh does that), imported without torch, planning the repository's files
and the shared corpus, its errors, its command and its HTML view in Chromium.

The repository root is two levels up; the corpus is $MEMPLAN_CORPUS, else
../shared/corpus beside the repository. Outside CI a missing corpus skips the
tests that need it (said by pytest); in CI (CI set) it fails them.
"""

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
EXAMPLES = ROOT / "examples"
MIB = 1 << 20


def corpus(*parts: str) -> Path:
    """A path in the shared corpus; skips outside CI when it is absent, fails in CI."""
    base = Path(os.environ.get("MEMPLAN_CORPUS") or ROOT.parent / "shared" / "corpus")
    path = base.joinpath(*parts)
    if not path.exists():
        message = f"the shared corpus is absent at {path}; set MEMPLAN_CORPUS=DIR"
        if os.environ.get("CI"):
            pytest.fail(message)
        skips = os.environ.get("MEMPLAN_SKIPS")
        if skips:
            with open(skips, "a", encoding="utf-8") as f:
                f.write(f"pytest: {message}\n")
        pytest.skip(message)
    return path


def cli() -> Path:
    """The Rust binary built by cargo (test.sh builds it first)."""
    path = Path(os.environ.get("MEMPLAN_CLI") or ROOT / "target" / "release" / "memplan")
    if not path.exists():
        pytest.fail(f"the memplan binary is missing at {path}: cargo build --release first")
    return path


def no_overlap(plan: memplan.Plan) -> None:
    """An independent check written here: tensors that live at the same step never
    share an address, and none ends past the peak."""
    tensors = sorted(plan.tensors, key=lambda t: t["offset"])
    for t in tensors:
        assert t["offset"] + t["size"] <= plan.peak
    for i, a in enumerate(tensors):
        for b in tensors[i + 1:]:
            if b["offset"] >= a["offset"] + a["size"]:
                break
            in_time = a["start"] <= b["end"] and b["start"] <= a["end"]
            assert not in_time, f"{a['name']} and {b['name']} overlap in time and address"


def test_the_seed_example_plans_to_its_lower_bound():
    r = memplan.plan(str(EXAMPLES / "transformer_layer.json"))
    assert (r.naive, r.lower_bound, r.peak) == (896 * MIB, 384 * MIB, 384 * MIB)
    assert r.peak == 402653184 and r.ratio == 1.0 and r.strategy == "best-fit"
    assert r.check() is True and r.valid
    no_overlap(r)
    cols = r.columns()
    assert len({len(v) for v in cols.values()}) == 1 and len(cols["name"]) == 8
    assert r.offsets == dict(zip(cols["name"], cols["offset"]))


def test_bytes_and_paths_give_the_same_plan():
    path = EXAMPLES / "transformer_layer.json"
    a = memplan.plan(path)
    b = memplan.plan(path.read_bytes(), name="transformer_layer")
    assert a.to_json() == b.to_json()


@pytest.mark.parametrize("strategy", ["best-fit", "greedy-size", "first-fit"])
def test_a_corpus_model_gives_the_cli_plan(strategy):
    model = corpus("models", "gpt2.dy_fixed.onnx")
    r = memplan.plan(model, strategy=strategy)
    r.check()
    no_overlap(r)
    out = subprocess.run(
        [cli(), "plan", model, "--strategy", strategy, "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert json.loads(out) == r.to_dict()
    assert out.strip() == r.to_json()


def test_options_reach_the_planner():
    r = memplan.plan(EXAMPLES / "transformer_layer.json", align="64MiB", capacity="1GiB")
    assert all(t["offset"] % (64 * MIB) == 0 for t in r.tensors)
    r.check()
    fixed = memplan.plan(DATA / "reshape100.onnx", dims={"n": 10, "k": 10})
    assert fixed.peak == 400 and fixed.check()


def test_a_detector_is_planned_at_its_worst_case():
    # tests/data/detector.onnx: NonMaxSuppression, NonZero and TopK by a computed k
    worst = memplan.plan(DATA / "detector.onnx")
    bounds = {b["value"]: b for b in worst.bounds}
    assert bounds["over_index"]["dims"] == bounds["over_index"]["worst"]
    assert not any(b["given"] for b in worst.bounds) and all(b["why"] for b in worst.bounds)
    worst.check()
    no_overlap(worst)
    # a user's smaller bound, in the value's own layout, gives a smaller arena
    smaller = memplan.plan(
        DATA / "detector.onnx",
        value_shapes={"over_index": [3, 2500], "over_scores": [2500]},
    )
    given = {b["value"]: b for b in smaller.bounds}
    assert given["over_index"]["given"] and given["over_index"]["dims"] == [3, 2500]
    assert smaller.peak < worst.peak
    smaller.check()
    no_overlap(smaller)


def test_messages_name_the_arguments_not_the_flags():
    with pytest.raises(memplan.Error) as e:
        memplan.plan(DATA / "reshape100.onnx")
    assert 'dims={"NAME": VALUE}' in str(e.value) and "--" not in str(e.value)
    # the same from bytes
    with pytest.raises(memplan.Error) as e:
        memplan.plan((DATA / "reshape100.onnx").read_bytes(), name="reshape100")
    assert str(e.value).startswith("reshape100: ") and 'dims={"NAME": VALUE}' in str(e.value)


def test_the_command_is_the_cli():
    exe = Path(sys.executable).parent / "memplan"
    assert exe.exists(), f"pip did not install the command at {exe}"
    help_run = subprocess.run([exe, "--help"], capture_output=True, text=True)
    assert help_run.returncode == 0 and "usage" in help_run.stdout
    ours = subprocess.run([exe, "plan", EXAMPLES / "transformer_layer.json"], capture_output=True, text=True)
    theirs = subprocess.run([cli(), "plan", EXAMPLES / "transformer_layer.json"], capture_output=True, text=True)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout == theirs.stdout and "384 MiB" in ours.stdout
    bad = subprocess.run([exe, "plan", "nowhere.json"], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read nowhere.json" in bad.stderr
    # a closed pipe ends it quietly, as it ends the Rust binary
    piped = subprocess.run(
        f"'{exe}' bench '{EXAMPLES}' | head -1", shell=True, capture_output=True, text=True
    )
    assert piped.stdout.startswith("graph") and piped.stderr == "", piped.stderr


def test_import_costs_no_torch(tmp_path):
    # a torch that fails on import: `import memplan` must never reach it
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('memplan imported torch')\n")
    code = "import sys, memplan; assert 'torch' not in sys.modules; print(memplan.plan(sys.argv[1]).peak)"
    run = subprocess.run(
        [sys.executable, "-c", code, EXAMPLES / "transformer_layer.json"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "402653184"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: memplan.plan("nowhere.onnx"), "cannot read nowhere.onnx"),
        (lambda: memplan.plan(b"\x00garbage\xff" * 10), "graph"),
        (lambda: memplan.plan(EXAMPLES / "transformer_layer.json", strategy="fastest"), "fastest"),
        (lambda: memplan.plan(EXAMPLES / "transformer_layer.json", align="lots"), "lots"),
        (lambda: memplan.plan(DATA / "reshape100.onnx", dims={"n": 3, "k": 7}), "21 elements"),
        (lambda: memplan.snapshot(EXAMPLES / "transformer_layer.json"), "snapshot"),
        (lambda: memplan.snapshot({"segments": "not a list"}), "device_traces"),
    ],
)
def test_errors_raise_memplan_error_with_the_message(call, message):
    with pytest.raises(memplan.Error) as e:
        call()
    assert message in str(e.value)
    assert isinstance(e.value, Exception)


def test_what_is_not_a_file_is_a_type_error():
    with pytest.raises(TypeError, match="memplan.snapshot"):
        memplan.plan({"segments": []})
    with pytest.raises(TypeError):
        memplan.plan(42)


def test_a_snapshot_gives_torchs_figures():
    # torch's own figures for this file (corpus/torch/README.md): max allocated,
    # max reserved
    s = memplan.snapshot(DATA / "mlp_train.pickle", deterministic=True)
    assert isinstance(s, memplan.Snapshot) and s.strategy == "auto"
    assert (s.live_peak, s.reserved_peak) == (489_624_064, 494_927_872)
    assert s.reserved_unused == s.figures["unused_at_reserved_peak"] > 0
    assert s.lower_bound <= s.plan_peak == s.peak <= s.live_peak
    assert s.oom is None and s.verdict is None
    assert s.check() and s.holders
    no_overlap(s)
    # plan() of a snapshot file is the same report
    same = memplan.plan(DATA / "mlp_train.pickle", strategy="auto", deterministic=True)
    assert same.to_json() == s.to_json()


def test_a_live_snapshot_dict_is_read_in_memory():
    # what torch.cuda.memory._snapshot() returns is what _dump_snapshot pickled
    path = DATA / "mlp_train.pickle"
    with open(path, "rb") as f:
        live = pickle.load(f)
    assert isinstance(live, dict)
    a = memplan.snapshot(live, name="mlp_train", deterministic=True)
    b = memplan.snapshot(path, deterministic=True)
    assert a.to_json() == b.to_json()


def test_an_out_of_memory_snapshot_has_a_verdict():
    path = corpus("torch", "gpt2_oom.pickle")
    with open(path, "rb") as f:
        s = memplan.snapshot(pickle.load(f))
    assert s.oom is not None and s.oom["size"] == 192 * MIB
    assert s.verdict in ("fragmentation", "too little memory")
    assert s.verdict == ("fragmentation" if s.oom["fits"] else "too little memory")
    # torch's max reserved for this run (corpus/torch/README.md)
    assert s.reserved_peak == 6_431_965_184
    s.check()


def test_replay_gives_the_recording_under_its_own_settings():
    s = memplan.snapshot(DATA / "mlp_train.pickle", deterministic=True)
    r = s.replay()
    assert isinstance(r, memplan.Replay)
    assert r.recorded_settings and r.alloc_conf == "" and r.capacity is None
    # torch's max_memory_reserved for this run, entry by entry as recorded
    assert r.reserved_peak == s.reserved_peak == 494_927_872
    a = r.agreement
    assert a["entries_equal"] == a["entries"] == 257
    assert a["blocks_equal"] == a["blocks"] and a["calls_equal"]
    assert r.reserved[0][0] == 0 and max(b for _, b in r.reserved) == r.reserved_peak
    assert r.fits and r.oom is None and r.segments == 11
    # the same as the command's JSON
    out = subprocess.run([sys.executable, "-m", "memplan", "replay", str(DATA / "mlp_train.pickle"),
                          "--json", "-"], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == r.to_dict()


def test_replay_under_other_settings_and_a_cap():
    with open(DATA / "mlp_train.pickle", "rb") as f:
        s = memplan.snapshot(pickle.load(f))
    r = s.replay("expandable_segments:True, roundup_power2_divisions:4", capacity="300MiB")
    assert r.alloc_conf == "expandable_segments:True,roundup_power2_divisions:4"
    assert r.capacity == 300 * MIB and not r.recorded_settings
    assert not r.fits and r.oom["reserved"] <= 300 * MIB and r.oom["request"] > 0
    free = s.replay("expandable_segments:True", capacity=1 << 30)
    assert free.fits and free.reserved_peak >= s.live_peak
    with pytest.raises(memplan.Error, match="max_split_mb.*max_split_size_mb"):
        s.replay("max_split_mb:128")
    with pytest.raises(memplan.Error, match="capacity"):
        s.replay(capacity="six")


def test_sweep_tries_the_usual_settings_and_answers():
    s = memplan.snapshot(DATA / "mlp_train.pickle")
    sw = s.sweep()
    assert isinstance(sw, memplan.Sweep) and len(sw.rows) >= 10
    assert sw.rows[0].recorded_settings
    confs = [r.alloc_conf for r in sw.rows]
    assert "expandable_segments:True" in confs and "max_split_size_mb:128" in confs
    assert sw.best is not None and all(r.reserved_peak >= sw.best.reserved_peak for r in sw.rows if r.fits)
    assert all(r.reserved_peak >= sw.live_peak for r in sw.rows)
    assert sw.plan_peak is not None and sw.plan_peak >= sw.live_peak
    assert sw.answer and str(sw) == sw.answer
    assert all(r.reserved == [] for r in sw.rows)


def test_the_gpt2_pair_predicts_each_other():
    plain = memplan.snapshot(corpus("torch", "gpt2_train.pickle"))
    expandable = memplan.snapshot(corpus("torch", "gpt2_train_expandable.pickle"))
    assert plain.replay("expandable_segments:True").reserved_peak == expandable.reserved_peak
    assert expandable.replay("expandable_segments:False").reserved_peak == plain.reserved_peak
    oom = memplan.snapshot(corpus("torch", "gpt2_oom.pickle")).replay(capacity="6GiB")
    assert oom.oom["entry"] == 398 and oom.oom["request"] == 192 * MIB


def test_svg_and_json_are_written(tmp_path):
    r = memplan.plan(EXAMPLES / "transformer_layer.json")
    svg = r.to_svg(tmp_path / "plan.svg")
    assert svg.startswith("<svg") and (tmp_path / "plan.svg").read_text() == svg
    assert json.loads(r.to_json())["peak_bytes"] == r.peak
    snap_svg = memplan.snapshot(DATA / "mlp_train.pickle").to_svg()
    assert snap_svg.startswith("<svg") and snap_svg != svg


def _open_in_chromium(path: Path, kind: str, *options: str) -> None:
    """Opens the file in headless Chromium (tests/browser/standalone-open.mjs) and
    fails unless the view of `kind` drew with its figures, with no request outside
    the file and no error."""
    node = shutil.which("node")
    assert node, "node is needed to drive Chromium"
    run = subprocess.run(
        [node, ROOT / "tests" / "browser" / "standalone-open.mjs", path, kind, *options],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_html_of_a_plan_opens_and_draws(tmp_path):
    r = memplan.plan(EXAMPLES / "transformer_layer.json")
    out = tmp_path / "plan.html"
    view = memplan.html(r, out)
    assert view.path == str(out) and out.read_text() == view.text
    assert 500_000 < len(view.text) < 4_000_000
    _open_in_chromium(out, "transformer")
    # as a notebook shows it: the cell's output holds the iframe _repr_html_ gives
    host = tmp_path / "notebook.html"
    host.write_text(f"<!doctype html><title>notebook</title>{view._repr_html_()}")
    _open_in_chromium(host, "transformer", "--in-iframe")


def test_html_of_a_live_snapshot_opens_and_draws(tmp_path):
    with open(DATA / "mlp_train.pickle", "rb") as f:
        live = pickle.load(f)
    out = tmp_path / "memory.html"
    view = memplan.html(live, out)
    assert '"name":"snapshot.pickle"' in view.text
    _open_in_chromium(out, "snapshot")


def test_html_of_a_model_inlines_it_with_its_bounds(tmp_path):
    # the detector is inlined as the model itself, opened with the bounds given,
    # so the page's form shows them and can change them
    bounds = {"over_index": [3, 2500], "over_scores": [2500]}
    r = memplan.plan(DATA / "detector.onnx", value_shapes=bounds)
    out = tmp_path / "detector.html"
    view = memplan.html(r, out)
    assert '"name":"detector.onnx"' in view.text
    kib = r.peak / 1024
    peak = f"{kib:.2f}".rstrip("0").rstrip(".") + " KiB"
    _open_in_chromium(out, "detector", peak)


def test_html_of_a_path_needs_no_plan_object(tmp_path):
    a = memplan.html(EXAMPLES / "transformer_layer.json")
    b = memplan.html(memplan.plan(EXAMPLES / "transformer_layer.json"))
    assert a.path is None and a.text == b.text
    # a snapshot file is inlined as it is, for the page to plan as memplan.snapshot
    # does: auto, with plan's budget
    snap = memplan.html(DATA / "mlp_train.pickle").text
    assert '"name":"mlp_train.pickle"' in snap and '"view":"strategy=auto&budget=1000"' in snap


def test_the_installed_package_is_tested():
    # the tests import the wheel's package from the venv, not the source tree
    assert "site-packages" in memplan.__file__, memplan.__file__
    assert hasattr(memplan._memplan, "run") and memplan.__version__ == "0.1.0"
