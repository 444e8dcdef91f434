//! `memplan bench-replay`: per PyTorch snapshot, the allocator replay under the
//! recorded settings against the recording (entries whose reserved bytes are
//! equal, the `cudaMalloc`/map sizes in order, blocks at their recorded address), the replay's time (best of 5) and
//! a sweep's, and the sweep's best setting. `--capacity NAME=SIZE` gives the cap a
//! run had (`gpt2_oom=6GiB`): the file whose name starts with NAME is replayed under it.

use super::bench_import::measured;
use super::snapshot;
use crate::common::{exit_code, files_in};
use crate::flags::BenchReplayArgs;
use crate::table::Table;
use memplan_formats::format_size;
use memplan_torch::replay;
use memplan_torch::sweep::{self, Sweep};
use std::path::Path;
use std::process::ExitCode;

const HEAD: [&str; 11] = [
    "snapshot",
    "entries",
    "entries equal",
    "largest diff",
    "cudaMalloc/map sizes",
    "blocks at their address",
    "cap",
    "reserved peak",
    "replay ms",
    "sweep ms",
    "sweep's lowest peak",
];

pub fn run(args: BenchReplayArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let files = files_in(&args.inputs, |p| {
        let name = p.to_string_lossy();
        name.ends_with(".pickle") || name.ends_with(".pickle.gz")
    })?;
    let mut table = Table::new(args.markdown, &HEAD, line);
    let mut failed = 0;
    for file in &files {
        failed += usize::from(!bench_file(file, &args, &mut table)?);
    }
    table.finish();
    Ok(exit_code(failed == 0))
}

fn bench_file(
    file: &Path,
    args: &BenchReplayArgs,
    table: &mut Table,
) -> Result<bool, memplan::Error> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cap = (args.capacities.iter())
        .find(|(stem, _)| name.starts_with(stem.as_str()))
        .map(|c| c.1);
    let snap = match snapshot::load(file, None, None) {
        Ok(s) => s,
        Err(e) => {
            let mut row = vec![String::new(); HEAD.len()];
            (row[0], row[HEAD.len() - 1]) = (name, e.to_string());
            table.row_said(row, &e.to_string());
            return Ok(false);
        }
    };
    let mut best = f64::MAX;
    let mut r = None;
    for _ in 0..5 {
        let (got, ms, _) = measured(|| replay(&snap, None, cap, None));
        best = best.min(ms);
        r = Some(got?);
    }
    let r = r.expect("five runs");
    let a = r
        .agreement
        .clone()
        .expect("the recorded settings' replay is compared");
    let (sw, sweep_ms, _): (Result<Sweep, memplan::Error>, f64, usize) =
        measured(|| sweep::sweep(&snap, cap, None));
    let sw = sw?;
    let lowest = match sw.best {
        Some(b) => format!(
            "{} {}",
            format_size(sw.rows[b].reserved_peak),
            sweep::label(&sw.rows[b])
        ),
        None => "none finishes".into(),
    };
    table.row(vec![
        name,
        a.entries.to_string(),
        a.entries_equal.to_string(),
        format_size(a.largest_difference),
        format!(
            "{} ({} of {})",
            if a.calls_equal { "equal" } else { "differ" },
            a.calls,
            a.recorded_calls
        ),
        format!("{} of {}", a.blocks_equal, a.blocks),
        cap.map_or("-".into(), format_size),
        format_size(r.reserved_peak),
        format!("{best:.1}"),
        format!("{sweep_ms:.0}"),
        lowest,
    ]);
    Ok(a.exact())
}

fn line(cells: &[String]) -> String {
    let widths = [28, 8, 13, 12, 22, 23, 8, 13, 9, 8, 0];
    let line: Vec<String> = (cells.iter().zip(widths).enumerate())
        .map(|(i, (c, w))| match i {
            0 | 10 => format!("{c:<w$}"),
            _ => format!("{c:>w$}"),
        })
        .collect();
    line.join(" ")
}
