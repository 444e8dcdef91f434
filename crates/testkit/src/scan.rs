//! The plain scans the fast placements and the colouring replaced, as references:
//! the three greedy strategies and the pools must come out exactly as the scans'
//! (`tests/fast_greedy.rs` on random instances, `crates/formats/tests/corpus.rs`
//! on the corpus).

use memplan::graph::Graph;
use memplan::liveness::Buffer;
use memplan::pack::reference;
use memplan::{check, Options, PackOptions, Strategy};

/// The strategies that place along one order.
pub const GREEDY: [Strategy; 3] = [Strategy::FirstFit, Strategy::GreedySize, Strategy::BestFit];

/// The default options with alignment `align`.
pub fn options(align: u64) -> Options {
    Options {
        pack: PackOptions::new(align).unwrap(),
        ..Options::default()
    }
}

/// Colouring as it was done by scanning: buffers by birth (ties by index); each
/// takes, among the pools whose members are all dead, the smallest at least its
/// size, else the largest, ties to the lowest pool; else opens a pool.
pub fn colour_by_scan(buffers: &[Buffer]) -> (Vec<u32>, Vec<u64>) {
    let mut visit: Vec<usize> = (0..buffers.len()).collect();
    visit.sort_by_key(|&i| (buffers[i].life.start, i));
    let mut pool_of = vec![0u32; buffers.len()];
    let mut sizes: Vec<u64> = Vec::new();
    let mut last_end: Vec<u32> = Vec::new(); // last step of each pool's current member
    for i in visit {
        let b = &buffers[i];
        let key = |p: usize| {
            if sizes[p] >= b.size {
                (0, sizes[p], p)
            } else {
                (1, u64::MAX - sizes[p], p)
            }
        };
        let free = (0..sizes.len()).filter(|&p| last_end[p] < b.life.start);
        let pool = match free.min_by_key(|&p| key(p)) {
            Some(p) => p,
            None => {
                sizes.push(0);
                last_end.push(0);
                sizes.len() - 1
            }
        };
        sizes[pool] = sizes[pool].max(b.size);
        last_end[pool] = b.life.end;
        pool_of[i] = pool as u32;
    }
    (pool_of, sizes)
}

/// The analysis's colouring of `buffers` picks the scan's pools.
pub fn assert_colouring_matches(buffers: &[Buffer], name: &str) {
    let c = memplan::interference::colour(buffers);
    let (pool_of, sizes) = colour_by_scan(buffers);
    assert!(
        c.pool_of == pool_of && c.pool_sizes == sizes,
        "{name}: pools differ from the scan's ({} pools of {} bytes, scan {} of {})",
        c.pools(),
        c.pooled_bytes(),
        sizes.len(),
        sizes.iter().sum::<u64>()
    );
}

/// The three greedy strategies on `g` equal the scan's offsets and pass the checker;
/// the colouring equals the scan's pools.
pub fn assert_strategies_match(g: &Graph, align: u64, name: &str) {
    let opts = options(align);
    let a = memplan::analyse(g, &opts).unwrap();
    assert_colouring_matches(&a.liveness.buffers, name);
    for strategy in GREEDY {
        let plan = a.plan(g, strategy);
        assert_eq!(
            check::check(g, &plan),
            vec![],
            "{name} {} align {align}",
            strategy.name()
        );
        let offsets: Vec<u64> = plan.tensors.iter().map(|t| t.offset).collect();
        let scan = reference::pack_scan(strategy, &a.liveness.buffers, opts.pack).unwrap();
        assert!(
            offsets == scan,
            "{name} {} align {align}: offsets differ from the scan's (peaks {} and {})",
            strategy.name(),
            memplan::pack::peak(&a.liveness.buffers, &offsets),
            memplan::pack::peak(&a.liveness.buffers, &scan),
        );
    }
}
