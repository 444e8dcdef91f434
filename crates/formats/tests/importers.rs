//! TFLite and ONNX importers against the corpus reference graphs: the same arena
//! tensors in the same op order, the same lower bound; every plan checks; cut and
//! bit-flipped files give errors, never panics, hangs or huge allocations.
//!
//! Why one long file: the `Counting` global allocator belongs to one test binary, and
//! the crafted- and corrupt-file tests read its peaks; the corpus lookup `model`
//! serves the reference, weight-folding and corruption tests alike. A second file
//! would need its own allocator and a copy of the lookups, for one area: the two
//! model importers end to end.

use memplan::graph::{Graph, Role};
use memplan::{check, Options, Strategy};
use memplan_formats::{self as formats, Format, ReadOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Records the largest single allocation and the peak of live heap bytes, so the
/// corrupt-file tests can show that nothing read from a file made the reader
/// allocate far past the file's size.
struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        grew(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A model file of the corpus, or `None` when the corpus is absent (outside CI).
fn model(dir: &str, file: &str) -> Option<(PathBuf, Vec<u8>)> {
    let path = memplan_testkit::corpus_dir(dir)?.join(file);
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some((path, data))
}

/// Per op: its type and the sizes of its arena outputs.
type Steps = Vec<(String, Vec<u64>)>;

fn imported_steps(g: &Graph) -> Steps {
    g.ops
        .iter()
        .map(|op| {
            let sizes = op
                .outputs
                .iter()
                .map(|&t| g.tensor(t))
                .filter(|t| t.role == Role::Arena)
                .map(|t| t.size)
                .collect();
            (op.kind.clone(), sizes)
        })
        .collect()
}

fn reference_steps(reference: &serde_json::Value) -> Steps {
    let tensors = reference["tensors"].as_array().unwrap();
    let by_id = |id: &serde_json::Value| {
        tensors
            .iter()
            .find(|t| t["id"] == *id)
            .unwrap_or_else(|| panic!("reference tensor {id} is missing"))
    };
    reference["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let sizes = op["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(by_id)
                .filter(|t| t["kind"] == "intermediate")
                .map(|t| t["bytes"].as_u64().unwrap())
                .collect();
            (op["type"].as_str().unwrap().to_string(), sizes)
        })
        .collect()
}

/// Imports `dir/file`, compares it with `graphs/<stem>.json` and plans it with
/// every strategy.
fn matches_reference(dir: &str, file: &str, stem: &str, format: Format) {
    let Some((path, data)) = model(dir, file) else {
        return;
    };
    assert_eq!(
        Format::detect(&data).unwrap(),
        format,
        "{file}: detected format"
    );
    let g = formats::read(&data, None, stem).unwrap_or_else(|e| panic!("{file}: {e}"));
    let reference_path = path
        .parent()
        .unwrap()
        .join("../graphs")
        .join(format!("{stem}.json"));
    let reference: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&reference_path).unwrap()).unwrap();
    let stats = &reference["stats"];

    let (got, want) = (imported_steps(&g), reference_steps(&reference));
    assert_eq!(got.len(), want.len(), "{file}: number of ops");
    for (step, (g_step, w_step)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g_step, w_step,
            "{file}: op {step} (type, arena output sizes)"
        );
    }
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    assert_eq!(
        a.liveness.buffers.len() as u64,
        stats["n_intermediate"].as_u64().unwrap(),
        "{file}: arena tensors"
    );
    assert_eq!(
        a.naive_bytes,
        stats["sum_intermediate_bytes"].as_u64().unwrap(),
        "{file}: bytes"
    );
    assert_eq!(
        a.liveness.lower_bound,
        stats["lower_bound"].as_u64().unwrap(),
        "{file}: lower bound"
    );
    for strategy in Strategy::ALL {
        let plan = a.plan(&g, strategy);
        assert_eq!(
            check::check(&g, &plan),
            vec![],
            "{file} {}",
            strategy.name()
        );
        assert!(
            plan.peak_bytes >= plan.lower_bound,
            "{file} {}",
            strategy.name()
        );
    }
}

