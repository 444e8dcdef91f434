//! The placement's entry points ([`place`], [`place_within`], [`place_reusing`]),
//! the working memory kept between placements ([`Scratch`]), and the allocator
//! set up for an order: the next uses of its buffers counted, or patched from an
//! earlier order's.

use super::uses::{all_uses, patch_uses};
use super::*;

/// Places every buffer of `case` along `order` (original node ids, topological).
pub fn place(case: &Case, order: &[NodeId], opts: SpillOptions) -> Result<NpuPlan, Error> {
    Ok(place_within(case, order, opts, u64::MAX)?.expect("no limit to pass"))
}

/// [`place`], given up (`None`) as soon as the spills so far move more than
/// `limit`: a spill's cost is fixed when it leaves, so the movement only grows
/// along the order and the whole plan would move more too.
pub fn place_within(
    case: &Case,
    order: &[NodeId],
    opts: SpillOptions,
    limit: u64,
) -> Result<Option<NpuPlan>, Error> {
    let placed = place_reusing(case, order, opts, limit, None, &mut Scratch::default())?;
    Ok(placed.map(|t| t.plan))
}

/// [`place_within`] in the working memory of `scratch`, which keeps it for the
/// next placement (a search places thousands of orders of one case), with the
/// trace of the placement.
///
/// With `after` (an earlier order and its placement under the same rules), the
/// placement starts where the two orders part, or at the first earlier choice of
/// victims that the new order's next uses would change, whichever comes first:
/// the plan up to there, and what the allocator held, are read off the earlier
/// plan. Once the orders agree again (to their end), the placement stops at the
/// first step whose residents are those the earlier placement had there, and
/// takes the rest of that placement, shifted (the choices from there on depend on
/// nothing else). The result is the plan a placement from the start gives.
pub fn place_reusing(
    case: &Case,
    order: &[NodeId],
    opts: SpillOptions,
    limit: u64,
    after: Option<(&[NodeId], &Traced)>,
    scratch: &mut Scratch,
) -> Result<Option<Traced>, Error> {
    // the earlier order, its placement, and how far the two orders agree
    let after = after.map(|(before, placed)| {
        let shared = order.iter().zip(before).take_while(|(a, b)| a == b).count();
        (before, placed, shared)
    });
    let mut a = Allocator::new(case, order, opts, scratch, after);
    let from = match after {
        Some((_, placed, shared)) => a.resume(placed, shared),
        None => 0,
    };
    // from where the orders agree again to their end, the earlier placement's
    // rest is taken as soon as the residents are the same as there
    let rejoin_at = after.map_or(usize::MAX, |(before, _, _)| {
        let same_end = order
            .iter()
            .rev()
            .zip(before.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        if before.len() == order.len() {
            order.len() - same_end
        } else {
            usize::MAX
        }
    });
    let mut joined = order.len();
    let mut within = a.moved <= limit;
    for (i, &n) in order.iter().enumerate().skip(from) {
        if !within {
            break;
        }
        if let Some((_, earlier, _)) = after.filter(|_| i >= rejoin_at) {
            if earlier.trace.prints.get(i) == Some(&a.print) && a.rejoin(earlier, i) {
                joined = i;
                within = a.moved <= limit;
                break;
            }
        }
        a.trace.step_at.push(a.pos());
        a.trace.prints.push(a.print);
        if let Err(e) = a.step(i as u32, n) {
            a.give_back(scratch);
            return Err(e);
        }
        within = a.moved <= limit;
    }
    let mut placed = a.give_back(scratch);
    placed.from = from;
    placed.joined = joined;
    if within {
        Ok(Some(placed))
    } else {
        scratch.recycle(placed);
        Ok(None)
    }
}

/// The working memory of the allocator, kept between placements by
/// [`place_reusing`]: the same plans, without allocating it all again.
#[derive(Default)]
pub struct Scratch {
    resident: Vec<Vec<(u64, u64, BufferId)>>,
    state: Vec<State>,
    cursor: Vec<u32>,
    last: Vec<u32>,
    victims: Vec<BufferId>,
    /// A placement no longer wanted, whose vectors the next one reuses.
    spare: Option<Traced>,
}

impl Scratch {
    /// Keeps the vectors of `placed` for the next placement.
    pub fn recycle(&mut self, placed: Traced) {
        self.spare = Some(placed);
    }
}

impl<'a> Allocator<'a> {
    fn new(
        case: &'a Case,
        order: &[NodeId],
        opts: SpillOptions,
        scratch: &mut Scratch,
        after: Option<(&[NodeId], &Traced, usize)>,
    ) -> Allocator<'a> {
        let buffers = case.buffers.len();
        let Traced {
            mut plan,
            mut trace,
            mut uses,
            mut first,
            ..
        } = scratch.spare.take().unwrap_or(Traced {
            plan: NpuPlan {
                schedule: Vec::new(),
                offsets: Vec::new(),
                spills: Vec::new(),
                residencies: Vec::new(),
            },
            trace: Trace::default(),
            from: 0,
            joined: 0,
            uses: Vec::new(),
            first: Vec::new(),
        });
        let mut last = std::mem::take(&mut scratch.last);
        let mut cursor = std::mem::take(&mut scratch.cursor);
        let taken = after.is_some_and(|(before, placed, shared)| {
            uses.clone_from(&placed.uses);
            first.clone_from(&placed.first);
            patch_uses(
                case,
                order,
                before,
                shared,
                &mut uses,
                &first,
                &mut last,
                &mut cursor,
            )
        });
        if !taken {
            all_uses(case, order, &mut uses, &mut first, &mut last, &mut cursor);
        }
        cursor.clear();
        cursor.extend_from_slice(&first[..buffers]);
        scratch.last = last;
        let mut resident = std::mem::take(&mut scratch.resident);
        resident.resize_with(case.levels.len(), Vec::new);
        resident.iter_mut().for_each(Vec::clear);
        let mut state = std::mem::take(&mut scratch.state);
        state.clear();
        state.resize(buffers, State::Unallocated);
        plan.schedule.clear();
        plan.schedule.reserve(order.len());
        plan.offsets.clear();
        plan.offsets.resize(buffers, 0);
        plan.spills.clear();
        plan.residencies.clear();
        trace.step_at.clear();
        trace.decisions.clear();
        trace.lists.clear();
        trace.pinned.clear();
        trace.victims.clear();
        trace.prints.clear();
        Allocator {
            case,
            opts,
            resident,
            state,
            next: NextUse {
                uses,
                first,
                cursor,
            },
            plan,
            moved: 0,
            trace,
            victims: std::mem::take(&mut scratch.victims),
            print: 0,
        }
    }

    /// The plan made and its trace, the working memory back into `scratch`.
    fn give_back(self, scratch: &mut Scratch) -> Traced {
        scratch.resident = self.resident;
        scratch.state = self.state;
        scratch.cursor = self.next.cursor;
        scratch.victims = self.victims;
        Traced {
            plan: self.plan,
            trace: self.trace,
            from: 0,
            joined: 0,
            uses: self.next.uses,
            first: self.next.first,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deps::dfs_order;
    use crate::residency::schedule::{list_schedule, Priority};
    use crate::tiled::tiled_matmul;

    /// One working memory through many placements gives what fresh ones give:
    /// nothing of a placement, a plan given up at its limit or a recycled plan
    /// leaks into the next.
    #[test]
    fn placements_in_one_scratch_equal_fresh_ones() {
        // 4 x 8 x 4 tiles: A and B together need twice L1, so orders spill
        let case = tiled_matmul(4, 8, 4).unwrap();
        let mut orders = vec![dfs_order(&case), case.node_ids().collect()];
        for p in [
            Priority::Growth,
            Priority::NonGrowingFirst,
            Priority::Capacity(8),
        ] {
            orders.push(list_schedule(&case, p).unwrap());
        }
        let rules = [Fit::First, Fit::Best].into_iter().flat_map(|fit| {
            [Victim::Furthest, Victim::FurthestPerCost, Victim::Window]
                .map(|victim| SpillOptions { fit, victim })
        });
        let mut scratch = Scratch::default();
        let mut spilled = 0;
        for opts in rules {
            for order in &orders {
                let fresh = place(&case, order, opts).unwrap();
                let moved = fresh.extra_movement();
                spilled += usize::from(moved > 0);
                if moved > 0 {
                    // given up just under its movement, then placed whole
                    let cut = place_reusing(&case, order, opts, moved - 1, None, &mut scratch);
                    assert!(cut.unwrap().is_none());
                }
                let again = place_reusing(&case, order, opts, u64::MAX, None, &mut scratch);
                let again = again.unwrap().unwrap();
                assert_eq!(again.plan, fresh);
                scratch.recycle(again);
            }
        }
        assert!(
            spilled >= 10,
            "too few orders spill ({spilled}) to test much"
        );
    }

    /// A placement after an earlier one (taken over up to where the orders part
    /// or an earlier choice of victims would change, and from where the residents
    /// are the earlier ones again after the orders agree again) equals a placement
    /// from the start, over random block moves under every rule; half the moves
    /// are kept, so the earlier placement is itself often a resumed and rejoined
    /// one.
    #[test]
    fn placements_after_an_earlier_order_equal_fresh_ones() {
        use crate::residency::reorder::{pick_move, OpOrder};
        use memplan::rng::Rng;
        let case = tiled_matmul(4, 8, 4).unwrap();
        let rules = [Fit::First, Fit::Best].into_iter().flat_map(|fit| {
            [Victim::Furthest, Victim::FurthestPerCost, Victim::Window]
                .map(|victim| SpillOptions { fit, victim })
        });
        let (mut resumed, mut rejoined, mut moves) = (0, 0, 0);
        for (seed, opts) in rules.enumerate() {
            let mut rng = Rng::new(seed as u64);
            let mut search = OpOrder::new(&case, &dfs_order(&case));
            let n = search.op_count();
            let mut scratch = Scratch::default();
            let mut current = search.order();
            let mut placed = place_reusing(&case, &current, opts, u64::MAX, None, &mut scratch)
                .unwrap()
                .unwrap();
            // the same order again is the same plan, all of it taken over
            let again = place_reusing(
                &case,
                &current,
                opts,
                u64::MAX,
                Some((&current, &placed)),
                &mut scratch,
            )
            .unwrap()
            .unwrap();
            assert_eq!((&again.plan, again.from), (&placed.plan, current.len()));
            scratch.recycle(again);
            while moves < 150 * (seed + 1) {
                let (a, len, to) = pick_move(&mut rng, n, None);
                if to == a || !search.slide(a, a + len, to) {
                    continue;
                }
                moves += 1;
                let order = search.order();
                let fresh = place(&case, &order, opts).unwrap();
                // limits on both sides of the movement, and none
                let limit = match moves % 3 {
                    0 => u64::MAX,
                    1 => fresh.extra_movement(),
                    _ => fresh.extra_movement().saturating_sub(1),
                };
                let after = Some((current.as_slice(), &placed));
                let next = place_reusing(&case, &order, opts, limit, after, &mut scratch).unwrap();
                let within = fresh.extra_movement() <= limit;
                assert_eq!(next.is_some(), within, "move {moves}");
                let Some(next) = next else {
                    search.unslide(a, a + len, to);
                    continue;
                };
                assert_eq!(next.plan, fresh, "move {moves} under {opts:?}");
                resumed += usize::from(next.from > 0);
                rejoined += usize::from(next.joined < order.len());
                if rng.below(2) == 0 {
                    scratch.recycle(std::mem::replace(&mut placed, next));
                    current = order;
                } else {
                    scratch.recycle(next);
                    search.unslide(a, a + len, to);
                }
            }
        }
        assert!(
            resumed > 200 && rejoined > 200,
            "only {resumed} of {moves} placements taken over, {rejoined} rejoined"
        );
    }
}
