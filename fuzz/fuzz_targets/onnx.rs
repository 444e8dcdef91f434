//! The onnx reader on arbitrary bytes: an error or a graph, never a panic. Read
//! twice, with the file's declared shapes and with memplan's inference alone (so
//! that the op handlers, the shape-value evaluator and subgraph scopes all run on
//! what they read); every graph read, and every body of its ops, is planned and
//! checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::{read_with, Format, ReadOptions};
use memplan::Graph;
use memplan_fuzz::plan_and_check;

fn with_bodies(graph: &Graph) {
    plan_and_check(graph);
    for sub in &graph.subgraphs {
        with_bodies(&sub.graph);
    }
}

fuzz_target!(|data: &[u8]| {
    for no_declared in [false, true] {
        let opts = ReadOptions {
            no_declared,
            ..ReadOptions::default()
        };
        if let Ok(graph) = read_with(data, Some(Format::Onnx), "fuzz", &opts) {
            with_bodies(&graph);
        }
    }
});
