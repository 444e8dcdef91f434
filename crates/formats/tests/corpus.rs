//! Every corpus graph and MiniMalloc instance plans under every strategy, passes
//! the checker, and matches the reference statistics.

use memplan::{check, Options, PackOptions, Strategy};
use memplan_formats as formats;

#[test]
fn reference_graphs_match_their_stats_and_every_plan_checks() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    let files = memplan_testkit::files(&dir, "json");
    assert!(
        files.len() >= 19,
        "expected the 19 reference graphs, found {}",
        files.len()
    );
    for file in files {
        let data = std::fs::read(&file).unwrap();
        let stats: serde_json::Value =
            serde_json::from_slice::<serde_json::Value>(&data).unwrap()["stats"].clone();
        let g = formats::read(&data, None, "g").unwrap();
        let a = memplan::analyse(&g, &Options::default()).unwrap();
        let name = file.display();
        assert_eq!(
            a.liveness.lower_bound,
            stats["lower_bound"].as_u64().unwrap(),
            "{name}: lower bound"
        );
        assert_eq!(
            a.liveness.buffers.len() as u64,
            stats["n_intermediate"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            a.naive_bytes,
            stats["sum_intermediate_bytes"].as_u64().unwrap(),
            "{name}"
        );
        // the stored order is already topological: Kahn with the index tie-break keeps it
        assert!(
            a.order.iter().enumerate().all(|(i, op)| op.index() == i),
            "{name}: order changed"
        );
        for strategy in Strategy::ALL {
            let plan = a.plan(&g, strategy);
            assert_eq!(
                check::check(&g, &plan),
                vec![],
                "{name} {}",
                strategy.name()
            );
            assert!(plan.peak_bytes >= plan.lower_bound);
        }
    }
}

#[test]
fn minimalloc_instances_plan_and_check() {
    let Some(dir) = memplan_testkit::corpus_dir("minimalloc") else {
        return;
    };
    let files = memplan_testkit::files(&dir, "csv");
    assert_eq!(files.len(), 11, "expected the eleven challenging instances");
    for file in files {
        let g = formats::read(&std::fs::read(&file).unwrap(), None, "m").unwrap();
        assert!(g.ops.is_empty());
        for align in [1, 64] {
            let opts = Options {
                pack: PackOptions::new(align).unwrap(),
                ..Options::default()
            };
            let a = memplan::analyse(&g, &opts).unwrap();
            assert!(
                a.liveness.lower_bound <= 1 << 20,
                "{}: the exact solver fits 1 MiB",
                file.display()
            );
            for strategy in Strategy::ALL {
                let plan = a.plan(&g, strategy);
                assert_eq!(
                    check::check(&g, &plan),
                    vec![],
                    "{} {} align {align}",
                    file.display(),
                    strategy.name()
                );
                assert!(plan.peak_bytes >= plan.lower_bound);
            }
        }
    }
}

#[test]
fn dfs_order_plans_every_reference_graph() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    for file in memplan_testkit::files(&dir, "json") {
        let g = formats::read(&std::fs::read(&file).unwrap(), None, "g").unwrap();
        let opts = Options {
            order: memplan::order::OrderKind::Dfs,
            ..Options::default()
        };
        let plan = memplan::plan(&g, Strategy::BestFit, &opts).unwrap();
        assert_eq!(check::check(&g, &plan), vec![], "{}", file.display());
    }
}

/// The fast placements and the colouring equal the plain scans they replaced
/// (`memplan_testkit::scan`) on every MiniMalloc and large instance, each plan
/// checked; the large files take seconds in a release build.
#[test]
fn minimalloc_instances_place_as_the_scan() {
    let Some(files) = memplan_testkit::corpus_files("minimalloc", "csv", 11) else {
        return;
    };
    for file in files {
        let g = memplan_testkit::read_graph(&file);
        for align in [1, 64, 4096] {
            memplan_testkit::scan::assert_strategies_match(&g, align, &file.display().to_string());
        }
    }
}

#[test]
fn large_instances_place_as_the_scan() {
    let Some(files) = memplan_testkit::corpus_files("large", "csv", 5) else {
        return;
    };
    for file in files {
        let g = memplan_testkit::read_graph(&file);
        memplan_testkit::scan::assert_strategies_match(&g, 1, &file.display().to_string());
    }
}
