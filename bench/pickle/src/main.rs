//! Time and peak heap to read each snapshot with serde-pickle (a `Value` tree, each
//! memo reference resolved by cloning its subtree) and with memplan's reader (a tree
//! with shared nodes; and the snapshot reader, which folds each trace entry into a
//! record as it reads). Each reader runs three times per file, alternating; the
//! table shows the median time and the largest heap.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size() as isize);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        grew(-(l.size() as isize));
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        grew(n as isize - l.size() as isize);
        System.realloc(p, l, n)
    }
}

fn grew(by: isize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` on a fresh read of `path`, returning (ok, ms, peak heap bytes).
fn measure(path: &str, f: &dyn Fn(std::fs::File) -> bool) -> (bool, f64, isize) {
    let file = std::fs::File::open(path).expect("readable file");
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let t = Instant::now();
    let ok = f(file);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (ok, ms, PEAK.load(Ordering::Relaxed) - before)
}

fn main() {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        let dir = "../shared/corpus/torch";
        let mut found: Vec<String> = std::fs::read_dir(dir)
            .expect("the corpus at ../shared/corpus/torch (run from the repository's root)")
            .filter_map(|e| e.ok().map(|e| e.path().to_string_lossy().into_owned()))
            .filter(|p| p.ends_with(".pickle"))
            .collect();
        found.sort();
        files = found;
    }
    type Reader = (&'static str, fn(std::fs::File) -> bool);
    let readers: [Reader; 3] = [
        ("serde-pickle", |f| {
            let opts = serde_pickle::DeOptions::new();
            serde_pickle::value_from_reader(std::io::BufReader::new(f), opts).map_err(|e| eprintln!("serde-pickle: {e}")).is_ok()
        }),
        ("memplan tree", |f| {
            memplan_formats::pickle::read_from(f, &mut ()).is_ok()
        }),
        ("memplan snapshot", |f| {
            memplan_formats::snapshot::read_stream(f, None).is_ok()
        }),
    ];
    println!("| snapshot | MB | reader | ms (median of 3) | peak heap MB |");
    println!("|---|---:|---|---:|---:|");
    for path in &files {
        let mb = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        let mut runs: Vec<Vec<(bool, f64, isize)>> = vec![Vec::new(); readers.len()];
        for _ in 0..3 {
            for (i, (_, read)) in readers.iter().enumerate() {
                runs[i].push(measure(path, read));
            }
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        for (i, (reader, _)) in readers.iter().enumerate() {
            let mut ms: Vec<f64> = runs[i].iter().map(|r| r.1).collect();
            ms.sort_by(f64::total_cmp);
            let heap = runs[i].iter().map(|r| r.2).max().unwrap_or(0);
            let ok = runs[i].iter().all(|r| r.0);
            println!(
                "| {name} | {mb:.1} | {reader}{} | {:.1} | {:.1} |",
                if ok { "" } else { " (failed)" },
                ms[1],
                heap as f64 / 1e6
            );
        }
    }
}
