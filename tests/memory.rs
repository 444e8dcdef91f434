//! Reading a file costs memory in proportion to its size: the peak heap of the
//! readers, measured by a counting allocator, on the largest-per-byte inputs we know.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One test at a time: the tests of this file share the counters, and building an
/// input allocates too.
static ONE: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap bytes above the start while `f` runs.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let start = NOW.load(Ordering::Relaxed);
    PEAK.store(start, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed) - start, out)
}

/// Reads `text` and returns the peak heap per byte of input, and whether it read.
fn per_byte(text: &str) -> (f64, bool) {
    let (peak, read) = peak_of(|| memplan::formats::read(text.as_bytes(), None, "big").is_ok());
    (peak as f64 / text.len() as f64, read)
}

#[test]
fn one_op_with_a_million_one_letter_inputs() {
    let _one = ONE.lock().unwrap();
    let inputs = vec!["\"a\""; 1_000_000].join(",");
    let text = format!(
        r#"{{"tensors": [{{"name": "a", "size": 1, "kind": "input"}}, {{"name": "b", "size": 1}}],
            "ops": [{{"inputs": [{inputs}], "outputs": ["b"]}}]}}"#
    );
    let (ratio, read) = per_byte(&text);
    assert!(read);
    eprintln!("{ratio:.1} bytes of heap per byte of input");
    assert!(ratio < 12.0, "{ratio:.1} bytes of heap per byte of input");
}

#[test]
fn many_small_tensors() {
    let _one = ONE.lock().unwrap();
    let tensors: Vec<String> = (0..300_000)
        .map(|i| {
            format!(
                r#"{{"name": "{i}", "size": 1, "kind": "{}"}}"#,
                if i == 0 { "input" } else { "intermediate" }
            )
        })
        .collect();
    let ops: Vec<String> = (1..300_000)
        .map(|i| format!(r#"{{"inputs": ["{}"], "outputs": ["{i}"]}}"#, i - 1))
        .collect();
    let text = format!(
        r#"{{"tensors": [{}], "ops": [{}]}}"#,
        tensors.join(","),
        ops.join(",")
    );
    let (ratio, read) = per_byte(&text);
    assert!(read);
    eprintln!("{ratio:.1} bytes of heap per byte of input");
    assert!(ratio < 12.0, "{ratio:.1} bytes of heap per byte of input");
}
