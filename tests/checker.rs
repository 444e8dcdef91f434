//! The checker fed broken plans: each must be reported exactly.

use memplan::check::{check, Violation};
use memplan::{Options, Plan, Strategy};

/// a -> t0 -> b -> t1 -> c, plus t2 made by a and read by c.
fn setup() -> (memplan::Graph, Plan) {
    let g = memplan_testkit::graph(
        &[("t0", 100), ("t1", 50), ("t2", 30)],
        &[("a", &[], &[0, 2]), ("b", &[0], &[1]), ("c", &[1, 2], &[])],
    );
    let plan = memplan::plan(&g, Strategy::GreedySize, &Options::default()).unwrap();
    assert_eq!(check(&g, &plan), vec![]);
    (g, plan)
}

fn named<'a>(plan: &'a mut Plan, name: &str) -> &'a mut memplan::plan::Placement {
    plan.tensors.iter_mut().find(|t| t.name == name).unwrap()
}

#[test]
fn overlap_names_both_tensors_the_step_and_the_bytes() {
    let (g, mut plan) = setup();
    // t0 [0,1] and t2 [0,2] are live together from step 0
    let t0 = named(&mut plan, "t0").offset;
    named(&mut plan, "t2").offset = t0 + 90;
    plan.peak_bytes = plan.peak_bytes.max(t0 + 120);
    let v = check(&g, &plan);
    // greedy-size put t0 at 0 and t1 (live with t2 at step 1) at 100
    assert_eq!((t0, named(&mut plan, "t1").offset), (0, 100));
    assert_eq!(
        v,
        vec![
            Violation::Overlap {
                a: "t0".into(),
                b: "t2".into(),
                step: 0,
                from: 90,
                to: 100
            },
            Violation::Overlap {
                a: "t2".into(),
                b: "t1".into(),
                step: 1,
                from: 100,
                to: 120
            },
        ]
    );
    assert_eq!(
        v[0].to_string(),
        format!(
            "tensors `t0` and `t2` are both live at step 0 and share bytes {}..{}",
            t0 + 90,
            t0 + 100
        )
    );
}

