//! Two runs side by side (`memplan compare`, the page's second snapshot): each
//! one's settings and figures, and the allocating frames whose bytes at the live
//! peak changed most.

use crate::conf::AllocConf;
use memplan_formats::snapshot::Snapshot;
use serde::Serialize;
use std::collections::BTreeMap;

/// How many frames a comparison lists.
const FRAMES: usize = 12;

/// One run's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    pub name: String,
    pub entries: u32,
    /// The recorded settings, in `PYTORCH_CUDA_ALLOC_CONF`'s syntax.
    pub settings: String,
    pub live_peak: u64,
    pub reserved_peak: u64,
    pub unused_at_reserved_peak: u64,
    /// `cudaMalloc` calls and page mappings in the trace.
    pub segments: usize,
    /// The entry of the first `oom`, if any.
    pub oom: Option<u32>,
}

/// One allocating frame's bytes at each run's live peak.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameChange {
    pub frame: String,
    pub a: u64,
    pub b: u64,
    pub change: i128,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub a: Side,
    pub b: Side,
    /// The frames whose bytes changed, the largest change first.
    pub frames: Vec<FrameChange>,
}

/// A run's figures, named `name`.
pub fn side(snap: &Snapshot, name: &str) -> Side {
    let f = snap.figures();
    let settings = match &snap.settings {
        Some(s) => AllocConf::recorded(s).map_or("(unreadable)".into(), |c| match c.to_string() {
            t if t.is_empty() => "torch's defaults".into(),
            t => t,
        }),
        None => "(not recorded)".into(),
    };
    Side {
        name: name.to_string(),
        entries: snap.steps,
        settings,
        live_peak: f.live_peak,
        reserved_peak: f.reserved_peak,
        unused_at_reserved_peak: f.unused_at_reserved_peak,
        segments: snap.segment_events.iter().filter(|e| e.kind.adds()).count(),
        oom: snap.oom.as_ref().map(|o| o.step),
    }
}

/// Runs `a` and `b` side by side.
pub fn compare(a: &Snapshot, name_a: &str, b: &Snapshot, name_b: &str) -> Comparison {
    let mut frames: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (k, snap) in [a, b].into_iter().enumerate() {
        for h in snap.holders(snap.figures().live_peak_step) {
            let name = h
                .frame
                .map_or("(no stack)".into(), |f| snap.frames[f as usize].to_string());
            let e = frames.entry(name).or_default();
            if k == 0 {
                e.0 += h.bytes;
            } else {
                e.1 += h.bytes;
            }
        }
    }
    let mut frames: Vec<FrameChange> = (frames.into_iter())
        .map(|(frame, (a, b))| FrameChange {
            frame,
            a,
            b,
            change: b as i128 - a as i128,
        })
        .filter(|c| c.change != 0)
        .collect();
    frames.sort_by(|x, y| {
        (y.change.unsigned_abs(), &x.frame).cmp(&(x.change.unsigned_abs(), &y.frame))
    });
    frames.truncate(FRAMES);
    Comparison {
        a: side(a, name_a),
        b: side(b, name_b),
        frames,
    }
}