macro_rules! tflite_models {
    ($($test:ident: $stem:literal,)*) => {$(
        #[test]
        fn $test() {
            matches_reference("tflite", concat!($stem, ".tflite"), $stem, Format::Tflite);
        }
    )*};
}

macro_rules! onnx_models {
    ($($test:ident, $shapes:ident: $stem:literal,)*) => {$(
        #[test]
        fn $test() {
            matches_reference("onnx", concat!($stem, ".onnx"), $stem, Format::Onnx);
        }

        #[test]
        fn $shapes() {
            matches_reference("onnx", concat!($stem, ".shapes.onnx"), $stem, Format::Onnx);
        }
    )*};
}

tflite_models! {
    tflite_face_detection_full_range_sparse: "face_detection_full_range_sparse",
    tflite_face_detection_short_range: "face_detection_short_range",
    tflite_face_landmark: "face_landmark",
    tflite_hand_landmark_lite: "hand_landmark_lite",
    tflite_hand_recrop: "hand_recrop",
    tflite_iris_landmark: "iris_landmark",
    tflite_object_detection_ssd_mobilenetv2_oidv4_fp16: "object_detection_ssd_mobilenetv2_oidv4_fp16",
    tflite_palm_detection_lite: "palm_detection_lite",
    tflite_pose_detection: "pose_detection",
    tflite_selfie_segmentation: "selfie_segmentation",
}

onnx_models! {
    onnx_alexnet, onnx_alexnet_shapes: "light_bvlc_alexnet",
    onnx_densenet121, onnx_densenet121_shapes: "light_densenet121",
    onnx_inception_v1, onnx_inception_v1_shapes: "light_inception_v1",
    onnx_inception_v2, onnx_inception_v2_shapes: "light_inception_v2",
    onnx_resnet50, onnx_resnet50_shapes: "light_resnet50",
    onnx_shufflenet, onnx_shufflenet_shapes: "light_shufflenet",
    onnx_squeezenet, onnx_squeezenet_shapes: "light_squeezenet",
    onnx_vgg19, onnx_vgg19_shapes: "light_vgg19",
    onnx_zfnet512, onnx_zfnet512_shapes: "light_zfnet512",
}

#[test]
fn every_corpus_model_has_a_test() {
    for (dir, ext, expected) in [("tflite", "tflite", 10), ("onnx", "onnx", 18)] {
        let Some(d) = memplan_testkit::corpus_dir(dir) else {
            return;
        };
        assert_eq!(
            memplan_testkit::files(&d, ext).len(),
            expected,
            "models in {dir}/"
        );
    }
}

#[test]
fn custom_ops_import_by_their_custom_code() {
    let Some((_, data)) = model("tflite", "selfie_segmentation.tflite") else {
        return;
    };
    let g = formats::read(&data, None, "selfie").unwrap();
    let custom: Vec<&str> = g
        .ops
        .iter()
        .map(|op| op.kind.as_str())
        .filter(|k| k.starts_with("CUSTOM:"))
        .collect();
    assert_eq!(custom, ["CUSTOM:Convolution2DTransposeBias"]);
}

#[test]
fn fp16_and_sparse_weights_fold_away() {
    for (file, folded) in [
        (
            "object_detection_ssd_mobilenetv2_oidv4_fp16.tflite",
            "DEQUANTIZE",
        ),
        ("face_detection_full_range_sparse.tflite", "DENSIFY"),
        ("pose_detection.tflite", "DENSIFY"),
    ] {
        let Some((_, data)) = model("tflite", file) else {
            return;
        };
        let g = formats::read(&data, None, "m").unwrap();
        assert!(
            g.ops
                .iter()
                .all(|op| op.kind != folded && op.kind != "DEQUANTIZE"),
            "{file}: {folded} left in the graph"
        );
        // their weights stay: folded outputs are constants, not dropped tensors
        let consts = g.tensors.iter().filter(|t| t.role == Role::Const).count();
        assert!(consts > g.ops.len(), "{file}: {consts} constants");
    }
}

