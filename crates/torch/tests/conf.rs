//! `PYTORCH_CUDA_ALLOC_CONF` as torch 2.11 reads it (`c10/core/AllocatorConfig.cpp`,
//! `c10/cuda/CUDAAllocatorConfig.cpp`, and torch's own `AllocatorConfig_test.cpp`):
//! the strings it accepts with the settings they give, the strings it refuses, and
//! the written form reading back equal.

use memplan_torch::conf::{AllocConf, INTERVALS, KEYS, LARGE_BUFFER};

const MIB: u64 = 1 << 20;

fn ok(text: &str) -> AllocConf {
    AllocConf::parse(text).unwrap_or_else(|e| panic!("`{text}` refused: {e}"))
}

fn refused(text: &str) -> String {
    match AllocConf::parse(text) {
        Ok(c) => panic!("`{text}` accepted as {c:?}"),
        Err(e) => e.to_string(),
    }
}

/// The divisions of the interval starting at `mb` MiB.
fn div_at(c: &AllocConf, mb: u64) -> u64 {
    c.divisions(mb * MIB)
}

// ---- accepted ----

#[test]
fn the_empty_string_is_the_defaults() {
    let c = ok("");
    assert_eq!(c, AllocConf::default());
    assert_eq!(c.max_split_size, None);
    assert_eq!(c.max_non_split_rounding, LARGE_BUFFER);
    assert_eq!(c.roundup_power2_divisions, [0; INTERVALS]);
    assert_eq!(c.garbage_collection_threshold, 0.0);
    assert!(!c.expandable_segments);
    assert_eq!(c.memory_fraction, None);
    assert!(!c.malloc_async);
    assert_eq!(c.to_string(), "");
    // spaces alone are no tokens at all
    assert_eq!(ok("   "), AllocConf::default());
}

#[test]
fn expandable_segments() {
    assert!(ok("expandable_segments:True").expandable_segments);
    assert!(!ok("expandable_segments:False").expandable_segments);
    // the last setting of a key wins
    assert!(!ok("expandable_segments:True,expandable_segments:False").expandable_segments);
}

#[test]
fn spaces_are_dropped_anywhere() {
    assert!(ok(" expandable_segments : True ").expandable_segments);
    assert!(ok("expandable_ segments:Tr ue").expandable_segments);
    let c = ok(" max_split_size_mb : 128 , roundup_power2_divisions : [ 256 : 1 , > : 8 ] ");
    assert_eq!(c.max_split_size, Some(128 * MIB));
    assert_eq!(div_at(&c, 256), 1);
    assert_eq!(div_at(&c, 512), 8);
}

#[test]
fn whitespace_other_than_spaces_is_dropped_too() {
    // torch's ConfigTokenizer drops what `std::isspace` calls a space: a value read
    // from a file keeps its newline
    assert!(ok("expandable_segments:True\n").expandable_segments);
    assert!(ok("\tmax_split_size_mb:\r\n64").max_split_size == Some(64 * MIB));
}

#[test]
fn max_split_size_and_roundup() {
    let c = ok("max_split_size_mb:128,roundup_power2_divisions:4");
    assert_eq!(c.max_split_size, Some(128 * MIB));
    assert_eq!(c.roundup_power2_divisions, [4; INTERVALS]);
    assert_eq!(c.max_non_split_rounding, LARGE_BUFFER);
    // 20 MiB is the smallest allowed
    assert_eq!(ok("max_split_size_mb:20").max_split_size, Some(20 * MIB));
    assert_eq!(
        ok("max_non_split_rounding_mb:20").max_non_split_rounding,
        20 * MIB
    );
    assert_eq!(
        ok("max_non_split_rounding_mb:512").max_non_split_rounding,
        512 * MIB
    );
    // one division per interval (plain rounding) is a power of 2 too
    assert_eq!(
        ok("roundup_power2_divisions:1").roundup_power2_divisions,
        [1; INTERVALS]
    );
}

