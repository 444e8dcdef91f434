//! PyTorch memory snapshots: every corpus snapshot opens, its live and reserved
//! peaks are torch's own figures within 1%, every plan of its blocks passes the
//! independent checker, and `gpt2_oom` reports its failed request as torch did.
//! The copy of `mlp_train` in `tests/data` (plain and gzipped) runs without the
//! corpus.

use memplan::{analyse, check, Options, Strategy};
use memplan_formats::snapshot::{self, Snapshot};
use std::path::Path;

/// torch's figures from `../shared/corpus/torch/README.md`: file, entries,
/// `max_memory_allocated`, `max_memory_reserved`, and `memory_allocated` before
/// recording (where recording started after the model was on the device).
#[rustfmt::skip]
const TORCH: [(&str, u32, u64, u64, Option<u64>); 9] = [
    ("mlp_train", 257, 489_624_064, 494_927_872, Some(85_133_824)),
    ("resnet50_train", 6_816, 3_215_639_040, 3_797_942_272, Some(141_010_944)),
    ("resnet50_infer", 931, 490_317_312, 578_813_952, Some(121_742_848)),
    ("gpt2_train", 13_007, 7_722_708_480, 8_082_423_808, Some(498_591_744)),
    ("gpt2_train_expandable", 13_005, 7_701_366_272, 8_269_070_336, Some(497_792_000)),
    ("bert_infer", 1_234, 612_117_504, 729_808_896, Some(439_102_464)),
    ("llama_generate", 55_808, 365_351_936, 398_458_880, Some(313_564_160)),
    ("llama_generate_long", 779_201, 417_960_960, 476_053_504, None),
    ("gpt2_oom", 563, 6_379_112_448, 6_431_965_184, None),
];

