//! Teaching: the pipeline's decisions one at a time, each with its reasons, for a
//! page that lets a learner step through them.
//!
//! A [`Lesson`] has three walks over one plan: the execution steps (who is born, who
//! dies, what is live and how many bytes that is), the greedy colouring one buffer
//! at a time ([`colouring`]), and the offset packing of a fit strategy one buffer at
//! a time ([`packing`]), plus the interference graph laid out ([`layout`]). Every
//! decision shown is the core's own (the colouring's pools, the strategy's offsets);
//! the reasons are rebuilt beside them and must imply the same decisions, which
//! [`Lesson::consistent`] records and the tests require. [`Moment::marks`] says what
//! the charts emphasise at one moment of a walk.

pub mod colouring;
pub mod layout;
pub mod packing;

use crate::error::Error;
use crate::liveness::Buffer;
use crate::{Analysis, Graph, Plan, Strategy};
use serde::{Deserialize, Serialize};

pub use colouring::{ColourMove, PoolLook, PoolRule};
pub use layout::{Diagram, Node};
pub use packing::{Gap, GapRule, Neighbour, PackMove, PackTrace};

/// The most tensors a lesson walks through.
pub const MAX_TENSORS: usize = 1000;
/// The most execution steps a lesson walks through.
pub const MAX_STEPS: u32 = 5000;

/// One execution step: the op it runs, the tensors it makes and the ones it uses
/// for the last time (tensor ids), and the bytes live during it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFacts {
    pub step: u32,
    /// Index of the op run at this step (none for instances without ops).
    pub op: Option<u32>,
    pub born: Vec<u32>,
    pub dying: Vec<u32>,
    pub live: u32,
    pub bytes: u64,
}

/// Everything the teaching view steps through, for one graph and one plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub graph: String,
    /// The plan's strategy.
    pub strategy: String,
    pub steps: Vec<StepFacts>,
    pub lower_bound: u64,
    /// The first step whose live bytes reach the lower bound.
    pub peak_step: Option<u32>,
    pub colouring: Vec<ColourMove>,
    /// The pools' final sizes.
    pub pools: Vec<u64>,
    /// The walk of the plan's packing; `None` when its strategy is not a single
    /// fit pass (see [`packing::WALKABLE`]).
    pub packing: Option<PackTrace>,
    pub diagram: Diagram,
    /// True when every reason implies the decision the core made.
    pub consistent: bool,
}

/// Builds the lesson of `plan`, made from `analysis` of `graph`. Fails on graphs
/// above [`MAX_TENSORS`] tensors or [`MAX_STEPS`] steps.
pub fn lesson(graph: &Graph, analysis: &Analysis, plan: &Plan) -> Result<Lesson, Error> {
    let buffers = &analysis.liveness.buffers;
    if buffers.len() > MAX_TENSORS {
        return Err(Error::limit(
            "tensors in a lesson",
            buffers.len() as u64,
            MAX_TENSORS as u64,
        ));
    }
    if analysis.liveness.steps > MAX_STEPS {
        return Err(Error::limit(
            "steps in a lesson",
            u64::from(analysis.liveness.steps),
            u64::from(MAX_STEPS),
        ));
    }
    let offsets: Vec<u64> = plan.tensors.iter().map(|t| t.offset).collect();
    let steps = step_facts(buffers, &analysis.order, analysis.liveness.steps);
    let colouring = colouring::trace(buffers, &analysis.colouring);
    let packing = Strategy::from_name(&plan.strategy)
        .ok()
        .and_then(|s| packing::trace(buffers, s, &offsets, plan.align));
    let lower_bound = analysis.liveness.lower_bound;
    let consistent = colouring.iter().all(|m| m.rule_pool == m.pool)
        && packing
            .as_ref()
            .is_none_or(|p| p.moves.iter().all(|m| m.rule_offset == m.offset));
    Ok(Lesson {
        graph: graph.name.clone(),
        strategy: plan.strategy.clone(),
        peak_step: steps
            .iter()
            .find(|s| s.bytes == lower_bound && lower_bound > 0)
            .map(|s| s.step),
        steps,
        lower_bound,
        colouring,
        pools: analysis.colouring.pool_sizes.clone(),
        packing,
        diagram: layout::diagram(buffers),
        consistent,
    })
}

/// The facts of every step of `order` (or of `steps` steps without ops).
pub fn step_facts(buffers: &[Buffer], order: &[crate::graph::OpId], steps: u32) -> Vec<StepFacts> {
    let mut out: Vec<StepFacts> = (0..steps)
        .map(|s| StepFacts {
            step: s,
            op: order.get(s as usize).map(|o| o.0),
            born: Vec::new(),
            dying: Vec::new(),
            live: 0,
            bytes: 0,
        })
        .collect();
    let mut delta = vec![(0i64, 0i128); steps as usize + 1];
    for b in buffers {
        let (s, e) = (b.life.start as usize, b.life.end as usize);
        out[s].born.push(b.tensor.0);
        out[e].dying.push(b.tensor.0);
        delta[s].0 += 1;
        delta[s].1 += i128::from(b.size);
        delta[e + 1].0 -= 1;
        delta[e + 1].1 -= i128::from(b.size);
    }
    let (mut live, mut bytes) = (0i64, 0i128);
    for (facts, d) in out.iter_mut().zip(&delta) {
        live += d.0;
        bytes += d.1;
        facts.live = live as u32;
        facts.bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
    }
    out
}

