//! A model of torch 2.11's CUDA caching allocator (`c10/cuda/CUDACachingAllocator.cpp`,
//! `DeviceCachingAllocator`) for one device: the same pools, the same best fit, the
//! same splits, merges and releases, with `cudaMalloc` and the driver's page mapping
//! replaced by counters. Rules, in the source's words:
//!
//! - a request is rounded up to 512 bytes, or to a power-of-two division
//!   (`roundup_power2_divisions`); up to 1 MiB it goes to the small pool, whose
//!   segments are 2 MiB; above, to the large pool, whose segments are 20 MiB for a
//!   request under 10 MiB and the request rounded up to 2 MiB otherwise;
//! - a pool's free blocks are ordered by (stream, size, address): a request takes
//!   the first at least its size on its stream; a block of `max_split_size` or more
//!   serves only a request of `max_split_size` or more, and that only when it is
//!   less than `max_non_split_rounding` larger;
//! - a block is split when what remains is 512 bytes or more (small pool, or
//!   expandable segments), or more than 1 MiB and the request is under
//!   `max_split_size` (large pool); the request takes the front;
//! - a freed block merges with free neighbours of the same segment;
//! - with no block, `garbage_collection_threshold` (under a cap only) frees the
//!   oldest unsplit cached segments, then a new segment is made; if that fails
//!   (the cap), cached oversize blocks are freed for it, then every unsplit cached
//!   segment (and every free page of an expandable segment), and it is tried once
//!   more;
//! - expandable segments: one growing address range per stream and pool, mapped in
//!   2 MiB (small) or 20 MiB (large) pages at the lowest address where the request
//!   fits.
//!
//! Not modelled: events of blocks used on other streams (the trace's
//! `free_completed` says when a block came back), and the driver failing a
//! `cudaMalloc` below the cap (the card's own memory, other processes).

use crate::conf::{AllocConf, LARGE_BUFFER};
use std::collections::{BTreeMap, BTreeSet};

pub const MIN_BLOCK: u64 = 512;
pub const SMALL_SIZE: u64 = 1 << 20;
pub const SMALL_BUFFER: u64 = 2 << 20;
pub const MIN_LARGE_ALLOC: u64 = 10 << 20;
pub const ROUND_LARGE: u64 = 2 << 20;

/// The address space of an expandable segment: torch reserves 1 1/8 of the card's
/// memory; memplan reserves 1 TiB (only a request larger than that would notice).
pub const EXPANDABLE_SPACE: u64 = 1 << 40;

const NIL: u32 = u32::MAX;

/// What the allocator asked of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverCall {
    /// `cudaMalloc` of a segment.
    Alloc {
        addr: u64,
        size: u64,
    },
    Free {
        addr: u64,
        size: u64,
    },
    /// Pages mapped into an expandable segment.
    Map {
        addr: u64,
        size: u64,
    },
    Unmap {
        addr: u64,
        size: u64,
    },
}

impl DriverCall {
    /// The change in reserved bytes.
    pub fn delta(&self) -> i128 {
        match *self {
            DriverCall::Alloc { size, .. } | DriverCall::Map { size, .. } => size as i128,
            DriverCall::Free { size, .. } | DriverCall::Unmap { size, .. } => -(size as i128),
        }
    }

    /// True for `cudaMalloc` and a map: a call that reserves.
    pub fn reserves(&self) -> bool {
        self.delta() > 0
    }

    pub fn size(&self) -> u64 {
        self.delta().unsigned_abs() as u64
    }
}

#[derive(Clone, Debug)]
struct Blk {
    ptr: u64,
    size: u64,
    stream: i64,
    pool: u32,
    prev: u32,
    next: u32,
    /// The expandable segment it lies in, or NIL.
    seg: u32,
    allocated: bool,
    mapped: bool,
    gc_base: i64,
    alive: bool,
}

#[derive(Default)]
struct Pool {
    small: bool,
    private: bool,
    /// Free mapped blocks: (stream, size, address, block).
    free: BTreeSet<(i64, u64, u64, u32)>,
    /// Unmapped ranges of expandable segments: (stream, address, block).
    unmapped: BTreeSet<(i64, u64, u32)>,
    gc_calls: i64,
}

/// An expandable segment's address range: where it starts, and its page size
/// (which blocks are mapped, the blocks say).
struct Expandable {
    base: u64,
    page: u64,
}

