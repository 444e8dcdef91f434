//! `memplan bench-import`: how long importing each model takes (median of
//! several runs) and the most heap it holds at once, with what it found.
//! `--markdown` prints the table as markdown.

use super::file_source::FileSource;
use crate::common::{exit_code, files_in};
use crate::flags::{BenchImportArgs, Common};
use crate::table::{cells, Table};
use memplan_formats as formats;
use memplan_formats::source::Source;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Instant;

/// The heap in use and its high-water mark, counted by the binary's allocator
/// while [`COUNTING`] is on (only `bench-import` turns it on: every other command
/// allocates without touching these shared counters). Signed, because a block
/// allocated before the counting began may be freed after: the figures used are
/// differences within one run.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

pub struct Counting;

impl Counting {
    fn grew(by: isize) {
        if COUNTING.load(Ordering::Relaxed) {
            let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Counting::grew(layout.size() as isize);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Counting::grew(layout.size() as isize);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Counting::grew(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Counting::grew(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

/// Runs `f` once, returning its result, its wall time in milliseconds and the
/// most heap it held at once beyond what was held before, in bytes.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, f64, usize) {
    COUNTING.store(true, Ordering::Relaxed);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let out = f();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let peak = (PEAK.load(Ordering::Relaxed) - before).max(0) as usize;
    (out, ms, peak)
}

const RUNS: usize = 5;

pub fn run(args: BenchImportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let files = files_in(&args.inputs, |p| {
        p.extension().is_some_and(|e| e == "onnx" || e == "tflite")
    })?;
    let head = [
        "model",
        "MB",
        "ops",
        "arena",
        "bodies",
        "import ms",
        "peak heap MB",
    ];
    let mut table = Table::new(args.markdown, &head, model_line);
    let mut failed = 0;
    for file in &files {
        failed += usize::from(!bench_file(file, &args.common, &mut table)?);
    }
    table.finish();
    Ok(exit_code(failed == 0))
}

/// A model's row as the terminal shows it.
fn model_line(row: &[String]) -> String {
    format!(
        "{:<36} {:>8} {:>6} {:>7} {:>6} {:>10} {:>12}",
        row[0], row[1], row[2], row[3], row[4], row[5], row[6]
    )
}

/// Imports one model [`RUNS`] times and prints its row, or the import's error;
/// false when it fails.
fn bench_file(file: &Path, common: &Common, table: &mut Table) -> Result<bool, memplan::Error> {
    let src = FileSource::open(file)?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut times = Vec::with_capacity(RUNS);
    let mut peak = 0;
    let mut last = None;
    for _ in 0..RUNS {
        let (graph, ms, heap) =
            measured(|| formats::read_source(&src, common.format, stem, &common.read));
        times.push(ms);
        peak = peak.max(heap);
        last = Some(graph);
    }
    times.sort_by(f64::total_cmp);
    match last.expect("at least one run") {
        Ok(g) => {
            table.row(vec![
                name,
                format!("{:.2}", src.size() as f64 / 1e6),
                g.ops.len().to_string(),
                g.arena_tensors().count().to_string(),
                g.subgraphs.len().to_string(),
                format!("{:.2}", times[RUNS / 2]),
                format!("{:.2}", peak as f64 / 1e6),
            ]);
            Ok(true)
        }
        Err(e) => {
            let error = format!("error: {e}");
            let text = format!("{name:<36} {error}");
            table.row_said(cells(&[&name, "", "", "", "", "", &error]), &text);
            Ok(false)
        }
    }
}
