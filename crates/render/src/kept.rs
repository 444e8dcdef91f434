//! What a raster keeps of the time-by-address chart's last paint of it ([`Kept`]),
//! and the packed tensor ([`Slot`]) that the chart draws and keeps. A module of its
//! own so that the raster, which holds a `Kept`, imports nothing of the chart that
//! paints into it (the chart imports the raster).

use memplan::plan::Placement;

/// What drawing needs of a tensor, packed and in drawing order so that a loop over a
/// million of them reads memory in sequence.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) offset: u64,
    pub(crate) size: u64,
    /// Colour number: the pool, or another key the index was made with.
    pub(crate) pool: u32,
    pub(crate) id: u32,
    /// Position in the plan's tensors.
    pub(crate) index: u32,
}

impl Slot {
    pub(crate) fn of(index: usize, t: &Placement) -> Slot {
        Slot {
            start: t.start,
            end: t.end,
            offset: t.offset,
            size: t.size,
            pool: t.pool,
            id: t.id,
            index: index as u32,
        }
    }
}

/// What a raster of the time-by-address chart holds beyond its pixels: how they
/// were painted, so that the next paint can tell whether it may shift them rather
/// than start over.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) key: Key,
    pub(crate) origin: (i32, i32),
    /// The tensors whose names may fit in their boxes, and the chosen one.
    pub(crate) named: Vec<Slot>,
}

/// Everything but the window's origin that a painted raster depends on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Key {
    pub(crate) index: u64,
    pub(crate) size: (u32, u32),
    pub(crate) plot: (i32, i32, i32, i32),
    pub(crate) per_step: u64,
    pub(crate) per_byte: u64,
    /// Bytes between grid lines.
    pub(crate) grid: u64,
    pub(crate) scale: u64,
    pub(crate) highlight: Option<u64>,
}
