//! The packed plan report the page reads from the worker: any bytes unpack to an
//! error or to a head and tensors that pack back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_formats::packed::{pack, unpack};

fuzz_target!(|data: &[u8]| {
    if let Ok((head, tensors)) = unpack(data) {
        assert_eq!(pack(head, &tensors), data);
    }
});
