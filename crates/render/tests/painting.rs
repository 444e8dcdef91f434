//! The time-by-address chart on a large plan: the step index finds the box under
//! every point and draws the same shapes as the plain chart at every zoom, and the
//! fast painter paints the pixels a fresh paint would, after a pan and after a zoom
//! back to an earlier scale.

use memplan::{Options, Strategy};
use memplan_render::plotters;
use memplan_render::{self as render, View};
use plotters::prelude::*;

/// Every line of `svg`, sorted: the same multiset of shapes whatever order they came in.
fn sorted_lines(svg: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = svg.lines().collect();
    lines.sort_unstable();
    lines
}

/// A corpus-like plan: many short lives, some long ones, over 2,000 steps.
fn many_short_lives() -> memplan::Plan {
    let mut csv = String::from("id,lower,upper,size\n");
    let mut rng = memplan_testkit::Rng(7);
    let mut next = |n: u64| rng.below(n);
    for id in 0..3000 {
        let lower = next(2000);
        let life = if next(50) == 0 {
            1 + next(900)
        } else {
            1 + next(12)
        };
        csv += &format!(
            "{id},{lower},{},{}\n",
            (lower + life).min(2000),
            64 + next(4096)
        );
    }
    let graph = memplan_formats::read(csv.as_bytes(), None, "zoom").unwrap();
    memplan::analyse(&graph, &Options::default())
        .unwrap()
        .plan(&graph, Strategy::GreedySize)
}

#[test]
fn a_step_index_finds_the_box_under_every_point() {
    let plan = many_short_lives();
    let index = render::StepIndex::new(&plan);
    let brute = |step: f64, bytes: f64| {
        plan.tensors.iter().position(|t| {
            step >= f64::from(t.start)
                && step < f64::from(t.end) + 1.0
                && bytes >= t.offset as f64
                && bytes < (t.offset + t.size) as f64
        })
    };
    let mut rng = memplan_testkit::Rng(11);
    let mut hits = 0;
    for k in 0..20_000u64 {
        let (step, bytes) = if k % 2 == 0 {
            // anywhere on the chart
            (
                rng.below(u64::from(plan.steps) * 100) as f64 / 100.0,
                rng.below(plan.peak_bytes + 1) as f64,
            )
        } else {
            // a corner of a box, inside or just past it
            let t = &plan.tensors[rng.below(plan.tensors.len() as u64) as usize];
            let step = if rng.below(2) == 0 {
                t.start
            } else {
                t.end + 1
            };
            let bytes = if rng.below(2) == 0 {
                t.offset
            } else {
                t.offset + t.size
            };
            (f64::from(step) - 0.01 * rng.below(2) as f64, bytes as f64)
        };
        let found = index.at(step, bytes);
        assert_eq!(found, brute(step, bytes), "at step {step}, byte {bytes}");
        hits += usize::from(found.is_some());
    }
    assert!(hits > 5_000, "{hits} of 20,000 points on a box");
}

/// The whole chart and three zooms: a thin slice of steps, a box in the middle,
/// the first steps at the bottom bytes.
fn zooms() -> Vec<render::Window> {
    vec![
        render::Window::FULL,
        render::Window {
            x0: 0.3,
            x1: 0.31,
            y0: 0.0,
            y1: 1.0,
        },
        render::Window {
            x0: 0.5,
            x1: 0.52,
            y0: 0.2,
            y1: 0.4,
        },
        render::Window {
            x0: 0.0,
            x1: 0.004,
            y0: 0.0,
            y1: 0.3,
        },
    ]
}

#[test]
fn a_step_index_draws_the_same_shapes_at_every_zoom() {
    let plan = many_short_lives();
    let index = render::StepIndex::new(&plan);
    let mut windows = zooms();
    windows.push(render::Window {
        x0: 0.995,
        x1: 1.0,
        y0: 0.0,
        y1: 1.0,
    });
    for window in windows {
        let view = View {
            window,
            ..View::default()
        };
        let draw = |index: Option<&render::StepIndex>| {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (900, 500)).into_drawing_area();
                render::time_address_indexed(&root, &plan, index, &view, render::Boxes::Shapes)
                    .unwrap();
                root.present().unwrap();
            }
            svg
        };
        let (all, indexed) = (draw(None), draw(Some(&index)));
        assert!(all.matches("<rect").count() > 10, "{window:?}");
        assert_eq!(sorted_lines(&all), sorted_lines(&indexed), "{window:?}");
    }
}

