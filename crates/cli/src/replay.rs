//! `memplan replay`: a PyTorch snapshot's trace replayed through the caching
//! allocator's model, under the recorded settings or others
//! (`PYTORCH_CUDA_ALLOC_CONF`'s syntax), or under a sweep of them; and
//! `memplan compare`: two snapshots' figures side by side.

use crate::flags::{CompareArgs, ReplayArgs};
use crate::plan::emit;
use crate::snapshot;
use memplan::{Options, Strategy};
use memplan_formats::format_size;
use memplan_formats::snapshot::Snapshot;
use memplan_torch::compare::Comparison;
use memplan_torch::sweep::{self, Sweep};
use memplan_torch::{AllocConf, Replay, Start};
use std::fmt::Write;
use std::process::ExitCode;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn run(args: ReplayArgs) -> Result<ExitCode> {
    let snap = snapshot::load(&args.file, args.device, args.entries)?;
    let name = args.file.display().to_string();
    if args.sweep {
        let floor = plan_floor(&snap)?;
        let sw = sweep::sweep(&snap, args.capacity, floor)?;
        let json = serde_json::to_string_pretty(&sw)?;
        emit(args.json.as_deref(), &json, || {
            sweep_text(&name, &snap, &sw)
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let conf = match &args.alloc_conf {
        Some(text) => Some(AllocConf::parse(text)?),
        None => None,
    };
    let r = memplan_torch::what_if(&snap, conf.as_ref(), args.capacity)?;
    let json = serde_json::to_string(&r)?;
    emit(args.json.as_deref(), &json, || {
        replay_text(&name, &snap, &r)
    })?;
    Ok(ExitCode::SUCCESS)
}

/// memplan's plan of the snapshot's blocks (the default strategy for snapshots,
/// checked): the floor no setting of the allocator reaches below.
pub(crate) fn plan_floor(snap: &Snapshot) -> Result<Option<u64>> {
    let graph = snap.graph("snapshot")?;
    let opts = Options::default();
    let analysis = memplan::analyse(&graph, &opts)?;
    let plan = analysis.plan(&graph, Strategy::Auto);
    let violations = memplan::check::check(&graph, &plan);
    Ok(violations.is_empty().then_some(plan.peak_bytes))
}

fn bytes(b: u64) -> String {
    format!("{} ({b} B)", format_size(b))
}

fn replay_text(name: &str, snap: &Snapshot, r: &Replay) -> String {
    let mut out = String::new();
    let f = snap.figures();
    let _ = writeln!(
        out,
        "replay       {name}, device {}: {} entries",
        snap.device, snap.steps
    );
    let settings = sweep::label(r);
    let _ = writeln!(
        out,
        "settings     {settings}{}",
        if r.recorded_settings {
            " (as recorded)"
        } else {
            ""
        }
    );
    if let Some(c) = r.capacity {
        let _ = writeln!(out, "capacity     {}", bytes(c));
    }
    let start = match r.start {
        Start::Recorded => "the state the recording began in",
        Start::Replaced => "the blocks alive before recording allocated anew, in address order",
    };
    let _ = writeln!(out, "start        {start}");
    let _ = writeln!(
        out,
        "reserved     peak {} at entry {}; {} reserved but unallocated then",
        bytes(r.reserved_peak),
        r.peak_entry,
        format_size(r.reserved_peak.saturating_sub(r.allocated_at_peak))
    );
    let _ = writeln!(out, "driver       {} cudaMalloc or map calls", r.segments);
    match &r.oom {
        None => {
            let _ = writeln!(out, "oom          none: the run finishes");
        }
        Some(o) => {
            let _ = writeln!(
                out,
                "oom          at entry {}: {} requested with {} allocated and {} reserved",
                o.entry,
                format_size(o.request),
                format_size(o.allocated),
                format_size(o.reserved)
            );
        }
    }
    let _ = writeln!(
        out,
        "recorded     peak {}{}",
        bytes(f.reserved_peak),
        snap.oom.as_ref().map_or(String::new(), |o| format!(
            ", out of memory at entry {} ({} requested)",
            o.step,
            format_size(o.size)
        ))
    );
    if let Some(a) = &r.agreement {
        let _ = writeln!(
            out,
            "agreement    under the recorded settings: {} of {} entries equal{}; cudaMalloc/map sizes {} ({} calls, {} recorded)",
            a.entries_equal,
            a.entries,
            a.first_difference.map_or(String::new(), |e| format!(
                " (first difference at entry {e}, largest {})",
                format_size(a.largest_difference)
            )),
            if a.calls_equal { "equal" } else { "differ" },
            a.calls,
            a.recorded_calls
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "note         {n}");
    }
    out
}

fn sweep_text(name: &str, snap: &Snapshot, sw: &Sweep) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep        {name}, device {}: {} entries",
        snap.device, snap.steps
    );
    if let Some(c) = sw.capacity {
        let _ = writeln!(out, "capacity     {}", bytes(c));
    }
    let labels: Vec<String> = (sw.rows.iter().enumerate())
        .map(|(i, r)| match i {
            0 => format!("{} (recorded)", sweep::label(r)),
            _ => sweep::label(r),
        })
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(8).max(8);
    let _ = writeln!(
        out,
        "\n  {:<width$}  {:>12}  {:>14}  {:>6}  outcome",
        "setting", "reserved", "unused at peak", "calls"
    );
    for (i, r) in sw.rows.iter().enumerate() {
        let outcome = match &r.oom {
            None => "finishes".to_string(),
            Some(o) => format!(
                "out of memory at entry {} ({})",
                o.entry,
                format_size(o.request)
            ),
        };
        let mark = if Some(i) == sw.best { '*' } else { ' ' };
        let _ = writeln!(
            out,
            "{mark} {:<width$}  {:>12}  {:>14}  {:>6}  {outcome}",
            labels[i],
            format_size(r.reserved_peak),
            format_size(r.reserved_peak.saturating_sub(r.allocated_at_peak)),
            r.segments,
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "floor        live peak {}{}: no setting reserves less",
        format_size(sw.live_peak),
        sw.plan_peak.map_or(String::new(), |p| format!(
            ", memplan's plan {}",
            format_size(p)
        ))
    );
    if let Some(a) = &sw.rows[0].agreement {
        let _ = writeln!(
            out,
            "agreement    the recorded settings' replay: {} of {} entries equal the recording",
            a.entries_equal, a.entries
        );
    }
    let _ = writeln!(out, "answer       {}", sw.answer);
    for n in &sw.rows[0].notes {
        let _ = writeln!(out, "note         {n}");
    }
    if sw.rows.iter().skip(1).any(|r| r.start == Start::Replaced) {
        let _ = writeln!(
            out,
            "note         the other settings start from the blocks alive before recording allocated anew in address order"
        );
    }
    out
}

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let load = |i: usize| -> Result<(String, Snapshot)> {
        let path = &args.files[i];
        Ok((
            path.display().to_string(),
            snapshot::load(path, args.device, None)?,
        ))
    };
    let ((na, a), (nb, b)) = (load(0)?, load(1)?);
    let cmp = memplan_torch::compare::compare(&a, &na, &b, &nb);
    let json = serde_json::to_string_pretty(&cmp)?;
    emit(args.json.as_deref(), &json, || compare_text(&cmp))?;
    Ok(ExitCode::SUCCESS)
}

fn compare_text(c: &Comparison) -> String {
    let mut out = String::new();
    let oom = |o: Option<u32>| o.map_or("none".into(), |e| format!("at entry {e}"));
    let (a, b) = (&c.a, &c.b);
    let rows: [(&str, String, String); 9] = [
        ("", "A".into(), "B".into()),
        ("file", short(&a.name), short(&b.name)),
        ("settings", a.settings.clone(), b.settings.clone()),
        ("entries", a.entries.to_string(), b.entries.to_string()),
        (
            "live peak",
            format_size(a.live_peak),
            format_size(b.live_peak),
        ),
        (
            "reserved peak",
            format_size(a.reserved_peak),
            format_size(b.reserved_peak),
        ),
        (
            "unused at reserved peak",
            format_size(a.unused_at_reserved_peak),
            format_size(b.unused_at_reserved_peak),
        ),
        (
            "cudaMalloc/map calls",
            a.segments.to_string(),
            b.segments.to_string(),
        ),
        ("out of memory", oom(a.oom), oom(b.oom)),
    ];
    for (what, a, b) in rows {
        let _ = writeln!(out, "{what:<24} {a:>24} {b:>24}");
    }
    if !c.frames.is_empty() {
        let _ = writeln!(
            out,
            "\nframes whose bytes at the live peak changed most (B - A):"
        );
        for f in &c.frames {
            let sign = if f.change < 0 { "-" } else { "+" };
            let _ = writeln!(
                out,
                "  {sign}{:>10}  {}",
                format_size(f.change.unsigned_abs() as u64),
                f.frame
            );
        }
    }
    out
}

fn short(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .map_or(path.into(), |n| n.to_string_lossy().to_string());
    if name.len() > 24 {
        format!("...{}", &name[name.len() - 21..])
    } else {
        name
    }
}
