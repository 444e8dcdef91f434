//! A snapshot's trace replayed through the allocator model: every `alloc` (and the
//! `oom` request) is a `malloc` on its stream, every `free_completed` a free, in
//! the trace's order. The reserved bytes after each entry are kept and, under the
//! recorded settings, compared with the recording's own.
//!
//! How the replay lines up with the trace: the allocator records its driver calls
//! (`segment_alloc`, `segment_map`, `segment_free`, `segment_unmap`) just before the
//! request that made them, so the replay's calls for a request are given to the
//! segment entries before that request's entry, in order; a call more than the
//! recording made counts at the request's entry. Segment frees before an entry that
//! did not need them (no request, or one that fits without freeing) are the
//! program's own `torch.cuda.empty_cache()`, and the replay empties its cache there
//! too, under any settings.
//!
//! The state before recording: under the recorded settings, the segments reserved
//! then and the blocks alive then, at their recorded addresses (a large-pool block
//! followed by 1 MiB or less of its segment holds that too: torch splits only more).
//! Under other settings those blocks are allocated anew, in address order (their
//! real order is not in the file), and the segments cached then are left out.

use crate::conf::AllocConf;
use crate::model::{Allocator, DriverCall, SMALL_SIZE};
use memplan::error::Error;
use memplan_formats::snapshot::{SegmentAction, SegmentEvent, Snapshot};
use serde::Serialize;
use std::collections::HashMap;

/// How the replay began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// From the state the recording began in.
    Recorded,
    /// The blocks alive before recording allocated anew, in address order.
    Replaced,
}

/// A request the replayed allocator could not serve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayOom {
    /// The trace entry of the request.
    pub entry: u32,
    /// The bytes requested.
    pub request: u64,
    /// Allocated and reserved bytes then.
    pub allocated: u64,
    pub reserved: u64,
}

/// The replay under the recorded settings against the recording.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// Entries whose replayed reserved bytes equal the recorded ones.
    pub entries_equal: u32,
    pub entries: u32,
    /// The largest difference in reserved bytes at one entry.
    pub largest_difference: u64,
    /// The first entry that differs.
    pub first_difference: Option<u32>,
    /// The sizes of `cudaMalloc` calls and mapped ranges, in order, equal the
    /// recorded ones.
    pub calls_equal: bool,
    pub calls: usize,
    pub recorded_calls: usize,
    /// Blocks the replay put at their recorded address.
    pub blocks_equal: u32,
    pub blocks: u32,
}

impl Agreement {
    pub fn exact(&self) -> bool {
        self.entries_equal == self.entries && self.calls_equal && self.blocks_equal == self.blocks
    }
}

/// A replay's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replay {
    /// The settings, in `PYTORCH_CUDA_ALLOC_CONF`'s syntax (`""`: torch's defaults).
    pub alloc_conf: String,
    /// The cap on reserved bytes, when one was given.
    pub capacity: Option<u64>,
    pub start: Start,
    /// True for the run's own settings.
    pub recorded_settings: bool,
    pub reserved_peak: u64,
    /// The first entry at the peak, and the allocated bytes then.
    pub peak_entry: u32,
    pub allocated_at_peak: u64,
    /// `cudaMalloc` calls and page mappings.
    pub segments: usize,
    pub oom: Option<ReplayOom>,
    /// Reserved bytes after each entry, at each change: `(entry, bytes)`, the first
    /// at entry 0.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reserved: Vec<(u32, u64)>,
    pub agreement: Option<Agreement>,
    /// Entries before which the program emptied the cache.
    #[serde(skip)]
    pub empties: Vec<u32>,
    /// Where each block of the snapshot went ([`UNPLACED`]: never allocated, after
    /// a failure), and every address range reserved: the replayed layout.
    #[serde(skip)]
    pub addresses: Vec<u64>,
    #[serde(skip)]
    pub ranges: Vec<(u64, u64)>,
    pub notes: Vec<String>,
}

