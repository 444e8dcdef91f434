//! `PYTORCH_CUDA_ALLOC_CONF` on arbitrary text: an error or a conf, never a panic;
//! a conf read is written in the same syntax again and reads back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_torch::AllocConf;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(conf) = AllocConf::parse(text) {
        let written = conf.to_string();
        let again = AllocConf::parse(&written)
            .unwrap_or_else(|e| panic!("`{text}` written as `{written}` does not read back: {e}"));
        assert_eq!(again, conf, "`{text}` written as `{written}`");
        assert_eq!(again.to_string(), written, "`{text}`");
    }
});
