//! The charts rendered to SVG from the seed example, checked by content.

use memplan::{Options, Strategy};
use memplan_npu::problem::Problem;
use memplan_render::plotters;
use memplan_render::{self as render, View};
use plotters::prelude::*;

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/transformer_layer.json"
);

fn example() -> (memplan::Plan, Vec<(u32, u64)>) {
    let data = std::fs::read(EXAMPLE).unwrap();
    let graph = memplan_formats::read(&data, None, "transformer_layer").unwrap();
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
            None,
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

const TINY_NPU: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/npu_tiny_matmul.json"
);

/// The tiny NPU example solved for problem 2 with L1 at `l1` units.
fn npu_view(l1: u64) -> memplan_npu::export::View {
    use memplan_npu::{case::default_levels, export, solve};
    let mut levels = default_levels();
    levels[0].capacity = l1;
    let data = std::fs::read(TINY_NPU).unwrap();
    let case = memplan_formats::npu::read_json(&data, "npu_tiny_matmul", levels).unwrap();
    let solution = solve::solve(&case, Problem::Movement, solve::Method::Best).unwrap();
    export::view(&case, &solution)
}

fn draw_svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>),
) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root);
        root.present().unwrap();
    }
    svg
}

#[test]
fn level_chart_draws_residencies_capacity_and_spill_edges() {
    let npu = npu_view(200);
    assert_eq!(npu.spills, 1);
    let l1 = &npu.levels[0];
    let svg = draw_svg((800, 300), |root| {
        render::level_chart(root, l1, npu.steps, &View::default()).unwrap();
    });
    assert!(
        svg.matches("<rect").count() >= l1.residencies.len(),
        "{svg}"
    );
    assert!(svg.contains("capacity 200"));
    assert!(svg.contains("most live"));
    // the spill's two edges, in the spill colour
    assert!(
        svg.matches("stroke=\"#BE2832\" stroke-width=\"3\"").count() >= 2,
        "{svg}"
    );
}

#[test]
fn empty_level_says_so() {
    let npu = npu_view(4096);
    let empty = memplan_npu::export::LevelView {
        name: "UB".into(),
        capacity: 1024,
        residencies: Vec::new(),
        spills: Vec::new(),
    };
    let svg = draw_svg((600, 240), |root| {
        render::level_chart(root, &empty, npu.steps, &View::default()).unwrap();
    });
    assert!(svg.contains("no buffers in UB"));
}

#[test]
fn spill_timeline_has_a_bar_per_spill_in_its_level_lane() {
    let npu = npu_view(200);
    let layout = render::spill_rows(&npu.levels);
    assert_eq!(layout.spills.len(), 1);
    assert_eq!(layout.rows, 1);
    assert_eq!(layout.lanes[0].level, 0);
    let s = &npu.levels[0].spills[0];
    let svg = draw_svg((900, 160), |root| {
        let frame = render::spill_timeline(root, &npu.levels, npu.steps, &View::default()).unwrap();
        assert_eq!((frame.y_min, frame.y_max), (0.0, 1.0));
    });
    assert!(svg.contains(">\nL1\n<"), "lane label");
    assert!(
        svg.contains(&format!("b{} · {}", s.buffer, s.bytes)),
        "{svg}"
    );
    let none = npu_view(4096);
    let svg = draw_svg((900, 160), |root| {
        render::spill_timeline(root, &none.levels, none.steps, &View::default()).unwrap();
    });
    assert!(svg.contains("no spills"));
}

#[test]
fn spill_rows_stack_overlapping_spills() {
    use memplan_npu::export::{LevelView, SpillView};
    let spill = |out_step, in_step| SpillView {
        buffer: 1,
        bytes: 8,
        out_step,
        in_step,
        new_offset: 0,
    };
    let level = |name: &str, spills| LevelView {
        name: name.into(),
        capacity: 64,
        residencies: Vec::new(),
        spills,
    };
    let levels = vec![
        level("L1", vec![spill(0, 5), spill(2, 4), spill(6, 9)]),
        level("UB", vec![]),
        level("L0C", vec![spill(1, 2)]),
    ];
    let layout = render::spill_rows(&levels);
    let rows: Vec<(usize, u32)> = layout.spills.iter().map(|r| (r.level, r.row)).collect();
    assert_eq!(rows, vec![(0, 0), (0, 1), (0, 0), (2, 2)]);
    assert_eq!(layout.rows, 3);
    assert_eq!(layout.lanes.len(), 2);
}