impl Replay {
    /// `plan` (a plan of the snapshot's graph) with each block where the replay put
    /// it, address ranges no segment held squeezed out as in the real layout; a
    /// block the replay never allocated (after a failure) sits above the rest.
    pub fn layout(&self, plan: &memplan::Plan) -> memplan::Plan {
        let top = self.ranges.iter().map(|r| r.1).max().unwrap_or(0);
        let addrs: Vec<u64> = (self.addresses.iter())
            .map(|&a| if a == UNPLACED { top } else { a })
            .collect();
        let mut ranges = self.ranges.clone();
        if self.addresses.contains(&UNPLACED) {
            let most = plan.tensors.iter().map(|t| t.size).max().unwrap_or(0);
            ranges.push((top, top.saturating_add(most)));
        }
        memplan_formats::snapshot::layout_at(
            plan,
            &addrs,
            &memplan_formats::snapshot::regions(ranges),
            "replayed",
        )
    }

    /// The reserved bytes after `entry`.
    pub fn reserved_at(&self, entry: u32) -> u64 {
        memplan_formats::snapshot::at_step(&self.reserved, entry)
    }
}

/// The address of a block the replay never allocated.
pub const UNPLACED: u64 = u64::MAX;

/// The settings the snapshot recorded (torch's defaults, with a note, when it has
/// none).
pub fn recorded_conf(snap: &Snapshot, notes: &mut Vec<String>) -> Result<AllocConf, Error> {
    match &snap.settings {
        Some(s) => AllocConf::recorded(s),
        None => {
            notes.push(
                "the snapshot records no allocator_settings (torch before 2.1): torch's defaults assumed"
                    .into(),
            );
            Ok(AllocConf::default())
        }
    }
}

/// The recorded settings' replay under `capacity`. The recording's own cap is not
/// in the file: when the recording agrees with the replay with no cap and not
/// under `capacity`, the agreement (and where the program emptied the cache) are
/// taken from the replay with no cap, with a note.
pub fn baseline(snap: &Snapshot, capacity: Option<u64>) -> Result<Replay, Error> {
    let mut r = replay(snap, None, capacity, None)?;
    let equal = |r: &Replay| r.agreement.as_ref().map_or(0, |a| a.entries_equal);
    let exact = r.agreement.as_ref().is_some_and(Agreement::exact);
    if capacity.is_some() && !exact {
        let free = replay(snap, None, None, None)?;
        if free.agreement.as_ref().is_some_and(Agreement::exact) || equal(&free) > equal(&r) {
            r.agreement = free.agreement;
            r.empties = free.empties;
            r.notes.push(AGREED_WITHOUT_CAP.into());
        }
    }
    Ok(r)
}

/// The replay under `conf` (the recorded settings when `None`) and `capacity`,
/// with the recorded settings' agreement ([`baseline`]), whose `empty_cache`
/// calls it repeats: what `memplan replay`, the page and Python answer.
pub fn what_if(
    snap: &Snapshot,
    conf: Option<&AllocConf>,
    capacity: Option<u64>,
) -> Result<Replay, Error> {
    let recorded = baseline(snap, capacity)?;
    let Some(conf) = conf else {
        return Ok(recorded);
    };
    let mut r = replay(snap, Some(conf), capacity, Some(&recorded.empties))?;
    r.agreement = recorded.agreement;
    r.notes
        .extend((recorded.notes.into_iter()).filter(|n| n.as_str() == AGREED_WITHOUT_CAP));
    Ok(r)
}

/// [`baseline`]'s note when it took the agreement without the cap.
const AGREED_WITHOUT_CAP: &str = "the recording agrees with its settings' replay with no cap, not under this one: the agreement is without it";

/// One trace entry as the replay sees it.
#[derive(Clone, Copy)]
enum Op {
    None,
    Alloc(u32),
    /// A request that failed in the recording: `(bytes, stream)`.
    Oom(u64, i64),
}

/// Replays `snap` under `conf` (the recorded settings when `None`) with at most
/// `capacity` bytes reserved. `empties`: where the program emptied the cache, as a
/// replay under the recorded settings found (found here when `None`).
pub fn replay(
    snap: &Snapshot,
    conf: Option<&AllocConf>,
    capacity: Option<u64>,
    empties: Option<&[u32]>,
) -> Result<Replay, Error> {
    // a bug of the model on some trace is said as an error, not a crash of the
    // command or the Python process
    let run = std::panic::AssertUnwindSafe(|| replay_checked(snap, conf, capacity, empties));
    std::panic::catch_unwind(run).unwrap_or_else(|panic| {
        let why = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Error::usage(format!(
            "the allocator replay hit a bug on this trace ({why}); please report the snapshot"
        )))
    })
}

