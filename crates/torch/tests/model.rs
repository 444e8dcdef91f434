//! The allocator model driven straight, without a snapshot: a few requests whose
//! segments and reuse are known from torch's rules, and made-up sequences of
//! requests, frees and `empty_cache` under several settings, with or without a
//! cap, checked after every step.

use memplan_torch::conf::{AllocConf, LARGE_BUFFER};
use memplan_torch::model::{allocation_size, Allocator, DriverCall, SMALL_BUFFER};

const MIB: u64 = 1 << 20;

fn conf(text: &str) -> AllocConf {
    AllocConf::parse(text).unwrap()
}

/// The change in reserved bytes of each driver call.
fn deltas(calls: &[DriverCall]) -> Vec<i128> {
    calls.iter().map(DriverCall::delta).collect()
}

const M: i128 = MIB as i128;

// ---- known behaviour ----

#[test]
fn a_1_mib_request_makes_a_2_mib_segment() {
    let mut a = Allocator::new(AllocConf::default(), None);
    let x = a.malloc(MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 2 * MIB);
    assert_eq!(a.allocated, MIB);
    assert_eq!(a.block(x).1, MIB);
    let calls = a.take_calls();
    assert!(matches!(calls[..], [DriverCall::Alloc { size, .. }] if size == SMALL_BUFFER));
    // a second one takes the rest of the segment
    let y = a.malloc(MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 2 * MIB);
    assert_eq!(a.block(y).0, a.block(x).0 + MIB);
    assert!(a.take_calls().is_empty());
    a.check().unwrap();
}

#[test]
fn a_5_mib_request_makes_a_20_mib_segment_a_second_reuses_it() {
    let mut a = Allocator::new(AllocConf::default(), None);
    let x = a.malloc(5 * MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 20 * MIB);
    assert_eq!(deltas(&a.take_calls()), [20 * M]);
    let y = a.malloc(5 * MIB, 0, None).unwrap();
    assert_eq!(
        a.reserved,
        20 * MIB,
        "the second 5 MiB is split from the first segment"
    );
    assert!(a.take_calls().is_empty());
    assert_eq!(a.block(y).0, a.block(x).0 + 5 * MIB);
    assert_eq!(a.allocated, 10 * MIB);
    a.check().unwrap();
    // the same request on another stream gets its own segment
    a.malloc(5 * MIB, 1, None).unwrap();
    assert_eq!(a.reserved, 40 * MIB);
    a.check().unwrap();
}

#[test]
fn a_30_mib_request_makes_a_30_mib_segment() {
    let mut a = Allocator::new(AllocConf::default(), None);
    a.malloc(30 * MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 30 * MIB);
    // rounded up to 2 MiB
    a.malloc(31 * MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 30 * MIB + 32 * MIB);
    a.malloc(30 * MIB + 1, 0, None).unwrap();
    assert_eq!(a.reserved, 30 * MIB + 32 * MIB + 32 * MIB);
    assert_eq!(deltas(&a.take_calls()), [30 * M, 32 * M, 32 * M]);
    a.check().unwrap();
}

#[test]
fn segment_sizes() {
    assert_eq!(allocation_size(512), 2 * MIB);
    assert_eq!(allocation_size(MIB), 2 * MIB);
    assert_eq!(allocation_size(MIB + 512), 20 * MIB);
    assert_eq!(allocation_size(10 * MIB - 512), 20 * MIB);
    assert_eq!(allocation_size(10 * MIB), 10 * MIB);
    assert_eq!(allocation_size(11 * MIB), 12 * MIB);
}

/// Under `max_split_size_mb:64`: a 100 MiB block freed, then a request of `size`;
/// returns whether the request took the freed block.
fn reuses_the_100_mib_block(size: u64) -> bool {
    let mut a = Allocator::new(conf("max_split_size_mb:64"), None);
    let x = a.malloc(100 * MIB, 0, None).unwrap();
    let at = a.block(x).0;
    a.free(x);
    a.check().unwrap();
    let reserved = a.reserved;
    let y = a.malloc(size, 0, None).unwrap();
    a.check().unwrap();
    let took = a.block(y).0 == at;
    assert_eq!(took, a.reserved == reserved, "{size}");
    if took {
        // an oversize block is never split
        assert_eq!(a.block(y).1, 100 * MIB);
        assert_eq!(a.allocated, 100 * MIB);
    }
    took
}