fn open(path: &Path) -> Snapshot {
    snapshot::read(std::fs::read(path).unwrap(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn within(found: u64, torch: u64, what: &str) {
    let off = (found as f64 - torch as f64).abs() / torch as f64;
    assert!(
        off <= 0.01,
        "{what}: {found} against torch's {torch} ({:.2}% off)",
        off * 100.0
    );
}

/// Plans the snapshot's blocks with `strategy` and checks the plan.
fn checked_plan(snap: &Snapshot, strategy: Strategy) -> u64 {
    let graph = snap.graph("s").unwrap();
    let analysis = analyse(&graph, &Options::default()).unwrap();
    assert_eq!(
        analysis.liveness.lower_bound,
        snap.figures().live_peak,
        "the graph's bound is the live peak"
    );
    let plan = analysis.plan(&graph, strategy);
    let violations = check::check(&graph, &plan);
    assert!(violations.is_empty(), "{strategy:?}: {violations:?}");
    plan.peak_bytes
}

#[test]
fn every_corpus_snapshot_has_torchs_peaks_and_checked_plans() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else {
        return;
    };
    for (name, entries, allocated, reserved, before) in TORCH {
        let snap = open(&dir.join(format!("{name}.pickle")));
        let f = snap.figures();
        assert_eq!(f.steps, entries, "{name}");
        within(f.live_peak, allocated, &format!("{name} live peak"));
        within(f.reserved_peak, reserved, &format!("{name} reserved peak"));
        // expandable segments are mapped ranges, shown as such; no corpus run used a private pool
        let expandable = name == "gpt2_train_expandable";
        assert_eq!(f.expandable_segments > 0, expandable, "{name}");
        assert!(!expandable || f.expandable_segments == f.segments, "{name}");
        assert_eq!(f.private_pool_segments, 0, "{name}");
        if let Some(before) = before {
            // every block from before recording is found, at its allocator size
            assert_eq!(
                f.before_recording, before,
                "{name}: allocated before recording"
            );
        }
        assert!(f.unused_at_reserved_peak <= f.reserved_peak);
        assert!(
            f.largest_gap_at_reserved_peak <= f.unused_at_reserved_peak,
            "{name}"
        );
        for s in [Strategy::GreedySize, Strategy::BestFit] {
            let peak = checked_plan(&snap, s);
            assert!(peak >= f.live_peak, "{name}: a plan below the live peak");
        }
        the_real_layout_passes_the_checker(&snap, name);
    }
}

/// The allocator never gave two live blocks the same bytes: its layout, read
/// back, passes the same checker as memplan's plans, within the squeezed segments.
fn the_real_layout_passes_the_checker(snap: &Snapshot, name: &str) {
    let graph = snap.graph("s").unwrap();
    let plan = analyse(&graph, &Options::default())
        .unwrap()
        .plan(&graph, Strategy::GreedySize);
    let layout = snap.layout(&plan);
    let violations = check::check(&graph, &layout);
    assert!(
        violations.is_empty(),
        "{name}: {:?}",
        &violations[..violations.len().min(3)]
    );
    let squeezed: u64 = snap.regions().iter().map(|r| r.size).sum();
    assert!(
        layout.peak_bytes <= squeezed && layout.peak_bytes >= snap.figures().live_peak,
        "{name}"
    );
}

#[test]
fn every_block_lies_in_a_segment_alive_over_its_life() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else {
        return;
    };
    for (name, ..) in TORCH.iter().filter(|t| t.1 < 100_000) {
        let snap = open(&dir.join(format!("{name}.pickle")));
        let mut outside = 0;
        for b in &snap.blocks {
            match b.segment {
                Some(s) => {
                    let s = &snap.segments[s as usize];
                    assert!(s.start <= b.start, "{name}: {b:?} born before {s:?}");
                    assert!(
                        covered(&snap, b),
                        "{name}: {b:?} not within the segments of its birth"
                    );
                }
                None => outside += 1,
            }
        }
        assert_eq!(outside, 0, "{name}: blocks in no segment");
    }
}

/// Every byte of `b` lies in segments reserved at its birth (an expandable
/// segment's block may span several mapped ranges).
fn covered(snap: &Snapshot, b: &snapshot::Block) -> bool {
    let mut ranges: Vec<(u64, u64)> = (snap.segments.iter())
        .filter(|s| s.start <= b.start && b.start <= s.end)
        .map(|s| (s.addr, s.addr + s.size))
        .collect();
    ranges.sort_unstable();
    let mut at = b.addr;
    for (lo, hi) in ranges {
        if lo <= at && at < hi {
            at = hi;
        }
    }
    at >= b.addr + b.size
}

#[test]
fn the_oom_snapshot_reports_the_failed_192_mib_request_as_torch_did() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else {
        return;
    };
    let snap = open(&dir.join("gpt2_oom.pickle"));
    let oom = snap.oom.clone().expect("an oom entry");
    assert_eq!(oom.size, 192 << 20);
    // torch: "5.94 GiB is allocated by PyTorch, and 50.40 MiB is reserved by
    // PyTorch but unallocated"; memplan counts requests rounded to 512 B, torch
    // the blocks, which keep the remainders too small to split (0.77 MiB here)
    assert_eq!(
        format!("{:.2}", oom.allocated as f64 / (1u64 << 30) as f64),
        "5.94"
    );
    let unallocated = (oom.reserved - oom.allocated) as f64 / (1u64 << 20) as f64;
    assert!((unallocated - 50.40).abs() < 1.0, "{unallocated} MiB");
    let with = snap
        .graph_with_request("s")
        .unwrap()
        .expect("the request as a buffer");
    let plan = analyse(&with, &Options::default())
        .unwrap()
        .plan(&with, Strategy::BestFit);
    assert!(check::check(&with, &plan).is_empty());
    assert!(
        plan.peak_bytes > oom.reserved,
        "no layout fits the request in what was reserved"
    );
}

#[test]
fn frames_are_shared_not_copied_per_block() {
    let snap = open(&memplan_testkit::root().join("tests/data/mlp_train.pickle"));
    let with_stack = snap.blocks.iter().filter(|b| b.stack.is_some()).count();
    assert!(with_stack > 50, "{with_stack}");
    assert!(
        snap.stacks.len() * 5 < with_stack,
        "{} stacks for {with_stack} blocks",
        snap.stacks.len()
    );
    let mut frames = snap.frames.clone();
    frames.sort_by(|a, b| (&a.filename, a.line, &a.name).cmp(&(&b.filename, b.line, &b.name)));
    frames.dedup();
    assert_eq!(frames.len(), snap.frames.len(), "a frame stored twice");
    let top = snap
        .top_frame(snap.blocks.iter().find(|b| b.stack.is_some()).unwrap())
        .unwrap();
    assert!(top.filename.ends_with(".py") && top.line > 0, "{top:?}");
}

