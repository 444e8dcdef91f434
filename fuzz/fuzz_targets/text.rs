//! The memplan text reader on arbitrary bytes: an error or a graph, never a
//! panic; a graph read is written as text again and reads back equal, and is
//! planned and checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::{read, write_text, Format};
use memplan_fuzz::plan_and_check;

fuzz_target!(|data: &[u8]| {
    if let Ok(graph) = read(data, Some(Format::Text), "fuzz") {
        let text = write_text(&graph).expect("a graph read from text has no op bodies");
        let again = read(text.as_bytes(), Some(Format::Text), "other")
            .unwrap_or_else(|e| panic!("the written text does not read back: {e}\n{text}"));
        assert_eq!(again, graph, "{text}");
        plan_and_check(&graph);
    }
});
