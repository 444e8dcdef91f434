//! The PyTorch snapshot reader on arbitrary bytes (a pickle, or gzip of one): an
//! error or a snapshot, never a panic or a hang; a snapshot read has its figures
//! computed, its real layout checked and its blocks planned and checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan::check;
use memplan_formats::snapshot;
use memplan_fuzz::plan_and_check;

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = snapshot::read(data.to_vec(), None) else {
        return;
    };
    let figures = snap.figures();
    assert!(figures.largest_gap_at_reserved_peak <= figures.reserved_peak);
    let _ = snap.holders(figures.live_peak_step);
    let Ok(graph) = snap.graph("fuzz") else {
        return;
    };
    plan_and_check(&graph);
    if let Ok(plan) = memplan::plan(&graph, memplan::Strategy::GreedySize, &Default::default()) {
        // a hostile trace may overlap blocks: the layout is drawn, not trusted
        let _ = check::check(&graph, &snap.layout(&plan));
    }
});