#[test]
fn a_gzipped_snapshot_reads_as_the_plain_one_without_the_corpus() {
    let data = memplan_testkit::root().join("tests/data");
    let plain = open(&data.join("mlp_train.pickle"));
    let gz = open(&data.join("mlp_train.pickle.gz"));
    assert_eq!(plain, gz);
    let f = plain.figures();
    // torch's own max_memory_allocated and max_memory_reserved, exactly
    assert_eq!((f.live_peak, f.reserved_peak), (489_624_064, 494_927_872));
    // 8 blocks from before recording: 85,133,824 B allocated when it started
    assert_eq!(f.before_recording, 85_133_824);
    // what holds the memory at a step adds up to the bytes live there
    let live = plain.live_bytes();
    for step in [0, f.live_peak_step, plain.steps - 1] {
        let held: u64 = plain.holders(step).iter().map(|h| h.bytes).sum();
        assert_eq!(held, live[step as usize], "step {step}");
    }
    assert!(plain.holders_at(f.live_peak_step).len() <= 12);
    assert_eq!(
        plain
            .blocks
            .iter()
            .filter(|b| !b.allocated_in_trace)
            .count(),
        8
    );
    for s in [Strategy::GreedySize, Strategy::BestFit, Strategy::FirstFit] {
        assert!(checked_plan(&plain, s) >= f.live_peak);
    }
    let detected = memplan_formats::read(
        &std::fs::read(data.join("mlp_train.pickle.gz")).unwrap(),
        None,
        "m",
    )
    .unwrap();
    assert_eq!(detected.tensors.len(), plain.blocks.len());
}