fn replay_checked(
    snap: &Snapshot,
    conf: Option<&AllocConf>,
    capacity: Option<u64>,
    empties: Option<&[u32]>,
) -> Result<Replay, Error> {
    let mut notes = Vec::new();
    let recorded = recorded_conf(snap, &mut notes)?;
    let conf = conf.cloned().unwrap_or_else(|| recorded.clone());
    if conf.malloc_async {
        return Err(Error::usage(
            "backend:cudaMallocAsync is CUDA's own allocator, not the caching allocator memplan replays",
        ));
    }
    if conf.memory_fraction.is_some() {
        return Err(Error::usage(
            "per_process_memory_fraction caps the allocator at a share of the card's memory, which the snapshot does not hold: give the cap in bytes as --capacity",
        ));
    }
    let is_recorded = conf == recorded;
    check_blocks(snap)?;
    let steps = snap.steps as usize;
    let mut model = Allocator::new(conf.clone(), capacity);

    // private pools by id
    let mut private: HashMap<(i64, i64), u32> = HashMap::new();
    let mut pool_of_segment = |model: &mut Allocator, s: Option<u32>| -> Option<u32> {
        let id = snap.segments.get(s? as usize)?.pool?;
        Some(
            *private
                .entry(id)
                .or_insert_with(|| model.add_private_pool()),
        )
    };
    let block_pool: Vec<Option<u32>> = (snap.blocks.iter())
        .map(|b| pool_of_segment(&mut model, b.segment))
        .collect();

    // the requests and frees of each entry
    let mut ops = vec![Op::None; steps];
    let mut frees: Vec<(u32, u32)> = Vec::new();
    for (i, b) in snap.blocks.iter().enumerate() {
        if b.allocated_in_trace && (b.start as usize) < steps {
            ops[b.start as usize] = Op::Alloc(i as u32);
        }
        // a block freed, or one the reader ended at a second alloc of its address
        // (its free is missing from the trace): it comes back at its end
        if b.freed || b.end + 1 < snap.steps {
            frees.push((b.end, i as u32));
        }
    }
    frees.sort_unstable();
    for &(step, size, stream) in &snap.failed_requests {
        if (step as usize) < steps {
            ops[step as usize] = Op::Oom(size, stream);
        }
    }

    // the state before recording
    let mut ids: Vec<u32> = vec![u32::MAX; snap.blocks.len()];
    let mut addresses: Vec<u64> = vec![UNPLACED; snap.blocks.len()];
    let start = if is_recorded {
        recorded_start(snap, &mut model, &block_pool, &mut ids, &mut notes);
        for (i, &id) in ids.iter().enumerate() {
            if id != u32::MAX {
                addresses[i] = model.block(id).0;
            }
        }
        Start::Recorded
    } else {
        let mut before: Vec<usize> = (0..snap.blocks.len())
            .filter(|&i| !snap.blocks[i].allocated_in_trace)
            .collect();
        before.sort_by_key(|&i| (snap.blocks[i].addr, i));
        if !before.is_empty() {
            notes.push(format!(
                "{} blocks alive before recording were allocated anew in address order (their real order is not recorded)",
                before.len()
            ));
        }
        for i in before {
            let b = &snap.blocks[i];
            match model.malloc(b.requested, b.stream, block_pool[i]) {
                Some(id) => {
                    ids[i] = id;
                    addresses[i] = model.block(id).0;
                }
                None => {
                    let _ = model.take_calls();
                    let ranges = model.ranges_ever().to_vec();
                    return Ok(finish(
                        snap,
                        Outcome {
                            conf,
                            capacity,
                            start: Start::Replaced,
                            is_recorded,
                            timeline: vec![model.reserved; steps],
                            calls: Vec::new(),
                            peak: (model.reserved, 0, model.allocated),
                            oom: Some(ReplayOom {
                                entry: 0,
                                request: b.requested,
                                allocated: model.allocated,
                                reserved: model.reserved,
                            }),
                            empties: Vec::new(),
                            addresses,
                            ranges,
                        },
                        notes,
                    ));
                }
            }
        }
        Start::Replaced
    };
    let _ = model.take_calls();
    hint_expandable(snap, &mut model);

    let events = &snap.segment_events;
    let mut next_event = 0usize;
    let mut next_free = 0usize;
    let mut run: Vec<usize> = Vec::new();
    let mut timeline = vec![0u64; steps];
    let mut all_calls: Vec<DriverCall> = Vec::new();
    let mut found_empties: Vec<u32> = Vec::new();
    let mut peak = (model.reserved, 0u32, model.allocated);
    let mut oom = None;
    let mut e = 0usize;
    while e < steps {
        if events
            .get(next_event)
            .is_some_and(|ev| ev.step as usize == e)
        {
            run.push(next_event);
            next_event += 1;
            timeline[e] = model.reserved;
            e += 1;
            continue;
        }
        let before = model.reserved;
        let request = match ops[e] {
            Op::Alloc(i) => {
                let b = &snap.blocks[i as usize];
                Some((b.requested, b.stream, block_pool[i as usize], Some(i)))
            }
            Op::Oom(size, stream) => Some((size, stream, None, None)),
            Op::None => None,
        };
        let releases = run.iter().any(|&k| !events[k].kind.adds());
        let empty = match empties {
            Some(list) => list.binary_search(&(e as u32)).is_ok(),
            None => {
                releases
                    && request.is_none_or(|(size, stream, pool, _)| {
                        !model.would_release(size, stream, pool)
                    })
            }
        };
        if empty {
            model.empty_cache();
            found_empties.push(e as u32);
        }
        while let Some(&(at, b)) = frees.get(next_free) {
            if at as usize > e {
                break;
            }
            if at as usize == e && ids[b as usize] != u32::MAX {
                model.free(ids[b as usize]);
            }
            next_free += 1;
        }
        let mut failed = None;
        if let Some((size, stream, pool, block)) = request {
            let hints: Vec<(u64, u64)> = (run.iter())
                .map(|&k| &events[k])
                .filter(|ev| ev.kind == SegmentAction::Alloc)
                .map(|ev| (ev.size, ev.addr))
                .collect();
            model.hint(hints);
            match model.malloc(size, stream, pool) {
                Some(id) => {
                    if let Some(i) = block {
                        ids[i as usize] = id;
                        addresses[i as usize] = model.block(id).0;
                    }
                }
                None => failed = Some(size),
            }
        }
        let calls = model.take_calls();
        settle(&run, events, &calls, before, &mut timeline);
        run.clear();
        all_calls.extend(calls);
        timeline[e] = model.reserved;
        if model.reserved > peak.0 {
            peak = (model.reserved, e as u32, model.allocated);
        }
        if let Some(request) = failed {
            oom.get_or_insert(ReplayOom {
                entry: e as u32,
                request,
                allocated: model.allocated,
                reserved: model.reserved,
            });
            // where the recording failed too, the program caught the error and went
            // on (the trace goes on); elsewhere the run ends here
            if !matches!(ops[e], Op::Oom(..)) {
                for t in &mut timeline[e..] {
                    *t = model.reserved;
                }
                break;
            }
        }
        e += 1;
    }
    // segment entries at the end: an empty_cache with nothing after it
    if !run.is_empty() && e >= steps {
        let before = model.reserved;
        if run.iter().any(|&k| !events[k].kind.adds()) {
            let at = steps as u32;
            let empty = empties.is_none_or(|l| l.binary_search(&at).is_ok());
            if empty {
                model.empty_cache();
                found_empties.push(at);
            }
        }
        let calls = model.take_calls();
        settle(&run, events, &calls, before, &mut timeline);
        all_calls.extend(calls);
    }
    if let Some(p) = timeline
        .iter()
        .enumerate()
        .max_by_key(|&(i, &r)| (r, std::cmp::Reverse(i)))
    {
        if *p.1 > peak.0 {
            peak = (*p.1, p.0 as u32, peak.2);
        }
    }
    if !found_empties.is_empty() {
        notes.push(format!(
            "the program emptied the cache {} times (segment frees no request needed): replayed there too",
            found_empties.len()
        ));
    }
    Ok(finish(
        snap,
        Outcome {
            conf,
            capacity,
            start,
            is_recorded,
            timeline,
            calls: all_calls,
            peak,
            oom,
            empties: empties.map_or(found_empties, <[u32]>::to_vec),
            ranges: model.ranges_ever().to_vec(),
            addresses,
        },
        notes,
    ))
}