/// The allocator's state.
pub struct Allocator {
    conf: AllocConf,
    cap: Option<u64>,
    blocks: Vec<Blk>,
    spare: Vec<u32>,
    pools: Vec<Pool>,
    exps: Vec<Expandable>,
    /// Live segments (`cudaMalloc`) and expandable address ranges, by address.
    ranges: BTreeMap<u64, u64>,
    next_addr: u64,
    /// Reserved bytes (`total_allocated_memory`).
    pub reserved: u64,
    /// Bytes of allocated blocks (torch's `allocated_bytes`).
    pub allocated: u64,
    /// The driver calls since the last [`Allocator::take_calls`].
    calls: Vec<DriverCall>,
    /// Addresses to give the next `cudaMalloc`s of these sizes (the real ones,
    /// when replaying a run under its own settings).
    hints: Vec<(u64, u64)>,
    /// The base of the next expandable segment of (stream, small), when known.
    exp_hints: Vec<(i64, bool, u64)>,
    /// Every range ever reserved, `[lo, hi)`: segments and mapped pages.
    ever: Vec<(u64, u64)>,
}

impl Allocator {
    /// An empty allocator under `conf`, with `cap` bytes it may reserve at most
    /// (`set_per_process_memory_fraction`).
    pub fn new(conf: AllocConf, cap: Option<u64>) -> Allocator {
        let mut a = Allocator {
            conf,
            cap,
            blocks: Vec::new(),
            spare: Vec::new(),
            pools: Vec::new(),
            exps: Vec::new(),
            ranges: BTreeMap::new(),
            next_addr: 1 << 44,
            reserved: 0,
            allocated: 0,
            calls: Vec::new(),
            hints: Vec::new(),
            exp_hints: Vec::new(),
            ever: Vec::new(),
        };
        a.add_pools(false);
        a
    }

    pub fn conf(&self) -> &AllocConf {
        &self.conf
    }

    /// Adds a private pool (a CUDA graph's); returns its number for [`Allocator::malloc`].
    pub fn add_private_pool(&mut self) -> u32 {
        self.add_pools(true);
        // pair 0 is the default pools; private pool p is pair p + 1
        (self.pools.len() / 2 - 2) as u32
    }

    fn add_pools(&mut self, private: bool) {
        for small in [false, true] {
            self.pools.push(Pool {
                small,
                private,
                ..Pool::default()
            });
        }
    }

    /// The driver calls made since the last call of this.
    pub fn take_calls(&mut self) -> Vec<DriverCall> {
        for c in &self.calls {
            if let DriverCall::Alloc { addr, size } | DriverCall::Map { addr, size } = *c {
                self.ever.push((addr, addr.saturating_add(size)));
            }
        }
        std::mem::take(&mut self.calls)
    }

    /// Every address range reserved so far (segments and mapped pages), `[lo, hi)`,
    /// as of the last [`Allocator::take_calls`].
    pub fn ranges_ever(&self) -> &[(u64, u64)] {
        &self.ever
    }

    /// Addresses for the next `cudaMalloc`s: `(size, address)` in order.
    pub fn hint(&mut self, hints: Vec<(u64, u64)>) {
        self.hints = hints;
    }

    /// The base address of the expandable segment of `stream` and pool kind.
    pub fn hint_expandable(&mut self, stream: i64, small: bool, base: u64) {
        self.exp_hints.push((stream, small, base));
    }

    pub fn round_size(&self, size: u64) -> u64 {
        if size < MIN_BLOCK {
            return MIN_BLOCK;
        }
        let div = self.conf.divisions(size);
        if div > 1 && size > MIN_BLOCK * div {
            next_division(size, div)
        } else {
            size.div_ceil(MIN_BLOCK) * MIN_BLOCK
        }
    }

    fn gc_on(&self) -> bool {
        self.cap.is_some() && self.conf.garbage_collection_threshold > 0.0
    }

    fn max_split(&self) -> u64 {
        self.conf.max_split_size.unwrap_or(u64::MAX)
    }

    /// Allocates `orig` bytes on `stream` (in private pool `private`, when given).
    /// `None`: out of memory, as torch raises it.
    pub fn malloc(&mut self, orig: u64, stream: i64, private: Option<u32>) -> Option<u32> {
        let size = self.round_size(orig);
        let pool = pool_index(private, size <= SMALL_SIZE);
        let alloc_size = allocation_size(size);
        let mut found = self.get_free_block(pool, stream, size);
        if found.is_none() {
            if self.gc_on() {
                self.garbage_collect();
            }
            found = self.alloc_block(pool, stream, size, alloc_size);
            if found.is_none() && self.release_available(pool, stream, size) {
                found = self.alloc_block(pool, stream, size, alloc_size);
            }
            if found.is_none() && !self.pools[pool as usize].private {
                self.release_cached();
                found = self.alloc_block(pool, stream, size, alloc_size);
            }
        }
        let mut b = found?;
        if self.should_split(b, size) {
            let rest = b;
            let (ptr, prev, seg) = {
                let r = &self.blocks[rest as usize];
                (r.ptr, r.prev, r.seg)
            };
            b = self.new_block(Blk {
                ptr,
                size,
                stream,
                pool,
                prev,
                next: rest,
                seg,
                allocated: false,
                mapped: true,
                gc_base: 0,
                alive: true,
            });
            if prev != NIL {
                self.blocks[prev as usize].next = b;
            }
            let r = &mut self.blocks[rest as usize];
            r.prev = b;
            r.ptr += size;
            r.size -= size;
            self.insert_free(rest);
        }
        let blk = &mut self.blocks[b as usize];
        blk.allocated = true;
        self.allocated += blk.size;
        Some(b)
    }

