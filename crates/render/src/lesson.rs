//! The plan's charts at a moment of a lesson: the time-by-address chart and the
//! live-bytes curve drawn as usual, then marked over. At an execution step the step's
//! column is shaded, the live tensors stand out (born ones edged green on the left,
//! dying ones red on the right) and the live-bytes curve shows the step's bytes as a
//! stack of its live tensors. While colouring, the tensor and the busy pools' members
//! stand out; while packing, only the tensors placed so far are drawn, with the gaps
//! the current one was offered shaded (green where it fits, red where it would collide).

use super::{live_bytes, time_address_with, Boxes, Frame, View, BOUND, INK, PEAK};
use memplan::plan::Plan;
use memplan::teach::{Lesson, Marks, Moment, PackMove, Stage};
use plotters::coord::Shift;
use plotters::prelude::*;

const COLUMN: RGBColor = RGBColor(47, 93, 138);
const BORN: RGBColor = RGBColor(20, 130, 90);

/// Draws the time-by-address chart of `plan` at `moment` of `lesson`.
pub fn lesson_time_address<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lesson: &Lesson,
    plan: &Plan,
    moment: Moment,
    view: &View,
    boxes: Boxes,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let marks = moment.marks(lesson, plan);
    let shown = placed_only(plan, &marks);
    let plain = View {
        highlight: None,
        ..*view
    };
    let frame = time_address_with(area, &shown, &plain, boxes)?;
    let map = Map::new(area, &frame, view.scale);
    if let Some(step) = marks.step {
        let band = [
            (f64::from(step), frame.y_min),
            (f64::from(step + 1), frame.y_max),
        ];
        map.fill(area, band, COLUMN.mix(0.10))?;
    }
    if moment.stage == Stage::Pack {
        if let Some(m) = current_move(lesson, moment) {
            gaps(area, &map, m, view)?;
        }
    }
    for t in &shown.tensors {
        let c = [
            (f64::from(t.start), t.offset as f64),
            (f64::from(t.end + 1), (t.offset + t.size) as f64),
        ];
        if !marks.emphasised.is_empty() && !marks.emphasised.contains(&t.id) {
            map.fill(area, c, WHITE.mix(0.7))?;
            continue;
        }
        let (colour, width) = if marks.current == Some(t.id) {
            (INK, 3.0)
        } else if marks.conflicts.contains(&t.id) {
            (PEAK, 2.0)
        } else if marks.emphasised.is_empty() {
            continue;
        } else {
            (INK, 1.5)
        };
        map.outline(area, c, colour, view.px(width))?;
        if marks.born.contains(&t.id) {
            map.edge(area, c, true, BORN, view.px(5.0))?;
        }
        if marks.dying.contains(&t.id) {
            map.edge(area, c, false, PEAK, view.px(5.0))?;
        }
    }
    Ok(frame)
}

/// Draws the live-bytes curve of `plan` (its `profile`) at `moment` of `lesson`.
pub fn lesson_live_bytes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lesson: &Lesson,
    plan: &Plan,
    profile: &[(u32, u64)],
    moment: Moment,
    view: &View,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let marks = moment.marks(lesson, plan);
    let span = match (moment.stage, marks.step) {
        (Stage::Live, Some(s)) => Some((s, s)),
        (Stage::Colour | Stage::Pack, _) => current_tensor(plan, &marks).map(|t| (t.start, t.end)),
        _ => None,
    };
    let frame = live_bytes(area, profile, lesson.lower_bound, plan.steps, span, view)?;
    if moment.stage != Stage::Live {
        return Ok(frame);
    }
    let Some(step) = marks.step else {
        return Ok(frame);
    };
    let map = Map::new(area, &frame, view.scale);
    let mut live: Vec<_> = plan
        .tensors
        .iter()
        .filter(|t| t.start <= step && step <= t.end)
        .collect();
    memplan::sort::by_key(&mut live, |t| (t.start, t.id));
    let mut below = 0u64;
    let (x0, x1) = (f64::from(step) + 0.12, f64::from(step) + 0.88);
    for t in live {
        let c = [(x0, below as f64), (x1, (below + t.size) as f64)];
        map.fill(area, c, super::pool_colour(t.pool).mix(0.9))?;
        map.outline(area, c, WHITE, view.px(1.0))?;
        below += t.size;
    }
    let top = [(x0, below as f64), (x1, below as f64)];
    let colour = if below == lesson.lower_bound {
        BOUND
    } else {
        INK
    };
    map.outline(area, top, colour, view.px(3.0))?;
    stack_label(area, &map, (step, below), lesson.lower_bound, colour, view)?;
    Ok(frame)
}

