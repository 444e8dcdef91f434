//! A PyTorch memory snapshot in the planning worker: the [`Session`] keeps the
//! rebuilt snapshot beside the graph of its blocks, plans that graph like any
//! other, and hands the page the allocator's real layout as a second plan report,
//! the summary and each block's details.

use crate::errors::{js_error, to_js, to_json, Thrown};
use crate::session::{pack_report, stem, JsSource, Session};
use memplan::pack::Budget;
use memplan::{PlanReport, Strategy};
use memplan_formats::snapshot::{self, Snapshot};
use wasm_bindgen::prelude::*;

/// A session on the graph of `snap`'s blocks, or of those of its entries
/// `entries` (`A..B`, `A..`, `..B`; empty: all), keeping that snapshot.
fn start(snap: Snapshot, name: &str, entries: &str) -> Result<Session, Thrown> {
    let range = match entries.trim() {
        "" => None,
        text => Some(snapshot::Entries::parse(text).map_err(js_error)?),
    };
    let snap = snap.within(range).map_err(js_error)?;
    let graph = snap.graph(name).map_err(js_error)?;
    let mut session = Session::start(graph)?;
    session.snapshot = Some(Box::new(snap));
    Ok(session)
}

/// A cap from the page's field: a size with its unit (`6GiB`), none when empty.
fn cap_of(capacity: &str) -> Result<Option<u64>, Thrown> {
    match capacity.trim() {
        "" => Ok(None),
        text => memplan_formats::parse_size(text)
            .map(Some)
            .map_err(|e| Thrown::new(&format!("capacity: {e}"))),
    }
}

/// Sets `key` of `object` to `value`.
fn set(object: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), Thrown> {
    js_sys::Reflect::set(object, &key.into(), value)
        .map(|_| ())
        .map_err(|_| Thrown::new("could not build the answer"))
}

#[wasm_bindgen]
impl Session {
    /// A session on the snapshot in `bytes` (a pickle, or gzip), its graph named by
    /// file `name`, on its entries `entries` (`A..B`; empty: all of them).
    #[wasm_bindgen(js_name = fromSnapshot)]
    pub fn from_snapshot(bytes: &[u8], name: &str, entries: &str) -> Result<Session, Thrown> {
        start(
            snapshot::read_stream(bytes, None).map_err(js_error)?,
            stem(name),
            entries,
        )
    }

    /// [`Session::from_snapshot`] on a file of `size` bytes read by ranges through
    /// `read(offset, length)`, as a stream: never whole in memory.
    #[wasm_bindgen(js_name = fromSnapshotSource)]
    pub fn from_snapshot_source(
        size: f64,
        read: js_sys::Function,
        name: &str,
        entries: &str,
    ) -> Result<Session, Thrown> {
        let src = JsSource::new(size, read);
        start(
            snapshot::read_source(&src, None).map_err(js_error)?,
            stem(name),
            entries,
        )
    }

