//! The uses of every buffer along an order ([`NextUse`]'s lists): counted afresh,
//! or patched from an earlier order's where the two differ.

use super::*;

/// Calls `f(buffer, position)` for each use along `order[range]` (an op's
/// buffers, a FREE's buffer), a buffer used twice by one node once.
fn each_use(
    case: &Case,
    order: &[NodeId],
    range: std::ops::Range<usize>,
    last: &mut [u32],
    f: &mut dyn FnMut(usize, u32),
) {
    let mut use_at = |b: usize, i: u32| {
        if last[b] != i {
            last[b] = i;
            f(b, i);
        }
    };
    for i in range {
        match case.node(order[i]) {
            Node::Op(op) => op.bufs.iter().for_each(|&b| use_at(b.index(), i as u32)),
            Node::Free(b) => use_at(b.index(), i as u32),
            Node::Alloc(_) => {}
        }
    }
}

/// The uses of every buffer along `order` ([`NextUse`]): counted, then filled,
/// in two passes over one array rather than a vector per buffer.
pub(super) fn all_uses(
    case: &Case,
    order: &[NodeId],
    uses: &mut Vec<u32>,
    first: &mut Vec<u32>,
    last: &mut Vec<u32>,
    cursor: &mut Vec<u32>,
) {
    let buffers = case.buffers.len();
    last.clear();
    last.resize(buffers, u32::MAX);
    first.clear();
    first.resize(buffers + 1, 0);
    each_use(case, order, 0..order.len(), last, &mut |b, _| {
        first[b + 1] += 1
    });
    for b in 0..buffers {
        first[b + 1] += first[b];
    }
    uses.clear();
    uses.resize(first[buffers] as usize, 0);
    cursor.clear();
    cursor.extend_from_slice(&first[..buffers]);
    last.fill(u32::MAX);
    each_use(case, order, 0..order.len(), last, &mut |b, i| {
        uses[cursor[b] as usize] = i;
        cursor[b] += 1;
    });
}

/// `uses` and `first` of `before` made those of `order`, which agree on their
/// first `lo` nodes: only the positions where the two orders differ are written
/// again, each buffer's uses there in order over the ones it had there. False
/// (the arrays then of no use) when the differing span does not hold the same
/// uses in both orders.
#[allow(clippy::too_many_arguments)]
pub(super) fn patch_uses(
    case: &Case,
    order: &[NodeId],
    before: &[NodeId],
    lo: usize,
    uses: &mut [u32],
    first: &[u32],
    last: &mut Vec<u32>,
    cursor: &mut Vec<u32>,
) -> bool {
    let buffers = case.buffers.len();
    if order.len() != before.len() || first.len() != buffers + 1 {
        return false;
    }
    let same_end = order[lo..]
        .iter()
        .rev()
        .zip(before[lo..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let hi = order.len() - same_end;
    last.clear();
    last.resize(buffers, u32::MAX);
    cursor.clear();
    cursor.resize(buffers, u32::MAX);
    // the buffers used in the span, each with where its uses there ended in
    // `before` (they began at its cursor's first value)
    let mut touched: Vec<(usize, u32)> = Vec::new();
    each_use(case, order, lo..hi, last, &mut |b, i| {
        if cursor[b] == u32::MAX {
            let own = &uses[first[b] as usize..first[b + 1] as usize];
            let end = first[b] + own.partition_point(|&u| (u as usize) < hi) as u32;
            touched.push((b, end));
            cursor[b] = first[b] + own.partition_point(|&u| (u as usize) < lo) as u32;
        }
        let c = cursor[b] as usize;
        if c < first[b + 1] as usize {
            uses[c] = i;
        }
        cursor[b] += 1;
    });
    // as many uses of each buffer in the span as `before` had there, and no
    // buffer used there in `before` but not now
    let counted = touched.iter().all(|&(b, end)| cursor[b] == end);
    let mut all_there = true;
    last.fill(u32::MAX);
    each_use(case, before, lo..hi, last, &mut |b, _| {
        all_there &= cursor[b] != u32::MAX;
    });
    counted && all_there
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deps::dfs_order;
    use crate::tiled::tiled_matmul;

    /// The uses of an order patched from another's where they differ equal the
    /// uses counted afresh; a span that does not hold the same uses is refused.
    #[test]
    fn patched_uses_equal_counted_ones_or_are_refused() {
        let case = tiled_matmul(3, 4, 3).unwrap();
        let before = dfs_order(&case);
        let (mut uses, mut first) = (Vec::new(), Vec::new());
        let (mut last, mut cursor) = (Vec::new(), Vec::new());
        all_uses(
            &case,
            &before,
            &mut uses,
            &mut first,
            &mut last,
            &mut cursor,
        );
        let counted = |order: &[NodeId]| {
            let (mut u, mut f, mut l, mut c) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            all_uses(&case, order, &mut u, &mut f, &mut l, &mut c);
            (u, f)
        };
        let n = before.len();
        let mut refused = 0;
        for k in 0..200 {
            let (a, b) = ((k * 37) % n, (k * 101 + 13) % n);
            let mut order = before.clone();
            if k % 4 == 3 {
                // not a reordering: one node stands in for another
                order[a] = before[b];
            } else {
                order.swap(a, b);
            }
            let mut patched = uses.clone();
            let lo = order
                .iter()
                .zip(&before)
                .take_while(|(a, b)| a == b)
                .count();
            let ok = patch_uses(
                &case,
                &order,
                &before,
                lo,
                &mut patched,
                &first,
                &mut last,
                &mut cursor,
            );
            let (u, f) = counted(&order);
            if ok {
                assert_eq!((&patched, &first), (&u, &f), "move {k}");
            } else {
                refused += 1;
            }
        }
        // the stand-ins that change some buffer's uses are refused
        assert!(refused >= 30, "{refused} refused");
    }
}