#[test]
fn a_huge_max_split_size_is_clamped_not_refused() {
    // torch clamps it to SIZE_MAX / 1 MiB; memplan to a value that cannot overflow
    let c = ok("max_split_size_mb:18446744073709551615");
    let m = c.max_split_size.unwrap();
    assert!(m >= 1 << 40, "{m}");
    assert_eq!(m % MIB, 0);
    assert_eq!(ok(&c.to_string()), c);
}

#[test]
fn roundup_list() {
    let c = ok("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]");
    // the first value also fills the intervals below it
    for mb in [1, 2, 4, 64, 128, 256] {
        assert_eq!(div_at(&c, mb), 1, "{mb} MiB");
    }
    assert_eq!(div_at(&c, 512), 2);
    assert_eq!(
        div_at(&c, 1024),
        4,
        "`>` starts after the last listed interval"
    );
    for mb in [2048, 4096, 1 << 15, 1 << 20] {
        assert_eq!(div_at(&c, mb), 8, "{mb} MiB");
    }
    // below 1 MiB the first interval applies
    assert_eq!(c.divisions(4096), 1);
}

#[test]
fn roundup_list_as_torch_tests_it() {
    // c10/test/core/AllocatorConfig_test.cpp
    let c = ok("roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1]");
    let want = [
        (32, 8),
        (64, 8),
        (128, 2),
        (256, 4),
        (512, 2),
        (1024, 4),
        (2048, 1),
        (4096, 1),
        (8192, 1),
    ];
    for (mb, d) in want {
        assert_eq!(div_at(&c, mb), d, "{mb} MiB");
    }
    let c = ok("roundup_power2_divisions:[128:8,256:16,512:1,2048:8,>:2]");
    let want = [
        (64, 8),
        (128, 8),
        (256, 16),
        (512, 1),
        (1024, 0),
        (2048, 8),
        (4096, 2),
    ];
    for (mb, d) in want {
        assert_eq!(div_at(&c, mb), d, "{mb} MiB");
    }
}

#[test]
fn roundup_list_edges() {
    // 0 divisions (rounding off) is allowed in a list
    let c = ok("roundup_power2_divisions:[1:0,2:4]");
    assert_eq!(div_at(&c, 1), 0);
    assert_eq!(div_at(&c, 2), 4);
    assert_eq!(div_at(&c, 4), 0);
    // an interval from 32 GiB on is the last one
    let c = ok("roundup_power2_divisions:[65536:2]");
    assert_eq!(c.roundup_power2_divisions, [2; INTERVALS]);
    // the empty list changes nothing
    assert_eq!(ok("roundup_power2_divisions:[]"), AllocConf::default());
    // a list, then another key
    let c = ok("roundup_power2_divisions:[256:2],expandable_segments:True");
    assert!(c.expandable_segments);
    assert_eq!(div_at(&c, 256), 2);
    assert_eq!(div_at(&c, 512), 0);
}

#[test]
fn garbage_collection_threshold() {
    let c = ok("garbage_collection_threshold:0.6,max_split_size_mb:20");
    assert_eq!(c.garbage_collection_threshold, 0.6);
    assert_eq!(c.max_split_size, Some(20 * MIB));
    assert_eq!(
        ok("garbage_collection_threshold:0.999").garbage_collection_threshold,
        0.999
    );
    assert_eq!(
        ok("garbage_collection_threshold:.5").garbage_collection_threshold,
        0.5
    );
}

#[test]
fn backend() {
    let c = ok("backend:native");
    assert!(!c.malloc_async);
    assert_eq!(c, AllocConf::default());
    assert!(ok("backend:cudaMallocAsync").malloc_async);
}

