//! The charts rendered to SVG from the seed example, checked by content.

use memplan::render::{self, View};
use memplan::{Options, Strategy};
use plotters::prelude::*;

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/transformer_layer.json"
);

fn example() -> (memplan::Plan, Vec<(u32, u64)>) {
    let data = std::fs::read(EXAMPLE).unwrap();
    let graph = memplan::formats::read(&data, None, "transformer_layer").unwrap();
    let analysis = memplan::analyse(&graph, &Options::default()).unwrap();
    let plan = analysis.plan(&graph, Strategy::GreedySize);
    assert!(memplan::check::check(&graph, &plan).is_empty());
    (plan, memplan::liveness::profile(&analysis.liveness.buffers))
}

#[test]
fn time_address_draws_every_tensor_and_both_lines() {
    let (plan, _) = example();
    let mut svg = String::new();
    let frame = {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        let frame = render::time_address(&root, &plan, &View::default()).unwrap();
        root.present().unwrap();
        frame
    };
    // one filled rectangle and one edge per tensor, plus label backgrounds
    assert!(
        svg.matches("<rect").count() >= 2 * plan.tensors.len(),
        "{svg}"
    );
    assert!(svg.contains("peak 384 MiB"));
    assert!(svg.contains("lower bound 384 MiB"));
    assert!(svg.contains("T0_QKV_Proj"));
    assert!(svg.contains("step"));
    assert!(svg.contains("100 MiB"), "y ticks in human units");
    assert_eq!((frame.x_min, frame.x_max), (0.0, 6.0));
    assert!(frame.y_max > plan.peak_bytes as f64);
    assert!(frame.left > 0.0 && frame.left + frame.width <= 800.0);
    assert!(frame.top >= 0.0 && frame.top + frame.height <= 500.0);
}

#[test]
fn frame_maps_data_to_the_pixels_drawn() {
    let (plan, _) = example();
    let mut svg = String::new();
    let frame = {
        let root = SVGBackend::with_string(&mut svg, (600, 400)).into_drawing_area();
        render::time_address(&root, &plan, &View::default()).unwrap()
    };
    // the peak line is drawn across the plot at the pixel the frame gives for the peak
    let y = frame.top + frame.height * (1.0 - plan.peak_bytes as f64 / frame.y_max);
    let (left, right) = (frame.left, frame.left + frame.width);
    let found = (-1..=1).any(|dy| {
        let y = y.round() as i64 + dy;
        svg.contains(&format!(
            "stroke=\"#BE2832\" stroke-width=\"2\" points=\"{left},{y} {right},{y} \""
        ))
    });
    assert!(found, "no peak line at y={y}");
}

#[test]
fn highlight_outlines_one_tensor() {
    let (plan, _) = example();
    let draw = |highlight| {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (600, 400)).into_drawing_area();
            let view = View {
                highlight,
                ..View::default()
            };
            render::time_address(&root, &plan, &view).unwrap();
        }
        svg
    };
    let plain = draw(None);
    let marked = draw(Some(3));
    assert_eq!(
        marked.matches("<rect").count(),
        plain.matches("<rect").count() + 1
    );
}

#[test]
fn live_bytes_draws_the_curve_and_the_bound() {
    let (plan, profile) = example();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 300)).into_drawing_area();
        render::live_bytes(
            &root,
            &profile,
            plan.lower_bound,
            plan.steps,
            &View::default(),
        )
        .unwrap();
    }
    assert!(
        svg.contains("<polygon") || svg.contains("<path"),
        "area drawn"
    );
    assert!(svg.contains("lower bound 384 MiB"));
}

#[test]
fn svg_report_stacks_both_charts() {
    let (plan, profile) = example();
    let svg = render::svg(&plan, &profile, 960, 720).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("transformer_layer: greedy-size"));
    assert!(svg.contains("live bytes per step"));
    assert_eq!(svg.matches("lower bound 384 MiB").count(), 3);
}

#[test]
fn empty_plan_still_draws() {
    let (mut plan, _) = example();
    plan.tensors.clear();
    plan.steps = 0;
    plan.peak_bytes = 0;
    plan.lower_bound = 0;
    let svg = render::svg(&plan, &[(0, 0)], 400, 300).unwrap();
    assert!(svg.contains("nothing to place"));
}