    /// True when `malloc(orig, stream)` would free cached memory: no cached block
    /// fits, and either garbage collection is due or a new segment would pass the cap.
    pub fn would_release(&self, orig: u64, stream: i64, private: Option<u32>) -> bool {
        let size = self.round_size(orig);
        let pool = pool_index(private, size <= SMALL_SIZE);
        if self.find_free(pool, stream, size).is_some() {
            return false;
        }
        let Some(cap) = self.cap else {
            return false;
        };
        let gc_due = self.gc_on()
            && self.reserved as f64 > self.conf.garbage_collection_threshold * cap as f64;
        gc_due || self.reserved + allocation_size(size) > cap
    }

    /// Frees block `b` (at its `free_completed`).
    pub fn free(&mut self, b: u32) {
        let blk = &mut self.blocks[b as usize];
        if !blk.alive || !blk.allocated {
            return;
        }
        blk.allocated = false;
        self.allocated -= blk.size;
        self.free_block(b);
    }

    /// The address and size of block `b`.
    pub fn block(&self, b: u32) -> (u64, u64) {
        let blk = &self.blocks[b as usize];
        (blk.ptr, blk.size)
    }

    /// `torch.cuda.empty_cache()`: every unsplit cached segment freed, every free
    /// page of an expandable segment unmapped.
    pub fn empty_cache(&mut self) {
        self.release_cached();
    }

    fn new_block(&mut self, b: Blk) -> u32 {
        match self.spare.pop() {
            Some(i) => {
                self.blocks[i as usize] = b;
                i
            }
            None => {
                self.blocks.push(b);
                (self.blocks.len() - 1) as u32
            }
        }
    }

    fn kill(&mut self, b: u32) {
        self.blocks[b as usize].alive = false;
        self.spare.push(b);
    }

    fn key(&self, b: u32) -> (i64, u64, u64, u32) {
        let x = &self.blocks[b as usize];
        (x.stream, x.size, x.ptr, b)
    }

    fn insert_free(&mut self, b: u32) {
        let key = self.key(b);
        let pool = &mut self.pools[self.blocks[b as usize].pool as usize];
        self.blocks[b as usize].gc_base = pool.gc_calls;
        pool.free.insert(key);
    }

    fn remove_free(&mut self, b: u32) {
        let key = self.key(b);
        self.pools[self.blocks[b as usize].pool as usize]
            .free
            .remove(&key);
    }

    fn unmapped_key(&self, b: u32) -> (i64, u64, u32) {
        let x = &self.blocks[b as usize];
        (x.stream, x.ptr, b)
    }

    fn expandable_size(&self, b: u32) -> u64 {
        let x = &self.blocks[b as usize];
        let next = (x.next != NIL).then(|| &self.blocks[x.next as usize]);
        x.size + next.filter(|n| !n.mapped).map_or(0, |n| n.size)
    }

    /// The block `get_free_block` would take, without taking it.
    fn find_free(&self, pool: u32, stream: i64, size: u64) -> Option<u32> {
        let p = &self.pools[pool as usize];
        let mut it = p.free.range((stream, size, 0, 0)..);
        let mut cur = it.next().filter(|k| k.0 == stream)?.3;
        if self.blocks[cur as usize].seg != NIL {
            if self.conf.expandable_segments {
                // best fit counts the unmapped room after a block
                for &(s, _, _, next) in it {
                    if self.blocks[cur as usize].seg == NIL
                        || s != stream
                        || self.expandable_size(next) >= self.expandable_size(cur)
                    {
                        break;
                    }
                    cur = next;
                }
            } else {
                // expandable segments switched off: the first block of another kind
                let next = it.find(|k| !(self.blocks[k.3 as usize].seg != NIL && k.0 == stream));
                cur = next.filter(|k| k.0 == stream)?.3;
            }
        }
        let found = self.blocks[cur as usize].size;
        let max_split = self.max_split();
        if size < max_split && found >= max_split {
            return None;
        }
        if size >= max_split && found >= size.saturating_add(self.conf.max_non_split_rounding) {
            return None;
        }
        Some(cur)
    }

