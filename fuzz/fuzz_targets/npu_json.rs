//! The NPU contest JSON reader on arbitrary bytes: an error or a case, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::npu::read_json;
use memplan_npu::case::default_levels;

fuzz_target!(|data: &[u8]| {
    let _ = read_json(data, "fuzz", default_levels());
});
