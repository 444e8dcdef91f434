//! The seed example: a Transformer layer whose article claims 3 pools and 320 MiB.
//! At step 4, T4, T5 and T6 are all live (384 MiB), so the bound is 384 MiB.

use memplan::{check, liveness, Options, Strategy};
use memplan_formats as formats;
use memplan_testkit::MIB;

fn example() -> memplan::Graph {
    let path = memplan_testkit::root().join("examples/transformer_layer.json");
    formats::read(&std::fs::read(path).unwrap(), None, "transformer_layer").unwrap()
}

#[test]
fn intervals_and_live_bytes() {
    let g = example();
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    let lives: Vec<(String, u32, u32)> = a
        .liveness
        .buffers
        .iter()
        .map(|b| (g.tensor(b.tensor).name.clone(), b.life.start, b.life.end))
        .collect();
    let expect = [
        ("T0_QKV_Proj", 0, 1),
        ("T1_Q", 1, 2),
        ("T2_K", 1, 2),
        ("T3_Score", 2, 3),
        ("T4_AttnOut", 3, 4),
        ("T5_FFN_Gate", 4, 5),
        ("T6_FFN_Up", 4, 5),
        ("T7_FinalNorm", 5, 5),
    ];
    let expect: Vec<(String, u32, u32)> = expect
        .iter()
        .map(|&(n, s, e)| (n.to_string(), s, e))
        .collect();
    assert_eq!(lives, expect);
    let live = liveness::live_bytes(&a.liveness.buffers, a.liveness.steps);
    assert_eq!(
        live,
        vec![
            128 * MIB,
            256 * MIB,
            256 * MIB,
            256 * MIB,
            384 * MIB,
            384 * MIB
        ]
    );
    assert_eq!(a.liveness.lower_bound, 384 * MIB);
    assert_eq!(a.naive_bytes, 896 * MIB);
}

#[test]
fn the_articles_320_mib_is_below_the_bound() {
    let g = example();
    for strategy in Strategy::ALL {
        let plan = memplan::plan(&g, strategy, &Options::default()).unwrap();
        assert_eq!(check::check(&g, &plan), vec![], "{}", strategy.name());
        assert!(
            plan.peak_bytes >= 384 * MIB,
            "{} beat the bound",
            strategy.name()
        );
        assert!(plan.peak_bytes > 320 * MIB);
    }
}

#[test]
fn greedy_size_and_best_fit_reach_the_bound() {
    let g = example();
    for strategy in [Strategy::GreedySize, Strategy::BestFit] {
        let plan = memplan::plan(&g, strategy, &Options::default()).unwrap();
        assert_eq!(plan.peak_bytes, 384 * MIB, "{}", strategy.name());
    }
}

#[test]
fn pools_and_naive() {
    let g = example();
    let pools = memplan::plan(&g, Strategy::Pools, &Options::default()).unwrap();
    assert_eq!(pools.pools, 3);
    assert_eq!(pools.pooled_bytes, 384 * MIB);
    assert_eq!(pools.peak_bytes, 384 * MIB);
    let naive = memplan::plan(&g, Strategy::Naive, &Options::default()).unwrap();
    assert_eq!(naive.peak_bytes, 896 * MIB);
}

#[test]
fn first_fit_takes_the_lowest_free_bytes() {
    // T3 reuses T0's bytes, T4 those of T1 and T2, and T7 the gap between T5 and T6.
    let g = example();
    let plan = memplan::plan(&g, Strategy::FirstFit, &Options::default()).unwrap();
    assert_eq!(check::check(&g, &plan), vec![]);
    let offsets: Vec<u64> = plan.tensors.iter().map(|t| t.offset / MIB).collect();
    assert_eq!(offsets, vec![0, 128, 192, 0, 128, 0, 256, 128]);
    assert_eq!(plan.peak_bytes, 384 * MIB);
}
