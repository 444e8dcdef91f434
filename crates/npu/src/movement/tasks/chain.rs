//! A start for the task search: the tasks chained group by group, nearest
//! neighbour first.
//!
//! Each group of `width` tasks is the one that shares the most buffers with the
//! group before it, then loads the fewest new ones, then leaves the most uses to
//! its buffers (so a sweep ends beside tasks that still need what it holds, not
//! in a corner that strands them). A group grows from one of the tasks that share
//! most with the previous group, adding each time the task that scores best with
//! the group so far. Only buffers of several tasks count.

use crate::case::BufferId;
use std::cmp::Reverse;

/// First tasks tried for each group.
const FIRSTS: usize = 64;

/// (Reverse(buffers the previous group holds), new buffers, Reverse(uses left)):
/// smaller is better.
type Score = (Reverse<u32>, u32, Reverse<u64>);

struct Chain<'t> {
    /// Per task, its buffers of several tasks, sorted.
    shared: &'t [Vec<BufferId>],
    /// Per buffer, the tasks that use it (empty for buffers of one task).
    readers: &'t [Vec<u32>],
    width: usize,
    /// Position of each task in the start permutation.
    rank: Vec<u32>,
    left: Vec<bool>,
    /// Per buffer: held by the previous group.
    prev: Vec<bool>,
    /// Per buffer: tasks not yet chained that use it.
    uses_left: Vec<u32>,
}

/// The chained permutation of the tasks; ties go to the earlier task of `start`.
pub(super) fn chain(
    shared: &[Vec<BufferId>],
    readers: &[Vec<u32>],
    width: usize,
    start: &[u32],
) -> Vec<u32> {
    let tasks = shared.len();
    let mut rank = vec![0u32; tasks];
    for (k, &t) in start.iter().enumerate() {
        rank[t as usize] = k as u32;
    }
    let mut c = Chain {
        shared,
        readers,
        width: width.max(1),
        rank,
        left: vec![true; tasks],
        prev: vec![false; readers.len()],
        uses_left: readers.iter().map(|r| r.len() as u32).collect(),
    };
    let mut prev_list: Vec<BufferId> = Vec::new();
    let mut overlap = vec![0u32; tasks];
    let mut next_unused = 0usize;
    let mut out = Vec::with_capacity(tasks);
    while out.len() < tasks {
        // tasks sharing buffers with the previous group, most shared first
        let mut firsts: Vec<u32> = Vec::new();
        for &b in &prev_list {
            for &t in &readers[b.index()] {
                if c.left[t as usize] {
                    if overlap[t as usize] == 0 {
                        firsts.push(t);
                    }
                    overlap[t as usize] += 1;
                }
            }
        }
        memplan::sort::by_key(&mut firsts, |&t| {
            let new = shared[t as usize].len() as u32 - overlap[t as usize];
            (Reverse(overlap[t as usize]), new, c.rank[t as usize])
        });
        for &t in &firsts {
            overlap[t as usize] = 0;
        }
        firsts.truncate(FIRSTS);
        if firsts.is_empty() {
            while !c.left[start[next_unused] as usize] {
                next_unused += 1;
            }
            firsts.push(start[next_unused]);
        }
        let mut best: Option<(Score, Vec<u32>)> = None;
        for &first in &firsts {
            let group = c.grow(first);
            let score = c.score(&group);
            if best.as_ref().is_none_or(|b| score < b.0) {
                best = Some((score, group));
            }
        }
        let (_, group) = best.expect("one first task at least");
        for &b in &prev_list {
            c.prev[b.index()] = false;
        }
        prev_list.clear();
        for &t in &group {
            c.left[t as usize] = false;
            out.push(t);
            for &b in &shared[t as usize] {
                c.uses_left[b.index()] -= 1;
                if !c.prev[b.index()] {
                    c.prev[b.index()] = true;
                    prev_list.push(b);
                }
            }
        }
    }
    out
}

