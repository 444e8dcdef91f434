//! `memplan._memplan`: the native half of the `memplan` Python package. It holds
//! the whole command line ([`run`]) and plans without printing ([`plan`]), both
//! from memplan_cli, so that the package and the `memplan` binary give the same
//! answers; the Python half (python/memplan) shapes them for Python.

use memplan_cli::api::{self, Input};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::path::PathBuf;

#[global_allocator]
static ALLOC: memplan_cli::Counting = memplan_cli::Counting;

mod page {
    include!(concat!(env!("OUT_DIR"), "/page.rs"));
}

pyo3::create_exception!(
    _memplan,
    Error,
    PyException,
    "memplan could not read, plan or write: the message says why."
);

fn error(message: impl Into<String>) -> PyErr {
    Error::new_err(message.into())
}

/// Runs the command line `args` (after the program's name); returns its exit
/// code (0 success, 1 an invalid plan or check, 2 an error).
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| memplan_cli::run_args(args))
}

/// A plan as `memplan plan` makes it: its JSON, its text report, its validity,
/// the checker's verdict and its chart.
#[pyclass(module = "memplan._memplan", frozen)]
struct Outcome {
    inner: api::Outcome,
}

#[pymethods]
impl Outcome {
    /// The report as `memplan plan --json -` prints it.
    fn json(&self) -> String {
        self.inner.json()
    }

    /// The report as `memplan plan` prints it.
    fn text(&self) -> &str {
        &self.inner.text
    }

    /// True when the plan and any nested plan passed the checker as planned.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.valid
    }

    /// The independent checker's violations of the plan (none when valid).
    fn check(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| api::check(&self.inner))
    }

    /// The time-by-address chart as SVG (for a snapshot: the allocator's layout
    /// above memplan's plan).
    fn svg(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.inner.svg()).map_err(error)
    }

    /// The graph in memplan's JSON (no weights), as the page reads it.
    fn graph_json(&self) -> String {
        memplan_formats::write_native(&self.inner.graph)
    }
}

/// Plans the file at `path`, or `data` named `name`, with `flags` given as to
/// `memplan plan` (`--strategy best-fit`, `--dim batch=1` ...).
#[pyfunction]
#[pyo3(signature = (flags, path=None, data=None, name="graph"))]
fn plan(
    py: Python<'_>,
    flags: Vec<String>,
    path: Option<PathBuf>,
    data: Option<Vec<u8>>,
    name: &str,
) -> PyResult<Outcome> {
    let inner = py.detach(|| match (&path, &data) {
        (Some(p), None) => api::plan(&Input::Path(p), &flags),
        (None, Some(d)) => api::plan(&Input::Bytes { data: d, name }, &flags),
        _ => Err("give a path or bytes, not both".to_string()),
    });
    Ok(Outcome {
        inner: inner.map_err(error)?,
    })
}

/// The snapshot at `path`, or in `data`, replayed through PyTorch's caching
/// allocator under `conf` (`PYTORCH_CUDA_ALLOC_CONF`'s text; None: the recorded
/// settings) with at most `capacity` reserved: the JSON `memplan replay --json`
/// writes.
#[pyfunction]
#[pyo3(signature = (path=None, data=None, conf=None, capacity=None, device=None))]
fn replay(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Vec<u8>>,
    conf: Option<String>,
    capacity: Option<String>,
    device: Option<u32>,
) -> PyResult<String> {
    py.detach(|| {
        let input = input(&path, &data)?;
        api::replay(&input, conf.as_deref(), capacity.as_deref(), device)
    })
    .map_err(error)
}

/// The usual allocator settings replayed over the snapshot, one row each, and the
/// answer: the JSON `memplan replay --sweep --json` writes.
#[pyfunction]
#[pyo3(signature = (path=None, data=None, capacity=None, device=None))]
fn sweep(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Vec<u8>>,
    capacity: Option<String>,
    device: Option<u32>,
) -> PyResult<String> {
    py.detach(|| {
        let input = input(&path, &data)?;
        api::sweep(&input, capacity.as_deref(), device)
    })
    .map_err(error)
}

fn input<'a>(path: &'a Option<PathBuf>, data: &'a Option<Vec<u8>>) -> Result<Input<'a>, String> {
    match (path, data) {
        (Some(p), None) => Ok(Input::Path(p)),
        (None, Some(d)) => Ok(Input::Bytes {
            data: d,
            name: "snapshot",
        }),
        _ => Err("give a path or bytes, not both".to_string()),
    }
}

/// One self-contained HTML file of the page (embedded in this module) opening
/// `data`, named `file_name`, with the first view's options `view`.
#[pyfunction]
fn standalone(
    py: Python<'_>,
    file_name: &str,
    data: Vec<u8>,
    view: Vec<(String, String)>,
) -> PyResult<String> {
    if !page::PAGE_MISSING.is_empty() {
        return Err(error(format!(
            "this memplan was built without the page ({} missing): run ./build.sh, then build the wheel again",
            page::PAGE_MISSING.join(", ")
        )));
    }
    py.detach(|| api::standalone(&api::Page::Files(page::PAGE), file_name, &data, &view))
        .map_err(error)
}

/// True when `data` is a model file (ONNX or TFLite).
#[pyfunction]
fn is_model(data: &[u8]) -> bool {
    memplan_formats::is_model(data)
}

/// True when `data` starts like a PyTorch memory snapshot (a pickle or gzip).
#[pyfunction]
fn is_snapshot(data: &[u8]) -> bool {
    memplan_formats::is_snapshot(data)
}

#[pymodule]
fn _memplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<Outcome>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(standalone, m)?)?;
    m.add_function(wrap_pyfunction!(is_model, m)?)?;
    m.add_function(wrap_pyfunction!(is_snapshot, m)?)?;
    Ok(())
}
