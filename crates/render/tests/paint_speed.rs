//! How long the time-by-address chart takes to paint a million boxes natively, at the
//! windows `tests/browser/perf.mjs` pans and zooms through: a measure, not a test
//! (painting only: the axes go to an SVG string, the raster nowhere).
//!   cargo test --release -p memplan-render --test paint_speed -- --ignored --nocapture

use memplan::plan::Plan;
use memplan_render::plotters::prelude::*;
use memplan_render::{self as render, Paint, View, Window};
use std::time::Instant;

/// `n` buffers over `n / 10` steps like `tests/browser/big.mjs` makes them (most live
/// a few steps, one in five hundred long), planned with greedy-size.
fn plan(n: u64) -> Plan {
    let mut rng = memplan_testkit::Rng(3);
    let steps = n / 10;
    let mut csv = String::from("id,lower,upper,size\n");
    for id in 0..n {
        let lower = rng.below(steps);
        let life = if rng.below(500) == 0 {
            1 + rng.below(steps / 20)
        } else {
            1 + rng.below(12)
        };
        let size = (64.0 * 2f64.powf(rng.below(14_000) as f64 / 1000.0)) as u64;
        csv += &format!("{id},{lower},{},{size}\n", (lower + life).min(steps));
    }
    let graph = memplan_formats::read(csv.as_bytes(), None, "speed").unwrap();
    memplan::analyse(&graph, &memplan::Options::default())
        .unwrap()
        .plan(&graph, memplan::Strategy::GreedySize)
}

#[test]
#[ignore]
fn paint_a_million_boxes() {
    let plan = plan(1_000_000);
    let index = render::StepIndex::new(&plan);
    let (width, height) = (1400, 800);
    let mut raster = render::Raster::new();
    for w in [1.0, 0.787, 0.62, 0.49, 0.38, 0.3] {
        for paint in [Paint::Fast, Paint::Full] {
            let view = View {
                window: Window {
                    x0: 0.4 * (1.0 - w),
                    x1: 0.4 * (1.0 - w) + w,
                    y0: 0.5 * (1.0 - w),
                    y1: 0.5 * (1.0 - w) + w,
                },
                ..View::default()
            };
            let started = Instant::now();
            let runs = 5;
            for _ in 0..runs {
                raster.reset((width, height), WHITE);
                let mut svg = String::new();
                let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
                let mut put = |_: &render::Raster| {};
                let boxes = render::Boxes::Raster(&mut raster, &mut put);
                render::time_address_painted(&root, &plan, Some(&index), &view, boxes, paint)
                    .unwrap();
            }
            let ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(runs);
            println!("window {w:.3}  {paint:?}  {ms:.1} ms");
        }
    }
}