#[test]
fn keys_that_do_not_place_blocks_are_accepted() {
    for text in [
        "release_lock_on_cudamalloc:True",
        "release_lock_on_cudamalloc:False",
        "pinned_use_cuda_host_register:True",
        "pinned_use_background_threads:False",
        "graph_capture_record_stream_reuse:True",
        "pinned_num_register_threads:1",
        "pinned_num_register_threads:8",
        "pinned_num_register_threads:128",
        "pinned_reserve_segment_size_mb:1",
        "pinned_reserve_segment_size_mb:512",
    ] {
        assert_eq!(ok(text), AllocConf::default(), "{text}");
    }
}

#[test]
fn memory_fraction() {
    assert_eq!(
        ok("per_process_memory_fraction:0.5").memory_fraction,
        Some(0.5)
    );
    assert_eq!(
        ok("per_process_memory_fraction:0").memory_fraction,
        Some(0.0)
    );
    assert_eq!(
        ok("per_process_memory_fraction:1").memory_fraction,
        Some(1.0)
    );
}

#[test]
fn a_trailing_comma_is_accepted() {
    // torch's loop reads the `,` after a value and then stops; its own test sets
    // "expandable_segments:False," (c10/test/core/AllocatorConfig_test.cpp)
    assert!(!ok("expandable_segments:False,").expandable_segments);
    assert!(ok("expandable_segments:True,").expandable_segments);
    assert_eq!(ok("max_split_size_mb:64,").max_split_size, Some(64 * MIB));
}

#[test]
fn everything_at_once() {
    let c = ok(
        "backend:native,max_split_size_mb:256,max_non_split_rounding_mb:64,\
                garbage_collection_threshold:0.8,roundup_power2_divisions:[64:8,>:2],\
                expandable_segments:True,release_lock_on_cudamalloc:True,\
                pinned_use_cuda_host_register:True,pinned_num_register_threads:4,\
                pinned_use_background_threads:True,graph_capture_record_stream_reuse:False,\
                pinned_reserve_segment_size_mb:32,per_process_memory_fraction:0.9",
    );
    assert_eq!(c.max_split_size, Some(256 * MIB));
    assert_eq!(c.max_non_split_rounding, 64 * MIB);
    assert_eq!(c.garbage_collection_threshold, 0.8);
    assert_eq!(div_at(&c, 32), 8);
    assert_eq!(div_at(&c, 64), 8);
    assert_eq!(div_at(&c, 128), 2);
    assert!(c.expandable_segments);
    assert_eq!(c.memory_fraction, Some(0.9));
    assert!(!c.malloc_async);
}

// ---- refused ----

#[test]
fn an_unknown_key_is_named_with_the_keys_that_exist() {
    for (text, key) in [
        ("max_split_size:128", "max_split_size"),
        ("expandable_segments:True,foo:1", "foo"),
        ("Expandable_segments:True", "Expandable_segments"),
        ("max_split_mb:40", "max_split_mb"),
    ] {
        let e = refused(text);
        assert!(e.contains(key), "{text}: {e}");
        for k in [
            "max_split_size_mb",
            "expandable_segments",
            "roundup_power2_divisions",
        ] {
            assert!(e.contains(k), "{text}: {e} does not list {k}");
        }
    }
    // every key the message lists is one the parser takes
    for k in KEYS {
        let e = AllocConf::parse(&format!("{k}:x"));
        if let Err(e) = e {
            assert!(!e.to_string().contains("unknown key"), "{k}: {e}");
        }
    }
}

#[test]
fn sizes_below_20_mib_and_non_numbers_are_refused() {
    for text in [
        "max_split_size_mb:19",
        "max_split_size_mb:0",
        "max_non_split_rounding_mb:19",
        "max_split_size_mb:abc",
        "max_split_size_mb:-128",
        "max_split_size_mb:12.5",
        "max_split_size_mb:",
        "max_split_size_mb",
        "max_split_size_mb:99999999999999999999999",
    ] {
        refused(text);
    }
    assert!(refused("max_split_size_mb:19").contains("20"));
    assert!(refused("max_split_size_mb:abc").contains("abc"));
}