#[test]
fn a_missing_device_and_non_snapshots_are_clear_errors() {
    let bytes = std::fs::read(memplan_testkit::root().join("tests/data/mlp_train.pickle")).unwrap();
    let e = snapshot::read(bytes, Some(3)).unwrap_err().to_string();
    assert!(
        e.contains("device 3 is not in the snapshot (it has traces of 1 devices)"),
        "{e}"
    );
    let plain = std::fs::read(memplan_testkit::root().join("tests/data/plain_p4.pickle")).unwrap();
    let e = snapshot::read(plain, None).unwrap_err().to_string();
    assert!(e.contains("no `device_traces`"), "{e}");
    let e = snapshot::read(b"\x1f\x8bnot gzip".to_vec(), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gzip"), "{e}");
}

/// A snapshot made by hand in Python (protocol 2): two devices, the first without
/// entries; on the second a segment allocated and freed, an alloc without frames,
/// actions memplan does not know, a block freed that was allocated before
/// recording, inside a private pool's segment that only the final list names.
#[test]
fn a_two_device_snapshot_with_unknown_actions_and_a_private_pool() {
    let bytes =
        std::fs::read(memplan_testkit::root().join("tests/data/edge_devices.pickle")).unwrap();
    let snap = snapshot::read(bytes.clone(), None).unwrap();
    assert_eq!(
        (snap.device, snap.devices.clone(), snap.steps),
        (1, vec![0, 11], 11)
    );
    let f = snap.figures();
    assert_eq!((f.blocks, f.segments, f.private_pool_segments), (3, 2, 1));
    assert_eq!(f.before_recording, 512);
    assert_eq!(f.live_peak, 512 + 1024 + 4096);
    assert_eq!(f.reserved_peak, 3 << 20);
    assert!(
        snap.notes
            .iter()
            .any(|n| n.contains("annotate (1), user_defined (1)")),
        "{:?}",
        snap.notes
    );
    assert!(
        snap.notes.iter().any(|n| n.contains("new_key")),
        "{:?}",
        snap.notes
    );
    assert_eq!(snap.blocks.iter().filter(|b| b.stack.is_some()).count(), 1);
    assert_eq!(checked_plan(&snap, Strategy::Auto), f.live_peak);
    let empty = snapshot::read(bytes, Some(0)).unwrap();
    assert_eq!((empty.steps, empty.blocks.len()), (0, 0));
    let graph = empty.graph("e").unwrap();
    let report = analyse(&graph, &Options::default()).unwrap().report(
        &graph,
        Strategy::Auto,
        &mut memplan::Budget::work(1000),
    );
    assert_eq!(empty.summary(&report, None).plan_ratio, 1.0);
}

/// Entries `from..to` of a trace as a snapshot of their own: the live bytes at each
/// entry kept are the whole trace's, the blocks alive at `from` enter as allocated
/// before recording, reserved bytes start where the whole trace had them, every
/// block still lies in a segment, and the part's plan and its real layout pass the
/// checker. Run on the copy of mlp_train in tests/data (no corpus needed) and on
/// two corpus traces.
#[test]
fn a_range_of_entries_is_a_snapshot_of_its_own() {
    let mut files = vec![memplan_testkit::root().join("tests/data/mlp_train.pickle")];
    if let Some(dir) = memplan_testkit::corpus_dir("torch") {
        files.push(dir.join("gpt2_train.pickle"));
        files.push(dir.join("llama_generate.pickle"));
    }
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let whole = open(&file);
        let live = whole.live_bytes();
        for (from, to) in [
            (whole.steps / 3, Some(2 * whole.steps / 3)),
            (whole.steps / 2, None),
        ] {
            let range = snapshot::Entries { from, to };
            let part = whole.clone().entries(range).unwrap();
            let end = to.unwrap_or(whole.steps);
            assert_eq!(part.steps, end - from, "{name}");
            assert_eq!((whole.first, part.first), (0, from), "{name}");
            // a part of a part counts from the recorded trace's first entry
            let inner = part
                .clone()
                .entries(snapshot::Entries { from: 1, to: None });
            assert_eq!(inner.unwrap().first, from + 1, "{name}");
            assert_eq!(
                part.live_bytes(),
                live[from as usize..end as usize],
                "{name}"
            );
            let f = part.figures();
            let before: u64 = (whole.blocks.iter())
                .filter(|b| b.start < from && from <= b.end)
                .map(|b| b.size)
                .sum();
            assert_eq!(f.before_recording, before, "{name}: alive at {from}");
            assert_eq!(part.reserved_at(0), whole.reserved_at(from), "{name}");
            assert_eq!(
                part.reserved_at(part.steps - 1),
                whole.reserved_at(end - 1),
                "{name}"
            );
            assert!(
                part.blocks.iter().all(|b| b.segment.is_some_and(
                    |s| covered(&part, b) && (part.segments[s as usize].start <= b.start)
                )),
                "{name}: a block outside the segments"
            );
            assert!(part
                .blocks
                .iter()
                .all(|b| b.start <= b.end && b.end < part.steps));
            let peak = checked_plan(&part, Strategy::GreedySize);
            assert!(peak >= f.live_peak, "{name}");
            the_real_layout_passes_the_checker(&part, &name);
            assert!(part
                .notes
                .iter()
                .any(|n| n.starts_with(&format!("entries {from}..{end} of"))));
        }
    }
}

#[test]
fn a_range_of_entries_that_is_empty_or_past_the_end_is_a_clear_error() {
    let snap = open(&memplan_testkit::root().join("tests/data/mlp_train.pickle"));
    let steps = snap.steps;
    let past = snap.clone().entries(snapshot::Entries {
        from: steps,
        to: None,
    });
    assert!(past
        .unwrap_err()
        .to_string()
        .contains(&format!("the trace has {steps} entries")));
    for bad in ["5..3", "4..4", "a..b", "12", "..x", "-1..3"] {
        assert!(snapshot::Entries::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        snapshot::Entries::parse("..7").unwrap(),
        snapshot::Entries {
            from: 0,
            to: Some(7)
        }
    );
    assert_eq!(
        snapshot::Entries::parse("3..").unwrap(),
        snapshot::Entries { from: 3, to: None }
    );
}
