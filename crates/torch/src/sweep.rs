//! The settings people reach for, each replayed: the recorded ones,
//! `expandable_segments` switched, `max_split_size_mb` at several sizes,
//! `roundup_power2_divisions` at several values, a few combinations, and with a
//! cap `garbage_collection_threshold`. One row each, and the answer in one line.

use crate::conf::AllocConf;
use crate::replay::{baseline, recorded_conf, replay, Replay};
use memplan::error::Error;
use memplan_formats::format_size;
use memplan_formats::snapshot::Snapshot;
use serde::Serialize;

/// A sweep's rows and its answer.
#[derive(Clone, Debug, Serialize)]
pub struct Sweep {
    /// The recorded settings first; each row without its reserved curve.
    pub rows: Vec<Replay>,
    pub capacity: Option<u64>,
    /// The most bytes alive at once: no allocator reserves less.
    pub live_peak: u64,
    /// memplan's plan of the same blocks, when it was made.
    pub plan_peak: Option<u64>,
    /// For a run that failed under `capacity`: the recorded settings' reserved peak
    /// with no cap (a cap at least this finishes).
    pub uncapped_peak: Option<u64>,
    /// The row with the lowest reserved peak among those that finish.
    pub best: Option<usize>,
    pub answer: String,
}

/// The settings a sweep tries, the recorded ones first, without repeats.
pub fn candidates(recorded: &AllocConf, capacity: Option<u64>) -> Vec<AllocConf> {
    let with = |text: &str| {
        let mut c = recorded.clone();
        c.apply(text).ok().map(|_| c)
    };
    let mut list = vec![recorded.clone()];
    let toggle = if recorded.expandable_segments {
        "expandable_segments:False"
    } else {
        "expandable_segments:True"
    };
    let mut texts: Vec<String> = vec![toggle.to_string()];
    for mb in [64, 128, 256, 512] {
        texts.push(format!("max_split_size_mb:{mb}"));
    }
    for d in [2, 4, 8, 16] {
        texts.push(format!("roundup_power2_divisions:{d}"));
    }
    texts.push("max_split_size_mb:128,roundup_power2_divisions:4".into());
    texts.push(format!("{toggle},roundup_power2_divisions:4"));
    if capacity.is_some() {
        texts.push("garbage_collection_threshold:0.6".into());
        texts.push("garbage_collection_threshold:0.6,max_split_size_mb:128".into());
    }
    for t in texts {
        if let Some(c) = with(&t) {
            if !list.contains(&c) {
                list.push(c);
            }
        }
    }
    list
}

/// Replays `snap` under each of [`candidates`] with at most `capacity` reserved.
pub fn sweep(
    snap: &Snapshot,
    capacity: Option<u64>,
    plan_peak: Option<u64>,
) -> Result<Sweep, Error> {
    let recorded = recorded_conf(snap, &mut Vec::new())?;
    let first = baseline(snap, capacity)?;
    let empties = first.empties.clone();
    let mut rows = vec![first];
    for conf in candidates(&recorded, capacity).into_iter().skip(1) {
        rows.push(replay(snap, Some(&conf), capacity, Some(&empties))?);
    }
    for r in &mut rows {
        r.reserved.clear();
    }
    let live_peak = snap.figures().live_peak;
    let failed = rows[0].oom.is_some() || snap.oom.is_some();
    let uncapped_peak = match (failed, capacity) {
        (true, Some(_)) => Some(replay(snap, None, None, Some(&empties))?.reserved_peak),
        _ => None,
    };
    let best = (0..rows.len())
        .filter(|&i| rows[i].oom.is_none())
        .min_by_key(|&i| (rows[i].reserved_peak, i));
    let answer = answer(&rows, best, capacity, failed, uncapped_peak);
    Ok(Sweep {
        rows,
        capacity,
        live_peak,
        plan_peak,
        uncapped_peak,
        best,
        answer,
    })
}

/// A setting's name for people: its text, or torch's defaults.
pub fn label(r: &Replay) -> String {
    match r.alloc_conf.as_str() {
        "" => "torch's defaults".into(),
        t => t.to_string(),
    }
}

fn answer(
    rows: &[Replay],
    best: Option<usize>,
    capacity: Option<u64>,
    failed: bool,
    uncapped: Option<u64>,
) -> String {
    let size = |b: u64| format_size(b);
    let rec = &rows[0];
    if failed {
        let cap = capacity.map_or("the card's memory".into(), size);
        let fits: Vec<&Replay> = rows.iter().filter(|r| r.oom.is_none()).collect();
        return match best {
            Some(b) => format!(
                "{} of {} settings finish under {cap}; the lowest reserved peak: {} at {}",
                fits.len(),
                rows.len(),
                label(&rows[b]),
                size(rows[b].reserved_peak)
            ),
            None => format!(
                "no setting tried finishes under {cap}{}",
                uncapped.map_or(String::new(), |u| format!(
                    "; the recorded settings finish with {} reserved",
                    size(u)
                ))
            ),
        };
    }
    match best {
        Some(0) | None => format!(
            "the recorded settings ({}) already give the lowest reserved peak of those tried, {}",
            label(rec),
            size(rec.reserved_peak)
        ),
        Some(b) => {
            let saved = rec.reserved_peak.saturating_sub(rows[b].reserved_peak);
            format!(
                "lowest reserved peak: {} at {}, {} ({:.1}%) below the recorded settings' {}",
                label(&rows[b]),
                size(rows[b].reserved_peak),
                size(saved),
                100.0 * saved as f64 / rec.reserved_peak.max(1) as f64,
                size(rec.reserved_peak)
            )
        }
    }
}
