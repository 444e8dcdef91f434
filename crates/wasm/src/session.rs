//! The planning worker's side of a graph: a [`Session`] reads a file, keeps the
//! graph and its analysis, plans with the page's options and keeps its last
//! reports by handle.

use crate::errors::{js_error, to_js, to_json, Thrown};
use crate::now_ms;
use memplan::pack::{Budget, Progress};
use memplan::{analyse, Analysis, Graph, Options, PackOptions, PlanReport, Strategy};
use memplan_formats as formats;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// A loaded graph and its analysis, in the planning worker.
#[wasm_bindgen]
pub struct Session {
    pub(crate) graph: Graph,
    analysis: Analysis,
    pub(crate) options: Options,
    /// The file's main graph, and the bodies of its ops (depth first, each named
    /// by its path): `graph` is one of them, the one on show.
    root: Graph,
    bodies: Vec<(String, Graph)>,
    focus: Option<usize>,
    /// The last reports made, by handle, oldest first.
    pub(crate) reports: Vec<(u32, PlanReport)>,
    next_handle: u32,
    /// The snapshot the graph was made from, when the file was a PyTorch memory
    /// snapshot (its methods are in `snapshot.rs`).
    #[cfg(feature = "snapshot")]
    pub(crate) snapshot: Option<Box<formats::snapshot::Snapshot>>,
}

/// What the page sets when it reads a model: free dimensions by name
/// (`{"seq": 128}`) and bounds of data-dependent values (`{"idx": "4x3234"}`).
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ReadRequest {
    dims: std::collections::BTreeMap<String, u64>,
    values: std::collections::BTreeMap<String, String>,
}

impl ReadRequest {
    fn from_js(value: JsValue) -> Result<ReadRequest, Thrown> {
        if value.is_undefined() || value.is_null() {
            return Ok(ReadRequest::default());
        }
        serde_wasm_bindgen::from_value(value).map_err(js_error)
    }

    fn options(&self) -> Result<formats::ReadOptions, Thrown> {
        let mut values = Vec::new();
        for (name, dims) in &self.values {
            values.push(formats::parse_input_shape(&format!("{name}={dims}")).map_err(js_error)?);
        }
        Ok(formats::ReadOptions {
            dims: self.dims.iter().map(|(k, &v)| (k.clone(), v)).collect(),
            value_shapes: values,
            ..formats::ReadOptions::default()
        })
    }
}

#[derive(Serialize)]
struct BodyInfo<'a> {
    path: &'a str,
    tensors: usize,
    ops: usize,
}

/// What the page shows about a graph besides its plan: op names for hover details.
#[derive(Serialize)]
struct GraphInfo<'a> {
    name: &'a str,
    tensors: usize,
    ops: Vec<OpInfo<'a>>,
    /// Per tensor id: the producing op's index, if any.
    producer: Vec<Option<u32>>,
    /// Per tensor id: the consuming ops' indices.
    consumers: Vec<Vec<u32>>,
    /// The importer's notes on the file.
    notes: &'a [String],
    /// The bodies of the file's ops, each a nested arena the page can open.
    bodies: Vec<BodyInfo<'a>>,
    /// The body on show, `None` for the main graph.
    focus: Option<usize>,
    /// The model's free input dimensions and the values used.
    free_dims: &'a [memplan::graph::FreeDim],
    /// The values whose size depends on the input data, each with the bound
    /// it is planned at and its worst case.
    bounds: &'a [memplan::graph::Bound],
}

#[derive(Serialize)]
struct OpInfo<'a> {
    name: &'a str,
    kind: &'a str,
}

/// A plan report as it leaves the worker: the report, the handle the session
/// keeps it by (see [`Session::lesson`]) and, in a packed report's head, the
/// number of tensors packed apart.
#[derive(Serialize)]
struct Head<'a> {
    #[serde(flatten)]
    report: &'a PlanReport,
    handle: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    placed: Option<usize>,
}

/// How many reports a session keeps: the main view's and the comparison's.
const KEPT_REPORTS: usize = 2;

