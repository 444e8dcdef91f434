//! `memplan plan` on a PyTorch memory snapshot: the allocator's figures beside the
//! plan of the same blocks, the `oom` verdict and what holds the peak.

use crate::flags::Common;
use crate::report;
use memplan::{Graph, PlanReport, Strategy};
use memplan_formats::format_size;
use memplan_formats::snapshot::{self, Entries, OomVerdict, Snapshot, Summary};
use std::fmt::Write;
use std::path::Path;

/// True when the file at `path` starts like a snapshot (a pickle or gzip).
pub fn is_snapshot_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|_| snapshot::is_snapshot(&head))
}

/// Reads the snapshot at `path` as a stream, the trace of `device` (default: the
/// one with the most entries), only its `entries` when given.
pub fn load(
    path: &Path,
    device: Option<u32>,
    entries: Option<Entries>,
) -> Result<Snapshot, memplan::Error> {
    let file = std::fs::File::open(path)
        .map_err(|e| memplan::Error::usage(format!("cannot read {}: {e}", path.display())))?;
    snapshot::read_stream(file, device)
        .and_then(|s| s.within(entries))
        .map_err(|e| memplan::Error::usage(format!("{}: {e}", path.display())))
}

/// A snapshot's plan, its request plan and its summary.
pub struct Planned {
    pub snap: Snapshot,
    pub graph: Graph,
    pub report: PlanReport,
    pub summary: Summary,
}

/// Plans the snapshot's blocks with `strategy`, and with the failed request added
/// when it has an `oom`, under `--capacity` or the reserved bytes at the failure.
pub fn plan(
    snap: Snapshot,
    name: &str,
    strategy: Strategy,
    common: &Common,
    budget_ms: f64,
) -> Result<Planned, memplan::Error> {
    let graph = snap.graph(name)?;
    let report = memplan::analyse(&graph, &common.opts)?.report(
        &graph,
        strategy,
        &mut common.budget(budget_ms),
    );
    let request =
        snap.request_report(name, strategy, &common.opts, &mut common.budget(budget_ms))?;
    let summary = snap.summary(&report, request.as_ref().map(|(r, c)| (r, *c)));
    let valid = request.as_ref().is_none_or(|(r, _)| r.valid);
    let mut report = report;
    report.valid &= valid;
    Ok(Planned {
        snap,
        graph,
        report,
        summary,
    })
}

/// The report `plan` prints for a snapshot.
pub fn text(p: &Planned) -> String {
    let (s, f) = (&p.summary, &p.summary.figures);
    let mut out = String::new();
    let mib = |b: u64| format!("{} ({b} B)", format_size(b));
    let _ = writeln!(
        out,
        "snapshot     device {}: {} entries, {} blocks, {} segments ({} expandable, {} in private pools), {} stacks over {:.3} s",
        f.device,
        f.steps,
        f.blocks,
        f.segments,
        f.expandable_segments,
        f.private_pool_segments,
        f.stacks,
        f.duration_us as f64 / 1e6
    );
    let _ = writeln!(
        out,
        "live peak    {} at entry {} ({} allocated before recording)",
        mib(f.live_peak),
        f.live_peak_step,
        format_size(f.before_recording)
    );
    let _ = writeln!(
        out,
        "reserved     {} at entry {}: {} reserved but unallocated, the largest free range {}",
        mib(f.reserved_peak),
        f.reserved_peak_step,
        format_size(f.unused_at_reserved_peak),
        format_size(f.largest_gap_at_reserved_peak)
    );
    // no ratio to nothing: a trace without segments reserves 0 B
    let to_reserved = match f.reserved_peak {
        0 => "no reserved bytes to compare with (the trace has no segments)".to_string(),
        r => format!("{:.4}x the reserved peak", s.plan_peak as f64 / r as f64),
    };
    let _ = writeln!(
        out,
        "plan         {} ({}): {:.4}x the live peak, {to_reserved}",
        mib(s.plan_peak),
        p.report.plan.strategy,
        s.plan_ratio,
    );
    if let Some(o) = &s.oom {
        out += &oom_text(o);
    }
    let _ = writeln!(
        out,
        "at the peak  what holds the memory at entry {}, by allocating frame:",
        f.live_peak_step
    );
    for h in &s.holders {
        let _ = writeln!(
            out,
            "  {:>10}  {:>6} blocks  {}",
            format_size(h.bytes),
            h.blocks,
            h.frame
        );
    }
    let verdict = if p.report.valid {
        "valid (checked)".to_string()
    } else {
        format!("INVALID: {}", p.report.violations.join("; "))
    };
    let _ = writeln!(out, "check        {verdict}");
    out += &report::nested_text(&p.graph, &[]);
    out
}

/// The failed request of a snapshot with an `oom`, and the verdict: fragmentation,
/// or too little memory for any layout.
fn oom_text(o: &OomVerdict) -> String {
    let mut out = String::new();
    let mib = |b: u64| format!("{} ({b} B)", format_size(b));
    let _ = writeln!(out, "oom          entry {}: {} requested with {} allocated and {} reserved ({} free on the device)", o.oom.step, mib(o.oom.size), format_size(o.oom.allocated), format_size(o.oom.reserved), format_size(o.oom.device_free));
    let verdict = if o.fits {
        format!("a plan of the same blocks and the request needs {}: it fits in {}, so the failure is fragmentation", format_size(o.plan_peak), format_size(o.capacity))
    } else if o.needed_at_failure > o.capacity {
        format!("the live bytes and the request alone need {}, over {}: no layout fits, the program needs less memory", format_size(o.needed_at_failure), format_size(o.capacity))
    } else {
        format!(
            "a plan of the same blocks and the request needs {}, over {}",
            format_size(o.plan_peak),
            format_size(o.capacity)
        )
    };
    let _ = writeln!(out, "verdict      {verdict}");
    out
}
