//! Forced orders: the case's graph as a DAG in compressed form, and reachability
//! computed 64 sources at a time, one bit per source in a word per node.

use crate::case::Case;

/// A DAG over `n` nodes in compressed form, with one topological order.
pub(super) struct Dag {
    pub(super) start: Vec<u32>,
    pub(super) succ: Vec<u32>,
    pub(super) topo: Vec<u32>,
}

impl Dag {
    /// `None` when the edges form a cycle.
    pub(super) fn new(n: usize, edges: &[(u32, u32)]) -> Option<Dag> {
        let mut start = vec![0u32; n + 1];
        for &(a, _) in edges {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut succ = vec![0u32; edges.len()];
        let mut indegree = vec![0u32; n];
        for &(a, b) in edges {
            succ[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
            indegree[b as usize] += 1;
        }
        let mut topo: Vec<u32> = (0..n as u32)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut head = 0;
        while head < topo.len() {
            let v = topo[head] as usize;
            head += 1;
            for &s in &succ[start[v] as usize..start[v + 1] as usize] {
                indegree[s as usize] -= 1;
                if indegree[s as usize] == 0 {
                    topo.push(s);
                }
            }
        }
        (topo.len() == n).then_some(Dag { start, succ, topo })
    }

    pub(super) fn succ(&self, v: usize) -> &[u32] {
        &self.succ[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// Bit `i` of word `v` is set when `sources[i] ⪯ v` (a path, or the node itself).
    pub(super) fn reach_from(&self, sources: &[u32]) -> Vec<u64> {
        let mut w = vec![0u64; self.topo.len()];
        for (i, &s) in sources.iter().enumerate() {
            w[s as usize] |= 1 << i;
        }
        for &v in &self.topo {
            let bits = w[v as usize];
            if bits != 0 {
                for &s in self.succ(v as usize) {
                    w[s as usize] |= bits;
                }
            }
        }
        w
    }

    /// Bit `i` of word `v` is set when `v ⪯ targets[i]`.
    pub(super) fn reach_to(&self, targets: &[u32]) -> Vec<u64> {
        let mut w = vec![0u64; self.topo.len()];
        for (i, &t) in targets.iter().enumerate() {
            w[t as usize] |= 1 << i;
        }
        for &v in self.topo.iter().rev() {
            let mut bits = w[v as usize];
            for &s in self.succ(v as usize) {
                bits |= w[s as usize];
            }
            w[v as usize] = bits;
        }
        w
    }
}

pub(super) fn case_edges(case: &Case) -> Vec<(u32, u32)> {
    case.edges.iter().map(|&(a, b)| (a.0, b.0)).collect()
}

/// For each buffer, whether its ALLOC reaches its FREE in `dag`.
pub(super) fn alloc_reaches_free(case: &Case, dag: &Dag) -> Vec<bool> {
    let mut out = vec![false; case.buffers.len()];
    let all: Vec<usize> = (0..case.buffers.len()).collect();
    for chunk in all.chunks(64) {
        let allocs: Vec<u32> = chunk.iter().map(|&b| case.buffers[b].alloc.0).collect();
        let w = dag.reach_from(&allocs);
        for (i, &b) in chunk.iter().enumerate() {
            out[b] = w[case.buffers[b].free.index()] >> i & 1 == 1;
        }
    }
    out
}

/// A set of buffers (indices into a list) as bits.
#[derive(Clone)]
pub(super) struct Bits(pub(super) Vec<u64>);

impl Bits {
    pub(super) fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    pub(super) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    pub(super) fn and(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }
    pub(super) fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |i| word >> i & 1 == 1)
                .map(move |i| w * 64 + i)
        })
    }
}

/// Whether `dag` has a path `u ⇝ v` for every pair: 64 sources at a time.
pub(super) fn all_reach(dag: &Dag, pairs: &mut [(u32, u32)]) -> bool {
    memplan::sort::by(pairs, Ord::cmp);
    let mut sources: Vec<u32> = pairs.iter().map(|p| p.0).collect();
    sources.dedup();
    let mut at = 0;
    for chunk in sources.chunks(64) {
        let words = dag.reach_from(chunk);
        while let Some(&(u, v)) = pairs.get(at) {
            let Some(i) = chunk.iter().position(|&x| x == u) else {
                break;
            };
            if words[v as usize] >> i & 1 == 0 {
                return false;
            }
            at += 1;
        }
    }
    at == pairs.len()
}