/// Gives a request's driver calls to the segment entries the recording made
/// before it (`run`, indices into `events`), in order, from `before` reserved
/// bytes: the reserved bytes after each of those entries.
fn settle(
    run: &[usize],
    events: &[SegmentEvent],
    calls: &[DriverCall],
    before: u64,
    timeline: &mut [u64],
) {
    let mut r = i128::from(before);
    for (k, &ev) in run.iter().enumerate() {
        if let Some(c) = calls.get(k) {
            r += c.delta();
        }
        timeline[events[ev].step as usize] = r.max(0) as u64;
    }
}

struct Outcome {
    conf: AllocConf,
    capacity: Option<u64>,
    start: Start,
    is_recorded: bool,
    timeline: Vec<u64>,
    calls: Vec<DriverCall>,
    peak: (u64, u32, u64),
    oom: Option<ReplayOom>,
    empties: Vec<u32>,
    addresses: Vec<u64>,
    ranges: Vec<(u64, u64)>,
}

fn finish(snap: &Snapshot, o: Outcome, notes: Vec<String>) -> Replay {
    let mut reserved: Vec<(u32, u64)> = Vec::new();
    for (i, &r) in o.timeline.iter().enumerate() {
        if reserved.last().is_none_or(|l| l.1 != r) || i == 0 {
            reserved.push((i as u32, r));
        }
    }
    let agreement =
        (o.start == Start::Recorded).then(|| agreement(snap, &o.timeline, &o.calls, &o.addresses));
    Replay {
        alloc_conf: o.conf.to_string(),
        capacity: o.capacity,
        start: o.start,
        recorded_settings: o.is_recorded,
        reserved_peak: o.peak.0,
        peak_entry: o.peak.1,
        allocated_at_peak: o.peak.2,
        segments: o.calls.iter().filter(|c| c.reserves()).count(),
        oom: o.oom,
        reserved,
        agreement,
        empties: o.empties,
        addresses: o.addresses,
        ranges: o.ranges,
        notes,
    }
}