impl Chain<'_> {
    /// A group of up to `width` tasks from `first`, each next task the one that
    /// gives the group the best score, ties to the earlier task of the start.
    fn grow(&self, first: u32) -> Vec<u32> {
        let mut group = vec![first];
        while group.len() < self.width {
            let mut candidates: Vec<u32> = group
                .iter()
                .flat_map(|&t| &self.shared[t as usize])
                .flat_map(|&b| &self.readers[b.index()])
                .copied()
                .filter(|&u| self.left[u as usize] && !group.contains(&u))
                .collect();
            candidates.sort_unstable();
            candidates.dedup();
            let pick = candidates.into_iter().min_by_key(|&u| {
                group.push(u);
                let score = self.score(&group);
                group.pop();
                (score, self.rank[u as usize])
            });
            match pick {
                Some(u) => group.push(u),
                None => break,
            }
        }
        group
    }

    fn score(&self, group: &[u32]) -> Score {
        let mut bufs: Vec<BufferId> = group
            .iter()
            .flat_map(|&t| self.shared[t as usize].iter().copied())
            .collect();
        bufs.sort_unstable();
        let mut known = 0u32;
        let mut new = 0u32;
        let mut uses = 0u64;
        for run in bufs.chunk_by(|a, b| a == b) {
            let b = run[0].index();
            if self.prev[b] {
                known += 1;
            } else {
                new += 1;
            }
            uses += u64::from(self.uses_left[b]) - run.len() as u64;
        }
        (Reverse(known), new, Reverse(uses))
    }
}

#[cfg(test)]
mod tests {
    use super::{chain, BufferId};

    /// Tasks `(i, j)` of an `m x n` grid, each using the `k` buffers of row `i`
    /// and the `k` of column `j` (a tiled matmul's output tiles and operands).
    fn grid(m: u32, n: u32, k: u32) -> (Vec<Vec<BufferId>>, Vec<Vec<u32>>) {
        let row = |i: u32| (0..k).map(move |x| BufferId(i * k + x));
        let col = |j: u32| (0..k).map(move |x| BufferId((m + j) * k + x));
        let shared: Vec<Vec<BufferId>> = (0..m * n)
            .map(|t| row(t / n).chain(col(t % n)).collect())
            .collect();
        let mut readers = vec![Vec::new(); ((m + n) * k) as usize];
        for (t, bufs) in shared.iter().enumerate() {
            for &b in bufs {
                readers[b.index()].push(t as u32);
            }
        }
        (shared, readers)
    }

    #[test]
    fn pairs_share_an_operand_and_sweep_like_a_column_pair_snake() {
        let (m, n, k) = (16u32, 16u32, 16u32);
        let (shared, readers) = grid(m, n, k);
        // ties go by the start: a scrambled one
        let start: Vec<u32> = (0..m * n).map(|t| (t * 37 + 11) % (m * n)).collect();
        let order = chain(&shared, &readers, 2, &start);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..m * n).collect::<Vec<u32>>(),
            "a permutation of the tasks"
        );
        let common = |a: &[BufferId], b: &[BufferId]| a.iter().filter(|x| b.contains(x)).count();
        for g in order.chunks(2) {
            let (a, b) = (&shared[g[0] as usize], &shared[g[1] as usize]);
            assert_eq!(
                common(a, b),
                k as usize,
                "{g:?}: the two share a row or a column"
            );
        }
        let groups: Vec<Vec<BufferId>> = order
            .chunks(2)
            .map(|g| {
                let mut bufs: Vec<BufferId> =
                    g.iter().flat_map(|&t| shared[t as usize].clone()).collect();
                bufs.sort_unstable();
                bufs.dedup();
                bufs
            })
            .collect();
        // every group holds some of what the group before it held, and all in all
        // the groups load no more new buffers than a snake of column pairs down and
        // up the rows: 3k first, k per group after, k more per turn
        let mut new = groups[0].len();
        for w in groups.windows(2) {
            assert!(
                common(&w[0], &w[1]) >= k as usize,
                "{:?} then {:?}",
                w[0],
                w[1]
            );
            new += w[1].len() - common(&w[0], &w[1]);
        }
        let snake = 3 * k + (m * n / 2 - 1) * k + (n / 2 - 1) * k;
        assert!(
            new <= snake as usize,
            "{new} new buffers, the snake loads {snake}"
        );
    }
}
