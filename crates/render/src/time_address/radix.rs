//! A stable sort by a 64-bit key in a few linear passes, for the million slots of a
//! step index (a comparison sort of 40-byte slots stops the page for a while when
//! such a plan arrives).

/// Bits of the key each pass sorts by.
const DIGIT: u32 = 11;

/// Sorts `items` by `key`, keeping the order of equal keys, as `sort_by_key` does:
/// least significant digit first over the bits the largest key uses, on pairs of
/// key and position, then the items gathered once.
pub(super) fn sort_by_key<T: Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if items.len() < 2 {
        return;
    }
    let mut pairs: Vec<(u64, u32)> = items
        .iter()
        .enumerate()
        .map(|(i, t)| (key(t), i as u32))
        .collect();
    let top = pairs.iter().map(|p| p.0).max().unwrap_or(0);
    let bits = u64::BITS - top.leading_zeros();
    let mut other = vec![(0u64, 0u32); pairs.len()];
    let mut shift = 0;
    while shift < bits {
        let digit = |k: u64| ((k >> shift) & ((1 << DIGIT) - 1)) as usize;
        let mut counts = vec![0usize; 1 << DIGIT];
        for p in &pairs {
            counts[digit(p.0)] += 1;
        }
        let mut at = 0;
        for c in counts.iter_mut() {
            at += std::mem::replace(c, at);
        }
        for &p in &pairs {
            let d = digit(p.0);
            other[counts[d]] = p;
            counts[d] += 1;
        }
        std::mem::swap(&mut pairs, &mut other);
        shift += DIGIT;
    }
    *items = pairs.iter().map(|&(_, i)| items[i as usize]).collect();
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_as_the_stable_sort_does() {
        let mut next = crate::test_numbers(3);
        for (len, most) in [
            (0, 1),
            (1, 5),
            (50, 3),
            (2000, 1 << 20),
            (5000, u64::MAX >> 1),
        ] {
            let items: Vec<(u64, u32)> = (0..len)
                .map(|i| {
                    let wide = next(1 << 31) << 31 | next(1 << 31);
                    (if most > 1 << 40 { wide } else { next(most) }, i)
                })
                .collect();
            let mut ours = items.clone();
            super::sort_by_key(&mut ours, |t| t.0);
            let mut std = items;
            std.sort_by_key(|t| t.0);
            assert_eq!(ours, std, "{len} keys below {most}");
        }
    }
}