#[test]
fn max_split_size_keeps_oversize_blocks_for_large_requests() {
    // a request under max_split_size never takes a block of max_split_size or more
    assert!(!reuses_the_100_mib_block(10 * MIB));
    assert!(!reuses_the_100_mib_block(63 * MIB));
    // a request of max_split_size or more takes it when it wastes under 20 MiB
    // (max_non_split_rounding_mb)
    assert!(reuses_the_100_mib_block(90 * MIB));
    assert!(reuses_the_100_mib_block(81 * MIB));
    assert!(reuses_the_100_mib_block(100 * MIB));
    // 100 >= 70 + 20: too much waste
    assert!(!reuses_the_100_mib_block(70 * MIB));
    assert!(!reuses_the_100_mib_block(80 * MIB));
}

#[test]
fn expandable_segments_map_only_what_is_missing() {
    let mut a = Allocator::new(conf("expandable_segments:True"), None);
    let x = a.malloc(30 * MIB, 0, None).unwrap();
    // two 20 MiB pages; the 10 MiB after the block stays free in them
    assert_eq!(a.reserved, 40 * MIB);
    assert_eq!(a.block(x).1, 30 * MIB);
    assert!(matches!(a.take_calls()[..], [DriverCall::Map { size, .. }] if size == 40 * MIB));
    a.check().unwrap();
    let y = a.malloc(30 * MIB, 0, None).unwrap();
    // the free 10 MiB, and one more page
    assert_eq!(a.reserved, 60 * MIB);
    assert!(matches!(a.take_calls()[..], [DriverCall::Map { size, .. }] if size == LARGE_BUFFER));
    assert_eq!(
        a.block(y).0,
        a.block(x).0 + 30 * MIB,
        "the segment grows in place"
    );
    assert_eq!(a.allocated, 60 * MIB);
    a.check().unwrap();
    // everything freed and the cache emptied: every page unmapped
    a.free(x);
    a.free(y);
    a.empty_cache();
    a.check().unwrap();
    assert_eq!(a.reserved, 0);
    let calls = a.take_calls();
    assert_eq!(deltas(&calls), [-60 * M]);
    assert!(calls.iter().all(|c| matches!(c, DriverCall::Unmap { .. })));
}

#[test]
fn expandable_small_pages_are_2_mib() {
    let mut a = Allocator::new(conf("expandable_segments:True"), None);
    a.malloc(512 * 1024, 0, None).unwrap();
    assert_eq!(a.reserved, 2 * MIB);
    a.malloc(MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 2 * MIB);
    a.malloc(MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 4 * MIB);
    a.check().unwrap();
}

#[test]
fn empty_cache_frees_unsplit_segments_only() {
    let mut a = Allocator::new(AllocConf::default(), None);
    let x = a.malloc(4 * MIB, 0, None).unwrap();
    let y = a.malloc(4 * MIB, 0, None).unwrap();
    let z = a.malloc(50 * MIB, 0, None).unwrap();
    a.take_calls();
    a.free(x);
    a.free(z);
    a.empty_cache();
    // the 20 MiB segment still holds y
    assert_eq!(a.reserved, 20 * MIB);
    assert_eq!(deltas(&a.take_calls()), [-50 * M]);
    a.free(y);
    a.empty_cache();
    assert_eq!(a.reserved, 0);
    a.check().unwrap();
}

#[test]
fn a_cap_frees_the_cache_before_failing() {
    let mut a = Allocator::new(AllocConf::default(), Some(100 * MIB));
    let x = a.malloc(60 * MIB, 0, None).unwrap();
    a.free(x);
    // on another stream the cached block does not serve: 60 cached + 50 new > 100,
    // so the cached segment goes and the request succeeds
    let y = a.malloc(50 * MIB, 1, None).unwrap();
    assert_eq!(a.reserved, 50 * MIB);
    assert_eq!(deltas(&a.take_calls()), [60 * M, -60 * M, 50 * M]);
    // 50 live + 60 > 100: out of memory
    assert!(a.malloc(60 * MIB, 0, None).is_none());
    assert_eq!(a.reserved, 50 * MIB);
    a.free(y);
    a.check().unwrap();
}

