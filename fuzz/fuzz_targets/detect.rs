//! Format detection and the reader it picks, on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::read;
use memplan_fuzz::plan_and_check;

fuzz_target!(|data: &[u8]| {
    let _ = memplan_formats::is_npu_case(data);
    if let Ok(graph) = read(data, None, "fuzz") {
        plan_and_check(&graph);
    }
});