fn agreement(
    snap: &Snapshot,
    timeline: &[u64],
    calls: &[DriverCall],
    addresses: &[u64],
) -> Agreement {
    let mut equal = 0u32;
    let mut largest = 0u64;
    let mut first = None;
    let mut k = 0usize;
    let mut recorded = 0u64;
    for (i, &r) in timeline.iter().enumerate() {
        while snap.reserved.get(k).is_some_and(|&(s, _)| s as usize <= i) {
            recorded = snap.reserved[k].1;
            k += 1;
        }
        if r == recorded {
            equal += 1;
        } else {
            largest = largest.max(r.abs_diff(recorded));
            first.get_or_insert(i as u32);
        }
    }
    let mine: Vec<u64> = calls
        .iter()
        .filter(|c| c.reserves())
        .map(DriverCall::size)
        .collect();
    let theirs: Vec<u64> = (snap.segment_events.iter())
        .filter(|e| e.kind.adds())
        .map(|e| e.size)
        .collect();
    Agreement {
        entries_equal: equal,
        entries: timeline.len() as u32,
        largest_difference: largest,
        first_difference: first,
        calls_equal: mine == theirs,
        calls: mine.len(),
        recorded_calls: theirs.len(),
        blocks_equal: (snap.blocks.iter().zip(addresses))
            .filter(|(b, &a)| b.addr == a)
            .count() as u32,
        blocks: snap.blocks.len() as u32,
    }
}

/// Refuses a trace whose blocks overlap while alive: no allocator made it.
fn check_blocks(snap: &Snapshot) -> Result<(), Error> {
    match &snap.overlap {
        Some(o) => Err(Error::usage(format!("the replay needs a real trace: {o}"))),
        None => Ok(()),
    }
}