/// Which walk a moment belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Execution steps: liveness and the live-bytes stack.
    Live,
    /// The greedy colouring, one buffer at a time.
    Colour,
    /// Offset packing, one buffer at a time.
    Pack,
}

/// A moment of a lesson: a stage and a position in its walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    pub stage: Stage,
    pub index: usize,
}

/// What the charts emphasise at a moment (tensor ids throughout).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marks {
    /// The execution step shown as a column, if any.
    pub step: Option<u32>,
    /// Tensors drawn in full; the others fade. Empty: none fade.
    pub emphasised: Vec<u32>,
    /// The tensor being coloured or placed.
    pub current: Option<u32>,
    /// Tensors in its way: busy pools' members, or placed neighbours.
    pub conflicts: Vec<u32>,
    pub born: Vec<u32>,
    pub dying: Vec<u32>,
    /// When set, only these tensors are drawn (those placed so far).
    pub placed: Option<Vec<u32>>,
    /// When set, only these tensors have their pool colour (those coloured so far).
    pub coloured: Option<Vec<u32>>,
    /// When set, the pools opened so far and their sizes (while colouring).
    pub pool_sizes: Option<Vec<u64>>,
    /// The pools busy at the current tensor's first step (while colouring).
    pub busy_pools: Vec<u32>,
    /// The pool the current tensor takes (while colouring).
    pub pool: Option<u32>,
}

impl Lesson {
    /// How many positions the walk of `stage` has.
    pub fn len(&self, stage: Stage) -> usize {
        match stage {
            Stage::Live => self.steps.len(),
            Stage::Colour => self.colouring.len(),
            Stage::Pack => self.packing.as_ref().map_or(0, |p| p.moves.len()),
        }
    }

    /// True when no stage has anything to walk.
    pub fn is_empty(&self) -> bool {
        self.colouring.is_empty()
    }
}

impl Moment {
    /// The marks of this moment of `lesson` over `plan`; an index past the end of
    /// its walk is taken as the last position.
    pub fn marks(&self, lesson: &Lesson, plan: &Plan) -> Marks {
        let last = lesson.len(self.stage).saturating_sub(1);
        let k = self.index.min(last);
        match self.stage {
            Stage::Live => live_marks(lesson, plan, k),
            Stage::Colour => colour_marks(lesson, k),
            Stage::Pack => pack_marks(lesson, k),
        }
    }
}

fn live_marks(lesson: &Lesson, plan: &Plan, k: usize) -> Marks {
    let Some(facts) = lesson.steps.get(k) else {
        return Marks::default();
    };
    let step = facts.step;
    Marks {
        step: Some(step),
        emphasised: plan
            .tensors
            .iter()
            .filter(|t| t.start <= step && step <= t.end)
            .map(|t| t.id)
            .collect(),
        born: facts.born.clone(),
        dying: facts.dying.clone(),
        ..Marks::default()
    }
}

fn colour_marks(lesson: &Lesson, k: usize) -> Marks {
    let Some(m) = lesson.colouring.get(k) else {
        return Marks::default();
    };
    let conflicts: Vec<u32> = m.pools.iter().filter_map(|p| p.busy_with).collect();
    let mut emphasised = conflicts.clone();
    emphasised.push(m.tensor);
    let mut sizes: Vec<u64> = m.pools.iter().map(|p| p.size).collect();
    match sizes.get_mut(m.pool as usize) {
        Some(s) => *s = (*s).max(m.size),
        None => sizes.push(m.size),
    }
    Marks {
        step: Some(m.start),
        pool_sizes: Some(sizes),
        busy_pools: m
            .pools
            .iter()
            .filter(|p| p.busy_with.is_some())
            .map(|p| p.pool)
            .collect(),
        pool: Some(m.pool),
        emphasised,
        current: Some(m.tensor),
        conflicts,
        coloured: Some(lesson.colouring[..=k].iter().map(|m| m.tensor).collect()),
        ..Marks::default()
    }
}

fn pack_marks(lesson: &Lesson, k: usize) -> Marks {
    let Some(moves) = lesson.packing.as_ref().map(|p| &p.moves) else {
        return Marks::default();
    };
    let Some(m) = moves.get(k) else {
        return Marks::default();
    };
    let conflicts: Vec<u32> = m.neighbours.iter().map(|n| n.tensor).collect();
    let mut emphasised = conflicts.clone();
    emphasised.push(m.tensor);
    Marks {
        step: None,
        emphasised,
        current: Some(m.tensor),
        conflicts,
        placed: Some(moves[..=k].iter().map(|m| m.tensor).collect()),
        ..Marks::default()
    }
}
