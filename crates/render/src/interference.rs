//! The interference graph of a lesson: a circle per tensor at its laid-out place
//! ([`memplan::teach::layout`]), a line per pair alive at a common step, nodes in their
//! pool's colour under a legend of the pools (busy, free or taken while colouring).
//! Tensors not yet coloured are grey; the current one is ringed and its lines to
//! the busy pools' members (or, while packing, to its placed neighbours) are red.
//! Graphs too large to draw are summarised in words.

use super::{legend, legend_layout, pool_colour, View, INK, PEAK};
use memplan::plan::Plan;
use memplan::teach::{Lesson, Marks};
use memplan::units::format_size;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

const EDGE: RGBColor = RGBColor(196, 202, 211);
const UNCOLOURED: RGBColor = RGBColor(215, 219, 225);
const FADED_INK: RGBColor = RGBColor(160, 166, 176);

/// Where a node was drawn, in CSS pixels of the whole drawing: a tensor id at the
/// centre `x`, `y` of a circle of radius `r`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spot {
    pub tensor: u32,
    pub x: f64,
    pub y: f64,
    pub r: f64,
}

/// Draws `lesson`'s interference graph on `area` with `marks` (from
/// [`memplan::teach::Moment::marks`]); names and pools come from `plan`. Returns
/// where each node landed (none when the graph is summarised).
pub fn interference_graph<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lesson: &Lesson,
    plan: &Plan,
    marks: &Marks,
    view: &View,
) -> Result<Vec<Spot>, DrawingAreaErrorKind<DB::ErrorType>> {
    let items: Vec<(String, RGBColor)> = marks
        .pool_sizes
        .as_ref()
        .unwrap_or(&lesson.pools)
        .iter()
        .enumerate()
        .map(|(p, &size)| {
            let p = p as u32;
            let state = if marks.pool == Some(p) {
                " · taken"
            } else if marks.busy_pools.contains(&p) {
                " · busy"
            } else if marks.pool.is_some() {
                " · free"
            } else {
                ""
            };
            (
                format!("pool {p} · {}{state}", format_size(size)),
                pool_colour(p),
            )
        })
        .chain(
            marks
                .coloured
                .as_ref()
                .map(|_| ("not coloured yet".to_string(), UNCOLOURED)),
        )
        .collect();
    let (at, legend_height) = legend_layout(area, &items, view.px(8.0) as i32, view)?;
    legend(area, &items, &at, view)?;
    let (width, height) = area.dim_in_pixel();
    let body = area.margin(legend_height + view.px(6.0), 0, 0, 0);
    if lesson.diagram.summarised {
        return summary(&body, lesson, view).map(|()| Vec::new());
    }
    let n = lesson.diagram.nodes.len().max(1);
    let narrow = f64::from(width) / view.scale / 36.0;
    let radius = (66.0 / (n as f64).sqrt()).min(narrow).clamp(6.0, 14.0);
    let place = Placer::new(
        (width, height.saturating_sub(legend_height + view.px(6.0))),
        (
            view.px(radius + 40.0) as f64,
            view.px(radius + 8.0) as f64,
            view.px(radius + 24.0) as f64,
        ),
        &lesson.diagram.nodes,
    );
    let tensors: HashMap<u32, (&str, u32)> = plan
        .tensors
        .iter()
        .map(|t| (t.id, (t.name.as_str(), t.pool)))
        .collect();
    let xy: HashMap<u32, (i32, i32)> = lesson
        .diagram
        .nodes
        .iter()
        .map(|node| (node.tensor, place.at(node.x, node.y)))
        .collect();
    let faded = |id: u32| !marks.emphasised.is_empty() && !marks.emphasised.contains(&id);
    let conflicts: HashSet<u32> = marks.conflicts.iter().copied().collect();
    draw_edges(&body, lesson, marks, &xy, &conflicts, view)?;
    let coloured: Option<HashSet<u32>> =
        marks.coloured.as_ref().map(|c| c.iter().copied().collect());
    let r = view.px(radius) as i32;
    for node in &lesson.diagram.nodes {
        let id = node.tensor;
        let pool = tensors.get(&id).map_or(0, |t| t.1);
        let fill = match &coloured {
            Some(done) if !done.contains(&id) => UNCOLOURED,
            _ => pool_colour(pool),
        };
        let alpha = if faded(id) { 0.35 } else { 1.0 };
        let c = xy[&id];
        body.draw(&Circle::new(c, r, fill.mix(alpha).filled()))?;
        let edge = if conflicts.contains(&id) {
            PEAK
        } else if faded(id) {
            EDGE
        } else {
            WHITE
        };
        body.draw(&Circle::new(c, r, edge.stroke_width(view.px(1.5))))?;
        if marks.current == Some(id) {
            let ring = INK.stroke_width(view.px(3.0));
            body.draw(&Circle::new(c, r + view.px(4.0) as i32, ring))?;
        }
    }
    for node in &lesson.diagram.nodes {
        let id = node.tensor;
        let name = short(tensors.get(&id).map_or("?", |t| t.0));
        let font = view.font(if n > 30 { 10.0 } else { 11.5 });
        let font = if faded(id) {
            font.color(&FADED_INK)
        } else {
            font
        };
        let (tw, _) = body.estimate_text_size(&name, &font)?;
        let c = xy[&id];
        let at = (c.0 - tw as i32 / 2, c.1 + r + view.px(5.0) as i32);
        super::label(&body, &name, at, &font)?;
    }
    let (bx, by) = body.get_base_pixel();
    let spots = lesson
        .diagram
        .nodes
        .iter()
        .map(|node| {
            let (x, y) = xy[&node.tensor];
            Spot {
                tensor: node.tensor,
                x: f64::from(x + bx) / view.scale,
                y: f64::from(y + by) / view.scale,
                r: f64::from(r) / view.scale,
            }
        })
        .collect();
    Ok(spots)
}

