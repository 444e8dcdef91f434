//! A snapshot in the shapes a viewer draws it from: each block's details as
//! columns (one entry per block, so a page hovers any block without asking for
//! it), the frames as text, and the offsets where the squeezed layout passes from
//! one address region to the next.

use super::Snapshot;
use serde::Serialize;

/// Each block's details, one entry per block in block order (tensor `i` of
/// [`Snapshot::graph`] is entry `i`). Numbers are `f64` (addresses and sizes stay
/// below 2^53), so each column crosses to a viewer as one typed array.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Columns {
    pub addr: Vec<f64>,
    pub requested: Vec<f64>,
    pub stream: Vec<f64>,
    /// An index into [`Snapshot::stacks`], or -1 for a block recorded without one.
    pub stack: Vec<i32>,
    /// The times of the block's first and last step, in microseconds from the
    /// first entry.
    pub start_us: Vec<f64>,
    pub end_us: Vec<f64>,
}

impl Snapshot {
    /// Every block's address, request, stream, stack and times, as columns.
    pub fn columns(&self) -> Columns {
        let mut c = Columns::default();
        for b in &self.blocks {
            c.addr.push(b.addr as f64);
            c.requested.push(b.requested as f64);
            c.stream.push(b.stream as f64);
            c.stack.push(b.stack.map_or(-1, |s| s as i32));
            c.start_us.push(self.time_us(b.start) as f64);
            c.end_us.push(self.time_us(b.end) as f64);
        }
        c
    }

    /// Each frame as `name (file:line)`, by frame index.
    pub fn frame_texts(&self) -> Vec<String> {
        self.frames.iter().map(ToString::to_string).collect()
    }

    /// Where each address region after the first starts in [`Snapshot::layout`]:
    /// the lines between regions that were never one range of addresses.
    pub fn boundaries(&self) -> Vec<u64> {
        self.regions().iter().skip(1).map(|r| r.offset).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::snapshot::{Block, Frame, Segment, Snapshot};

    fn block(addr: u64, size: u64, start: u32, end: u32, stack: Option<u32>) -> Block {
        Block {
            addr,
            size,
            requested: size - 10,
            stream: 7,
            start,
            end,
            allocated_in_trace: true,
            free_requested: None,
            freed: true,
            stack,
            segment: Some(0),
        }
    }

    fn segment(addr: u64, size: u64) -> Segment {
        Segment {
            addr,
            size,
            stream: 7,
            start: 0,
            end: 3,
            expandable: false,
            pool: None,
            small: false,
        }
    }

    #[test]
    fn columns_frames_and_boundaries_follow_the_blocks_and_regions() {
        let snap = Snapshot {
            steps: 4,
            times_us: vec![100, 150, 400, 1100],
            blocks: vec![
                block(4096, 1024, 1, 2, Some(0)),
                block(1 << 40, 2048, 0, 3, None),
            ],
            segments: vec![segment(4096, 4096), segment(1 << 40, 8192)],
            frames: vec![Frame {
                name: "forward".into(),
                filename: "model.py".into(),
                line: 12,
            }],
            stacks: vec![vec![0]],
            ..Snapshot::default()
        };
        let c = snap.columns();
        assert_eq!(c.addr, [4096.0, (1u64 << 40) as f64]);
        assert_eq!(c.requested, [1014.0, 2038.0]);
        assert_eq!(c.stream, [7.0, 7.0]);
        assert_eq!(c.stack, [0, -1]);
        assert_eq!(c.start_us, [50.0, 0.0]);
        assert_eq!(c.end_us, [300.0, 1000.0]);
        assert_eq!(snap.frame_texts(), ["forward (model.py:12)"]);
        // the second region starts where the first (4 KiB) ends in the squeezed layout
        assert_eq!(snap.boundaries(), [4096]);
    }
}