/// How the page asks for a plan; every field may be left out.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PlanOptions {
    /// Every offset a multiple of this size (`64`, `4KiB`); none when empty.
    align: Option<String>,
    /// Effort of the searching strategies in milliseconds (default 50), counted
    /// in work units as the CLI's `--deterministic` does, or with `wall_clock` on
    /// the page's clock.
    budget_ms: Option<f64>,
    wall_clock: Option<bool>,
    /// Stop as soon as a plan fits in this size; the report says by how much the
    /// best plan misses it otherwise.
    capacity: Option<String>,
}

#[wasm_bindgen]
impl Session {
    /// Reads a graph from the bytes of file `name` (any format the core reads)
    /// and analyses it; fails on a malformed file or a cyclic graph. `read`
    /// (see [`ReadRequest`]; `undefined` for none) sets free input dimensions and
    /// the sizes of data-dependent values.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], name: &str, read: JsValue) -> Result<Session, Thrown> {
        let request = ReadRequest::from_js(read)?;
        let graph =
            formats::read_with(bytes, None, stem(name), &request.options()?).map_err(js_error)?;
        Session::start(graph)
    }

    /// Like [`Session::new`] for a file of `size` bytes read by ranges:
    /// `read(offset, length)` returns those bytes as a `Uint8Array` (the worker
    /// slices the `Blob`). An ONNX model is read without its weights, so a file of
    /// any size opens; other formats are read whole, up to 256 MiB.
    #[wasm_bindgen(js_name = fromSource)]
    pub fn from_source(
        size: f64,
        read: js_sys::Function,
        name: &str,
        options: JsValue,
    ) -> Result<Session, Thrown> {
        let request = ReadRequest::from_js(options)?;
        let src = JsSource::new(size, read);
        let graph =
            formats::read_source(&src, None, stem(name), &request.options()?).map_err(js_error)?;
        Session::start(graph)
    }

    /// The graph on show as memplan's JSON (see `formats::write_native`): a model
    /// without its weights, which reopens to the same plan.
    #[wasm_bindgen(js_name = exportGraph)]
    pub fn export_graph(&self) -> String {
        formats::write_native(&self.graph)
    }

    /// The graph on show in memplan's text format (see `formats::write_text`), for
    /// the "Write a graph" panel; a graph with op bodies cannot be written so.
    #[wasm_bindgen(js_name = exportText)]
    pub fn export_text(&self) -> Result<String, Thrown> {
        formats::write_text(&self.graph).map_err(js_error)
    }

    /// Shows body `index` of [`Session::info`]'s `bodies` (a negative index: the
    /// main graph) and analyses it; plans then place that body's arena.
    pub fn focus(&mut self, index: i32) -> Result<(), Thrown> {
        let (graph, focus) = match usize::try_from(index) {
            Ok(i) => {
                let (_, g) = self
                    .bodies
                    .get(i)
                    .ok_or_else(|| Thrown::new(&format!("there is no body {i}")))?;
                (g.clone(), Some(i))
            }
            Err(_) => (self.root.clone(), None),
        };
        let analysis = analyse(&graph, &self.options).map_err(js_error)?;
        self.analysis = analysis;
        self.graph = graph;
        self.focus = focus;
        // the kept reports are plans of the graph that was on show
        self.reports.clear();
        Ok(())
    }

    /// The graph's name, size, ops and each tensor's producer and consumers, as JSON.
    pub fn info(&self) -> Result<String, Thrown> {
        let g = &self.graph;
        let mut consumers = vec![Vec::new(); g.tensors.len()];
        for (k, op) in g.ops.iter().enumerate() {
            for t in &op.inputs {
                consumers[t.index()].push(k as u32);
            }
        }
        to_json(&GraphInfo {
            name: &g.name,
            tensors: g.tensors.len(),
            ops: g
                .ops
                .iter()
                .map(|op| OpInfo {
                    name: &op.name,
                    kind: &op.kind,
                })
                .collect(),
            producer: g.producers().iter().map(|p| p.map(|o| o.0)).collect(),
            consumers,
            notes: &self.root.notes,
            bodies: self
                .bodies
                .iter()
                .map(|(path, b)| BodyInfo {
                    path,
                    tensors: b.arena_tensors().count(),
                    ops: b.ops.len(),
                })
                .collect(),
            focus: self.focus,
            free_dims: &self.root.free_dims,
            bounds: &self.root.bounds,
        })
    }

    /// Plans with the strategy named `strategy` and `options` (see
    /// [`PlanOptions`]; `undefined` for the defaults), checks the plan and returns
    /// the report (see [`PlanReport`]) with its `handle` as JSON; the session
    /// keeps its last two reports.
    /// `progress`, when given, is called with each better plan a search finds,
    /// `{phase, best_peak, lower_bound, work, elapsed_ms}`, at most every
    /// [`PROGRESS_EVERY_MS`].
    pub fn plan(
        &mut self,
        strategy: &str,
        options: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<String, Thrown> {
        let (handle, report) = self.planned(strategy, options, progress)?;
        to_json(&Head {
            report,
            handle,
            placed: None,
        })
    }

    /// The lesson (JSON text) of the plan this session reported with `handle`
    /// (see [`Session::plan`]); fails on graphs too large to walk through.
    pub fn lesson(&self, handle: u32) -> Result<String, Thrown> {
        let report = self.kept(handle)?;
        let lesson =
            memplan::teach::lesson(&self.graph, &self.analysis, &report.plan).map_err(js_error)?;
        to_json(&lesson)
    }

    /// Like [`Session::plan`], the report packed for the page (see
    /// `formats::packed`): a JSON head without the tensors, with `placed`
    /// counting them, and the tensors as records.
    #[wasm_bindgen(js_name = planPacked)]
    pub fn plan_packed(
        &mut self,
        strategy: &str,
        options: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<Vec<u8>, Thrown> {
        let (handle, report) = self.planned(strategy, options, progress)?;
        pack_report(report, handle)
    }
}

/// `report` packed for the page (see `formats::packed`) with `handle` in its head.
pub(crate) fn pack_report(report: &mut PlanReport, handle: u32) -> Result<Vec<u8>, Thrown> {
    // the head leaves the tensors and the profile to the records
    let tensors = std::mem::take(&mut report.plan.tensors);
    let profile = std::mem::take(&mut report.profile);
    let head = to_json(&Head {
        report,
        handle,
        placed: Some(tensors.len()),
    });
    report.plan.tensors = tensors;
    report.profile = profile;
    Ok(formats::packed::pack(
        &head?,
        &report.profile,
        &report.plan.tensors,
    ))
}

/// The stem of file `name`, which names the graph.
pub(crate) fn stem(name: &str) -> &str {
    std::path::Path::new(name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("graph")
}

/// A file in the page read by ranges through a JS function.
pub(crate) struct JsSource {
    size: u64,
    read: js_sys::Function,
}

impl JsSource {
    /// The file of `size` bytes that `read(offset, length)` reads.
    pub(crate) fn new(size: f64, read: js_sys::Function) -> JsSource {
        JsSource {
            size: size as u64,
            read,
        }
    }
}

impl formats::source::Source for JsSource {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), memplan::Error> {
        let fail = |why: String| memplan::Error::usage(format!("cannot read the file: {why}"));
        let got = self
            .read
            .call2(
                &JsValue::NULL,
                &JsValue::from_f64(offset as f64),
                &JsValue::from_f64(buf.len() as f64),
            )
            .map_err(|e| fail(e.as_string().unwrap_or_else(|| "the read failed".into())))?;
        let bytes = js_sys::Uint8Array::new(&got);
        if bytes.length() as usize != buf.len() {
            return Err(fail(format!(
                "{} bytes where {} were asked",
                bytes.length(),
                buf.len()
            )));
        }
        bytes.copy_to(buf);
        Ok(())
    }
}

impl Session {
    /// A session on `graph`: analysed, with the bodies of its ops listed.
    pub(crate) fn start(graph: Graph) -> Result<Session, Thrown> {
        let options = Options::default();
        let analysis = analyse(&graph, &options).map_err(js_error)?;
        let nested = graph
            .bodies()
            .into_iter()
            .map(|(path, g)| (path, g.clone()))
            .collect();
        Ok(Session {
            root: graph.clone(),
            graph,
            analysis,
            options,
            bodies: nested,
            focus: None,
            reports: Vec::new(),
            next_handle: 0,
            #[cfg(feature = "snapshot")]
            snapshot: None,
        })
    }

    /// Plans with `strategy` under `options` (see [`Session::plan`]), keeps the
    /// report and returns its handle and the report as kept.
    pub(crate) fn planned(
        &mut self,
        strategy: &str,
        options: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<(u32, &mut PlanReport), Thrown> {
        let strategy = Strategy::from_name(strategy).map_err(js_error)?;
        let options: PlanOptions = if options.is_undefined() || options.is_null() {
            PlanOptions::default()
        } else {
            // through JSON text, so that a misspelt option is an error, not ignored
            let text = js_sys::JSON::stringify(&options)
                .map_err(|_| Thrown::new("plan options must be a plain object"))?;
            // as bytes: every JSON text the wasm reads goes through one reader (size)
            serde_json::from_slice(String::from(text).as_bytes())
                .map_err(|e| Thrown::new(&format!("plan options: {e}")))?
        };
        let size = |what: &str, text: &Option<String>| match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => formats::parse_size(text)
                .map(Some)
                .map_err(|e| Thrown::new(&format!("{what}: {e}"))),
        };
        let align = size("alignment", &options.align)?.unwrap_or(1);
        let mut pack =
            PackOptions::new(align).map_err(|e| Thrown::new(&format!("alignment: {e}")))?;
        pack.capacity = size("capacity", &options.capacity)?;
        if pack != self.options.pack {
            let next = Options {
                pack,
                ..self.options
            };
            self.analysis = analyse(&self.graph, &next).map_err(js_error)?;
            self.options = next;
        }
        let (budget_ms, wall_clock) = (options.budget_ms, options.wall_clock);
        let report = self.report_within(strategy, budget_ms, wall_clock, progress)?;
        self.next_handle = self.next_handle.wrapping_add(1);
        if self.reports.len() == KEPT_REPORTS {
            self.reports.remove(0);
        }
        self.reports.push((self.next_handle, report));
        let (handle, report) = self.reports.last_mut().expect("just kept");
        Ok((*handle, report))
    }

    /// The report kept by `handle`.
    fn kept(&self, handle: u32) -> Result<&PlanReport, Thrown> {
        self.reports
            .iter()
            .find(|(h, _)| *h == handle)
            .map(|(_, r)| r)
            .ok_or_else(|| {
                Thrown::new(&format!(
                    "plan {handle} is no longer kept (a session keeps its last {KEPT_REPORTS}): plan again"
                ))
            })
    }

    fn report_within(
        &self,
        strategy: Strategy,
        budget_ms: Option<f64>,
        wall_clock: Option<bool>,
        progress: Option<js_sys::Function>,
    ) -> Result<PlanReport, Thrown> {
        let ms = budget_ms.unwrap_or(memplan::pack::DEFAULT_BUDGET_MS as f64);
        if !(0.0..=MAX_BUDGET_MS).contains(&ms) {
            return Err(Thrown::new(&format!(
                "a search budget of {ms} ms is out of range (0 to {MAX_BUDGET_MS} ms)"
            )));
        }
        let mut budget = if wall_clock.unwrap_or(false) {
            Budget::timed(&now_ms, ms)
        } else {
            Budget::work_for_ms(ms as u64)
        };
        let mut last = f64::NEG_INFINITY;
        let mut tell = |p: &Progress| {
            let now = now_ms();
            if now - last < PROGRESS_EVERY_MS {
                return;
            }
            last = now;
            if let (Some(f), Ok(value)) = (&progress, to_js(p)) {
                let _ = f.call1(&JsValue::NULL, &value);
            }
        };
        if progress.is_some() {
            budget = budget.with_progress(&mut tell);
        }
        Ok(self.analysis.report(&self.graph, strategy, &mut budget))
    }
}

/// Longest search budget a page may ask for: ten minutes.
const MAX_BUDGET_MS: f64 = 600_000.0;

/// Least time between two progress calls of a search.
pub const PROGRESS_EVERY_MS: f64 = 100.0;