/// The lines of the graph: grey, the current tensor's to its conflicts red.
fn draw_edges<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    lesson: &Lesson,
    marks: &Marks,
    xy: &HashMap<u32, (i32, i32)>,
    conflicts: &HashSet<u32>,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut front = Vec::new();
    for &(a, b) in &lesson.diagram.edges {
        // the current tensor's lines to what stands in its way; its lines to
        // tensors not yet coloured or placed stay in the background
        let other = match marks.current {
            Some(c) if c == a => Some(b),
            Some(c) if c == b => Some(a),
            _ => None,
        };
        if other.is_some_and(|o| conflicts.contains(&o)) {
            front.push((a, b));
            continue;
        }
        let both = marks.emphasised.contains(&a) && marks.emphasised.contains(&b);
        let faded = !marks.emphasised.is_empty() && !both;
        let colour = if faded { EDGE.mix(0.4) } else { EDGE.mix(1.0) };
        body.draw(&PathElement::new(
            vec![xy[&a], xy[&b]],
            colour.stroke_width(view.px(1.5)),
        ))?;
    }
    for (a, b) in front {
        body.draw(&PathElement::new(
            vec![xy[&a], xy[&b]],
            PEAK.stroke_width(view.px(2.5)),
        ))?;
    }
    Ok(())
}

/// The graph in words, when it has too many tensors to draw.
fn summary<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    lesson: &Lesson,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let d = &lesson.diagram;
    let edges = if d.edges_truncated {
        format!("over {}", d.edge_count)
    } else {
        d.edge_count.to_string()
    };
    let lines = [
        format!(
            "{} tensors and {edges} interference edges: too many to draw readably (up to {}).",
            d.tensors,
            memplan::teach::layout::DRAW_LIMIT
        ),
        format!(
            "At most {} tensors are live together, so no colouring uses fewer pools;",
            d.clique
        ),
        format!(
            "the greedy colouring in birth order uses {} pools, {} in all.",
            lesson.pools.len(),
            format_size(lesson.pools.iter().sum())
        ),
    ];
    let font = view.font(13.0);
    let line = view.px(22.0) as i32;
    for (k, text) in lines.iter().enumerate() {
        let at = (view.px(12.0) as i32, view.px(14.0) as i32 + line * k as i32);
        body.draw(&Text::new(text.clone(), at, font.clone()))?;
    }
    Ok(())
}

/// `name` cut to a label's length.
fn short(name: &str) -> String {
    const MOST: usize = 16;
    if name.chars().count() <= MOST {
        name.to_string()
    } else {
        let head: String = name.chars().take(MOST - 1).collect();
        format!("{head}…")
    }
}

/// Maps layout coordinates into an area of `size` pixels, keeping pixels clear at the
/// sides, top and bottom (for labels): the nodes' extent fills the area, one way
/// stretched at most 3.5 times as much as the other.
struct Placer {
    centre: (f64, f64),
    mid: (f64, f64),
    scale: (f64, f64),
}

impl Placer {
    fn new(
        size: (u32, u32),
        (side, top, bottom): (f64, f64, f64),
        nodes: &[memplan::teach::Node],
    ) -> Placer {
        let (w, h) = (f64::from(size.0), f64::from(size.1));
        let ax = ((w - 2.0 * side) / 2.0).max(1.0);
        let ay = ((h - top - bottom) / 2.0).max(1.0);
        let lo = nodes
            .iter()
            .fold((f64::MAX, f64::MAX), |a, n| (a.0.min(n.x), a.1.min(n.y)));
        let hi = nodes
            .iter()
            .fold((f64::MIN, f64::MIN), |a, n| (a.0.max(n.x), a.1.max(n.y)));
        let (rx, ry) = if nodes.is_empty() {
            (1.0, 1.0)
        } else {
            (
                ((hi.0 - lo.0) / 2.0).max(0.05),
                ((hi.1 - lo.1) / 2.0).max(0.05),
            )
        };
        let even = (ax / rx).min(ay / ry);
        Placer {
            centre: (side + ax, top + ay),
            mid: if nodes.is_empty() {
                (0.0, 0.0)
            } else {
                ((hi.0 + lo.0) / 2.0, (hi.1 + lo.1) / 2.0)
            },
            scale: ((ax / rx).min(even * 3.5), (ay / ry).min(even * 3.5)),
        }
    }

    fn at(&self, x: f64, y: f64) -> (i32, i32) {
        (
            (self.centre.0 + (x - self.mid.0) * self.scale.0).round() as i32,
            (self.centre.1 - (y - self.mid.1) * self.scale.1).round() as i32,
        )
    }
}
