//! Problem 2 on a grid of products: the reload bound (see the parent module's
//! documentation, "the reload bound").

use super::dag::{all_reach, Dag};
use super::products::{fills, find_products};
use crate::case::{BufferId, Case};
use std::collections::HashSet;

/// What the reload bound needs of a matmul-like case, read off its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Grid {
    /// Products (ops with one L0C, one L0A, one L0B buffer).
    pub products: u64,
    /// The most products of one C tile.
    pub per_c_tile: u64,
    /// A and B tiles, and product L0A/L0B buffers, resident at once at most.
    pub slots: u64,
    /// A and B tiles (each comes in once by its ALLOC, for free).
    pub tiles: u64,
    /// C tiles resident at once at most, and C tiles.
    pub c_slots: u64,
    pub c_tiles: u64,
    /// Least cost of bringing an A/B tile or a product L0A/L0B buffer back (a
    /// spill), and of a C tile's spill.
    pub reload: u64,
    pub c_reload: u64,
}

/// Union-find over buffer indices.
struct Sets(Vec<u32>);

impl Sets {
    fn new(n: usize) -> Sets {
        Sets((0..n as u32).collect())
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let up = self.0[self.0[x as usize] as usize];
            self.0[x as usize] = up;
            x = up;
        }
        x
    }

    fn join(&mut self, a: BufferId, b: BufferId) {
        let (a, b) = (self.find(a.0), self.find(b.0));
        self.0[a as usize] = b;
    }
}

/// The grid of `case`, checked on the graph: each product's L0A (L0B) buffer is
/// filled by exactly one other op, which uses exactly one other buffer, its *A (B)
/// tile*, outside the L0 levels; no buffer is both an A and a B tile or a C tile;
/// `ALLOC(x) ⇝ W ⇝ M ⇝ FREE(x)`, `ALLOC(t) ⇝ W ⇝ FREE(t)`, `ALLOC(c) ⇝ M ⇝ FREE(c)`
/// for each product `M`, its buffers `x` and their fillers `W` with tile `t`, and
/// its C tile `c`; and the products are cells of a 3-D grid: with rows the classes
/// of A and C tiles joined by a product, columns those of B and C tiles, and depths
/// those of A and B tiles, no two products share a row, column and depth. `None`
/// otherwise, or where a size is 0.
pub(super) fn grid(case: &Case, dag: &Dag) -> Option<Grid> {
    let (products, product_of) = find_products(case)?;
    let nb = case.buffers.len();
    let level_of = |b: BufferId| case.buffers[b.index()].level.index();
    let l0: Vec<usize> = ["L0A", "L0B", "L0C"]
        .iter()
        .filter_map(|n| case.level_index(n).map(|l| l.index()))
        .collect();
    // per product L0A/L0B buffer: its filler and tile
    let mut fill: Vec<Option<(u32, BufferId)>> = vec![None; nb];
    for (v, op, x, _) in fills(case, &products, &product_of) {
        let mut others = op.bufs.iter().copied().filter(|&b| b != x);
        let (Some(t), None) = (others.next(), others.next()) else {
            return None;
        };
        if fill[x.index()].is_some() || l0.contains(&level_of(t)) {
            return None;
        }
        fill[x.index()] = Some((v, t));
    }
    // role of each buffer: 1 A tile, 2 B tile, 3 C tile
    let mut role = vec![0u8; nb];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let (alloc, free) = (
        |b: BufferId| case.buffers[b.index()].alloc.0,
        |b: BufferId| case.buffers[b.index()].free.0,
    );
    let (mut rows, mut cols, mut depths) = (Sets::new(nb), Sets::new(nb), Sets::new(nb));
    for &(m, c, xs) in &products {
        if !matches!(role[c.index()], 0 | 3) {
            return None;
        }
        role[c.index()] = 3;
        pairs.extend([(alloc(c), m), (m, free(c))]);
        let mut tile = [c; 2];
        for (side, x) in xs.into_iter().enumerate() {
            let (w, t) = fill[x.index()]?;
            let want = side as u8 + 1;
            if !matches!(role[t.index()], 0) && role[t.index()] != want {
                return None;
            }
            role[t.index()] = want;
            tile[side] = t;
            pairs.extend([(alloc(x), w), (w, m), (m, free(x))]);
            pairs.extend([(alloc(t), w), (w, free(t))]);
        }
        rows.join(tile[0], c);
        cols.join(tile[1], c);
        depths.join(tile[0], tile[1]);
    }
    let mut cells = HashSet::new();
    let mut per_c = vec![0u64; nb];
    for &(_, c, xs) in &products {
        let a = fill[xs[0].index()]?.1;
        let cell = (rows.find(c.0), cols.find(c.0), depths.find(a.0));
        if !cells.insert(cell) {
            return None;
        }
        per_c[c.index()] += 1;
    }
    // a buffer of no size takes no room: the slots below would not hold
    if (0..nb).any(|b| (role[b] != 0 || product_of[b] != u32::MAX) && case.buffers[b].size == 0) {
        return None;
    }
    if !all_reach(dag, &mut pairs) {
        return None;
    }
    // per level, the least size of the buffers counted there: tiles and product
    // L0A/L0B buffers (slots), C tiles (c_slots)
    let levels = case.levels.len();
    let (mut least, mut least_c) = (vec![u64::MAX; levels], vec![u64::MAX; levels]);
    let (mut reload, mut c_reload) = (u64::MAX, u64::MAX);
    let (mut tiles, mut c_tiles) = (0u64, 0u64);
    for b in 0..nb {
        let id = BufferId::new(b);
        let (l, size) = (level_of(id), case.buffers[b].size);
        if role[b] == 3 {
            c_tiles += 1;
            least_c[l] = least_c[l].min(size);
            c_reload = c_reload.min(case.buffers[b].spill_cost());
        } else if role[b] != 0 || product_of[b] != u32::MAX {
            tiles += u64::from(role[b] != 0);
            least[l] = least[l].min(size);
            reload = reload.min(case.buffers[b].spill_cost());
        }
    }
    let room = |least: &[u64]| -> u64 {
        least
            .iter()
            .zip(&case.levels)
            .filter(|(&s, _)| s != u64::MAX)
            .map(|(&s, level)| level.capacity / s)
            .sum()
    };
    Some(Grid {
        products: products.len() as u64,
        per_c_tile: per_c.into_iter().max().unwrap_or(0),
        slots: room(&least),
        tiles,
        c_slots: room(&least_c),
        c_tiles,
        reload,
        c_reload,
    })
}