    fn get_free_block(&mut self, pool: u32, stream: i64, size: u64) -> Option<u32> {
        if self.gc_on() {
            self.pools[pool as usize].gc_calls += 1;
        }
        let b = self.find_free(pool, stream, size)?;
        self.remove_free(b);
        Some(b)
    }

    fn should_split(&self, b: u32, size: u64) -> bool {
        let blk = &self.blocks[b as usize];
        let remaining = blk.size - size;
        if self.pools[blk.pool as usize].small || self.conf.expandable_segments {
            remaining >= MIN_BLOCK
        } else {
            size < self.max_split() && remaining > SMALL_SIZE
        }
    }

    fn alloc_block(&mut self, pool: u32, stream: i64, size: u64, alloc_size: u64) -> Option<u32> {
        if let Some(cap) = self.cap {
            if self.reserved + alloc_size > cap {
                return None;
            }
        }
        if self.conf.expandable_segments {
            return self.allocate_expandable(pool, stream, size);
        }
        let addr = self.segment_addr(alloc_size);
        self.ranges.insert(addr, alloc_size);
        self.reserved += alloc_size;
        self.calls.push(DriverCall::Alloc {
            addr,
            size: alloc_size,
        });
        Some(self.new_block(Blk {
            ptr: addr,
            size: alloc_size,
            stream,
            pool,
            prev: NIL,
            next: NIL,
            seg: NIL,
            allocated: false,
            mapped: true,
            gc_base: 0,
            alive: true,
        }))
    }

    /// Where a new range of `size` bytes goes: the hinted address when it is free,
    /// else above everything so far.
    fn segment_addr(&mut self, size: u64) -> u64 {
        if let Some(i) = self.hints.iter().position(|h| h.0 == size) {
            let (_, addr) = self.hints.remove(i);
            if self.range_free(addr, size) {
                self.next_addr = self.next_addr.max(addr.saturating_add(size));
                return addr;
            }
        }
        self.fresh(size, ROUND_LARGE)
    }

    fn fresh(&mut self, size: u64, align: u64) -> u64 {
        let addr = self.next_addr.div_ceil(align) * align;
        self.next_addr = addr.saturating_add(size);
        addr
    }

    fn range_free(&self, addr: u64, size: u64) -> bool {
        let end = addr.saturating_add(size);
        let before = self.ranges.range(..end).next_back();
        before.is_none_or(|(&a, &s)| a.saturating_add(s) <= addr)
    }

    fn try_merge(&mut self, dst: u32, src: u32) -> u64 {
        if src == NIL {
            return 0;
        }
        let s = self.blocks[src as usize].clone();
        if s.allocated || s.mapped != self.blocks[dst as usize].mapped {
            return 0;
        }
        if s.mapped {
            self.remove_free(src);
        } else {
            let key = self.unmapped_key(src);
            self.pools[s.pool as usize].unmapped.remove(&key);
        }
        if self.blocks[dst as usize].prev == src {
            let d = &mut self.blocks[dst as usize];
            d.ptr = s.ptr;
            d.prev = s.prev;
            if s.prev != NIL {
                self.blocks[s.prev as usize].next = dst;
            }
        } else {
            self.blocks[dst as usize].next = s.next;
            if s.next != NIL {
                self.blocks[s.next as usize].prev = dst;
            }
        }
        self.blocks[dst as usize].size += s.size;
        self.kill(src);
        s.size
    }

    fn free_block(&mut self, b: u32) {
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        self.insert_free(b);
    }

    fn release_block(&mut self, b: u32) {
        self.remove_free(b);
        let (addr, size) = self.block(b);
        self.ranges.remove(&addr);
        self.reserved -= size;
        self.calls.push(DriverCall::Free { addr, size });
        self.kill(b);
    }

    /// Frees cached oversize blocks of the request's stream (and pool), enough for it.
    fn release_available(&mut self, pool: u32, stream: i64, size: u64) -> bool {
        let max_split = self.max_split();
        if max_split == u64::MAX {
            return false;
        }
        let key = size.max(max_split);
        let p = &self.pools[pool as usize];
        let first = p.free.range((stream, key, 0, 0)..).next().copied();
        match first {
            Some(k) if k.0 == stream && self.blocks[k.3 as usize].seg == NIL => {
                self.release_block(k.3);
                true
            }
            _ => {
                // no single block is enough: the largest oversize ones, largest first
                let below: Vec<(i64, u64, u64, u32)> =
                    p.free.range(..(stream, key, 0, 0)).rev().copied().collect();
                let mut released = 0u64;
                for k in below {
                    if released >= key || k.1 < max_split || k.0 != stream {
                        break;
                    }
                    if self.blocks[k.3 as usize].seg == NIL {
                        released += k.1;
                        self.release_block(k.3);
                    }
                }
                released >= key
            }
        }
    }