/// The segments reserved and the blocks alive before recording, laid out as they
/// were.
fn recorded_start(
    snap: &Snapshot,
    model: &mut Allocator,
    block_pool: &[Option<u32>],
    ids: &mut [u32],
    notes: &mut Vec<String>,
) {
    let first = snap
        .segment_events
        .first()
        .filter(|e| e.step == 0 && e.kind.adds());
    let at_start: Vec<usize> = (0..snap.segments.len())
        .filter(|&i| {
            let s = &snap.segments[i];
            s.start == 0 && !first.is_some_and(|e| e.addr == s.addr && e.size == s.size)
        })
        .collect();
    let before: Vec<usize> = (0..snap.blocks.len())
        .filter(|&i| !snap.blocks[i].allocated_in_trace)
        .collect();
    let sizes: Vec<u64> = (snap.blocks.iter())
        .map(|b| b.size.max(model.round_size(b.requested)))
        .collect();
    let size_of = |i: usize| sizes[i];
    let mut placed = 0usize;
    let private = |i: usize| block_pool[i];
    // plain segments
    for &s in at_start.iter().filter(|&&s| !snap.segments[s].expandable) {
        let seg = &snap.segments[s];
        let mut inside: Vec<usize> = (before.iter().copied())
            .filter(|&i| {
                snap.blocks[i].addr >= seg.addr && snap.blocks[i].addr < seg.addr + seg.size
            })
            .collect();
        inside.sort_by_key(|&i| snap.blocks[i].addr);
        let mut live: Vec<(u64, u64)> = inside
            .iter()
            .map(|&i| (snap.blocks[i].addr, size_of(i)))
            .collect();
        if !seg.small {
            // an unsplit large block holds up to 1 MiB after its request
            for k in 0..live.len() {
                let end = live.get(k + 1).map_or(seg.addr + seg.size, |n| n.0);
                let (a, s) = live[k];
                if end > a + s && end - (a + s) <= SMALL_SIZE {
                    live[k].1 = end - a;
                }
            }
        }
        let pool = inside.first().and_then(|&i| private(i)).or_else(|| {
            seg.pool.and_then(|_| {
                block_pool
                    .iter()
                    .zip(&snap.blocks)
                    .find(|(_, b)| b.segment == Some(s as u32))
                    .and_then(|(p, _)| *p)
            })
        });
        match model.add_segment(seg.addr, seg.size, seg.stream, seg.small, pool, &live) {
            Ok(got) => {
                for (k, &i) in inside.iter().enumerate() {
                    ids[i] = got[k];
                }
                placed += inside.len();
            }
            Err(k) => notes.push(format!(
                "a block alive before recording at {} does not fit its segment at {}: the segment starts empty",
                live[k].0, seg.addr
            )),
        }
    }
    // expandable segments: grouped by stream and pool kind, from their lowest address
    let mut groups: Vec<(i64, bool, Vec<usize>)> = Vec::new();
    for &s in at_start.iter().filter(|&&s| snap.segments[s].expandable) {
        let seg = &snap.segments[s];
        match groups
            .iter_mut()
            .find(|g| g.0 == seg.stream && g.1 == seg.small)
        {
            Some(g) => g.2.push(s),
            None => groups.push((seg.stream, seg.small, vec![s])),
        }
    }
    for (stream, small, list) in groups {
        let base = (snap.segments.iter())
            .filter(|x| x.expandable && x.stream == stream && x.small == small)
            .map(|x| x.addr)
            .min()
            .unwrap_or(0);
        let mapped: Vec<(u64, u64)> = list
            .iter()
            .map(|&s| (snap.segments[s].addr, snap.segments[s].size))
            .collect();
        let inside: Vec<usize> = (before.iter().copied())
            .filter(|&i| {
                mapped
                    .iter()
                    .any(|&(a, s)| snap.blocks[i].addr >= a && snap.blocks[i].addr < a + s)
            })
            .collect();
        let live: Vec<(u64, u64)> = inside
            .iter()
            .map(|&i| (snap.blocks[i].addr, size_of(i)))
            .collect();
        let pool = inside.first().and_then(|&i| private(i));
        match model.add_expandable(base, stream, small, pool, &mapped, &live) {
            Ok(got) => {
                for (k, &i) in inside.iter().enumerate() {
                    ids[i] = got[k];
                }
                placed += inside.len();
            }
            Err(k) => notes.push(format!(
                "a block alive before recording at {} does not fit the expandable segment at {base}",
                live[k].0
            )),
        }
    }
    if placed < before.len() {
        notes.push(format!(
            "{} of the {} blocks alive before recording lie in no segment reserved then: left out of the replay",
            before.len() - placed,
            before.len()
        ));
    }
}

/// The base of each expandable segment the trace maps into, for the replay to put
/// its own there.
fn hint_expandable(snap: &Snapshot, model: &mut Allocator) {
    let mut bases: Vec<(i64, bool, u64)> = Vec::new();
    for s in snap.segments.iter().filter(|s| s.expandable) {
        match bases.iter_mut().find(|b| b.0 == s.stream && b.1 == s.small) {
            Some(b) => b.2 = b.2.min(s.addr),
            None => bases.push((s.stream, s.small, s.addr)),
        }
    }
    for (stream, small, base) in bases {
        model.hint_expandable(stream, small, base);
    }
}
