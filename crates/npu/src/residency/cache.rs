//! A capacity model for scheduling: which buffers of each capacity-bound level are
//! resident, evicting the least recently used when room is needed. It ignores
//! addresses (fragmentation) and only estimates what a schedule will spill; the
//! allocator in `spill/` places the real offsets afterwards.

use crate::case::{BufferId, Case, LevelId};

pub struct Cache {
    capacity: Vec<u64>,
    used: Vec<u64>,
    resident: Vec<bool>,
    last_use: Vec<u64>,
    clock: u64,
    /// Resident buffers per level, in no particular order.
    members: Vec<Vec<BufferId>>,
    /// Members of each level, least recently used first; rebuilt after a change.
    lru: std::cell::RefCell<Vec<Option<Vec<BufferId>>>>,
    /// Scratch of [`Cache::cost_to_load`]: bytes per level, 0 between calls.
    needs: std::cell::RefCell<Vec<u64>>,
}

impl Cache {
    pub fn new(case: &Case) -> Cache {
        Cache {
            capacity: case.levels.iter().map(|l| l.capacity).collect(),
            used: vec![0; case.levels.len()],
            resident: vec![false; case.buffers.len()],
            last_use: vec![0; case.buffers.len()],
            clock: 0,
            members: vec![Vec::new(); case.levels.len()],
            lru: std::cell::RefCell::new(vec![None; case.levels.len()]),
            needs: std::cell::RefCell::new(vec![0; case.levels.len()]),
        }
    }

    /// Data a schedule would move to make every buffer of `bufs` resident now.
    /// `is_one(b)` says whether `b` is in `bufs`.
    pub fn cost_to_load(
        &self,
        case: &Case,
        bufs: &[BufferId],
        is_one: impl Fn(BufferId) -> bool,
    ) -> u64 {
        let mut cost = 0;
        // the bytes not resident, per level, in one pass (all 0 again on the way out)
        let mut needs = self.needs.borrow_mut();
        for &b in bufs {
            if !self.resident[b.index()] {
                let buf = case.buffer(b);
                needs[buf.level.index()] += buf.size;
            }
        }
        for l in 0..needs.len() {
            let need = std::mem::take(&mut needs[l]);
            let level = LevelId::new(l);
            let mut free = self.capacity[l].saturating_sub(self.used[l]);
            if need <= free {
                continue;
            }
            let mut lru = self.lru.borrow_mut();
            for &v in self.order(&mut lru, level).iter().filter(|&&v| !is_one(v)) {
                if need <= free {
                    break;
                }
                free += case.buffer(v).size;
                cost += case.buffer(v).spill_cost();
            }
        }
        cost
    }

    /// Least recently used first, never one of `pinned`.
    fn victims(&self, level: LevelId, pinned: &[BufferId]) -> Vec<BufferId> {
        let mut lru = self.lru.borrow_mut();
        self.order(&mut lru, level)
            .iter()
            .copied()
            .filter(|b| !pinned.contains(b))
            .collect()
    }

    /// The members of `level`, least recently used first (cached in `lru`).
    fn order<'c>(&self, lru: &'c mut [Option<Vec<BufferId>>], level: LevelId) -> &'c [BufferId] {
        lru[level.index()].get_or_insert_with(|| {
            let mut v = self.members[level.index()].clone();
            v.sort_by_key(|&b| (self.last_use[b.index()], b));
            v
        })
    }

    fn changed(&mut self, level: LevelId) {
        self.lru.get_mut()[level.index()] = None;
    }

    /// Makes `bufs` resident (evicting as needed) and marks them used now.
    pub fn load(&mut self, case: &Case, bufs: &[BufferId]) {
        self.clock += 1;
        for &b in bufs {
            let buf = case.buffer(b);
            if !self.resident[b.index()] {
                let level = buf.level;
                let l = level.index();
                let mut victims = self.victims(level, bufs).into_iter();
                while self.used[l] + buf.size > self.capacity[l] {
                    let Some(v) = victims.next() else { break };
                    self.drop(case, v);
                }
                self.resident[b.index()] = true;
                self.used[l] += buf.size;
                self.members[l].push(b);
            }
            self.last_use[b.index()] = self.clock;
            self.changed(buf.level);
        }
    }

    /// Removes `b` (freed or evicted).
    pub fn drop(&mut self, case: &Case, b: BufferId) {
        if std::mem::replace(&mut self.resident[b.index()], false) {
            let buf = case.buffer(b);
            let l = buf.level.index();
            self.used[l] -= buf.size;
            self.members[l].retain(|&x| x != b);
            self.changed(buf.level);
        }
    }
}