    fn release_cached(&mut self) {
        for pool in 0..self.pools.len() {
            if !self.pools[pool].private {
                self.release_blocks(pool as u32);
            }
        }
    }

    fn release_blocks(&mut self, pool: u32) {
        let list: Vec<u32> = self.pools[pool as usize].free.iter().map(|k| k.3).collect();
        let mut to_unmap = Vec::new();
        for b in list {
            let blk = &self.blocks[b as usize];
            if blk.seg != NIL {
                to_unmap.push(b);
            } else if blk.prev == NIL && blk.next == NIL {
                self.release_block(b);
            }
        }
        for b in to_unmap {
            if !self.blocks[b as usize].alive {
                continue;
            }
            self.unmap_block(b);
            let blk = &self.blocks[b as usize];
            if blk.prev == NIL && blk.next == NIL && !blk.mapped {
                // the whole address range is free: give it back
                let key = self.unmapped_key(b);
                let seg = blk.seg as usize;
                self.pools[blk.pool as usize].unmapped.remove(&key);
                self.ranges.remove(&self.exps[seg].base);
                self.kill(b);
            }
        }
    }

    fn garbage_collect(&mut self) {
        let cap = self.cap.unwrap_or(u64::MAX);
        let threshold = (self.conf.garbage_collection_threshold * cap as f64) as u64;
        if self.reserved <= threshold {
            return;
        }
        let target = self.reserved - threshold;
        let calls = self.pools[0].gc_calls;
        let age = |a: &Allocator, b: u32| calls - a.blocks[b as usize].gc_base;
        let unsplit = |a: &Allocator, b: u32| {
            let x = &a.blocks[b as usize];
            x.prev == NIL && x.next == NIL
        };
        let list: Vec<u32> = self.pools[0].free.iter().map(|k| k.3).collect();
        let mut total_age: i64 = 0;
        let mut count: i64 = 0;
        for &b in &list {
            if unsplit(self, b) {
                total_age += age(self, b);
                count += 1;
            }
        }
        let mut reclaimed = 0u64;
        let mut freed = true;
        while reclaimed < target && freed && count > 0 {
            let threshold_age = total_age as f64 / count as f64;
            freed = false;
            let list: Vec<u32> = self.pools[0].free.iter().map(|k| k.3).collect();
            for b in list {
                if unsplit(self, b) && age(self, b) as f64 >= threshold_age {
                    freed = true;
                    reclaimed += self.blocks[b as usize].size;
                    total_age -= age(self, b);
                    count -= 1;
                    self.release_block(b);
                }
            }
        }
    }

    // ---- expandable segments ----

    fn allocate_expandable(&mut self, pool: u32, stream: i64, size: u64) -> Option<u32> {
        let mut c = self.find_expandable(pool, stream, size);
        if !self.blocks[c as usize].mapped {
            let n = self.blocks[c as usize].size.min(size);
            c = self.map_block(c, n)?;
        }
        while self.blocks[c as usize].size < size {
            let remaining = size - self.blocks[c as usize].size;
            let next = self.blocks[c as usize].next;
            if next == NIL {
                return None;
            }
            let n = remaining.min(self.blocks[next as usize].size);
            c = self.map_block(next, n)?;
        }
        self.remove_free(c);
        Some(c)
    }

    fn allocatable(&self, b: u32) -> bool {
        b != NIL && !self.blocks[b as usize].allocated
    }

    fn find_expandable(&mut self, pool: u32, stream: i64, size: u64) -> u32 {
        let p = &self.pools[pool as usize];
        for &(s, _, b) in p.unmapped.range((stream, 0, 0)..) {
            if s != stream {
                break;
            }
            let mut c = b;
            let prev = self.blocks[c as usize].prev;
            if self.allocatable(prev) {
                c = prev;
            }
            let mut bytes = 0u64;
            let mut x = c;
            while bytes < size && self.allocatable(x) {
                bytes += self.blocks[x as usize].size;
                x = self.blocks[x as usize].next;
            }
            if bytes >= size {
                return c;
            }
        }
        let small = self.pools[pool as usize].small;
        let page = if small { SMALL_BUFFER } else { LARGE_BUFFER };
        let hinted = (self.exp_hints.iter())
            .position(|h| h.0 == stream && h.1 == small)
            .map(|i| self.exp_hints.remove(i).2)
            .filter(|&a| self.range_free(a, EXPANDABLE_SPACE));
        let base = match hinted {
            Some(a) => {
                self.next_addr = self.next_addr.max(a.saturating_add(EXPANDABLE_SPACE));
                a
            }
            None => self.fresh(EXPANDABLE_SPACE, page),
        };
        self.new_expandable(pool, stream, base, page)
    }

