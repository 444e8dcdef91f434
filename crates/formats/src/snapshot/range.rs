//! Part of a long trace: the entries `from..to` as a snapshot of their own, as if
//! recording had started at `from` and stopped before `to`. A block or segment
//! alive at `from` enters as allocated (reserved) before recording, from step 0; one
//! still alive at the last entry kept stays to the end, not freed. A part that
//! would end on the `segment_alloc` (or `segment_map`) entries the allocator wrote
//! for the request just after it ends before them.

use super::{at_step, Snapshot};
use memplan::error::Error;

/// Entries `from..to` of a trace, `to` excluded (`None`: to the end), as
/// `--entries A..B` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entries {
    pub from: u32,
    pub to: Option<u32>,
}

impl Entries {
    /// `A..B`, `A..` or `..B`: entry indices, `B` excluded.
    pub fn parse(text: &str) -> Result<Entries, Error> {
        let bad = || {
            Error::usage(format!(
                "`{text}` is not a range of entries: A..B, A.. or ..B (entry indices, B excluded)"
            ))
        };
        let (a, b) = text.split_once("..").ok_or_else(bad)?;
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
        let from = if a.trim().is_empty() { 0 } else { number(a)? };
        let to = if b.trim().is_empty() {
            None
        } else {
            Some(number(b)?)
        };
        if to.is_some_and(|to| to <= from) {
            return Err(Error::usage(format!(
                "entries `{text}`: the range is empty (B must be above A)"
            )));
        }
        Ok(Entries { from, to })
    }
}

impl Snapshot {
    /// [`Snapshot::entries`] when a range is given, else the whole trace.
    pub fn within(self, range: Option<Entries>) -> Result<Snapshot, Error> {
        match range {
            Some(r) => self.entries(r),
            None => Ok(self),
        }
    }

    /// The entries `range` of this trace as a snapshot of their own (see the
    /// module); an error when the range starts past the last entry.
    pub fn entries(mut self, range: Entries) -> Result<Snapshot, Error> {
        let (from, steps) = (range.from, self.steps);
        if from >= steps {
            return Err(Error::usage(format!(
                "entries {from}..: the trace has {steps} entries (0..{steps})"
            )));
        }
        let mut to = range.to.unwrap_or(steps).min(steps);
        // a part ends after a request, not between it and the cudaMalloc (or the
        // maps) made for it, which the trace writes first
        let adds = |step: u32| {
            let k = self.segment_events.partition_point(|e| e.step < step);
            self.segment_events
                .get(k)
                .is_some_and(|e| e.step == step && e.kind.adds())
        };
        while to < steps && to - 1 > from && adds(to - 1) {
            to -= 1;
        }
        let last = to - from - 1;
        let inside = |s: u32| (from..to).contains(&s);
        let shift = |s: u32| s.saturating_sub(from);
        // segments reserved at some entry kept, renumbered
        let mut new_index = vec![u32::MAX; self.segments.len()];
        let mut segments = Vec::new();
        for (k, mut s) in std::mem::take(&mut self.segments).into_iter().enumerate() {
            if s.end < from || s.start >= to {
                continue;
            }
            new_index[k] = segments.len() as u32;
            s.start = shift(s.start);
            s.end = if s.end >= to { last } else { shift(s.end) };
            segments.push(s);
        }
        self.segments = segments;
        self.blocks.retain(|b| b.end >= from && b.start < to);
        for b in &mut self.blocks {
            if b.start < from {
                b.allocated_in_trace = false;
            }
            b.start = shift(b.start);
            if b.end >= to {
                b.end = last;
                b.freed = false;
            } else {
                b.end = shift(b.end);
            }
            b.free_requested = b.free_requested.filter(|&s| inside(s)).map(shift);
            b.segment = b
                .segment
                .and_then(|k| new_index.get(k as usize).copied())
                .filter(|&k| k != u32::MAX);
        }
        let mut reserved = vec![(0, at_step(&self.reserved, from))];
        reserved.extend(
            (self.reserved.iter())
                .filter(|&&(s, _)| s > from && s < to)
                .map(|&(s, bytes)| (shift(s), bytes)),
        );
        self.reserved = reserved;
        self.segment_events.retain(|e| inside(e.step));
        for e in &mut self.segment_events {
            e.step = shift(e.step);
        }
        self.failed_requests.retain(|&(s, _, _)| inside(s));
        for r in &mut self.failed_requests {
            r.0 = shift(r.0);
        }
        self.oom = self.oom.take().filter(|o| inside(o.step)).map(|mut o| {
            o.step = shift(o.step);
            o
        });
        self.times_us = self
            .times_us
            .get(from as usize..to as usize)
            .unwrap_or(&[])
            .to_vec();
        self.steps = to - from;
        self.first += from;
        self.overlap = super::overlap(&self);
        self.notes.push(format!(
            "entries {from}..{to} of {steps}: the blocks and segments alive at entry {from} enter as allocated before recording"
        ));
        Ok(self)
    }
}
