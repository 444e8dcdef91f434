//! Problem 1 on a grid of C tiles: the open rows and columns that stay alive
//! (`tile_grid_bound`; see the `bounds` module's documentation, "the tile grid").

use super::dag::{all_reach, Dag};
use super::products::{fills, find_products};
use crate::case::{BufferId, Case};
use std::collections::HashMap;

/// The tile-grid bound of Problem 1 (see the `bounds` module): `None` when the case is
/// not a grid of products, or the bound is 0.
pub(super) fn tile_grid_bound(case: &Case, dag: &Dag, counted: &[bool]) -> Option<u64> {
    let level_of = |b: BufferId| case.buffers[b.index()].level.index();
    let (products, product_of) = find_products(case)?;
    // the C tiles, numbered; each tile's set of C tiles (those whose products
    // take it in through an L0A or L0B buffer); the paths the argument needs
    let mut tile_no = vec![u32::MAX; case.buffers.len()];
    let mut tiles = 0u32;
    for &(_, c, _) in &products {
        if tile_no[c.index()] == u32::MAX {
            tile_no[c.index()] = tiles;
            tiles += 1;
        }
    }
    let mut sets: Vec<Vec<u32>> = vec![Vec::new(); case.buffers.len()];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let free = |b: BufferId| case.buffers[b.index()].free.0;
    for (v, op, x, p) in fills(case, &products, &product_of) {
        // `v` brings data into x for product p: ALLOC(x) ⇝ v ⇝ M ⇝ FREE(x)
        let (m, c, _) = products[p];
        let x_alloc = case.buffers[x.index()].alloc.0;
        pairs.extend([(x_alloc, v), (v, m), (m, free(x))]);
        for &t in &op.bufs {
            if counted[level_of(t)] && case.buffers[t.index()].size > 0 {
                // ALLOC(t) ⇝ v ⇝ FREE(t)
                pairs.extend([(case.buffers[t.index()].alloc.0, v), (v, free(t))]);
                sets[t.index()].push(tile_no[c.index()]);
            }
        }
    }
    for &(m, c, _) in &products {
        pairs.extend([(case.buffers[c.index()].alloc.0, m), (m, free(c))]);
    }
    // the grid: every C tile in exactly one row and one column, each row meeting
    // each column in exactly one C tile
    let mut lines: Vec<Vec<u32>> = Vec::new();
    let mut line_no: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut line_of = vec![usize::MAX; case.buffers.len()];
    for (t, set) in sets.iter_mut().enumerate() {
        if set.is_empty() {
            continue;
        }
        memplan::sort::by(set, Ord::cmp);
        set.dedup();
        line_of[t] = *line_no
            .entry(std::mem::take(set))
            .or_insert_with_key(|set| {
                lines.push(set.clone());
                lines.len() - 1
            });
    }
    let mut two = vec![Vec::new(); tiles as usize];
    for (k, line) in lines.iter().enumerate() {
        for &c in line {
            two[c as usize].push(k);
        }
    }
    if two.iter().any(|l| l.len() != 2) {
        return None;
    }
    // rows and columns: the two lines of a C tile are of different kinds
    let mut kind = vec![u8::MAX; lines.len()];
    for start in 0..lines.len() {
        if kind[start] != u8::MAX {
            continue;
        }
        kind[start] = 0;
        let mut stack = vec![start];
        while let Some(k) = stack.pop() {
            for &c in &lines[k] {
                let other = two[c as usize][usize::from(two[c as usize][0] == k)];
                if kind[other] == u8::MAX {
                    kind[other] = 1 - kind[k];
                    stack.push(other);
                } else if kind[other] == kind[k] {
                    return None;
                }
            }
        }
    }
    let rows = kind.iter().filter(|&&k| k == 0).count() as u64;
    let cols = lines.len() as u64 - rows;
    let mut cells: Vec<(usize, usize)> = two
        .iter()
        .map(|l| (l[0].min(l[1]), l[0].max(l[1])))
        .collect();
    memplan::sort::by(&mut cells, Ord::cmp);
    cells.dedup();
    if rows * cols != u64::from(tiles) || cells.len() as u64 != u64::from(tiles) {
        return None;
    }
    // the bytes of each line's tiles; the least of a row's, of a column's
    let mut bytes = vec![0u64; lines.len()];
    for (t, &k) in line_of.iter().enumerate() {
        if k != usize::MAX {
            bytes[k] += case.buffers[t].size;
        }
    }
    let least = |want: u8| {
        (0..lines.len())
            .filter(|&k| kind[k] == want)
            .map(|k| bytes[k])
            .min()
            .unwrap_or(0)
    };
    let (row_bytes, col_bytes) = (least(0), least(1));
    if !all_reach(dag, &mut pairs) {
        return None;
    }
    let best = open_lines_bound(rows, cols, row_bytes, col_bytes)
        .max(first_whole_line_bound(rows, cols, row_bytes, col_bytes));
    (best > 0).then_some(best)
}

