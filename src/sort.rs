//! Stable sorts for code that runs once per case, file or chart rather than in a
//! planner's inner loop: every caller shares one compiled sort.
//!
//! The standard library's sort is compiled anew for every element type and every
//! key closure, a few kilobytes each at full optimisation; the page's wasm carried
//! about fifty of them. Here the standard stable sort runs once, on positions,
//! comparing through a `dyn` closure, and the items then move into place, so a
//! caller adds only a small wrapper. The order is the standard stable sort's
//! (there is only one stable order), at the price of a call through a pointer per
//! comparison and a pass that moves the items: the hot sorts of the planners keep
//! `sort_by_key` and `sort_unstable`.

use std::cmp::Ordering;

/// `items.sort_by(cmp)`, sharing its sort with every caller.
pub fn by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    positions(&mut order, &|a, b| cmp(&items[a], &items[b]));
    permute(items, &mut order);
}

/// `items.sort_by_key(key)`, sharing its sort with every caller.
pub fn by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    by(items, |a, b| key(a).cmp(&key(b)));
}

/// The one stable sort: positions, compared by `cmp`.
#[inline(never)]
fn positions(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

/// Puts `items[order[k]]` at `k` for every `k`, by swaps along the permutation's
/// cycles; leaves `order` the identity.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        // the item at `here` is the one that began at `start`, carried along
        let mut here = start;
        loop {
            let from = order[here];
            order[here] = here;
            if from == start {
                break;
            }
            items.swap(here, from);
            here = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rng::Rng;

    #[test]
    fn the_order_is_the_standard_stable_sorts_whatever_the_ties() {
        let mut rng = Rng::new(7);
        for len in [0usize, 1, 2, 3, 10, 33, 100, 1000] {
            for spread in [1usize, 3, 50, 1_000_000] {
                // (key, original position): ties keep their positions in order
                let items: Vec<(usize, usize)> = (0..len).map(|k| (rng.below(spread), k)).collect();
                let (mut ours, mut std) = (items.clone(), items.clone());
                super::by_key(&mut ours, |t| t.0);
                std.sort_by_key(|t| t.0);
                assert_eq!(ours, std, "{len} items, keys below {spread}");
                let mut down = items.clone();
                super::by(&mut down, |a, b| b.0.cmp(&a.0));
                std.sort_by_key(|t| std::cmp::Reverse(t.0));
                assert_eq!(down, std, "{len} items, keys below {spread}, descending");
            }
        }
    }
}