#[test]
fn garbage_collection_threshold_outside_zero_one_is_refused() {
    for text in [
        "garbage_collection_threshold:1.0",
        "garbage_collection_threshold:1",
        "garbage_collection_threshold:0",
        "garbage_collection_threshold:0.0",
        "garbage_collection_threshold:-0.5",
        "garbage_collection_threshold:1.5",
        "garbage_collection_threshold:nan",
        "garbage_collection_threshold:inf",
        "garbage_collection_threshold:abc",
        "garbage_collection_threshold:",
    ] {
        refused(text);
    }
}

#[test]
fn booleans_are_capitalised() {
    for text in [
        "expandable_segments:true",
        "expandable_segments:false",
        "expandable_segments:TRUE",
        "expandable_segments:1",
        "expandable_segments:",
        "expandable_segments",
        "expandable_segments:True:False",
        "release_lock_on_cudamalloc:yes",
        "pinned_use_cuda_host_register:true",
        "pinned_use_background_threads:0",
        "graph_capture_record_stream_reuse:false",
    ] {
        refused(text);
    }
}

#[test]
fn roundup_values_must_be_powers_of_2() {
    for text in [
        "roundup_power2_divisions:3",
        "roundup_power2_divisions:0",
        "roundup_power2_divisions:6",
        "roundup_power2_divisions:abc",
        "roundup_power2_divisions:",
        "roundup_power2_divisions",
        // the intervals are powers of 2 (in MiB), the values powers of 2 or 0
        "roundup_power2_divisions:[300:2]",
        "roundup_power2_divisions:[0:2]",
        "roundup_power2_divisions:[256:3]",
        "roundup_power2_divisions:[>:5]",
        // the list's own syntax
        "roundup_power2_divisions:[256:2",
        "roundup_power2_divisions:[256:2,",
        "roundup_power2_divisions:[256]",
        "roundup_power2_divisions:[256:]",
        "roundup_power2_divisions:[256:2 512:4]",
        "roundup_power2_divisions:[256:2;512:4]",
        "roundup_power2_divisions:[abc:2]",
    ] {
        refused(text);
    }
}

#[test]
fn other_values_are_checked() {
    for text in [
        "backend:cuda",
        "backend:Native",
        "backend:",
        "pinned_num_register_threads:3",
        "pinned_num_register_threads:0",
        "pinned_num_register_threads:256",
        "pinned_reserve_segment_size_mb:0",
        "pinned_reserve_segment_size_mb:-1",
        "per_process_memory_fraction:1.5",
        "per_process_memory_fraction:-0.1",
        "per_process_memory_fraction:abc",
    ] {
        refused(text);
    }
}

#[test]
fn separators_are_checked() {
    for text in [
        ",",
        ",expandable_segments:True",
        "expandable_segments:True,,max_split_size_mb:64",
        "expandable_segments:True;max_split_size_mb:64",
        "expandable_segments:True max_split_size_mb:64",
        "expandable_segments:True:max_split_size_mb:64",
        "expandable_segments=True",
        "max_split_size_mb:128]",
        ":",
        "[",
    ] {
        refused(text);
    }
}

// ---- written back ----

#[test]
fn the_written_form_reads_back_equal() {
    for text in [
        "",
        "expandable_segments:True",
        "backend:cudaMallocAsync",
        "max_split_size_mb:128,roundup_power2_divisions:4",
        "max_non_split_rounding_mb:40",
        "max_non_split_rounding_mb:20",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
        "roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1]",
        "roundup_power2_divisions:[1:0,2:4]",
        "roundup_power2_divisions:[>:4]",
        "garbage_collection_threshold:0.6,max_split_size_mb:20",
        "garbage_collection_threshold:0.1234567890123",
        "garbage_collection_threshold:0.000001",
        "per_process_memory_fraction:0.75",
        "per_process_memory_fraction:0",
        "per_process_memory_fraction:1",
        "release_lock_on_cudamalloc:True,pinned_num_register_threads:4",
        "backend:cudaMallocAsync,expandable_segments:True,max_split_size_mb:300,\
         max_non_split_rounding_mb:100,roundup_power2_divisions:[2:2,>:16],\
         garbage_collection_threshold:0.95,per_process_memory_fraction:0.5",
    ] {
        let c = ok(text);
        let written = c.to_string();
        let again = AllocConf::parse(&written)
            .unwrap_or_else(|e| panic!("`{text}` written as `{written}` does not read back: {e}"));
        assert_eq!(again, c, "`{text}` written as `{written}`");
        assert_eq!(again.to_string(), written);
    }
}