#[test]
fn garbage_collection_frees_old_cached_segments_under_a_cap() {
    let mut a = Allocator::new(conf("garbage_collection_threshold:0.5"), Some(200 * MIB));
    let x = a.malloc(60 * MIB, 0, None).unwrap();
    let y = a.malloc(60 * MIB, 0, None).unwrap();
    a.free(x);
    a.free(y);
    a.take_calls();
    // no cached block fits 70 MiB, and 120 reserved > 0.5 * 200: a new segment
    // first frees the cached ones of average age or older
    let z = a.malloc(70 * MIB, 0, None).unwrap();
    assert_eq!(a.reserved, 70 * MIB);
    let calls = a.take_calls();
    assert!(calls.iter().any(|c| !c.reserves()), "{calls:?}");
    assert!(a.reserved <= 100 * MIB, "{}", a.reserved);
    a.free(z);
    a.check().unwrap();
}

// ---- made-up sequences ----

#[cfg(not(target_arch = "wasm32"))]
mod sequences {
    use super::*;
    use proptest::prelude::*;
    use proptest::sample::Index;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Step {
        Malloc { size: u64, stream: i64 },
        Free(Index),
        EmptyCache,
    }

    fn size() -> impl Strategy<Value = u64> {
        prop_oneof![
            4 => 1..=MIB,
            4 => MIB + 1..=10 * MIB,
            3 => 10 * MIB + 1..=200 * MIB,
            // the edges of the pools and of the segment sizes
            1 => prop::sample::select(vec![
                1, 512, 513, MIB, MIB + 1, 2 * MIB, 10 * MIB - 1, 10 * MIB, 20 * MIB,
                20 * MIB + 1, 64 * MIB, 84 * MIB, 100 * MIB,
            ]),
        ]
    }

    fn step(streams: i64) -> impl Strategy<Value = Step> {
        prop_oneof![
            10 => (size(), 0..streams).prop_map(|(size, stream)| Step::Malloc { size, stream }),
            8 => any::<Index>().prop_map(Step::Free),
            1 => Just(Step::EmptyCache),
        ]
    }

    fn steps() -> impl Strategy<Value = (i64, Vec<Step>)> {
        (1i64..=2)
            .prop_flat_map(|streams| (Just(streams), prop::collection::vec(step(streams), 1..80)))
    }

    fn cap() -> impl Strategy<Value = Option<u64>> {
        prop_oneof![
            2 => Just(None),
            1 => Just(Some(256 * MIB)),
            1 => Just(Some(1024 * MIB)),
            1 => (64u64..=2048).prop_map(|m| Some(m * MIB)),
        ]
    }

    /// What the driver was asked, by stream: every segment a `cudaMalloc` made and
    /// every range mapped while serving a request of that stream (addresses are
    /// never given to another stream).
    #[derive(Default)]
    struct Driver {
        /// Reserved bytes by the calls' count.
        reserved: i128,
        /// (stream, start) -> end of each segment
        segments: BTreeMap<(i64, u64), u64>,
        /// (stream, start) -> end of the ranges ever mapped, merged
        mapped: BTreeMap<(i64, u64), u64>,
    }

    impl Driver {
        /// Takes the calls made since the last step; returns whether any released.
        fn take(&mut self, a: &mut Allocator, stream: Option<i64>) -> Result<bool, TestCaseError> {
            let mut released = false;
            for c in a.take_calls() {
                self.reserved += c.delta();
                match (c, stream) {
                    (DriverCall::Alloc { addr, size }, Some(s)) => {
                        self.segments.insert((s, addr), addr + size);
                    }
                    (DriverCall::Map { addr, size }, Some(s)) => {
                        let (mut lo, mut hi) = (addr, addr + size);
                        let touching: Vec<(u64, u64)> = (self.mapped.range((s, 0)..=(s, hi)))
                            .filter(|(_, &e)| e >= lo)
                            .map(|(&(_, b), &e)| (b, e))
                            .collect();
                        for (b, e) in touching {
                            self.mapped.remove(&(s, b));
                            lo = lo.min(b);
                            hi = hi.max(e);
                        }
                        self.mapped.insert((s, lo), hi);
                    }
                    (DriverCall::Free { .. } | DriverCall::Unmap { .. }, _) => released = true,
                    (c, None) => {
                        return Err(TestCaseError::fail(format!("{c:?} outside a malloc")));
                    }
                }
            }
            Ok(released)
        }