/// The pixels and the SVG (axes, names, outline) of the time-by-address chart of
/// `plan` painted into a raster as `paint` says.
fn painted(
    plan: &memplan::Plan,
    index: &render::StepIndex,
    view: &View,
    paint: render::Paint,
) -> (Vec<u8>, String) {
    let (width, height) = (900, 500);
    let mut raster = render::Raster::new();
    raster.reset((width, height), WHITE);
    let mut pixels = Vec::new();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let mut put = |r: &render::Raster| pixels = r.bytes().to_vec();
        let boxes = render::Boxes::Raster(&mut raster, &mut put);
        render::time_address_painted(&root, plan, Some(index), view, boxes, paint).unwrap();
        root.present().unwrap();
    }
    (pixels, svg)
}

#[test]
fn the_fast_painter_paints_the_pixels_of_every_tensor_visited() {
    let plan = many_short_lives();
    let tall = plan.tensors.iter().max_by_key(|t| t.size).unwrap().id;
    let mut rng = memplan_testkit::Rng(5);
    let mut windows = zooms();
    windows.push(render::Window {
        x0: 0.995,
        x1: 1.0,
        y0: 0.9,
        y1: 1.0,
    });
    for _ in 0..30 {
        let (x, y) = (
            rng.below(1000) as f64 / 1000.0,
            rng.below(1000) as f64 / 1000.0,
        );
        let (w, h) = (
            0.001 + rng.below(600) as f64 / 1000.0,
            0.001 + rng.below(600) as f64 / 1000.0,
        );
        windows.push(render::Window {
            x0: x,
            x1: x + w,
            y0: y,
            y1: y + h,
        });
    }
    let index = render::StepIndex::new(&plan);
    let mut names = 0;
    for (k, window) in windows.into_iter().enumerate() {
        let highlight = match k % 3 {
            0 => None,
            1 => Some(u64::from(tall)),
            _ => Some(rng.below(plan.tensors.len() as u64)),
        };
        for scale in [1.0, 2.0] {
            let view = View {
                scale,
                highlight,
                window: window.clamped(),
                top: 0,
            };
            let fast = painted(&plan, &index, &view, render::Paint::Fast);
            let full = painted(&plan, &index, &view, render::Paint::Full);
            let white = full
                .0
                .chunks(4)
                .filter(|p| p == &[255, 255, 255, 255])
                .count();
            assert!(white < full.0.len() / 4, "{view:?}: nothing painted");
            assert_same_paint(&fast, &full, &view);
            names += full.1.matches("<text").count();
        }
    }
    assert!(names > 0);
}

/// Fails unless two paints of the chart at `view` have the same pixels and the same
/// SVG (axes, names, outline).
fn assert_same_paint(a: &(Vec<u8>, String), b: &(Vec<u8>, String), view: &View) {
    let differ = a.0.iter().zip(&b.0).filter(|(x, y)| x != y).count();
    assert_eq!(differ, 0, "{differ} bytes differ at {view:?}");
    assert!(a.1 == b.1, "{view:?}: the axes, names or outline differ");
}

/// The pixels and the SVG of the time-by-address chart of `plan` painted into
/// `raster` as the page paints its kept raster: not cleared first, so that a pan
/// may shift what it holds.
fn painted_on(
    raster: &mut render::Raster,
    plan: &memplan::Plan,
    index: &render::StepIndex,
    view: &View,
) -> (Vec<u8>, String) {
    let mut pixels = Vec::new();
    let mut svg = String::new();
    {
        let (width, height) = (raster.width(), raster.height());
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let mut put = |r: &render::Raster| pixels = r.bytes().to_vec();
        let boxes = render::Boxes::Raster(raster, &mut put);
        render::time_address_painted(&root, plan, Some(index), view, boxes, render::Paint::Fast)
            .unwrap();
        root.present().unwrap();
    }
    (pixels, svg)
}