    /// A new expandable segment at `base`, all unmapped; returns its one block.
    fn new_expandable(&mut self, pool: u32, stream: i64, base: u64, page: u64) -> u32 {
        let seg = self.exps.len() as u32;
        self.exps.push(Expandable { base, page });
        self.ranges.insert(base, EXPANDABLE_SPACE);
        self.new_unmapped(base, EXPANDABLE_SPACE, stream, pool, seg)
    }

    /// A block of unmapped address space of expandable segment `seg`, linked to
    /// nothing, in its pool's unmapped set.
    fn new_unmapped(&mut self, ptr: u64, size: u64, stream: i64, pool: u32, seg: u32) -> u32 {
        let b = self.new_block(Blk {
            ptr,
            size,
            stream,
            pool,
            prev: NIL,
            next: NIL,
            seg,
            allocated: false,
            mapped: false,
            gc_base: 0,
            alive: true,
        });
        let key = self.unmapped_key(b);
        self.pools[pool as usize].unmapped.insert(key);
        b
    }

    /// Maps the pages under the first `size` bytes of unmapped block `b`; returns the
    /// free block it became part of.
    fn map_block(&mut self, b: u32, size: u64) -> Option<u32> {
        let blk = self.blocks[b as usize].clone();
        let e = &self.exps[blk.seg as usize];
        let begin = (blk.ptr - e.base) / e.page;
        let end = (blk.ptr + size - e.base).div_ceil(e.page);
        if begin == end {
            return None;
        }
        let mapped = (end - begin) * e.page;
        let key = self.unmapped_key(b);
        self.pools[blk.pool as usize].unmapped.remove(&key);
        self.blocks[b as usize].mapped = true;
        if mapped < blk.size {
            let rest = self.new_block(Blk {
                ptr: blk.ptr + mapped,
                size: blk.size - mapped,
                prev: b,
                next: blk.next,
                mapped: false,
                ..blk.clone()
            });
            if blk.next != NIL {
                self.blocks[blk.next as usize].prev = rest;
            }
            self.blocks[b as usize].next = rest;
            self.blocks[b as usize].size = mapped;
            let key = self.unmapped_key(rest);
            self.pools[blk.pool as usize].unmapped.insert(key);
        }
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        self.insert_free(b);
        self.reserved += mapped;
        self.calls.push(DriverCall::Map {
            addr: blk.ptr,
            size: mapped,
        });
        Some(b)
    }

    /// Unmaps the whole pages inside free block `b`.
    fn unmap_block(&mut self, b: u32) {
        let blk = self.blocks[b as usize].clone();
        let e = &self.exps[blk.seg as usize];
        let begin = (blk.ptr - e.base).div_ceil(e.page);
        let end = (blk.ptr + blk.size - e.base) / e.page;
        if begin >= end {
            return;
        }
        let (ptr, size) = (e.base + begin * e.page, (end - begin) * e.page);
        self.remove_free(b);
        let before = ptr - blk.ptr;
        if before > 0 {
            let f = self.new_block(Blk {
                size: before,
                next: b,
                ..blk.clone()
            });
            if blk.prev != NIL {
                self.blocks[blk.prev as usize].next = f;
            }
            self.blocks[b as usize].prev = f;
            self.insert_free(f);
        }
        let after = blk.size - before - size;
        if after > 0 {
            let next = self.blocks[b as usize].next;
            let f = self.new_block(Blk {
                ptr: ptr + size,
                size: after,
                prev: b,
                next,
                ..blk.clone()
            });
            if next != NIL {
                self.blocks[next as usize].prev = f;
            }
            self.blocks[b as usize].next = f;
            self.insert_free(f);
        }
        {
            let x = &mut self.blocks[b as usize];
            x.ptr = ptr;
            x.size = size;
            x.mapped = false;
        }
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        let key = self.unmapped_key(b);
        self.pools[blk.pool as usize].unmapped.insert(key);
        self.reserved -= size;
        self.calls.push(DriverCall::Unmap { addr: ptr, size });
    }

    // ---- the state before recording ----

