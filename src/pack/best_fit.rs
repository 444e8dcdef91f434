//! `best-fit`: XLA's global decreasing-size best-fit heap. Two visit orders, spatial
//! (size, then duration, both decreasing) and temporal (duration, then size), each
//! placing buffers in the smallest fitting gap; the lower peak wins (spatial on ties).

use super::fit::Place;
use super::Fit;
use super::{peak, PackOptions};
use crate::liveness::Buffer;
use std::cmp::Reverse;

pub fn pack(buffers: &[Buffer], opts: PackOptions, place: Place) -> Vec<u64> {
    let ids = || (0..buffers.len() as u32).collect::<Vec<u32>>();
    let mut spatial = ids();
    spatial.sort_by_key(|&i| {
        let b = &buffers[i as usize];
        (Reverse(b.size), Reverse(b.life.duration()), i)
    });
    let mut temporal = ids();
    temporal.sort_by_key(|&i| {
        let b = &buffers[i as usize];
        (Reverse(b.life.duration()), Reverse(b.size), i)
    });
    let a = place(buffers, &spatial, Fit::Best, opts);
    let b = place(buffers, &temporal, Fit::Best, opts);
    if peak(buffers, &b) < peak(buffers, &a) {
        b
    } else {
        a
    }
}
