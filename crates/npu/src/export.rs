//! A solution in the forms others read: the contest's exchange files and a JSON
//! view for the visualizer (residencies per level, spills, per-pipe timing).

use super::case::{Case, Node, Pipe};
use super::problem::Problem;
use super::solve::{Method, Solution};
use crate::contest::ContestFiles;
use serde::{Deserialize, Serialize};

/// The contest files of `solution`: schedule, first offsets, spill offsets.
pub fn contest_files(case: &Case, solution: &Solution) -> ContestFiles {
    let plan = &solution.plan;
    let placed = solution.problem.places();
    ContestFiles {
        schedule: plan.schedule.iter().map(|&n| u64::from(n.0)).collect(),
        memory: if placed {
            case.buffers
                .iter()
                .zip(&plan.offsets)
                .map(|(b, &o)| (b.buf_id, o))
                .collect()
        } else {
            Vec::new()
        },
        spills: plan
            .spills
            .iter()
            .map(|s| (case.buffer(s.buffer).buf_id, s.new_offset))
            .collect(),
    }
}

/// What the visualizer draws of a solution; the page's worker writes it as JSON
/// and the page reads it back to draw.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct View {
    pub case: String,
    pub problem: Problem,
    pub method: Method,
    pub recipe: String,
    pub p1_peak: u64,
    pub spills: usize,
    pub extra_movement: u64,
    pub makespan: Option<u64>,
    pub steps: usize,
    pub levels: Vec<LevelView>,
    pub nodes: Vec<NodeView>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LevelView {
    pub name: String,
    pub capacity: u64,
    pub residencies: Vec<ResidencyView>,
    pub spills: Vec<SpillView>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResidencyView {
    pub buffer: u64,
    pub offset: u64,
    pub size: u64,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpillView {
    pub buffer: u64,
    pub bytes: u64,
    pub out_step: u32,
    pub in_step: u32,
    pub new_offset: u64,
}

/// One scheduled node: its id (a [`NodeId`](super::NodeId)'s number), what it is, its
/// pipe and cycles (`None` for ALLOC/FREE).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeView {
    pub id: u32,
    pub op: String,
    pub pipe: Option<Pipe>,
    pub start: Option<u64>,
    pub end: Option<u64>,
}

pub fn view(case: &Case, solution: &Solution) -> View {
    let plan = &solution.plan;
    let mut levels: Vec<LevelView> = case
        .levels
        .iter()
        .map(|l| LevelView {
            name: l.name.clone(),
            capacity: l.capacity,
            residencies: Vec::new(),
            spills: Vec::new(),
        })
        .collect();
    for r in &plan.residencies {
        let b = case.buffer(r.buffer);
        levels[b.level.index()].residencies.push(ResidencyView {
            buffer: b.buf_id,
            offset: r.offset,
            size: b.size,
            start: r.start,
            end: r.end,
        });
    }
    for s in &plan.spills {
        let b = case.buffer(s.buffer);
        levels[b.level.index()].spills.push(SpillView {
            buffer: b.buf_id,
            bytes: s.cost,
            out_step: s.out_pos,
            in_step: s.in_pos,
            new_offset: s.new_offset,
        });
    }
    let n = case.nodes.len();
    let nodes = plan
        .schedule
        .iter()
        .enumerate()
        .map(|(p, &id)| {
            let op = match case.nodes.get(id.index()) {
                Some(Node::Alloc(_)) => "ALLOC".to_string(),
                Some(Node::Free(_)) => "FREE".to_string(),
                Some(Node::Op(o)) => o.op.clone(),
                None if (id.index() - n).is_multiple_of(2) => "SPILL_OUT".to_string(),
                None => "SPILL_IN".to_string(),
            };
            let timing = solution.timing.as_ref();
            NodeView {
                id: id.0,
                op,
                pipe: timing.and_then(|t| t.pipe[p]),
                start: timing.map(|t| t.start[p]),
                end: timing.map(|t| t.finish[p]),
            }
        })
        .collect();
    View {
        case: case.name.clone(),
        problem: solution.problem,
        method: solution.method,
        recipe: solution.recipe.clone(),
        p1_peak: solution.p1_peak,
        spills: plan.spills.len(),
        extra_movement: solution.extra_movement(),
        makespan: solution.makespan(),
        steps: plan.schedule.len(),
        levels,
        nodes,
    }
}
