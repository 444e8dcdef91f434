//! The teaching walk-throughs against the core: the colouring walk names the pool the
//! core's colouring chose at every move, the packing walk the offset the strategy chose,
//! and their reasons imply those same choices, on the seed example, every corpus graph
//! and random instances (with ties, empty tensors and alignment).

use memplan::graph::TensorId;
use memplan::interference::{self, colour};
use memplan::liveness::{Buffer, Lifetime};
use memplan::teach::{self, packing, Moment, PoolRule, Stage};
use memplan::{Options, PackOptions, Strategy};
use memplan_formats as formats;
use memplan_testkit::{Rng, MIB};

fn seed() -> (memplan::Graph, memplan::Analysis) {
    let path = memplan_testkit::root().join("examples/transformer_layer.json");
    let g = formats::read(&std::fs::read(path).unwrap(), None, "transformer_layer").unwrap();
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    (g, a)
}

/// Checks both walks of `buffers` against the core; `what` names the instance.
fn walks_agree(buffers: &[Buffer], align: u64, what: &str) {
    let colouring = colour(buffers);
    let moves = teach::colouring::trace(buffers, &colouring);
    assert_eq!(
        moves.len(),
        buffers.len(),
        "{what}: one colouring move per buffer"
    );
    for (m, &i) in moves.iter().zip(&colouring.visit) {
        let b = &buffers[i as usize];
        assert_eq!(m.tensor, b.tensor.0, "{what}");
        assert_eq!(m.pool, colouring.pool_of[i as usize], "{what}");
        assert_eq!(
            m.rule_pool, m.pool,
            "{what}: the reasons for tensor {} name pool {}, the colouring chose {}",
            m.tensor, m.rule_pool, m.pool
        );
        // a busy pool's member really overlaps; a free pool's members all ended before
        for p in &m.pools {
            let overlapping = buffers.iter().zip(&colouring.pool_of).any(|(o, &q)| {
                q == p.pool
                    && moves
                        .iter()
                        .take_while(|x| x.tensor != m.tensor)
                        .any(|x| x.tensor == o.tensor.0)
                    && !o.life.is_disjoint(&b.life)
            });
            assert_eq!(
                p.busy_with.is_some(),
                overlapping,
                "{what}: pool {} busy",
                p.pool
            );
        }
    }
    let last = moves.last();
    assert_eq!(
        last.map_or(0, |m| m.pools_after as usize),
        colouring.pools(),
        "{what}"
    );
    assert_eq!(
        last.map_or(0, |m| m.pooled_after),
        colouring.pooled_bytes(),
        "{what}"
    );

    let opts = PackOptions::new(align).unwrap();
    for strategy in packing::WALKABLE {
        let offsets = strategy.pack(buffers, opts);
        let walk = packing::trace(buffers, strategy, &offsets, align)
            .unwrap_or_else(|| panic!("{what}: {} walks", strategy.name()));
        assert_eq!(walk.moves.len(), buffers.len(), "{what}");
        let mut seen = vec![false; buffers.len()];
        for m in &walk.moves {
            let i = buffers.iter().position(|b| b.tensor.0 == m.tensor).unwrap();
            assert!(
                !std::mem::replace(&mut seen[i], true),
                "{what}: visited twice"
            );
            assert_eq!(m.offset, offsets[i], "{what}");
            assert_eq!(
                m.rule_offset,
                m.offset,
                "{what}: {} places tensor {} at {}, its reasons say {}",
                strategy.name(),
                m.tensor,
                m.offset,
                m.rule_offset
            );
            assert!(m.gap.is_some(), "{what}: the offset lies in a gap");
            let g = &m.gaps[m.gap.unwrap()];
            assert!(g.fits, "{what}: the chosen gap fits");
        }
        assert_eq!(
            walk.moves.last().map_or(0, |m| m.peak_after),
            memplan::pack::peak(buffers, &offsets),
            "{what}"
        );
    }
    for strategy in [Strategy::Naive, Strategy::Pools, Strategy::BestOf] {
        assert!(packing::trace(buffers, strategy, &vec![0; buffers.len()], 1).is_none());
    }
}

#[test]
fn the_seed_lesson_tells_the_articles_story() {
    let (g, a) = seed();
    let plan = a.plan(&g, Strategy::GreedySize);
    let lesson = teach::lesson(&g, &a, &plan).unwrap();
    assert!(lesson.consistent);
    let bytes: Vec<u64> = lesson.steps.iter().map(|s| s.bytes / MIB).collect();
    assert_eq!(bytes, [128, 256, 256, 256, 384, 384]);
    assert_eq!(lesson.peak_step, Some(4));
    assert_eq!(lesson.steps[4].born, [5, 6]);
    assert_eq!(lesson.steps[4].dying, [4]);
    // T4 finds pools 1 and 2 free but too small (64 MiB): it takes pool 1, which grows
    let t4 = &lesson.colouring[4];
    assert_eq!((t4.tensor, t4.pool, t4.rule), (4, 1, PoolRule::LargestFree));
    assert_eq!(t4.grows, Some((64 * MIB, 128 * MIB)));
    assert_eq!(t4.pools[0].busy_with, Some(3));
    // after T4 the pools total the article's 320 MiB; T6 makes pool 2 grow to 384 MiB
    assert_eq!(t4.pooled_after, 320 * MIB);
    let t6 = &lesson.colouring[6];
    assert_eq!((t6.tensor, t6.pool, t6.pooled_after), (6, 2, 384 * MIB));
    assert_eq!(lesson.colouring[1].rule, PoolRule::NewPool);
    assert_eq!(lesson.pools.len(), 3);
    let pack = lesson.packing.as_ref().unwrap();
    assert_eq!(pack.strategy, "greedy-size");
    assert_eq!(pack.moves.last().unwrap().peak_after, 384 * MIB);
    assert!(!lesson.diagram.summarised);
    assert_eq!(lesson.diagram.clique, 3);
    assert_eq!(lesson.diagram.nodes.len(), 8);
}

