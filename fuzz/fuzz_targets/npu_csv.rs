//! The NPU CSV pair reader: the input is split at its first NUL byte into the
//! `_Nodes.csv` and `_Edges.csv` texts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::npu::read_csv;
use memplan_npu::case::default_levels;

fuzz_target!(|data: &[u8]| {
    let (nodes, edges) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let _ = read_csv(nodes, edges, "fuzz", default_levels());
});
