//! `memplan bench-snapshot`: per PyTorch memory snapshot, the time to open it (read
//! the file, the pickle and the trace) and the most heap that takes, the live and
//! reserved peaks, and the plan of the same blocks with its time and ratio, every
//! plan checked. `--markdown` prints it as docs/results.md holds it. On Linux the
//! process's peak resident memory while opening is shown too (its high-water mark
//! is reset before each file).

use super::bench_import::measured;
use super::snapshot;
use crate::common::{exit_code, files_in};
use crate::flags::BenchSnapshotArgs;
use crate::table::Table;
use memplan_formats::format_size;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: BenchSnapshotArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let files = files_in(&args.inputs, |p| {
        let name = p.to_string_lossy();
        name.ends_with(".pickle") || name.ends_with(".pickle.gz")
    })?;
    let mut table = Table::new(args.markdown, &HEAD, snapshot_line);
    let mut failed = 0;
    for file in &files {
        failed += usize::from(!bench_file(file, &args, &mut table)?);
    }
    table.finish();
    Ok(exit_code(failed == 0))
}

const HEAD: [&str; 12] = [
    "snapshot",
    "MB",
    "entries",
    "blocks",
    "open s",
    "open heap MB",
    "open RSS MB",
    "live peak",
    "reserved peak",
    "plan",
    "plan / live",
    "plan s",
];

/// Opens and plans one snapshot and prints its row, or the error that it cannot
/// be opened; false when it cannot or its plan is invalid.
fn bench_file(
    file: &Path,
    args: &BenchSnapshotArgs,
    table: &mut Table,
) -> Result<bool, memplan::Error> {
    let common = &args.common;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    reset_peak_rss();
    let (snap, open_ms, heap) =
        measured(|| snapshot::load(file, common.read.device, common.read.entries));
    let rss = peak_rss().map_or("-".to_string(), |kb| format!("{:.0}", kb as f64 / 1e3));
    let snap = match snap {
        Ok(s) => s,
        Err(e) => {
            let error = e.to_string();
            let mut row = vec![String::new(); HEAD.len()];
            (row[0], row[HEAD.len() - 1]) = (name, error.clone());
            table.row_said(row, &error);
            return Ok(false);
        }
    };
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("snapshot");
    let budget_ms = common.budget_ms.unwrap_or(1000) as f64;
    let (planned, plan_ms, _) =
        measured(|| snapshot::plan(snap, stem, args.strategy, common, budget_ms));
    let p = planned?;
    let f = &p.summary.figures;
    table.row(vec![
        name,
        format!("{:.1}", size as f64 / 1e6),
        f.steps.to_string(),
        f.blocks.to_string(),
        format!("{:.2}", open_ms / 1e3),
        format!("{:.0}", heap as f64 / 1e6),
        rss,
        format_size(f.live_peak),
        format_size(f.reserved_peak),
        format_size(p.summary.plan_peak) + if p.report.valid { "" } else { " INVALID" },
        format!("{:.4}x", p.summary.plan_ratio),
        format!("{:.2}", plan_ms / 1e3),
    ]);
    Ok(p.report.valid)
}

/// A snapshot's row as the terminal shows it: columns aligned.
fn snapshot_line(cells: &[String]) -> String {
    let widths = [30, 7, 8, 7, 7, 12, 11, 11, 13, 11, 11, 7];
    let line: Vec<String> = (cells.iter().zip(widths).enumerate())
        .map(|(i, (c, w))| {
            if i == 0 {
                format!("{c:<w$}")
            } else {
                format!("{c:>w$}")
            }
        })
        .collect();
    line.join(" ")
}

/// Resets the process's peak resident memory (Linux: `/proc/self/clear_refs`).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak resident memory in kB since the last reset (Linux's VmHWM).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
