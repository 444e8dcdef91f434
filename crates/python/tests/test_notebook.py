"""The package in a real notebook: examples/memplan.ipynb, executed by nbclient in an
ipykernel of this venv (the installed wheel), converted to HTML by nbconvert and opened
in headless Chromium (tests/browser/notebook-open.mjs), where both memplan views must
draw inside their cells' outputs.

nbclient, ipykernel and nbconvert come from PyPI (test.sh installs them into the test
venv); without them the test skips, said by pytest, but in CI (CI set) it fails.
$MEMPLAN_NOTEBOOK_SCREENSHOT names a PNG to write of the first view in its cell.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "examples" / "memplan.ipynb"


def need(module: str):
    try:
        return __import__(module)
    except ImportError:
        message = f"{module} is not installed (pip install nbclient ipykernel nbconvert)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_the_example_notebook_is_committed_without_outputs():
    nbformat = need("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_the_example_notebook_runs_and_draws(tmp_path):
    nbformat = need("nbformat")
    nbclient = need("nbclient")
    need("ipykernel")
    nbconvert = need("nbconvert")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel is this venv's python (ipykernel's own spec), run where a user runs it
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    printed = "".join(o.get("text", "") for c in code for o in c.outputs)
    assert "peak 402,653,184 B, lower bound 402,653,184 B, checker: True" in printed, printed
    assert "live peak 489,624,064 B" in printed, printed
    views = [
        o for c in code for o in c.outputs
        if o.get("output_type") == "execute_result" and "text/html" in o.get("data", {})
    ]
    assert len(views) == 2
    for v in views:
        assert v["data"]["text/html"].startswith("<iframe ") and "srcdoc=" in v["data"]["text/html"]

    html, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    page = tmp_path / "memplan.html"
    page.write_text(html, encoding="utf-8")
    node = shutil.which("node")
    assert node, "node is needed to drive Chromium"
    shot = os.environ.get("MEMPLAN_NOTEBOOK_SCREENSHOT") or str(tmp_path / "notebook.png")
    run = subprocess.run(
        [node, ROOT / "tests" / "browser" / "notebook-open.mjs", page, shot],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    print(run.stdout)
