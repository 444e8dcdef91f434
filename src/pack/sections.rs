//! Time split into sections for the exact search: a section is a maximal range of
//! steps in which the same buffers are live. Each buffer spans a contiguous range
//! of sections; two buffers overlap in time exactly when their ranges intersect.

use crate::liveness::Buffer;

/// The buffers of one packing problem (only those with bytes), by section.
pub(super) struct Sections {
    /// Index into the caller's buffers, by problem buffer.
    pub id: Vec<u32>,
    pub size: Vec<u64>,
    /// Steps of each buffer's life.
    pub length: Vec<u64>,
    /// Sections spanned: `lo[b]..hi[b]`.
    pub lo: Vec<u32>,
    pub hi: Vec<u32>,
    /// Buffers overlapping each buffer in time (itself excluded).
    pub overlaps: Vec<Vec<u32>>,
    /// Buffers live in each section.
    pub members: Vec<Vec<u32>>,
}

impl Sections {
    /// Offsets by the caller's buffer (`count` of them) from offsets by problem
    /// buffer; buffers without bytes, left out of the problem, at 0.
    pub fn offsets_by_buffer(&self, fit: &[u64], count: usize) -> Vec<u64> {
        let mut offsets = vec![0u64; count];
        for (&i, &at) in self.id.iter().zip(fit) {
            offsets[i as usize] = at;
        }
        offsets
    }

    /// None when the problem is too large for the search (pairwise overlaps or
    /// section memberships past `limit` entries).
    pub fn new(buffers: &[Buffer], limit: usize) -> Option<Sections> {
        let id: Vec<u32> = (0..buffers.len() as u32)
            .filter(|&i| buffers[i as usize].size > 0)
            .collect();
        let mut cuts: Vec<u64> = id
            .iter()
            .flat_map(|&i| {
                let l = buffers[i as usize].life;
                [u64::from(l.start), u64::from(l.end) + 1]
            })
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let at = |t: u64| cuts.binary_search(&t).expect("a cut") as u32;
        let lo: Vec<u32> = id
            .iter()
            .map(|&i| at(u64::from(buffers[i as usize].life.start)))
            .collect();
        let hi: Vec<u32> = id
            .iter()
            .map(|&i| at(u64::from(buffers[i as usize].life.end) + 1))
            .collect();
        let size: Vec<u64> = id.iter().map(|&i| buffers[i as usize].size).collect();
        let length: Vec<u64> = id
            .iter()
            .map(|&i| buffers[i as usize].life.duration())
            .collect();
        let n_sections = cuts.len().saturating_sub(1);
        let spans: usize = lo.iter().zip(&hi).map(|(&l, &h)| (h - l) as usize).sum();
        if spans > limit {
            return None;
        }
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_sections];
        for b in 0..id.len() {
            for s in lo[b]..hi[b] {
                members[s as usize].push(b as u32);
            }
        }
        let overlaps = overlaps(&lo, &hi, limit)?;
        Some(Sections {
            id,
            size,
            length,
            lo,
            hi,
            overlaps,
            members,
        })
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn sections(&self) -> usize {
        self.members.len()
    }
}

/// Pairs of intersecting ranges, by a sweep over starts; None past `limit` pairs.
fn overlaps(lo: &[u32], hi: &[u32], limit: usize) -> Option<Vec<Vec<u32>>> {
    let mut by_start: Vec<u32> = (0..lo.len() as u32).collect();
    by_start.sort_unstable_by_key(|&b| lo[b as usize]);
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); lo.len()];
    let mut live: Vec<u32> = Vec::new();
    let mut pairs = 0usize;
    for &b in &by_start {
        live.retain(|&a| hi[a as usize] > lo[b as usize]);
        for &a in &live {
            out[a as usize].push(b);
            out[b as usize].push(a);
        }
        pairs += live.len();
        if pairs > limit {
            return None;
        }
        live.push(b);
    }
    Some(out)
}
