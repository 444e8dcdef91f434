//! Problem 1 measures: the peak of L1 + UB over the case's ALLOC and FREE nodes in
//! schedule order (spill nodes ignored), and the rule of one buffer at a time per L0
//! level (every level whose name starts with `L0`).

use super::{Kind, NpuViolation, Run, Schedule, Sink};
use crate::case::BufferId;

pub(super) fn p1_peak(run: &Run, schedule: &Schedule) -> u64 {
    let counted: Vec<bool> = run
        .case
        .levels
        .iter()
        .map(|l| l.name == "L1" || l.name == "UB")
        .collect();
    let size = |b: BufferId| {
        let buf = run.case.buffer(b);
        if counted[buf.level.index()] {
            buf.size
        } else {
            0
        }
    };
    let (mut now, mut peak) = (0u64, 0u64);
    for &id in &schedule.order {
        match run.kind(id) {
            Kind::Alloc(b) => {
                now += size(b);
                peak = peak.max(now);
            }
            Kind::Free(b) => now = now.saturating_sub(size(b)),
            _ => {}
        }
    }
    peak
}

/// The first clash of an L0 level: at which position, which node, which buffers.
struct Clash {
    position: u32,
    node: u32,
    buf: BufferId,
    other: BufferId,
    count: usize,
}

/// One violation per L0 level where an ALLOC finds another buffer alive, naming the
/// first such ALLOC and counting them all; levels in the order of their first clash.
pub(super) fn check_l0(run: &Run, schedule: &Schedule, sink: &mut Sink) {
    let levels = &run.case.levels;
    let is_l0: Vec<bool> = levels.iter().map(|l| l.name.starts_with("L0")).collect();
    let mut alive: Vec<Vec<BufferId>> = vec![Vec::new(); levels.len()];
    let mut clashes: Vec<Option<Clash>> = (0..levels.len()).map(|_| None).collect();
    for &id in &schedule.order {
        match run.kind(id) {
            Kind::Alloc(b) => {
                let level = run.case.buffer(b).level.index();
                if !is_l0[level] {
                    continue;
                }
                if let Some(&other) = alive[level].first() {
                    let clash = clashes[level].get_or_insert(Clash {
                        position: schedule.pos[id as usize].unwrap(),
                        node: id,
                        buf: b,
                        other,
                        count: 0,
                    });
                    clash.count += 1;
                }
                alive[level].push(b);
            }
            Kind::Free(b) => {
                let level = run.case.buffer(b).level.index();
                if let Some(i) = alive[level].iter().position(|&x| x == b) {
                    alive[level].swap_remove(i);
                }
            }
            _ => {}
        }
    }
    let mut found: Vec<(usize, Clash)> = clashes
        .into_iter()
        .enumerate()
        .filter_map(|(level, c)| c.map(|c| (level, c)))
        .collect();
    found.sort_by_key(|(_, c)| c.position);
    for (level, c) in found {
        sink.push(|| NpuViolation::L0Shared {
            level: levels[level].name.clone(),
            first_node: c.node,
            buf: run.buf_id(c.buf),
            other: run.buf_id(c.other),
            count: c.count,
        });
    }
}
