//! The allocator's real layout as a plan: every block at its address, with the
//! address ranges no segment ever held squeezed out, so that the segments stand
//! stacked in address order and the same charts and the same checker serve the
//! allocator's layout and memplan's plan alike.

use super::Snapshot;
use memplan::Plan;
use serde::Serialize;

/// An address range some segment held at some time, and where it starts in the
/// squeezed layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    pub addr: u64,
    pub size: u64,
    pub offset: u64,
}

impl Snapshot {
    /// The address ranges of the segments (and of any block outside them), merged
    /// where they touch, in address order, each with its squeezed offset.
    pub fn regions(&self) -> Vec<Region> {
        let ranges: Vec<(u64, u64)> = (self.segments.iter().map(|s| (s.addr, s.addr + s.size)))
            .chain(
                (self.blocks.iter().filter(|b| b.segment.is_none()))
                    .map(|b| (b.addr, b.addr + b.size)),
            )
            .collect();
        regions(ranges)
    }

    /// `plan` (a plan of [`Snapshot::graph`]) with each block moved to its squeezed
    /// address: what the caching allocator did, as a plan.
    pub fn layout(&self, plan: &Plan) -> Plan {
        let addrs: Vec<u64> = self.blocks.iter().map(|b| b.addr).collect();
        layout_at(plan, &addrs, &self.regions(), "pytorch")
    }
}

/// Address ranges `[lo, hi)` merged where they touch, in address order, each with
/// its squeezed offset.
pub fn regions(mut ranges: Vec<(u64, u64)>) -> Vec<Region> {
    ranges.sort_unstable();
    let mut out: Vec<Region> = Vec::new();
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(r) if lo <= r.addr + r.size => r.size = r.size.max(hi - r.addr),
            _ => {
                let offset = out.last().map_or(0, |r| r.offset + r.size);
                out.push(Region {
                    addr: lo,
                    size: hi - lo,
                    offset,
                });
            }
        }
    }
    out
}

/// `plan` with tensor `i` at address `addrs[i]` squeezed by `regions` (which hold
/// every address), named `strategy`: an allocator's layout as a plan.
pub fn layout_at(plan: &Plan, addrs: &[u64], regions: &[Region], strategy: &str) -> Plan {
    let squeeze = |addr: u64| {
        let i = regions
            .partition_point(|r| r.addr <= addr)
            .saturating_sub(1);
        regions
            .get(i)
            .map_or(0, |r| r.offset + addr.saturating_sub(r.addr))
    };
    let mut layout = plan.clone();
    layout.strategy = strategy.into();
    for t in &mut layout.tensors {
        t.offset = squeeze(addrs[t.id as usize]);
    }
    layout.peak_bytes = (layout.tensors.iter())
        .map(|t| t.offset + t.size)
        .max()
        .unwrap_or(0);
    layout.proven_optimal = false;
    layout
}