    /// A segment reserved before recording (`cudaMalloc`'d), with the blocks alive in
    /// it; returns the blocks' numbers in the order given. A block outside the
    /// segment or over another is refused (`Err` with its index).
    pub fn add_segment(
        &mut self,
        addr: u64,
        size: u64,
        stream: i64,
        small: bool,
        private: Option<u32>,
        live: &[(u64, u64)],
    ) -> Result<Vec<u32>, usize> {
        let pool = pool_index(private, small);
        self.ranges.insert(addr, size);
        self.next_addr = self.next_addr.max(addr.saturating_add(size));
        self.reserved += size;
        self.ever.push((addr, addr.saturating_add(size)));
        let (ids, _, _) = self.lay_out(addr, size, stream, pool, NIL, live)?;
        Ok(ids)
    }

    /// The blocks of `[addr, addr + size)`: `live` allocated, the gaps free, linked
    /// in address order; returns the live ones' numbers and the chain's first and
    /// last block.
    fn lay_out(
        &mut self,
        addr: u64,
        size: u64,
        stream: i64,
        pool: u32,
        seg: u32,
        live: &[(u64, u64)],
    ) -> Result<(Vec<u32>, u32, u32), usize> {
        let mut order: Vec<usize> = (0..live.len()).collect();
        order.sort_by_key(|&i| live[i].0);
        let mut ids = vec![NIL; live.len()];
        let mut pieces: Vec<(u64, u64, Option<usize>)> = Vec::new();
        let mut at = addr;
        for i in order {
            let (a, s) = live[i];
            if a < at || a.saturating_add(s) > addr + size || s == 0 {
                return Err(i);
            }
            if a > at {
                pieces.push((at, a - at, None));
            }
            pieces.push((a, s, Some(i)));
            at = a + s;
        }
        if at < addr + size {
            pieces.push((at, addr + size - at, None));
        }
        let mut prev = NIL;
        let mut first = NIL;
        for (a, s, live_ix) in pieces {
            let b = self.new_block(Blk {
                ptr: a,
                size: s,
                stream,
                pool,
                prev,
                next: NIL,
                seg,
                allocated: live_ix.is_some(),
                mapped: true,
                gc_base: 0,
                alive: true,
            });
            if prev != NIL {
                self.blocks[prev as usize].next = b;
            } else {
                first = b;
            }
            prev = b;
            match live_ix {
                Some(i) => {
                    ids[i] = b;
                    self.allocated += s;
                }
                None => self.insert_free(b),
            }
        }
        Ok((ids, first, prev))
    }

    /// An expandable segment alive before recording: its base, the ranges mapped
    /// then, the blocks alive in them; returns the blocks' numbers.
    #[allow(clippy::too_many_arguments)]
    pub fn add_expandable(
        &mut self,
        base: u64,
        stream: i64,
        small: bool,
        private: Option<u32>,
        mapped: &[(u64, u64)],
        live: &[(u64, u64)],
    ) -> Result<Vec<u32>, usize> {
        let pool = pool_index(private, small);
        let page = if small { SMALL_BUFFER } else { LARGE_BUFFER };
        let b0 = self.new_expandable(pool, stream, base, page);
        let seg = self.blocks[b0 as usize].seg;
        self.next_addr = self.next_addr.max(base.saturating_add(EXPANDABLE_SPACE));
        // drop the all-unmapped block: the chain is built anew
        let key = self.unmapped_key(b0);
        self.pools[pool as usize].unmapped.remove(&key);
        self.kill(b0);
        let mut ranges: Vec<(u64, u64)> = mapped.to_vec();
        ranges.sort_unstable();
        let mut ids = vec![NIL; live.len()];
        let mut at = base;
        let mut last = NIL;
        let end = base + EXPANDABLE_SPACE;
        let mut link = |a: &mut Allocator, first: u32, chain_last: u32| {
            if last != NIL {
                a.blocks[last as usize].next = first;
                a.blocks[first as usize].prev = last;
            }
            last = chain_last;
        };
        let unmapped = |a: &mut Allocator, from: u64, to: u64| -> u32 {
            a.new_unmapped(from, to - from, stream, pool, seg)
        };
        for (a, s) in ranges {
            if a < at || a.saturating_add(s) > end {
                continue;
            }
            if a > at {
                let u = unmapped(self, at, a);
                link(self, u, u);
            }
            let inside: Vec<usize> = (0..live.len())
                .filter(|&i| live[i].0 >= a && live[i].0 < a + s)
                .collect();
            let here: Vec<(u64, u64)> = inside.iter().map(|&i| live[i]).collect();
            let (got, first, tail) = self
                .lay_out(a, s, stream, pool, seg, &here)
                .map_err(|j| inside[j])?;
            for (k, &i) in inside.iter().enumerate() {
                ids[i] = got[k];
            }
            link(self, first, tail);
            self.reserved += s;
            self.ever.push((a, a + s));
            at = a + s;
        }
        if at < end {
            let u = unmapped(self, at, end);
            link(self, u, u);
        }
        if let Some(i) = ids.iter().position(|&b| b == NIL) {
            return Err(i);
        }
        Ok(ids)
    }

