//! `pools`: the interference colouring, each pool as large as its largest member,
//! pools laid end to end in pool order; a buffer sits at its pool's base.

use super::{align_up, PackOptions};
use crate::interference::colour;
use crate::liveness::Buffer;

pub fn pack(buffers: &[Buffer], opts: PackOptions) -> Vec<u64> {
    let colouring = colour(buffers);
    let mut base = Vec::with_capacity(colouring.pools());
    let mut top = 0u64;
    for &size in &colouring.pool_sizes {
        let at = align_up(top, opts.align);
        base.push(at);
        top = at + size;
    }
    colouring
        .pool_of
        .iter()
        .map(|&p| base[p as usize])
        .collect()
}