#[test]
fn out_of_bounds_and_misaligned() {
    let (g, mut plan) = setup();
    plan.peak_bytes -= 1;
    let v = check(&g, &plan);
    assert!(!v.is_empty());
    assert!(
        v.iter().all(|x| matches!(x, Violation::OutOfBounds { .. })),
        "{v:?}"
    );
    let (g, mut plan) = setup();
    plan.align = 64;
    let misaligned: Vec<String> = plan
        .tensors
        .iter()
        .filter(|t| t.offset % 64 != 0)
        .map(|t| t.name.clone())
        .collect();
    assert!(!misaligned.is_empty());
    let v = check(&g, &plan);
    let names: Vec<String> = v
        .iter()
        .map(|x| match x {
            Violation::Misaligned { tensor, .. } => tensor.clone(),
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(names, misaligned);
}

#[test]
fn missing_duplicate_and_resized_placements() {
    let (g, mut plan) = setup();
    let t1 = plan.tensors.remove(1);
    assert_eq!(
        check(&g, &plan),
        vec![Violation::Unplaced {
            tensor: "t1".into()
        }]
    );
    plan.tensors.push(t1.clone());
    plan.tensors.push(t1);
    let v = check(&g, &plan);
    assert!(
        v.contains(&Violation::PlacedTwice {
            tensor: "t1".into()
        }),
        "{v:?}"
    );
    let (g, mut plan) = setup();
    named(&mut plan, "t1").size = 10;
    assert_eq!(
        check(&g, &plan),
        vec![Violation::WrongSize {
            tensor: "t1".into(),
            planned: 10,
            actual: 50
        }]
    );
}

#[test]
fn a_shortened_lifetime_is_caught_and_the_true_one_used_for_overlaps() {
    let (g, mut plan) = setup();
    // claim t2 dies at step 0, then put t1 (born at 1) on top of it
    named(&mut plan, "t2").end = 0;
    let t2 = named(&mut plan, "t2").offset;
    named(&mut plan, "t1").offset = t2;
    plan.peak_bytes = plan
        .tensors
        .iter()
        .map(|t| t.offset + t.size)
        .max()
        .unwrap();
    let v = check(&g, &plan);
    assert!(
        v.contains(&Violation::WrongLifetime {
            tensor: "t2".into(),
            planned: (0, 0),
            actual: (0, 2)
        }),
        "{v:?}"
    );
    assert!(
        v.iter()
            .any(|x| matches!(x, Violation::Overlap { step: 1, .. })),
        "{v:?}"
    );
}

#[test]
fn orders_that_are_not_topological() {
    let (g, mut plan) = setup();
    plan.order.swap(0, 1); // b before a
    let v = check(&g, &plan);
    assert!(
        v.contains(&Violation::UseBeforeProduce {
            tensor: "t0".into(),
            op: "b".into(),
            used: 0,
            produced: 1
        }),
        "{v:?}"
    );
    let (g, mut plan) = setup();
    plan.order[2] = 0;
    let v = check(&g, &plan);
    assert!(
        v.contains(&Violation::OpTwice {
            op: "a".into(),
            first: 0,
            again: 2
        }),
        "{v:?}"
    );
    assert!(
        v.contains(&Violation::OpMissing { op: "c".into() }),
        "{v:?}"
    );
    let (g, mut plan) = setup();
    plan.order.push(7);
    assert_eq!(
        check(&g, &plan),
        vec![Violation::UnknownOp { op: 7, step: 3 }]
    );
}

#[test]
fn every_violation_is_reported_not_just_the_first() {
    let (g, mut plan) = setup();
    for t in &mut plan.tensors {
        t.offset = 0;
    }
    plan.peak_bytes = 100;
    let overlaps = check(&g, &plan)
        .into_iter()
        .filter(|v| matches!(v, Violation::Overlap { .. }))
        .count();
    // t0-t2 at step 0, t1-t2 at step 1, and t0-t1 at step 1
    assert_eq!(overlaps, 3);
}

mod overlaps {
    //! On large plans the checker first decides whether any two tensors share a
    //! byte by a sweep over offsets; here plans with shuffled offsets are checked
    //! against every pair compared directly, so every overlap must be named.

    use memplan::check::{check, Violation};
    use memplan::graph::Graph;
    use memplan::{Options, Strategy};
    use proptest::prelude::*;

    /// Tensors with given (start, length, size) (no ops), some empty.
    fn graph_of(lives: &[(u32, u32, u64)]) -> Graph {
        let spec = lives
            .iter()
            .map(|&(start, len, size)| (start, start + len, size));
        memplan_testkit::intervals("random", spec)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn every_shared_byte_is_found(
            lives in prop::collection::vec((0u32..30, 0u32..12, prop_oneof![1 => Just(0u64), 6 => 1u64..40]), 0..50),
            moves in prop::collection::vec((any::<prop::sample::Index>(), 0u64..200), 0..4),
        ) {
            let g = graph_of(&lives);
            let mut plan = memplan::plan(&g, Strategy::GreedySize, &Options::default()).unwrap();
            prop_assert_eq!(check(&g, &plan), vec![]);
            if !plan.tensors.is_empty() {
                for (which, offset) in moves {
                    which.get_mut(&mut plan.tensors).offset = offset;
                }
            }
            plan.peak_bytes = u64::MAX;
            let t = &plan.tensors;
            let mut pairs = 0;
            for (i, a) in t.iter().enumerate() {
                for b in &t[i + 1..] {
                    let together = a.start.max(b.start) <= a.end.min(b.end);
                    let share = a.offset.max(b.offset) < (a.offset + a.size).min(b.offset + b.size);
                    pairs += usize::from(together && share);
                }
            }
            let found = check(&g, &plan)
                .iter()
                .filter(|v| matches!(v, Violation::Overlap { .. }))
                .count();
            prop_assert_eq!(found, pairs);
        }
    }
}