#[test]
fn a_pan_paints_the_pixels_a_fresh_paint_would() {
    let plan = many_short_lives();
    let index = render::StepIndex::new(&plan);
    let tall = plan.tensors.iter().max_by_key(|t| t.size).unwrap().id;
    let mut rng = memplan_testkit::Rng(11);
    let mut fraction = |most: u64| rng.below(most) as f64 / 1000.0;
    let mut starts = zooms();
    starts.push(render::Window {
        x0: 0.2,
        x1: 0.35,
        y0: 0.1,
        y1: 0.5,
    });
    let mut kept = render::Raster::new();
    kept.reset((900, 500), WHITE);
    let (mut paints, mut reused, mut names) = (0, 0, 0);
    for start in starts {
        for scale in [1.0, 2.0] {
            let mut window = start.clamped();
            for k in 0..16 {
                // both ends move alike, by up to a third of the window, now and
                // then by more than all of it; the window stays inside the chart
                let (w, h) = (window.x1 - window.x0, window.y1 - window.y0);
                let far = if k % 7 == 6 { 3.0 } else { 1.0 };
                let dx = ((fraction(667) - 0.333) * w * far).clamp(-window.x0, 1.0 - window.x1);
                let dy = ((fraction(667) - 0.333) * h * far).clamp(-window.y0, 1.0 - window.y1);
                window = render::Window {
                    x0: window.x0 + dx,
                    x1: window.x1 + dx,
                    y0: window.y0 + dy,
                    y1: window.y1 + dy,
                };
                let highlight = match k {
                    0..=7 => None,
                    8..=13 => Some(u64::from(tall)),
                    _ => Some(u64::from(plan.tensors[k * 97 % plan.tensors.len()].id)),
                };
                let view = View {
                    scale,
                    highlight,
                    window,
                    top: 0,
                };
                let panned = painted_on(&mut kept, &plan, &index, &view);
                let fresh = painted(&plan, &index, &view, render::Paint::Fast);
                paints += 1;
                reused += usize::from(kept.reused());
                assert_same_paint(&panned, &fresh, &view);
                names += fresh.1.matches("<text").count();
            }
        }
    }
    // most of these paints are pans that reuse the pixels (10 or more of each 16)
    eprintln!("{reused} of {paints} paints reused");
    assert!(reused * 2 > paints, "{reused} of {paints} paints reused");
    assert!(names > 0);
}

/// `w` zoomed by `factor` around fractions (u, v) of it, as the page's wheel zooms.
fn zoom_at(w: render::Window, (u, v): (f64, f64), factor: f64) -> render::Window {
    let span = |a: f64, b: f64, at: f64| {
        let width = ((b - a) * factor).clamp(1e-3, 1.0);
        let point = a + at * (b - a);
        let start = (point - at * width).max(0.0).min(1.0 - width);
        (start, start + width)
    };
    let (x0, x1) = span(w.x0, w.x1, u);
    let (y0, y1) = span(w.y0, w.y1, v);
    render::Window { x0, x1, y0, y1 }
}

#[test]
fn a_zoom_back_to_an_earlier_scale_shifts_the_pixels_painted_there() {
    let plan = many_short_lives();
    let index = render::StepIndex::new(&plan);
    let mut kept = render::Raster::new();
    kept.reset((900, 500), WHITE);
    let (ins, outs) = ((-0.24f64).exp(), 0.24f64.exp());
    let start = render::Window {
        x0: 0.2,
        x1: 0.5,
        y0: 0.1,
        y1: 0.6,
    };
    let w1 = zoom_at(start, (0.5, 0.5), ins);
    let w2 = zoom_at(w1, (0.4, 0.6), ins);
    let w3 = zoom_at(w2, (0.6, 0.45), outs);
    let w4 = zoom_at(w3, (0.45, 0.5), outs);
    let full = render::Window::FULL;
    let w5 = zoom_at(full, (0.3, 0.3), ins);
    // (window, whether its pixels come from an earlier paint)
    let steps = [
        (start, false),
        (w1, false),
        (w2, false),
        (w3, true),
        (w4, true),
        (full, false),
        (w5, false),
        (full, true),
        (w2, true),
    ];
    for (window, reused) in steps {
        let view = View {
            window,
            ..View::default()
        };
        let panned = painted_on(&mut kept, &plan, &index, &view);
        let fresh = painted(&plan, &index, &view, render::Paint::Fast);
        assert_eq!(kept.reused(), reused, "{window:?}");
        assert_same_paint(&panned, &fresh, &view);
    }
}