/// The largest, over the counts `h` of C tiles done, of the least bytes of the
/// lines open then: `rows` x `cols` C tiles, at least `row_bytes` per row and
/// `col_bytes` per column (see the `bounds` module). At most [`GRID_STEPS`] counts are
/// tried, spread evenly (any of them is a bound).
fn open_lines_bound(rows: u64, cols: u64, row_bytes: u64, col_bytes: u64) -> u64 {
    let cells = rows * cols;
    let stride = (cells * rows / GRID_STEPS).max(1);
    let mut best = 0;
    let mut h = 1;
    while h < cells {
        // `a` rows and `b` columns touched hold the h done: a * b >= h
        let least = (h.div_ceil(cols)..=rows.min(h))
            .map(|a| {
                let b = h.div_ceil(a);
                row_bytes * a.saturating_sub(h / cols) + col_bytes * b.saturating_sub(h / rows)
            })
            .min()
            .unwrap_or(0);
        best = best.max(least);
        h += stride;
    }
    best
}

/// The refined grid bound (see the `bounds` module, "the first whole line"): the
/// least, over every order of the `rows` x `cols` C tiles, of the most bytes of
/// open lines at one moment, a row counted `row_bytes` and a column `col_bytes`.
/// In closed form when both sides have 3 lines or more; by an exact search over
/// the orders' counts when one side has 1 or 2.
fn first_whole_line_bound(rows: u64, cols: u64, row_bytes: u64, col_bytes: u64) -> u64 {
    match (rows, cols) {
        (0, _) | (_, 0) => 0,
        (1 | 2, _) => narrow_grid_bound(rows, cols, row_bytes, col_bytes),
        (_, 1 | 2) => narrow_grid_bound(cols, rows, col_bytes, row_bytes),
        _ => (cols * col_bytes + row_bytes).min(rows * row_bytes + col_bytes),
    }
}

/// The least, over every order of the C tiles of a grid of `rows` (1 or 2) x
/// `cols`, of the most bytes of open lines at one moment (`row_bytes` per open
/// row, `col_bytes` per open column): the orders seen as paths through the counts
/// of columns with no, one (top or bottom) or both C tiles done, a path's cost
/// its largest step, the least cost by a pass in order of the tiles done.
fn narrow_grid_bound(rows: u64, cols: u64, row_bytes: u64, col_bytes: u64) -> u64 {
    let n = cols as usize;
    // state (top, bottom, both): columns with the top only, the bottom only, both done
    let index = |t: usize, b: usize, d: usize| (t * (n + 1) + b) * (n + 1) + d;
    let cost = |t: usize, b: usize, d: usize| {
        let none = n - t - b - d;
        let open_row = |done: usize, left: usize| u64::from(done > 0 && left > 0);
        let rows_open = if rows == 1 {
            open_row(t, none)
        } else {
            open_row(t + d, none + b) + open_row(b + d, none + t)
        };
        let cols_open = if rows == 1 { 0 } else { (t + b) as u64 };
        rows_open * row_bytes + cols_open * col_bytes
    };
    let mut best = vec![u64::MAX; (n + 1) * (n + 1) * (n + 1)];
    best[index(0, 0, 0)] = 0;
    // every step adds one C tile: `t + b + 2 d` grows by one, so visit by it
    for done in 0..(rows as usize * n) {
        for d in 0..=n {
            for t in 0..=n {
                let Some(b) = done.checked_sub(t + 2 * d) else {
                    continue;
                };
                if t + b + d > n || (rows == 1 && (b > 0 || d > 0)) {
                    continue;
                }
                let here = best[index(t, b, d)];
                if here == u64::MAX {
                    continue;
                }
                let none = n - t - b - d;
                let mut next = Vec::new();
                if rows == 1 {
                    if none > 0 {
                        next.push((t + 1, 0, 0));
                    }
                } else {
                    if none > 0 {
                        next.extend([(t + 1, b, d), (t, b + 1, d)]);
                    }
                    if t > 0 {
                        next.push((t - 1, b, d + 1));
                    }
                    if b > 0 {
                        next.push((t, b - 1, d + 1));
                    }
                }
                for (t2, b2, d2) in next {
                    let value = here.max(cost(t2, b2, d2));
                    let slot = &mut best[index(t2, b2, d2)];
                    *slot = (*slot).min(value);
                }
            }
        }
    }
    let end = if rows == 1 {
        index(n, 0, 0)
    } else {
        index(0, 0, n)
    };
    best[end]
}