        /// The size of the segment of `stream` that holds `[addr, addr + size)`
        /// (0: a range mapped for `stream` holds it); `None` when none does.
        fn holding(&self, stream: i64, addr: u64, size: u64) -> Option<u64> {
            for (map, whole) in [(&self.segments, true), (&self.mapped, false)] {
                if let Some((&(s, lo), &hi)) = map.range(..=(stream, addr)).next_back() {
                    if s == stream && addr + size <= hi {
                        return Some(if whole { hi - lo } else { 0 });
                    }
                }
            }
            None
        }
    }

    /// Checks after one step: the model's own invariants, the reserved bytes
    /// against the driver calls, the cap, and the live blocks where they were.
    fn after(
        a: &Allocator,
        cap: Option<u64>,
        driver: &Driver,
        live: &BTreeMap<u32, Live>,
        what: &str,
    ) -> Result<(), TestCaseError> {
        if let Err(e) = a.check() {
            return Err(TestCaseError::fail(format!("after {what}: {e}")));
        }
        prop_assert!(
            a.reserved >= a.allocated,
            "after {what}: {} < {}",
            a.reserved,
            a.allocated
        );
        prop_assert_eq!(
            driver.reserved,
            a.reserved as i128,
            "after {}: driver calls",
            what
        );
        if let Some(cap) = cap {
            // torch checks the cap against the segment size of the request; an
            // expandable segment then maps whole pages, up to one 20 MiB page more
            let slack = if a.conf().expandable_segments {
                LARGE_BUFFER
            } else {
                0
            };
            prop_assert!(
                a.reserved <= cap + slack,
                "after {what}: reserved {} over the cap {cap}",
                a.reserved
            );
        }
        let mut held = 0;
        for (&id, l) in live {
            prop_assert_eq!(
                a.block(id),
                (l.addr, l.size),
                "after {}: block {} moved",
                what,
                id
            );
            held += l.size;
        }
        prop_assert_eq!(held, a.allocated, "after {}: allocated", what);
        Ok(())
    }

    /// A block handed out: where, how large, for what request.
    struct Live {
        addr: u64,
        size: u64,
    }

    /// Checks a block just handed out for `request` bytes on `stream`.
    fn handed_out(
        a: &Allocator,
        driver: &Driver,
        request: u64,
        stream: i64,
        (addr, got): (u64, u64),
        what: &str,
    ) -> Result<(), TestCaseError> {
        let c = a.conf();
        let rounded = a.round_size(request);
        let small = rounded <= MIB;
        prop_assert!(got >= rounded, "{what}: {got} bytes");
        // a block lies in memory reserved for its own stream, in a segment of its
        // pool (small requests in 2 MiB segments, never a large one in those)
        let Some(seg) = driver.holding(stream, addr, got) else {
            return Err(TestCaseError::fail(format!(
                "{what}: [{addr}, +{got}) is not in memory of stream {stream}"
            )));
        };
        if !c.expandable_segments {
            prop_assert_eq!(
                seg == SMALL_BUFFER,
                small,
                "{}: in a segment of {}",
                what,
                seg
            );
        }
        // what is left over is split off, except what torch keeps with the block
        let max_split = c.max_split_size.unwrap_or(u64::MAX);
        let kept = if small || c.expandable_segments {
            0
        } else if rounded < max_split {
            MIB
        } else {
            // an oversize cached block, or a new segment rounded to 2 MiB
            (c.max_non_split_rounding - 1).max(2 * MIB - 1)
        };
        prop_assert!(got - rounded <= kept, "{what}: {got} bytes for {rounded}");
        Ok(())
    }

