//! `naive`: no reuse; tensors laid end to end in declaration order.

use super::{align_up, PackOptions};
use crate::liveness::Buffer;

pub fn pack(buffers: &[Buffer], opts: PackOptions) -> Vec<u64> {
    let mut top = 0u64;
    buffers
        .iter()
        .map(|b| {
            let at = align_up(top, opts.align);
            top = at + b.size;
            at
        })
        .collect()
}
