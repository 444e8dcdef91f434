//! The tflite reader on arbitrary bytes: an error or a graph, never a panic; a
//! graph read is planned and checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::{read, Format};
use memplan_fuzz::plan_and_check;

fuzz_target!(|data: &[u8]| {
    if let Ok(graph) = read(data, Some(Format::Tflite), "fuzz") {
        plan_and_check(&graph);
    }
});
