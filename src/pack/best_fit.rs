//! `best-fit`: XLA's global decreasing-size best-fit heap. Two visit orders, spatial
//! (size, then duration, both decreasing) and temporal (duration, then size), each
//! placing buffers in the smallest fitting gap; the lower peak wins (spatial on ties).
//! The two passes run side by side where the machine has two cores.

use super::fit::Place;
use super::Fit;
use super::{peak, PackOptions};
use crate::liveness::Buffer;
use crate::pool;
use std::cmp::Reverse;

pub fn pack(buffers: &[Buffer], opts: PackOptions, place: Place) -> Vec<u64> {
    // the two orders are independent: side by side where there is a core for each
    let placed = |key: fn(&Buffer) -> (Reverse<u64>, Reverse<u64>)| {
        move || {
            let mut visit: Vec<u32> = (0..buffers.len() as u32).collect();
            // the key ends with the index, so an unstable sort gives the stable order
            visit.sort_unstable_by_key(|&i| (key(&buffers[i as usize]), i));
            place(buffers, &visit, Fit::Best, opts)
        }
    };
    let spatial = |b: &Buffer| (Reverse(b.size), Reverse(b.life.duration()));
    let temporal = |b: &Buffer| (Reverse(b.life.duration()), Reverse(b.size));
    let (a, b) = pool::both(placed(spatial), placed(temporal));
    if peak(buffers, &b) < peak(buffers, &a) {
        b
    } else {
        a
    }
}
