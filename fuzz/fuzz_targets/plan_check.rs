//! Every strategy on small graphs built from the fuzz bytes: each plan must pass
//! the independent checker and never beat the lower bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_fuzz::{graph_from_bytes, plan_and_check_with};

fuzz_target!(|data: &[u8]| {
    if let Some((graph, opts)) = graph_from_bytes(data) {
        plan_and_check_with(&graph, opts);
    }
});