/// Names the stack of `bytes` at `step`: its size, and whether it is the highest.
fn stack_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Map,
    (step, bytes): (u32, u64),
    bound: u64,
    colour: RGBColor,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let size = memplan::units::format_size(bytes);
    let text = if bytes == bound && bound > 0 {
        format!("{size}: the highest stack")
    } else {
        format!("{size} live")
    };
    let font = view.font(12.0).color(&colour);
    let (tw, _) = area.estimate_text_size(&text, &font)?;
    let (right, top) = map.at((f64::from(step) + 0.92, bytes as f64));
    let (left, _) = map.at((f64::from(step) + 0.08, bytes as f64));
    let (width, _) = area.dim_in_pixel();
    let pad = view.px(6.0) as i32;
    let x = if right + pad + tw as i32 <= width as i32 {
        right + pad
    } else {
        (left - pad - tw as i32).max(0)
    };
    let y = top + pad / 2;
    super::label(area, &text, (x, y), &font)
}

/// `plan` with only the tensors `marks` say are placed, its peak theirs.
fn placed_only(plan: &Plan, marks: &Marks) -> Plan {
    let Some(placed) = &marks.placed else {
        return plan.clone();
    };
    let mut shown = plan.clone();
    shown.tensors.retain(|t| placed.contains(&t.id));
    shown.peak_bytes = shown
        .tensors
        .iter()
        .map(|t| t.offset + t.size)
        .max()
        .unwrap_or(0);
    shown
}

fn current_move(lesson: &Lesson, moment: Moment) -> Option<&PackMove> {
    let moves = &lesson.packing.as_ref()?.moves;
    moves.get(moment.index.min(moves.len().checked_sub(1)?))
}

fn current_tensor<'p>(plan: &'p Plan, marks: &Marks) -> Option<&'p memplan::plan::Placement> {
    plan.tensors.iter().find(|t| Some(t.id) == marks.current)
}

/// The gaps the current move was offered, over its steps: green where it fits,
/// red where it does not; the space on top as tall as the tensor.
fn gaps<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Map,
    m: &PackMove,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, x1) = (f64::from(m.start), f64::from(m.end + 1));
    for (k, g) in m.gaps.iter().enumerate() {
        let to = g.to.unwrap_or(g.from + m.size.max(1));
        let c = [(x0, g.from as f64), (x1, to as f64)];
        let colour = if g.fits { BORN } else { PEAK };
        if m.gap != Some(k) {
            map.fill(area, c, colour.mix(0.16))?;
        }
        map.outline(area, c, colour.mix(0.8), view.px(1.0))?;
    }
    Ok(())
}

/// Data (steps, bytes) to pixels of `area`, from a chart's frame.
struct Map {
    origin: (i32, i32),
    frame: Frame,
    scale: f64,
}

impl Map {
    fn new<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, frame: &Frame, scale: f64) -> Map {
        Map {
            origin: area.get_base_pixel(),
            frame: *frame,
            scale,
        }
    }

    /// The pixel of data point `(x, y)`, kept inside the plot.
    fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        let f = &self.frame;
        let u = ((x - f.x_min) / (f.x_max - f.x_min)).clamp(0.0, 1.0);
        let v = ((y - f.y_min) / (f.y_max - f.y_min)).clamp(0.0, 1.0);
        let px = (f.left + u * f.width) * self.scale;
        let py = (f.top + (1.0 - v) * f.height) * self.scale;
        (
            px.round() as i32 - self.origin.0,
            py.round() as i32 - self.origin.1,
        )
    }

    /// True when the data corners show at least a sliver inside the plot.
    fn shows(&self, [(xa, ya), (xb, yb)]: [(f64, f64); 2]) -> bool {
        let f = &self.frame;
        xa.max(xb) > f.x_min
            && xa.min(xb) < f.x_max
            && ya.max(yb) >= f.y_min
            && ya.min(yb) <= f.y_max
    }

    fn fill<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        c: [(f64, f64); 2],
        colour: RGBAColor,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        if !self.shows(c) {
            return Ok(());
        }
        area.draw(&Rectangle::new(
            [self.at(c[0]), self.at(c[1])],
            colour.filled(),
        ))
    }

    fn outline<DB: DrawingBackend, C: Color>(
        &self,
        area: &DrawingArea<DB, Shift>,
        c: [(f64, f64); 2],
        colour: C,
        width: u32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        if !self.shows(c) {
            return Ok(());
        }
        let style = colour.stroke_width(width);
        area.draw(&Rectangle::new([self.at(c[0]), self.at(c[1])], style))
    }

    /// A bar along the left (`left`) or right edge of the box with data corners `c`.
    fn edge<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        c: [(f64, f64); 2],
        left: bool,
        colour: RGBColor,
        width: u32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        if !self.shows(c) {
            return Ok(());
        }
        let (a, b) = (self.at(c[0]), self.at(c[1]));
        let x = if left { a.0.min(b.0) } else { a.0.max(b.0) };
        let w = width as i32;
        let (x0, x1) = if left { (x, x + w) } else { (x - w, x) };
        area.draw(&Rectangle::new([(x0, a.1), (x1, b.1)], colour.filled()))
    }
}