#[test]
fn marks_show_the_live_set_the_current_tensor_and_what_is_placed() {
    let (g, a) = seed();
    let plan = a.plan(&g, Strategy::FirstFit);
    let lesson = teach::lesson(&g, &a, &plan).unwrap();
    let at = |stage, index| Moment { stage, index }.marks(&lesson, &plan);
    let live = at(Stage::Live, 4);
    assert_eq!(live.step, Some(4));
    assert_eq!(live.emphasised, [4, 5, 6]);
    assert_eq!(
        (live.born.clone(), live.dying.clone()),
        (vec![5, 6], vec![4])
    );
    let t4 = at(Stage::Colour, 4);
    assert_eq!(t4.pool_sizes.unwrap(), [128 * MIB, 128 * MIB, 64 * MIB]);
    assert_eq!((t4.busy_pools, t4.pool), (vec![0], Some(1)));
    let colour = at(Stage::Colour, 3);
    assert_eq!(
        (colour.current, colour.conflicts.clone()),
        (Some(3), vec![1, 2])
    );
    assert_eq!(colour.coloured.unwrap(), [0, 1, 2, 3]);
    let pack = at(Stage::Pack, 2);
    assert_eq!(pack.placed.unwrap().len(), 3);
    // past the end: the last position
    assert_eq!(at(Stage::Live, 99).step, Some(5));
    assert_eq!(lesson.len(Stage::Pack), 8);
}

#[test]
fn the_seed_walks_agree_with_the_core() {
    let (_, a) = seed();
    for align in [1, 64, 3 * MIB] {
        walks_agree(&a.liveness.buffers, align, "transformer");
    }
}

#[test]
fn every_corpus_graph_walks_as_the_core_plans() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    for file in memplan_testkit::files(&dir, "json") {
        let data = std::fs::read(&file).unwrap();
        let g = formats::read(&data, None, "g").unwrap();
        let a = memplan::analyse(&g, &Options::default()).unwrap();
        let name = file.display().to_string();
        walks_agree(&a.liveness.buffers, 1, &name);
        walks_agree(&a.liveness.buffers, 256, &name);
        if a.liveness.buffers.len() <= teach::MAX_TENSORS {
            for strategy in packing::WALKABLE {
                let plan = a.plan(&g, strategy);
                let lesson = teach::lesson(&g, &a, &plan).unwrap();
                assert!(lesson.consistent, "{name} {}", strategy.name());
            }
        } else {
            let plan = a.plan(&g, Strategy::GreedySize);
            let err = teach::lesson(&g, &a, &plan).unwrap_err().to_string();
            assert!(err.contains("lesson"), "{name}: {err}");
        }
    }
}

/// Random buffers: few distinct sizes and steps, so that ties and equal gaps abound.
fn random_buffers(rng: &mut Rng) -> Vec<Buffer> {
    let n = 1 + rng.below(40) as usize;
    let steps = 1 + rng.below(20) as u32;
    (0..n)
        .map(|i| {
            let start = rng.below(u64::from(steps)) as u32;
            let end = start + rng.below(u64::from(steps - start)) as u32;
            let size = match rng.below(10) {
                0 => 0,
                k => [1, 2, 3, 4, 8, 16, 24, 100, 1000][k as usize - 1],
            };
            Buffer {
                tensor: TensorId(i as u32),
                size,
                life: Lifetime::new(start, end),
            }
        })
        .collect()
}

#[test]
fn random_instances_walk_as_the_core_plans() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..3000 {
        let buffers = random_buffers(&mut rng);
        let align = [1, 1, 4, 3][case % 4];
        walks_agree(&buffers, align, &format!("random case {case}"));
    }
}

#[test]
fn the_diagram_is_deterministic_and_summarised_when_large() {
    let mut rng = Rng(7);
    let buffers = random_buffers(&mut rng);
    let a = teach::layout::diagram(&buffers);
    assert_eq!(a, teach::layout::diagram(&buffers));
    assert!(a
        .nodes
        .iter()
        .all(|n| (-1.0..=1.0).contains(&n.x) && (-1.0..=1.0).contains(&n.y)));
    let (edges, _) = interference::edges(&buffers, usize::MAX);
    assert_eq!(a.edges.len(), edges.len());
    let big: Vec<Buffer> = (0..teach::layout::DRAW_LIMIT as u32 + 1)
        .map(|i| Buffer {
            tensor: TensorId(i),
            size: 1,
            life: Lifetime::new(i / 2, i / 2 + 1),
        })
        .collect();
    let d = teach::layout::diagram(&big);
    assert!(d.summarised && d.nodes.is_empty() && d.edge_count > 0);
    assert_eq!(d.clique, interference::max_clique(&big));
}