    /// Checks the model's invariants (tests): blocks of a chain are contiguous,
    /// no two live ranges overlap, the free sets hold exactly the free mapped blocks,
    /// and the reserved bytes are the mapped and allocated ranges' sum.
    pub fn check(&self) -> Result<(), String> {
        let mut free_count = 0usize;
        let mut alloc_bytes = 0u64;
        let mut spans: Vec<(u64, u64)> = Vec::new();
        for (i, b) in self.blocks.iter().enumerate() {
            if !b.alive {
                continue;
            }
            if b.next != NIL {
                let n = &self.blocks[b.next as usize];
                if !n.alive || n.prev != i as u32 || b.ptr + b.size != n.ptr {
                    return Err(format!(
                        "block {i} at {} is not followed by its next",
                        b.ptr
                    ));
                }
            }
            if b.allocated {
                alloc_bytes += b.size;
            }
            if b.mapped {
                spans.push((b.ptr, b.size));
            }
            let key = (b.stream, b.size, b.ptr, i as u32);
            let in_free = self.pools[b.pool as usize].free.contains(&key);
            if in_free != (!b.allocated && b.mapped) {
                return Err(format!("block {i} at {}: free set disagrees", b.ptr));
            }
            free_count += usize::from(in_free);
        }
        let listed: usize = self.pools.iter().map(|p| p.free.len()).sum();
        if listed != free_count {
            return Err("a free set holds a dead block".into());
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            if w[0].0 + w[0].1 > w[1].0 {
                return Err(format!("blocks at {} and {} overlap", w[0].0, w[1].0));
            }
        }
        let mapped: u64 = spans.iter().map(|s| s.1).sum();
        if mapped != self.reserved {
            return Err(format!(
                "reserved {} but blocks cover {mapped}",
                self.reserved
            ));
        }
        if alloc_bytes != self.allocated {
            return Err(format!(
                "allocated {} but blocks hold {alloc_bytes}",
                self.allocated
            ));
        }
        Ok(())
    }
}

/// The index of a pool in [`Allocator::pools`]: pair 0 is the default pools,
/// private pool `p` is pair `p + 1`; the large pool first in each pair.
fn pool_index(private: Option<u32>, small: bool) -> u32 {
    private.map_or(0, |p| 1 + p) * 2 + u32::from(small)
}

/// The segment size for a rounded request.
pub fn allocation_size(size: u64) -> u64 {
    if size <= SMALL_SIZE {
        SMALL_BUFFER
    } else if size < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        size.div_ceil(ROUND_LARGE) * ROUND_LARGE
    }
}

/// `size` rounded up to the next of `divisions` equal steps between two powers of 2.
fn next_division(size: u64, divisions: u64) -> u64 {
    if size.is_power_of_two() {
        return size;
    }
    let floor = 1u64 << size.ilog2();
    let step = floor >> divisions.ilog2();
    if step == 0 {
        return floor << 1;
    }
    let down = size & !(step - 1);
    if down == size {
        size
    } else {
        down + step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_follows_torch() {
        let mut a = Allocator::new(AllocConf::default(), None);
        assert_eq!(a.round_size(1), 512);
        assert_eq!(a.round_size(513), 1024);
        a.conf.roundup_power2_divisions = [4; 16];
        // torch's own example: 1200 with 4 divisions is 1280, but sizes up to
        // 512 * divisions keep plain rounding
        assert_eq!(next_division(1200, 4), 1280);
        assert_eq!(a.round_size(1200), 1536);
        assert_eq!(a.round_size((1 << 20) + 1), (1 << 20) + (1 << 18));
        assert_eq!(a.round_size(3 << 20), 3 << 20);
    }

    #[test]
    fn a_freed_block_is_reused_and_split() {
        let mut a = Allocator::new(AllocConf::default(), None);
        let x = a.malloc(4 << 20, 0, None).unwrap();
        assert_eq!(a.reserved, 20 << 20);
        let y = a.malloc(4 << 20, 0, None).unwrap();
        assert_eq!(a.reserved, 20 << 20, "the 20 MiB segment is split");
        a.free(x);
        a.free(y);
        a.check().unwrap();
        let z = a.malloc(16 << 20, 0, None).unwrap();
        assert_eq!(a.reserved, 20 << 20);
        assert_eq!(a.block(z).1, 16 << 20, "4 MiB left over is split off");
        a.check().unwrap();
    }
}