/// Work of [`open_lines_bound`]: counts of C tiles times rows tried.
const GRID_STEPS: u64 = 20_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-counted grids: in 2 x 2, one C tile done leaves its row and its
    /// column open (and three leave the other two); a single row stays open
    /// from its first C tile to its last, the columns each done at once.
    #[test]
    fn open_lines_of_small_grids() {
        assert_eq!(open_lines_bound(2, 2, 1, 1), 2);
        assert_eq!(open_lines_bound(2, 2, 10, 1), 11);
        assert_eq!(open_lines_bound(1, 3, 5, 7), 5);
        assert_eq!(open_lines_bound(1, 1, 5, 7), 0);
    }

    /// The exact least, over every order of a `rows` x `cols` grid's C tiles, of
    /// the most bytes open at one moment: a search over the sets of C tiles done.
    fn exact(rows: usize, cols: usize, row_bytes: u64, col_bytes: u64) -> u64 {
        let cells = rows * cols;
        let open = |set: usize| {
            let line = |members: &mut dyn Iterator<Item = usize>| {
                let (mut done, mut left) = (false, false);
                for c in members {
                    if set >> c & 1 == 1 {
                        done = true;
                    } else {
                        left = true;
                    }
                }
                u64::from(done && left)
            };
            let r: u64 = (0..rows)
                .map(|i| line(&mut (0..cols).map(|j| i * cols + j)))
                .sum();
            let c: u64 = (0..cols)
                .map(|j| line(&mut (0..rows).map(|i| i * cols + j)))
                .sum();
            r * row_bytes + c * col_bytes
        };
        let mut best = vec![u64::MAX; 1 << cells];
        best[0] = 0;
        for set in 0..(1usize << cells) {
            if best[set] == u64::MAX {
                continue;
            }
            for c in 0..cells {
                if set >> c & 1 == 0 {
                    let next = set | 1 << c;
                    let value = best[set].max(open(next));
                    best[next] = best[next].min(value);
                }
            }
        }
        best[(1 << cells) - 1]
    }

    /// The refined bound against every order of every grid up to 4 x 4 (and
    /// 2 x 7, 3 x 5): never above the exact least peak of open lines (so valid),
    /// and equal to it.
    #[test]
    fn the_first_whole_line_bound_is_the_exact_optimum_of_small_grids() {
        let mut sizes: Vec<(usize, usize)> = Vec::new();
        for r in 1..=4 {
            for c in 1..=4 {
                sizes.push((r, c));
            }
        }
        sizes.extend([(2, 7), (7, 2), (3, 5), (5, 3), (1, 9)]);
        for (r, c) in sizes {
            for (rb, cb) in [(1, 1), (3, 1), (1, 3), (5, 2), (2, 7), (10, 1), (128, 256)] {
                let bound = first_whole_line_bound(r as u64, c as u64, rb, cb);
                let truth = exact(r, c, rb, cb);
                assert_eq!(bound, truth, "{r} x {c}, row {rb}, column {cb}");
            }
        }
    }

    /// The public matmuls' grids: 8 x 8 and 16 x 16 C tiles, 8 and 16 tiles of 128
    /// per line, the formula `cols * col + row`.
    #[test]
    fn the_first_whole_line_bound_of_square_grids() {
        assert_eq!(first_whole_line_bound(8, 8, 1024, 1024), 9 * 1024);
        assert_eq!(first_whole_line_bound(16, 16, 2048, 2048), 17 * 2048);
    }
}