    /// True when the file was a PyTorch memory snapshot.
    #[wasm_bindgen(js_name = isSnapshot)]
    pub fn is_snapshot(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Plans the snapshot's blocks like [`Session::planPacked`] and answers
    /// `{report, layout, summary}`: memplan's plan packed, the allocator's real
    /// layout of the same blocks packed the same way (its tensor ids the plan's),
    /// and the summary as JSON (see `snapshot::Summary`). With an `oom` entry the
    /// blocks and the failed request are planned too, with the same strategy, to
    /// fit under the capacity asked for or else the bytes reserved at the failure.
    #[wasm_bindgen(js_name = planSnapshot)]
    pub fn plan_snapshot(
        &mut self,
        strategy: &str,
        options: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<JsValue, Thrown> {
        if self.snapshot.is_none() {
            return Err(Thrown::new(
                "the open file is not a PyTorch memory snapshot",
            ));
        }
        let budget_ms = js_sys::Reflect::get(&options, &"budget_ms".into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(memplan::pack::DEFAULT_BUDGET_MS as f64);
        let (handle, report) = self.planned(strategy, options, progress)?;
        let plan = report.clone();
        let packed = pack_report(report, handle)?;
        let snap = self.snapshot.as_deref().expect("checked above");
        let mut layout = PlanReport::new(&self.graph, snap.layout(&plan.plan), plan.capacity);
        // the same blocks live at the same steps: the plan's profile is the layout's,
        // and the page reads it there (at 700,000 entries the copy costs it 0.1 s)
        layout.profile = Vec::new();
        let layout = pack_report(&mut layout, 0)?;
        let strategy = Strategy::from_name(strategy).map_err(js_error)?;
        let mut budget = Budget::work_for_ms(budget_ms.clamp(0.0, 600_000.0) as u64);
        let request = snap
            .request_report(&self.graph.name, strategy, &self.options, &mut budget)
            .map_err(js_error)?;
        let summary = snap.summary(&plan, request.as_ref().map(|(r, c)| (r, *c)));
        let answer = js_sys::Object::new();
        set(&answer, "report", &js_sys::Uint8Array::from(&packed[..]))?;
        set(&answer, "layout", &js_sys::Uint8Array::from(&layout[..]))?;
        set(&answer, "summary", &to_json(&summary)?.into())?;
        Ok(answer.into())
    }

    /// Replays the caching allocator over the snapshot's trace under `conf`
    /// (`PYTORCH_CUDA_ALLOC_CONF`'s text; empty: the recorded settings) with at
    /// most `capacity` reserved (a size with its unit; empty: no cap), and answers `{layout, replay,
    /// boundaries}`: the replayed layout of the last plan's blocks, packed like the
    /// real one; the replay as JSON (see `memplan_torch::Replay`, with its reserved
    /// curve and the recorded settings' agreement); the squeezed offsets where one
    /// replayed address range ends and the next begins.
    #[wasm_bindgen(js_name = replaySnapshot)]
    pub fn replay_snapshot(&mut self, conf: &str, capacity: &str) -> Result<JsValue, Thrown> {
        let snap: &Snapshot = self
            .snapshot
            .as_deref()
            .ok_or_else(|| Thrown::new("the open file is not a PyTorch memory snapshot"))?;
        let conf = match conf.trim() {
            "" => None,
            text => Some(memplan_torch::AllocConf::parse(text).map_err(js_error)?),
        };
        let cap = cap_of(capacity)?;
        let replay = memplan_torch::what_if(snap, conf.as_ref(), cap).map_err(js_error)?;
        let (_, last) = self
            .reports
            .last()
            .ok_or_else(|| Thrown::new("plan the snapshot before replaying it"))?;
        let plan = replay.layout(&last.plan);
        let mut report = PlanReport::new(&self.graph, plan, last.capacity);
        report.profile = Vec::new();
        let packed = pack_report(&mut report, 0)?;
        let top = memplan_formats::snapshot::regions(replay.ranges.clone());
        let boundaries: Vec<f64> = top.iter().skip(1).map(|r| r.offset as f64).collect();
        let answer = js_sys::Object::new();
        set(&answer, "layout", &js_sys::Uint8Array::from(&packed[..]))?;
        set(&answer, "replay", &to_json(&replay)?.into())?;
        set(
            &answer,
            "boundaries",
            &js_sys::Float64Array::from(&boundaries[..]).into(),
        )?;
        Ok(answer.into())
    }

    /// The usual allocator settings replayed over the snapshot with at most
    /// `capacity` reserved (empty: no cap), beside the last plan's peak, as JSON
    /// (see `memplan_torch::sweep::Sweep`).
    #[wasm_bindgen(js_name = sweepSnapshot)]
    pub fn sweep_snapshot(&self, capacity: &str) -> Result<String, Thrown> {
        let snap: &Snapshot = self
            .snapshot
            .as_deref()
            .ok_or_else(|| Thrown::new("the open file is not a PyTorch memory snapshot"))?;
        let plan_peak = self.reports.last().map(|(_, r)| r.plan.peak_bytes);
        let sweep =
            memplan_torch::sweep::sweep(snap, cap_of(capacity)?, plan_peak).map_err(js_error)?;
        to_json(&sweep)
    }

    /// What holds the memory at `step` (a trace entry), by allocating frame, the
    /// largest first, as JSON (see `snapshot::HolderAt`).
    #[wasm_bindgen(js_name = snapshotHolders)]
    pub fn snapshot_holders(&self, step: u32) -> Result<String, Thrown> {
        let snap: &Snapshot = (self.snapshot.as_deref())
            .ok_or_else(|| Thrown::new("the open file is not a PyTorch memory snapshot"))?;
        to_json(&snap.holders_at(step))
    }

    /// What the page shows of the snapshot beside the plans: each block's details as
    /// typed arrays (`addr`, `requested`, `stream`, `startUs`, `endUs` as
    /// `Float64Array`, `stack` as `Int32Array`, -1 for none), the `frames` as text
    /// and the `stacks` (frame indices, innermost first), the `reserved` bytes at
    /// each change (`[step, bytes]`), the `oom` entry, the `boundaries` between
    /// address regions in the real layout, and `steps`.
    #[wasm_bindgen(js_name = snapshotDetails)]
    pub fn snapshot_details(&self) -> Result<JsValue, Thrown> {
        let snap: &Snapshot = self
            .snapshot
            .as_deref()
            .ok_or_else(|| Thrown::new("the open file is not a PyTorch memory snapshot"))?;
        details(snap)
    }

    /// A second snapshot (`bytes`, a pickle or gzip, named `name`) beside the open
    /// one: `{layout, comparison, details}`, its real layout packed like the first's
    /// (the first's sits in the comparison's slot 1), the two runs side by side as
    /// JSON (see `memplan_torch::compare::Comparison`), and its details as
    /// [`Session::snapshot_details`] gives the first's.
    #[wasm_bindgen(js_name = compareSnapshot)]
    pub fn compare_snapshot(&self, bytes: &[u8], name: &str) -> Result<JsValue, Thrown> {
        let first: &Snapshot = self.snapshot.as_deref().ok_or_else(|| {
            Thrown::new("open a PyTorch memory snapshot first, then another to compare with it")
        })?;
        let second = snapshot::read_stream(bytes, None).map_err(js_error)?;
        let graph = second.graph(stem(name)).map_err(js_error)?;
        // any plan carries the blocks; the layout puts each at its address
        let plan = memplan::analyse(&graph, &self.options)
            .map_err(js_error)?
            .plan(&graph, Strategy::Naive);
        let mut layout = PlanReport::new(&graph, second.layout(&plan), None);
        layout.profile = Vec::new();
        let packed = pack_report(&mut layout, 0)?;
        let comparison =
            memplan_torch::compare::compare(first, &self.graph.name, &second, stem(name));
        let answer = js_sys::Object::new();
        set(&answer, "layout", &js_sys::Uint8Array::from(&packed[..]))?;
        set(&answer, "comparison", &to_json(&comparison)?.into())?;
        set(&answer, "details", &details(&second)?)?;
        Ok(answer.into())
    }
}

/// What the page shows of a snapshot beside its layouts (see
/// [`Session::snapshot_details`]).
fn details(snap: &Snapshot) -> Result<JsValue, Thrown> {
    let c = snap.columns();
    let out = js_sys::Object::new();
    let floats = |v: &[f64]| JsValue::from(js_sys::Float64Array::from(v));
    set(&out, "addr", &floats(&c.addr))?;
    set(&out, "requested", &floats(&c.requested))?;
    set(&out, "stream", &floats(&c.stream))?;
    set(&out, "startUs", &floats(&c.start_us))?;
    set(&out, "endUs", &floats(&c.end_us))?;
    set(
        &out,
        "stack",
        &js_sys::Int32Array::from(&c.stack[..]).into(),
    )?;
    let boundaries: Vec<f64> = snap.boundaries().iter().map(|&b| b as f64).collect();
    set(&out, "boundaries", &floats(&boundaries))?;
    set(&out, "frames", &to_js(&snap.frame_texts())?)?;
    set(&out, "stacks", &to_js(&snap.stacks)?)?;
    set(&out, "reserved", &to_js(&snap.reserved)?)?;
    set(&out, "oom", &to_js(&snap.oom)?)?;
    set(&out, "steps", &JsValue::from(snap.steps))?;
    // which entries of the recorded trace these are
    let recorded = snap.devices.get(snap.device as usize).copied();
    set(&out, "first", &JsValue::from(snap.first))?;
    set(
        &out,
        "recorded",
        &JsValue::from(recorded.unwrap_or(snap.steps)),
    )?;
    Ok(out.into())
}
