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
    let (peak, read) = peak_of(|| memplan_formats::read(text.as_bytes(), None, "big").is_ok());
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

use memplan_formats::source::Source;
use memplan_testkit::pb;
use std::io::{Seek, SeekFrom, Write};

/// A file read by ranges, as the CLI reads models.
struct FileSource(std::fs::File, u64);

impl Source for FileSource {
    fn size(&self) -> u64 {
        self.1
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), memplan::Error> {
        use std::os::unix::fs::FileExt;
        self.0
            .read_exact_at(buf, offset)
            .map_err(|e| memplan::Error::usage(e.to_string()))
    }
}

/// Bytes, or a run of zeros left as a hole in the file.
enum Part {
    Bytes(Vec<u8>),
    Hole(u64),
}

fn parts_len(parts: &[Part]) -> u64 {
    parts
        .iter()
        .map(|p| match p {
            Part::Bytes(b) => b.len() as u64,
            Part::Hole(n) => *n,
        })
        .sum()
}

fn varint(v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    pb::varint(v, &mut out);
    out
}

/// A float initializer `name` of `[n, n]` whose `raw_data` is a hole.
fn weight(name: &str, n: i64) -> Vec<Part> {
    let head = [
        pb::int(1, n),
        pb::int(1, n),
        pb::int(2, 1),
        pb::bytes(8, name.as_bytes()),
    ]
    .concat();
    let raw = (n * n * 4) as u64;
    let body = vec![
        Part::Bytes([head, varint((9 << 3) | 2), varint(raw)].concat()),
        Part::Hole(raw),
    ];
    let len = parts_len(&body);
    let mut out = vec![Part::Bytes([varint((5 << 3) | 2), varint(len)].concat())];
    out.extend(body);
    out
}

/// Writes a model of `layers` MatMul + Relu layers over `[n, n]` float weights
/// (4 n² bytes each, stored as holes, so the file takes little disk); `None`
/// when the file cannot be written.
fn big_model(path: &std::path::Path, layers: usize, n: i64) -> Option<u64> {
    let mut graph: Vec<Part> = Vec::new();
    let mut prev = "x".to_string();
    for k in 0..layers {
        let (w, m, r) = (format!("w{k}"), format!("m{k}"), format!("r{k}"));
        let out = if k + 1 == layers {
            "z".to_string()
        } else {
            r.clone()
        };
        graph.push(Part::Bytes(pb::bytes(
            1,
            &pb::node(&format!("mm{k}"), "MatMul", &[&prev, &w], &[&m]),
        )));
        graph.push(Part::Bytes(pb::bytes(
            1,
            &pb::node(&format!("relu{k}"), "Relu", &[&m], &[&out]),
        )));
        graph.extend(weight(&w, n));
        prev = out;
    }
    graph.push(Part::Bytes(pb::bytes(11, &pb::value("x", &[8, n]))));
    graph.push(Part::Bytes(pb::bytes(12, &pb::value("z", &[8, n]))));
    let opset = [pb::bytes(1, b""), pb::int(2, 13)].concat();
    let head = [
        pb::int(1, 8),
        pb::bytes(8, &opset),
        varint((7 << 3) | 2),
        varint(parts_len(&graph)),
    ]
    .concat();
    let mut f = std::fs::File::create(path).ok()?;
    f.write_all(&head).ok()?;
    for p in &graph {
        match p {
            Part::Bytes(b) => f.write_all(b).ok()?,
            Part::Hole(n) => {
                f.seek(SeekFrom::Current(*n as i64)).ok()?;
            }
        }
    }
    let len = head.len() as u64 + parts_len(&graph);
    f.set_len(len).ok()?;
    Some(len)
}