    fn run(text: &str, cap: Option<u64>, steps: &[Step]) -> Result<(), TestCaseError> {
        let mut a = Allocator::new(conf(text), cap);
        let mut live: BTreeMap<u32, Live> = BTreeMap::new();
        let mut driver = Driver::default();
        for (n, s) in steps.iter().enumerate() {
            let what = format!("step {n} {s:?}");
            match *s {
                Step::Malloc { size, stream } => {
                    let reserved = a.reserved;
                    let would_release = a.would_release(size, stream, None);
                    let got = a.malloc(size, stream, None);
                    let released = driver.take(&mut a, Some(stream))?;
                    prop_assert!(
                        would_release || !released,
                        "{what}: released cached memory, would_release said no"
                    );
                    match got {
                        Some(id) => {
                            prop_assert!(!live.contains_key(&id), "{what}: id {id} is live");
                            let (addr, got) = a.block(id);
                            handed_out(&a, &driver, size, stream, (addr, got), &what)?;
                            live.insert(id, Live { addr, size: got });
                        }
                        None => {
                            let Some(cap) = cap else {
                                return Err(TestCaseError::fail(format!(
                                    "{what}: out of memory without a cap"
                                )));
                            };
                            prop_assert!(
                                would_release,
                                "{what}: out of memory, would_release said no"
                            );
                            // every unsplit cached segment was freed, and still a new
                            // segment would pass the cap
                            let seg = allocation_size(a.round_size(size));
                            prop_assert!(
                                a.reserved + seg > cap,
                                "{what}: refused with {} reserved of {cap} (was {reserved})",
                                a.reserved
                            );
                        }
                    }
                }
                Step::Free(ix) => {
                    if !live.is_empty() {
                        let id = *live.keys().nth(ix.index(live.len())).unwrap();
                        live.remove(&id);
                        a.free(id);
                    }
                    driver.take(&mut a, None)?;
                }
                Step::EmptyCache => {
                    a.empty_cache();
                    driver.take(&mut a, None)?;
                }
            }
            after(&a, cap, &driver, &live, &what)?;
        }
        // everything freed, the cache emptied: nothing reserved
        while let Some((id, _)) = live.pop_first() {
            a.free(id);
            driver.take(&mut a, None)?;
            after(&a, cap, &driver, &live, "the frees at the end")?;
        }
        a.empty_cache();
        driver.take(&mut a, None)?;
        after(&a, cap, &driver, &live, "the last empty_cache")?;
        prop_assert_eq!(a.allocated, 0);
        prop_assert_eq!(a.reserved, 0, "reserved after everything is freed");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn default_settings((_streams, steps) in steps(), cap in cap()) {
            run("", cap, &steps)?;
        }

        #[test]
        fn expandable_segments((_streams, steps) in steps(), cap in cap()) {
            run("expandable_segments:True", cap, &steps)?;
        }

        #[test]
        fn max_split_size((_streams, steps) in steps(), cap in cap()) {
            run("max_split_size_mb:64", cap, &steps)?;
        }

        #[test]
        fn max_split_size_and_rounding((_streams, steps) in steps(), cap in cap()) {
            run("max_split_size_mb:20,max_non_split_rounding_mb:64", cap, &steps)?;
        }

        #[test]
        fn roundup_divisions((_streams, steps) in steps(), cap in cap()) {
            run("roundup_power2_divisions:4", cap, &steps)?;
        }

        #[test]
        fn roundup_list((_streams, steps) in steps(), cap in cap()) {
            run("roundup_power2_divisions:[1:2,4:8,64:16,>:0]", cap, &steps)?;
        }

        #[test]
        fn garbage_collection((_streams, steps) in steps(), cap in 64u64..=1024) {
            run("garbage_collection_threshold:0.5", Some(cap * MIB), &steps)?;
        }

        #[test]
        fn garbage_collection_and_max_split((_streams, steps) in steps(), cap in 64u64..=1024) {
            run("garbage_collection_threshold:0.5,max_split_size_mb:64", Some(cap * MIB), &steps)?;
        }

        #[test]
        fn garbage_collection_without_a_cap((_streams, steps) in steps()) {
            run("garbage_collection_threshold:0.5", None, &steps)?;
        }

        #[test]
        fn expandable_with_max_split_size((_streams, steps) in steps(), cap in cap()) {
            run("expandable_segments:True,max_split_size_mb:64", cap, &steps)?;
        }
    }
}
