//! The Learn view's charts of the seed example and a large graph, drawn to SVG at
//! each stage and checked by content.

use memplan::graph::TensorId;
use memplan::liveness::{Buffer, Lifetime};
use memplan::teach::{self, Moment, Stage};
use memplan::{Options, Strategy};
use memplan_formats as formats;
use memplan_render::plotters;
use memplan_render::{self as render, View};
use plotters::prelude::*;

fn seed() -> (memplan::Graph, memplan::Analysis) {
    let path = memplan_testkit::root().join("examples/transformer_layer.json");
    let g = formats::read(&std::fs::read(path).unwrap(), None, "transformer_layer").unwrap();
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    (g, a)
}

/// The lesson's three charts at `moment`, drawn into one SVG document.
fn lesson_svg(lesson: &teach::Lesson, plan: &memplan::Plan, moment: Moment) -> String {
    let profile = memplan::liveness::profile(
        &plan
            .tensors
            .iter()
            .map(|t| Buffer {
                tensor: TensorId(t.id),
                size: t.size,
                life: Lifetime::new(t.start, t.end),
            })
            .collect::<Vec<_>>(),
    );
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 1200)).into_drawing_area();
        root.fill(&WHITE).unwrap();
        let parts = root.split_evenly((3, 1));
        let view = View::default();
        let marks = moment.marks(lesson, plan);
        render::interference_graph(&parts[0], lesson, plan, &marks, &view).unwrap();
        let boxes = render::Boxes::Shapes;
        render::lesson_time_address(&parts[1], lesson, plan, moment, &view, boxes).unwrap();
        render::lesson_live_bytes(&parts[2], lesson, plan, &profile, moment, &view).unwrap();
        root.present().unwrap();
    }
    out
}

#[test]
fn the_lesson_charts_draw_each_stage() {
    let (g, a) = seed();
    let plan = a.plan(&g, Strategy::GreedySize);
    let lesson = teach::lesson(&g, &a, &plan).unwrap();
    let live = lesson_svg(
        &lesson,
        &plan,
        Moment {
            stage: Stage::Live,
            index: 4,
        },
    );
    assert!(
        live.contains("384 MiB: the highest stack"),
        "the stack at the peak step is named"
    );
    assert!(live.contains("T0_QKV_Proj") && live.contains("pool 2 · 128 MiB"));
    let colour = lesson_svg(
        &lesson,
        &plan,
        Moment {
            stage: Stage::Colour,
            index: 4,
        },
    );
    assert!(colour.contains("not coloured yet") && colour.contains("pool 2 · 64 MiB · free"));
    assert!(
        colour.contains("pool 0 · 128 MiB · busy") && colour.contains("pool 1 · 128 MiB · taken")
    );
    // the line from T4_AttnOut to T3_Score, whose pool is busy, is red
    assert!(colour.contains("#BE2832"), "a conflict is drawn in red");
    let pack = lesson_svg(
        &lesson,
        &plan,
        Moment {
            stage: Stage::Pack,
            index: 0,
        },
    );
    assert!(
        pack.contains("peak 128 MiB"),
        "only the placed tensors count for the peak"
    );
}

#[test]
fn a_large_graph_is_summarised_in_words() {
    let Some(dir) = memplan_testkit::corpus_dir("graphs") else {
        return;
    };
    let data = std::fs::read(dir.join("light_squeezenet.json")).unwrap();
    let g = formats::read(&data, None, "squeezenet").unwrap();
    let a = memplan::analyse(&g, &Options::default()).unwrap();
    let plan = a.plan(&g, Strategy::GreedySize);
    let lesson = teach::lesson(&g, &a, &plan).unwrap();
    assert!(lesson.diagram.summarised);
    let svg = lesson_svg(
        &lesson,
        &plan,
        Moment {
            stage: Stage::Colour,
            index: 3,
        },
    );
    assert!(svg.contains("too many to draw readably"), "{}", &svg[..200]);
}