/// A model of more than 3 GB imports with its weights left unread: the reader's
/// peak heap stays under 64 MiB.
#[test]
fn a_three_gigabyte_model_imports_without_its_weights() {
    let _one = ONE.lock().unwrap();
    let path = std::env::temp_dir().join(format!("memplan-big-{}.onnx", std::process::id()));
    let Some(len) = big_model(&path, 3, 16_384 + 512) else {
        eprintln!(
            "SKIPPED: cannot write a 3 GB sparse file in {}",
            std::env::temp_dir().display()
        );
        return;
    };
    assert!(len > 3 << 30, "{len} bytes");
    let file = std::fs::File::open(&path).unwrap();
    let src = FileSource(file, len);
    let started = std::time::Instant::now();
    let (peak, g) =
        peak_of(|| memplan_formats::read_source(&src, None, "big", &Default::default()));
    let ms = started.elapsed().as_secs_f64() * 1e3;
    std::fs::remove_file(&path).ok();
    let g = g.unwrap();
    assert_eq!(g.ops.len(), 6);
    let m0 = g.tensors.iter().find(|t| t.name == "m0").unwrap();
    assert_eq!(m0.size, 8 * (16_384 + 512) * 4);
    eprintln!("{len} bytes of model, {peak} bytes of peak heap, imported in {ms:.1} ms");
    assert!(peak < 64 << 20, "peak heap {peak} bytes");
}

/// A model whose weights are in an external data file that is not there: the file
/// is never opened, the graph imports.
#[test]
fn external_data_is_never_opened() {
    let _one = ONE.lock().unwrap();
    let entry = |k: &str, v: &str| {
        pb::bytes(
            13,
            &[pb::bytes(1, k.as_bytes()), pb::bytes(2, v.as_bytes())].concat(),
        )
    };
    let w = [
        pb::int(1, 1024),
        pb::int(1, 1024),
        pb::int(2, 1),
        pb::bytes(8, b"w"),
        entry("location", "absent.onnx.data"),
        entry("offset", "0"),
        entry("length", "4194304"),
        pb::int(14, 1),
    ]
    .concat();
    let nodes = [
        pb::node("mm", "MatMul", &["x", "w"], &["m"]),
        pb::node("relu", "Relu", &["m"], &["z"]),
    ];
    let data = pb::model_with(&[2, 1024], &[w], &nodes);
    let (peak, g) = peak_of(|| memplan_formats::read(&data, None, "ext"));
    let g = g.unwrap();
    assert_eq!(
        g.tensors.iter().find(|t| t.name == "m").unwrap().size,
        2 * 1024 * 4
    );
    assert!(peak < 1 << 20, "peak heap {peak} bytes");
}

/// A TFLite model of more than 3 GB (its weights after the FlatBuffer, as models
/// over 2 GB store them) read by ranges: the weights are never read.
#[test]
fn a_three_gigabyte_tflite_model_imports_without_its_weights() {
    use memplan_testkit::fb::tfl::{Model, ADD};
    let _one = ONE.lock().unwrap();
    let (rows, cols) = (8192i32, 32768i32);
    let size = rows as u64 * cols as u64 * 4;
    let mut m = Model::new();
    let x = m.tensor(0, "x", &[rows, cols]);
    let mut prev = x;
    let start = 1u64 << 20; // the FlatBuffer is far smaller
    for k in 0..3u64 {
        let w = m.far_weight(0, &format!("w{k}"), &[rows, cols], start + k * size, size);
        let out = m.tensor(0, &format!("a{k}"), &[rows, cols]);
        m.op(0, ADD, &[prev, w], &[out], None);
        prev = out;
    }
    m.io(0, &[x], &[prev]);
    let flat = m.bytes();
    assert!((flat.len() as u64) < start);
    let path = std::env::temp_dir().join(format!("memplan-big-{}.tflite", std::process::id()));
    let len = start + 3 * size;
    let written = std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(&flat).and_then(|_| f.set_len(len)));
    if written.is_err() {
        eprintln!(
            "SKIPPED: cannot write a 3 GB sparse file in {}",
            std::env::temp_dir().display()
        );
        return;
    }
    let src = FileSource(std::fs::File::open(&path).unwrap(), len);
    let started = std::time::Instant::now();
    let (peak, g) =
        peak_of(|| memplan_formats::read_source(&src, None, "big", &Default::default()));
    let ms = started.elapsed().as_secs_f64() * 1e3;
    std::fs::remove_file(&path).ok();
    let g = g.unwrap();
    assert_eq!(g.ops.len(), 3);
    let a0 = g.tensors.iter().find(|t| t.name == "a0").unwrap();
    assert_eq!((a0.size, a0.role), (size, memplan::graph::Role::Arena));
    eprintln!("{len} bytes of TFLite model, {peak} bytes of peak heap, imported in {ms:.1} ms");
    assert!(peak < 64 << 20, "peak heap {peak} bytes");
}