/// The least count `n` of segments in which the grid's products fit when each
/// segment has `t` A/B arrivals and all segments together `arrivals_c` C
/// arrivals: the first `n` with both `4 P^2 <= (S + t)^2 n (n c0 + X)` and
/// `P <= K (n c0 + X)` (see the `bounds` module).
fn least_segments(g: &Grid, t: u64, arrivals_c: u64) -> u64 {
    let p = u128::from(g.products);
    let width = u128::from(g.slots + t);
    let fits = |n: u64| {
        let n = u128::from(n);
        let gamma = n * u128::from(g.c_slots) + u128::from(arrivals_c);
        4 * p * p <= width * width * n * gamma && p <= u128::from(g.per_c_tile) * gamma
    };
    let (mut lo, mut hi) = (1u64, 1u64);
    while !fits(hi) {
        lo = hi + 1;
        hi *= 2;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Segment sizes tried per count of C spills (any size gives a bound; the best
/// of these is taken).
const SEGMENT_SIZES: u64 = 256;

/// Counts of C spills tried (beyond them they are taken in blocks, each block
/// bounded by its cheapest end).
const C_SPILL_STEPS: u64 = 4_096;

/// The least A/B reloads with `a` C spills: the largest over segment sizes `t`
/// of `(n - 1) t + 1 - tiles`.
fn least_reloads(g: &Grid, a: u64) -> u64 {
    let top = 4 * g.slots.max(1);
    let step = (top / SEGMENT_SIZES).max(1);
    (1..=top)
        .step_by(step as usize)
        .map(|t| {
            let n = least_segments(g, t, g.c_tiles + a);
            ((n - 1) * t + 1).saturating_sub(g.tiles)
        })
        .max()
        .unwrap_or(0)
}

/// The reload bound of a grid: the least, over the counts `a` of C spills, of
/// `a` C spills plus the A/B reloads they leave (see the `bounds` module).
pub(super) fn reload_movement(g: &Grid) -> u64 {
    if g.products == 0 || g.slots == 0 || g.per_c_tile == 0 || g.c_reload == 0 {
        return 0;
    }
    let none = g.reload.saturating_mul(least_reloads(g, 0));
    let most = none / g.c_reload;
    let block = (most / C_SPILL_STEPS).max(1);
    let mut best = none;
    let mut a = 1;
    while a <= most {
        // a to a + block - 1 C spills: at least a of them, and the reloads of the most
        let last = (a + block - 1).min(most);
        let cost = g.c_reload * a + g.reload.saturating_mul(least_reloads(g, last));
        best = best.min(cost);
        a += block;
    }
    best
}

/// The reload bound of `case` (`None` when it is not a grid of products).
pub(super) fn reload_bound(case: &Case, dag: &Dag) -> Option<u64> {
    let g = grid(case, dag)?;
    Some(reload_movement(&g)).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square grid of 16 x 16 x 16 products, 32 tile slots and 4 for the L0
    /// buffers, 2 C tiles at a time (Matmul_Case1's numbers), by hand: with
    /// segments of 36 arrivals and no C spills, `36^2 n (2n + 256) >= 4 * 4096^2`
    /// first holds at n = 39, so 38 * 36 + 1 arrivals, 512 of them free.
    #[test]
    fn the_reload_bound_of_a_square_grid() {
        let g = Grid {
            products: 4096,
            per_c_tile: 16,
            slots: 36,
            tiles: 512,
            c_slots: 2,
            c_tiles: 256,
            reload: 128,
            c_reload: 512,
        };
        assert_eq!(least_segments(&g, 36, 256), 39);
        assert!(least_reloads(&g, 0) >= 38 * 36 + 1 - 512);
        let b = reload_movement(&g);
        assert!(b >= 100_000 && b <= 128 * least_reloads(&g, 0), "{b}");
        // everything resident at once: no reload is forced
        let roomy = Grid { slots: 600, ..g };
        assert_eq!(reload_movement(&roomy), 0);
    }
}