#[test]
fn onnx_input_shapes_override_symbolic_and_declared_dimensions() {
    let Some((_, data)) = model("onnx", "light_squeezenet.onnx") else {
        return;
    };
    let one = formats::read(&data, None, "s").unwrap();
    let opts = ReadOptions {
        input_shapes: vec![formats::parse_input_shape("data_0=4x3x224x224").unwrap()],
        ..ReadOptions::default()
    };
    let four = formats::read_with(&data, None, "s", &opts).unwrap();
    assert_eq!(four.naive_bytes(), 4 * one.naive_bytes());

    let opts = ReadOptions {
        input_shapes: vec![("nope".into(), vec![1])],
        ..ReadOptions::default()
    };
    let e = formats::read_with(&data, None, "s", &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`nope`") && e.contains("data_0"), "{e}");
    assert!(formats::parse_input_shape("data=1xq").is_err());
    assert!(formats::parse_input_shape("=1x2").is_err());
    assert_eq!(
        formats::parse_input_shape("a=b=1,2").unwrap(),
        ("a=b".to_string(), vec![1, 2])
    );
}

use memplan_testkit::{pb, Rng};

#[test]
fn hand_made_onnx_symbolic_dimensions_default_to_one() {
    let nodes = [
        pb::node("first", "Relu", &["x"], &["y"]),
        pb::node("second", "Sigmoid", &["y"], &["z"]),
    ];
    let data = pb::model(&[-1, 4], &nodes);
    assert_eq!(Format::detect(&data).unwrap(), Format::Onnx);
    let g = formats::read(&data, None, "m").unwrap();
    let y = g.tensors.iter().find(|t| t.name == "y").unwrap();
    assert_eq!((y.size, y.role), (16, Role::Arena));
    assert_eq!(g.ops[0].name, "first");
    assert_eq!(g.ops[1].kind, "Sigmoid");
    let opts = ReadOptions {
        input_shapes: vec![("x".into(), vec![3, 4])],
        ..ReadOptions::default()
    };
    let g = formats::read_with(&data, None, "m", &opts).unwrap();
    assert_eq!(g.tensors.iter().find(|t| t.name == "y").unwrap().size, 48);
}

#[test]
fn an_op_without_shape_inference_is_named_with_advice() {
    let nodes = [
        pb::node("n0", "Relu", &["x"], &["y"]),
        pb::node("mystery", "FancyOp", &["y"], &["z"]),
    ];
    // the graph output's declared type would fill the gap: ignore it
    let opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    let err = formats::read_with(&pb::model(&[1, 4], &nodes), None, "m", &opts).unwrap_err();
    // the page asks for the shape of the value the error names
    assert_eq!(
        (err.kind_name(), err.value_needing_shape()),
        ("needs-shape", Some("z"))
    );
    let e = err.to_string();
    for part in [
        "`mystery`",
        "FancyOp",
        "`z`",
        "onnx.shape_inference",
        "give the shape of `z`",
    ] {
        assert!(e.contains(part), "{part} missing from: {e}");
    }
    let nodes = [pb::node("n0", "Relu", &["nowhere"], &["z"])];
    let err = formats::read(&pb::model(&[1], &nodes), None, "m").unwrap_err();
    assert_eq!(
        (err.kind_name(), err.value_needing_shape()),
        ("parse", None)
    );
    assert!(err.to_string().contains("`nowhere`"), "{err}");
    // a size that depends on the data with no bound: strings split without maxsplit
    let nodes = [pb::node(
        "split",
        "StringSplit",
        &["x"],
        &["parts", "counts"],
    )];
    let err = formats::read(&pb::model(&[3, 4], &nodes), None, "m").unwrap_err();
    assert_eq!(err.value_needing_shape(), Some("parts"), "{err}");
    let e = err.to_string();
    assert!(e.contains("maxsplit") && e.contains("upper bound"), "{e}");
    assert!(!e.contains("--"), "a flag in: {e}");
}

#[test]
fn oversized_tensors_are_refused_naming_the_tensor() {
    let nodes = [pb::node("n0", "Relu", &["x"], &["z"])];
    let data = pb::model(&[1 << 30, 1 << 30, 1 << 30], &nodes);
    let e = formats::read(&data, None, "m").unwrap_err().to_string();
    assert!(e.contains("`x`") && e.contains("limit"), "{e}");
}

#[test]
fn folding_stays_small_and_fast_on_a_crafted_file() {
    // 3000 chained copies of a 60000-integer constant: 1.4 GB if each kept its data
    let mut nodes = vec![pb::node("c0", "Identity", &["c"], &["v0"])];
    for k in 1..3000 {
        let (i, o) = (format!("v{}", k - 1), format!("v{k}"));
        nodes.push(pb::node(&format!("c{k}"), "Identity", &[&i], &[&o]));
    }
    nodes.push(pb::node("last", "Relu", &["x"], &["z"]));
    let data = pb::model_with(&[1], &[pb::int64s("c", 60_000)], &nodes);
    let started = Instant::now();
    let g = formats::read(&data, None, "m").unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(g.ops.len(), 1, "the copies fold away");
    assert!(
        LARGEST.load(Ordering::Relaxed) < 64 << 20,
        "an allocation above 64 MiB"
    );
}

/// A TFLite file whose `n` tensors all share one table with a name of `len` bytes.
fn tflite_sharing_one_name(n: usize, len: usize) -> Vec<u8> {
    let mut b = Vec::new();
    let put = |b: &mut Vec<u8>, v: &[u8]| b.extend_from_slice(v);
    put(&mut b, &12u32.to_le_bytes()); // root: model table at 12
    put(&mut b, b"TFL3");
    put(&mut b, &[0; 4]);
    put(&mut b, &(-8i32).to_le_bytes()); // 12: model, vtable at 20
    put(&mut b, &16u32.to_le_bytes()); // 16: subgraphs at 32
    for v in [10u16, 8, 0, 0, 4, 0] {
        put(&mut b, &v.to_le_bytes()); // 20: vtable, field 2 at +4
    }
    put(&mut b, &1u32.to_le_bytes()); // 32: one subgraph
    put(&mut b, &4u32.to_le_bytes()); // 36: at 40
    put(&mut b, &(-8i32).to_le_bytes()); // 40: subgraph, vtable at 48
    put(&mut b, &12u32.to_le_bytes()); // 44: tensors at 56
    for v in [6u16, 8, 4, 0] {
        put(&mut b, &v.to_le_bytes()); // 48: vtable, field 0 at +4
    }
    put(&mut b, &(n as u32).to_le_bytes()); // 56: the tensors
    let table = 60 + 4 * n;
    for i in 0..n {
        put(&mut b, &((table - (60 + 4 * i)) as u32).to_le_bytes());
    }
    put(&mut b, &(-8i32).to_le_bytes()); // the shared tensor, vtable after it
    put(&mut b, &16u32.to_le_bytes()); // its name, 16 bytes on
    for v in [12u16, 8, 0, 0, 0, 4] {
        put(&mut b, &v.to_le_bytes()); // field 3 (name) at +4
    }
    put(&mut b, &(len as u32).to_le_bytes());
    b.resize(b.len() + len, b'n');
    b.push(0);
    b
}

#[test]
fn shared_tflite_tables_cannot_make_the_reader_huge() {
    let small = formats::read(&tflite_sharing_one_name(3, 8), None, "m");
    assert!(small.is_ok(), "{small:?}");
    // 20000 copies of a 100 kB name would be 2 GB
    let data = tflite_sharing_one_name(20_000, 100_000);
    let e = formats::read(&data, None, "m").unwrap_err().to_string();
    assert!(e.contains("share more data"), "{e}");
    let peak = PEAK.load(Ordering::Relaxed);
    assert!(peak < 512 << 20, "the heap peaked at {peak} bytes");
}

/// Reads `data` as `format` and, when it imports, plans and checks it; fails if
/// that takes longer than a second.
fn survives(data: &[u8], format: Option<Format>, what: &str) {
    let started = Instant::now();
    if let Ok(g) = formats::read(data, format, "fuzz") {
        if let Ok(a) = memplan::analyse(&g, &Options::default()) {
            let plan = a.plan(&g, Strategy::GreedySize);
            assert_eq!(check::check(&g, &plan), vec![], "{what}");
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{what}: took {:?}",
        started.elapsed()
    );
}

/// Cut copies at many points, then bit-flipped copies: 1 to 4 flips each, half
/// anywhere and half in the first 4 KiB where most of the structure lives.
fn corrupt_copies(file: &str, data: &[u8], format: Format, seed: u64, flips: usize) {
    let cuts = (0..64).chain((1..200).map(|k| k * data.len() / 200));
    for cut in cuts.filter(|&c| c < data.len()) {
        survives(&data[..cut], Some(format), &format!("{file} cut at {cut}"));
        survives(
            &data[..cut],
            None,
            &format!("{file} cut at {cut}, detected"),
        );
    }
    let mut rng = Rng(seed);
    for variant in 0..flips {
        let mut copy = data.to_vec();
        for _ in 0..1 + rng.below(4) {
            let span = if variant % 2 == 0 {
                copy.len()
            } else {
                copy.len().min(4096)
            };
            let at = rng.below(span as u64) as usize;
            copy[at] ^= 1 << rng.below(8);
        }
        survives(
            &copy,
            Some(format),
            &format!("{file} flip variant {variant}"),
        );
    }
}

#[test]
fn corrupt_tflite_files_give_errors_not_panics() {
    for (file, seed) in [("hand_recrop.tflite", 1), ("selfie_segmentation.tflite", 2)] {
        let Some((_, data)) = model("tflite", file) else {
            return;
        };
        corrupt_copies(file, &data, Format::Tflite, seed, 300);
        let e = formats::read(&data[..data.len() / 2], None, "m").unwrap_err();
        assert!(e.to_string().starts_with("tflite:"), "{e}");
    }
    assert!(
        LARGEST.load(Ordering::Relaxed) < 64 << 20,
        "an allocation above 64 MiB"
    );
}

#[test]
fn corrupt_onnx_files_give_errors_not_panics() {
    for (file, seed) in [
        ("light_bvlc_alexnet.onnx", 3),
        ("light_squeezenet.shapes.onnx", 4),
        ("light_shufflenet.onnx", 5),
    ] {
        let Some((_, data)) = model("onnx", file) else {
            return;
        };
        corrupt_copies(file, &data, Format::Onnx, seed, 300);
        let e = formats::read(&data[..data.len() - 7], Some(Format::Onnx), "m").unwrap_err();
        assert!(e.to_string().starts_with("onnx:"), "{e}");
    }
    assert!(
        LARGEST.load(Ordering::Relaxed) < 64 << 20,
        "an allocation above 64 MiB"
    );
}

/// Every corpus model read by ranges (as the CLI and the page read files) gives
/// the same graph as read whole.
#[test]
fn models_read_by_ranges_equal_models_read_whole() {
    for (dir, ext) in [("tflite", "tflite"), ("onnx", "onnx"), ("models", "onnx")] {
        let Some(path) = memplan_testkit::corpus_dir(dir) else {
            return;
        };
        for file in memplan_testkit::files(&path, ext) {
            let data = std::fs::read(&file).unwrap();
            let whole = formats::read(&data, None, "m");
            let by_ranges =
                formats::read_source(&data.as_slice(), None, "m", &ReadOptions::default());
            assert_eq!(whole, by_ranges, "{}", file.display());
        }
    }
}

/// Options that do not apply to TFLite are errors, not silently ignored.
#[test]
fn onnx_only_options_are_refused_for_tflite() {
    let Some((_, data)) = model("tflite", "hand_recrop.tflite") else {
        return;
    };
    let opts = ReadOptions {
        value_shapes: vec![("boxes".into(), vec![4])],
        ..ReadOptions::default()
    };
    let e = formats::read_with(&data, None, "m", &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("value `boxes`"), "{e}");
    let opts = ReadOptions {
        no_declared: true,
        ..ReadOptions::default()
    };
    let e = formats::read_with(&data, None, "m", &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ignoring declared shapes"), "{e}");
}