#[test]
fn gantt_draws_a_lane_per_pipe_and_a_legend_of_ops() {
    let npu = npu_view(200);
    let timed = npu.nodes.iter().filter(|n| n.pipe.is_some()).count();
    let svg = draw_svg((1000, 280), |root| {
        let frame = render::gantt(root, &npu.nodes, &[], &View::default()).unwrap();
        assert_eq!(frame.x_max, npu.makespan.unwrap() as f64);
    });
    for pipe in ["MTE1", "MTE2", "MTE3", "FIXP", "CUBE", "VECTOR"] {
        assert!(svg.contains(&format!(">\n{pipe}\n<")), "{pipe} lane");
    }
    for op in ["MATMUL", "COPY_IN", "SPILL_OUT", "SPILL_IN"] {
        assert!(svg.contains(&format!(">\n{op}\n<")), "{op} in the legend");
    }
    assert!(
        svg.matches("<rect").count() >= timed,
        "a bar per timed node"
    );
    assert!(svg.contains("cycle"));
}

#[test]
fn npu_svg_stacks_every_chart_under_a_title() {
    let npu = npu_view(200);
    let svg = render::npu_svg(&npu, 1000).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("npu_tiny_matmul: problem 2, best (1 spills, extra movement 192"));
    assert!(svg.contains("L1: time by address"));
    assert!(svg.contains("L0C: time by address"));
    assert!(
        !svg.contains("UB: time by address"),
        "levels without buffers are left out"
    );
    assert!(svg.contains("spills: out of and back into each level"));
    assert!(svg.contains("pipes: cycles of each node"));
}

#[test]
fn a_window_zooms_into_part_of_the_chart() {
    let (plan, _) = example();
    let view = View {
        window: render::Window {
            x0: 0.5,
            x1: 1.0,
            y0: 0.0,
            y1: 0.5,
        },
        ..View::default()
    };
    let mut svg = String::new();
    let frame = {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        render::time_address(&root, &plan, &view).unwrap()
    };
    assert_eq!((frame.x_min, frame.x_max), (3.0, 6.0));
    assert!(frame.y_max < plan.peak_bytes as f64);
    assert!(
        !svg.contains("T0_QKV_Proj"),
        "tensors off the window are not drawn"
    );
    assert!(svg.contains("T6_FFN_Up") || svg.contains("T5_FFN_Gate"));
}

#[test]
fn names_stay_text_in_svg() {
    let (mut plan, profile) = example();
    plan.tensors[0].name = "<b onclick=x>".into();
    plan.graph = "<script>".into();
    let svg = render::svg(&plan, &profile, 960, 720).unwrap();
    assert!(!svg.contains("<script>") && !svg.contains("<b onclick"));
    assert!(svg.contains("&lt;script&gt;"));
}

/// A least top of the address axis (two layouts side by side on one scale) raises
/// the axis and leaves the boxes the same size in bytes.
#[test]
fn a_least_top_raises_the_address_axis() {
    let (plan, _) = example();
    let draw = |top: u64| {
        let mut svg = String::new();
        let frame = {
            let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
            let view = View {
                top,
                ..View::default()
            };
            render::time_address(&root, &plan, &view).unwrap()
        };
        frame.y_max
    };
    let own = draw(0);
    assert_eq!(
        draw(plan.peak_bytes / 2),
        own,
        "a top below the peak changes nothing"
    );
    let raised = draw(plan.peak_bytes * 3);
    assert!(raised > 2.5 * own, "{raised} against {own}");
}