#[test]
fn the_written_form_leaves_out_defaults() {
    assert_eq!(
        ok("expandable_segments:False,backend:native").to_string(),
        ""
    );
    assert_eq!(
        ok(" expandable_segments : True ").to_string(),
        "expandable_segments:True"
    );
    assert_eq!(
        ok("roundup_power2_divisions:[256:4,>:4]").to_string(),
        "roundup_power2_divisions:4"
    );
    assert_eq!(
        ok("max_split_size_mb:128,roundup_power2_divisions:4").to_string(),
        "max_split_size_mb:128,roundup_power2_divisions:4"
    );
}

// ---- made-up strings ----

/// Strings of torch's tokens and values, mostly near-valid: whatever reads must
/// be written back to an equal conf, and nothing panics (what the `alloc_conf`
/// fuzz target checks on arbitrary text).
#[cfg(not(target_arch = "wasm32"))]
mod soup {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        let words = [
            ",",
            ":",
            "[",
            "]",
            " ",
            ">",
            "True",
            "False",
            "true",
            "native",
            "cudaMallocAsync",
            "0",
            "1",
            "2",
            "3",
            "4",
            "8",
            "16",
            "19",
            "20",
            "64",
            "256",
            "1024",
            "65536",
            "0.5",
            "1.0",
            "1e-3",
            "-1",
            "nan",
            "abc",
            "\n",
            "\t",
        ];
        let keys: Vec<&str> = KEYS
            .iter()
            .copied()
            .chain(["release_lock_on_hipmalloc", "foo"])
            .collect();
        prop_oneof![
            3 => prop::sample::select(words.to_vec()).prop_map(String::from),
            1 => prop::sample::select(keys).prop_map(String::from),
            1 => "[ -~]{0,4}",
        ]
    }

    /// `key:value` settings joined by `,`, each value a word or a list.
    fn setting() -> impl Strategy<Value = String> {
        let value = prop_oneof![
            2 => piece(),
            1 => prop::collection::vec((piece(), piece()), 0..5).prop_map(|v| {
                let items: Vec<String> = v.into_iter().map(|(a, b)| format!("{a}:{b}")).collect();
                format!("[{}]", items.join(","))
            }),
        ];
        (prop::sample::select(KEYS.to_vec()), value).prop_map(|(k, v)| format!("{k}:{v}"))
    }

    fn check(text: &str) -> Result<(), TestCaseError> {
        if let Ok(c) = AllocConf::parse(text) {
            let written = c.to_string();
            let again = AllocConf::parse(&written);
            prop_assert!(
                again.is_ok(),
                "`{}` written as `{}` does not read back",
                text,
                written
            );
            prop_assert_eq!(again.unwrap(), c, "`{}` written as `{}`", text, written);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn token_soup(pieces in prop::collection::vec(piece(), 0..12)) {
            check(&pieces.concat())?;
        }

        #[test]
        fn settings(list in prop::collection::vec(setting(), 0..5), comma in any::<bool>()) {
            let mut text = list.join(",");
            if comma {
                text.push(',');
            }
            check(&text)?;
        }

        #[test]
        fn any_text(text in "\\PC{0,40}") {
            check(&text)?;
        }
    }
}
