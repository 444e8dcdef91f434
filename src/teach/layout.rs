//! The interference graph as a picture: a node per buffer, an edge per pair alive at
//! a common step, laid out by a deterministic force simulation (Fruchterman and
//! Reingold's, started from a circle in birth order) and turned so that its longer
//! side lies across. Graphs above [`DRAW_LIMIT`] buffers are only summarised.

use crate::interference::{birth_order, edges, max_clique};
use crate::liveness::Buffer;
use serde::{Deserialize, Serialize};

/// The most buffers drawn as a graph; beyond it the picture is a summary.
pub const DRAW_LIMIT: usize = 60;

/// Edges counted for the summary before stopping.
const EDGE_LIMIT: usize = 1_000_000;

/// A node of the picture: a tensor id at `x`, `y` (both within `-1..=1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub tensor: u32,
    pub x: f64,
    pub y: f64,
}

/// The interference graph laid out, or summarised when too large to draw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagram {
    /// Nodes in buffer order; empty when summarised.
    pub nodes: Vec<Node>,
    /// Edges as tensor-id pairs; empty when summarised.
    pub edges: Vec<(u32, u32)>,
    pub tensors: usize,
    pub edge_count: usize,
    /// True when `edge_count` stopped at the counting limit.
    pub edges_truncated: bool,
    /// The most buffers alive together: no colouring uses fewer pools.
    pub clique: usize,
    pub summarised: bool,
}

/// The interference graph of `buffers`, laid out when it has at most [`DRAW_LIMIT`] nodes.
pub fn diagram(buffers: &[Buffer]) -> Diagram {
    let (pairs, edges_truncated) = edges(buffers, EDGE_LIMIT);
    let summarised = buffers.len() > DRAW_LIMIT;
    let (nodes, edges) = if summarised {
        (Vec::new(), Vec::new())
    } else {
        let at = layout(buffers, &pairs);
        let nodes = buffers
            .iter()
            .zip(at)
            .map(|(b, (x, y))| Node {
                tensor: b.tensor.0,
                x,
                y,
            })
            .collect();
        let id = |i: u32| buffers[i as usize].tensor.0;
        (nodes, pairs.iter().map(|&(a, b)| (id(a), id(b))).collect())
    };
    Diagram {
        nodes,
        edges,
        tensors: buffers.len(),
        edge_count: pairs.len(),
        edges_truncated,
        clique: max_clique(buffers),
        summarised,
    }
}

/// Positions (buffer order) within `-1..=1`, longer side across.
fn layout(buffers: &[Buffer], pairs: &[(u32, u32)]) -> Vec<(f64, f64)> {
    let n = buffers.len();
    if n == 0 {
        return Vec::new();
    }
    let mut at = vec![(0.0, 0.0); n];
    for (k, &i) in birth_order(buffers).iter().enumerate() {
        let a = std::f64::consts::TAU * k as f64 / n as f64;
        at[i as usize] = (a.cos(), a.sin());
    }
    if n > 2 {
        relax(&mut at, pairs);
    }
    level(&mut at);
    at
}

/// Fruchterman-Reingold: nodes repel, edges pull, a weak pull to the centre keeps
/// parts together; the step shrinks each round.
fn relax(at: &mut [(f64, f64)], pairs: &[(u32, u32)]) {
    const ROUNDS: usize = 300;
    let n = at.len();
    let k = 2.0 / (n as f64).sqrt();
    let mut moves = vec![(0.0, 0.0); n];
    for round in 0..ROUNDS {
        moves.iter_mut().for_each(|m| *m = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (dx, dy) = (at[i].0 - at[j].0, at[i].1 - at[j].1);
                let d2 = (dx * dx + dy * dy).max(1e-9);
                let f = k * k / d2;
                moves[i].0 += dx * f;
                moves[i].1 += dy * f;
                moves[j].0 -= dx * f;
                moves[j].1 -= dy * f;
            }
        }
        for &(a, b) in pairs {
            let (a, b) = (a as usize, b as usize);
            let (dx, dy) = (at[a].0 - at[b].0, at[a].1 - at[b].1);
            let d = (dx * dx + dy * dy).sqrt();
            let f = d / k;
            moves[a].0 -= dx * f;
            moves[a].1 -= dy * f;
            moves[b].0 += dx * f;
            moves[b].1 += dy * f;
        }
        let heat = 0.2 * (1.0 - round as f64 / ROUNDS as f64) + 0.002;
        for (p, m) in at.iter_mut().zip(&moves) {
            let m = (m.0 - p.0 * k * 0.5, m.1 - p.1 * k * 0.5);
            let len = (m.0 * m.0 + m.1 * m.1).sqrt().max(1e-12);
            let step = len.min(heat);
            p.0 += m.0 / len * step;
            p.1 += m.1 / len * step;
        }
    }
}

/// Centres the points, turns their main axis across, and scales the longer side to `-1..=1`.
fn level(at: &mut [(f64, f64)]) {
    let n = at.len() as f64;
    let (cx, cy) = at
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.0 / n, y + p.1 / n));
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in at.iter_mut() {
        *p = (p.0 - cx, p.1 - cy);
        sxx += p.0 * p.0;
        sxy += p.0 * p.1;
        syy += p.1 * p.1;
    }
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    let (s, c) = angle.sin_cos();
    for p in at.iter_mut() {
        *p = (p.0 * c + p.1 * s, -p.0 * s + p.1 * c);
    }
    let reach = at
        .iter()
        .fold(0.0f64, |r, p| r.max(p.0.abs()).max(p.1.abs()));
    if reach > 0.0 {
        for p in at.iter_mut() {
            *p = (p.0 / reach, p.1 / reach);
        }
    }
}
