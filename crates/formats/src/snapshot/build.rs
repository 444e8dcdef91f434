//! From the pickle's tree to a [`Snapshot`]: one pass over the chosen device's
//! trace for the blocks, with the segments rebuilt first (`segments.rs`) so that
//! each block finds the segment it lies in.
//!
//! Why one file: the rebuild is one pass over the trace (`Builder`) fed by the
//! records the pickle reader folds each entry into (`Records`); the two share the
//! entry's layout and the limits on what a snapshot may make the reader hold.

use super::entry::{Action, Entry, NO_FRAMES};
use super::segments::{self, Final, Live, Pieces};
use super::{round, Block, Frame, Oom, RecordedSettings, SegmentAction, SegmentEvent, Snapshot};
use crate::pickle::{Chunked, Fold, Tree, Val};
use memplan::error::Error;
use memplan::graph::MAX_TENSOR_BYTES;
use std::collections::{BTreeMap, HashMap};

const F: &str = "pytorch snapshot";

/// The keys of the top object memplan reads or knows to ignore.
const TOP_KEYS: [&str; 4] = [
    "segments",
    "device_traces",
    "allocator_settings",
    "external_annotations",
];

pub(super) fn snapshot(
    tree: &Tree,
    mut records: Records,
    device: Option<u32>,
) -> Result<Snapshot, Error> {
    let root = tree.root;
    let pairs = tree
        .pairs(root)
        .ok_or_else(|| bad("the pickle holds no dict: not a memory snapshot"))?;
    let mut notes = Vec::new();
    let unknown: Vec<&str> = (pairs.iter())
        .filter_map(|(k, _)| tree.str(*k))
        .filter(|k| !TOP_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        notes.push(format!("skipped the unknown keys {}", unknown.join(", ")));
    }
    let traces = match tree.get(root, "device_traces") {
        Some(t) => tree
            .items(t)
            .ok_or_else(|| bad("`device_traces` is not a list"))?,
        None => return Err(bad("no `device_traces`: not a memory snapshot, or recorded without `_record_memory_history`")),
    };
    let lens: Vec<u32> = (traces.iter())
        .map(|&t| tree.len(t).unwrap_or(0) as u32)
        .collect();
    let device = match device {
        Some(d) if (d as usize) < traces.len() => d,
        Some(d) => {
            return Err(Error::usage(format!(
                "device {d} is not in the snapshot (it has traces of {} devices)",
                traces.len()
            )))
        }
        // the device with the most entries (the first of equals)
        None => (0..lens.len())
            .max_by_key(|&i| (lens[i], std::cmp::Reverse(i)))
            .unwrap_or(0) as u32,
    };
    records.note(&mut notes);
    let streams = std::mem::take(&mut records.streams);
    let entries = match traces.get(device as usize) {
        Some(&t) => records.take(tree, t)?,
        None => Vec::new(),
    };
    let streams_of = streams.clone();
    let mut b = Builder::new(tree, streams);
    let finals = b.finals(tree.get(root, "segments"), device)?;
    let pieces = segments::rebuild(&entries, &b.streams, &finals, &mut notes);
    let steps = entries.len() as u32;
    let blocks = b.blocks(&entries, &finals, &pieces, &mut notes);
    let reserved = segments::reserved(&pieces.list, steps);
    let segment_events = segment_events(&entries, &b.streams);
    let settings = tree
        .get(root, "allocator_settings")
        .map(|s| settings(tree, s));
    let mut snap = Snapshot {
        device,
        devices: lens,
        steps,
        first: 0,
        times_us: entries.iter().map(|e| e.time_us).collect(),
        blocks,
        segments: pieces.list,
        frames: b.frames,
        stacks: b.stacks,
        reserved,
        oom: None,
        segment_events,
        settings,
        failed_requests: Vec::new(),
        overlap: None,
        notes,
    };
    snap.oom = entries
        .iter()
        .position(|e| e.action == Action::Oom)
        .map(|i| {
            let e = &entries[i];
            Oom {
                step: i as u32,
                size: e.size,
                device_free: e.addr,
                allocated: snap.live_at(i as u32),
                reserved: snap.reserved_at(i as u32),
                stream: snap_stream(&streams_of, e),
            }
        });
    snap.failed_requests = (entries.iter().enumerate())
        .filter(|(_, e)| e.action == Action::Oom)
        .map(|(i, e)| (i as u32, e.size, snap_stream(&streams_of, e)))
        .collect();
    snap.overlap = super::overlap(&snap);
    if let Some(o) = &snap.overlap {
        snap.notes.push(format!(
            "no allocator made this trace: {o}; its plan and figures hold, a replay refuses it"
        ));
    }
    Ok(snap)
}

fn snap_stream(streams: &[i64], e: &Entry) -> i64 {
    streams.get(e.stream()).copied().unwrap_or(0)
}

/// The segment entries of the trace, in order.
fn segment_events(entries: &[Entry], streams: &[i64]) -> Vec<SegmentEvent> {
    (entries.iter().enumerate())
        .filter_map(|(i, e)| {
            let kind = match e.action {
                Action::SegmentAlloc => SegmentAction::Alloc,
                Action::SegmentFree => SegmentAction::Free,
                Action::SegmentMap => SegmentAction::Map,
                Action::SegmentUnmap => SegmentAction::Unmap,
                _ => return None,
            };
            Some(SegmentEvent {
                step: i as u32,
                kind,
                addr: e.addr,
                size: e.size,
                stream: snap_stream(streams, e),
            })
        })
        .collect()
}

/// `allocator_settings` as recorded; a field of another type reads as absent.
fn settings(t: &Tree, s: Val) -> RecordedSettings {
    let int = |k: &str| t.get(s, k).and_then(|v| t.int(v));
    let roundup = t.get(s, "roundup_power2_divisions").and_then(|v| {
        if let Some(pairs) = t.pairs(v) {
            let mut list: Vec<(u64, u64)> = (pairs.iter())
                .filter_map(|&(k, d)| {
                    let key = t
                        .str(k)?
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .or_else(|| t.int(k).map(|i| i as u64))?;
                    Some((key, u64::try_from(t.int(d)?).ok()?))
                })
                .collect();
            list.sort_unstable();
            Some(list)
        } else if let Some(items) = t.items(v) {
            // older torch: a list of 16 divisions, interval i from 2^i MiB
            Some(
                (items.iter().enumerate())
                    .filter_map(|(i, &d)| Some((1u64 << i.min(40), u64::try_from(t.int(d)?).ok()?)))
                    .collect(),
            )
        } else {
            t.int(v).map(|d| vec![(1, d.max(0) as u64)])
        }
    });
    RecordedSettings {
        conf: t
            .get(s, "PYTORCH_CUDA_ALLOC_CONF")
            .and_then(|v| t.str(v))
            .map(str::to_string),
        expandable_segments: match t.get(s, "expandable_segments") {
            Some(Val::Bool(b)) => Some(b),
            _ => None,
        },
        max_split_size: int("max_split_size"),
        max_non_split_rounding_size: int("max_non_split_rounding_size"),
        garbage_collection_threshold: match t.get(s, "garbage_collection_threshold") {
            Some(Val::Float(f)) => Some(f),
            Some(v) => t.int(v).map(|i| i as f64),
            None => None,
        },
        roundup_power2_divisions: roundup,
    }
}

fn bad(message: impl Into<String>) -> Error {
    Error::parse(F, None, message)
}

struct Builder<'t> {
    tree: &'t Tree,
    /// The streams of the entries, by [`Entry::stream`].
    streams: Vec<i64>,
    frames: Vec<Frame>,
    stacks: Vec<Vec<u32>>,
    /// Frame dicts and frame lists already seen, by their node in the pickle.
    frame_of: HashMap<u32, u32>,
    stack_of: HashMap<u32, u32>,
    frame_ids: HashMap<Frame, u32>,
    stack_ids: HashMap<Vec<u32>, u32>,
}

impl<'t> Builder<'t> {
    fn new(tree: &'t Tree, streams: Vec<i64>) -> Self {
        Builder {
            tree,
            streams,
            frames: Vec::new(),
            stacks: Vec::new(),
            frame_of: HashMap::new(),
            stack_of: HashMap::new(),
            frame_ids: HashMap::new(),
            stack_ids: HashMap::new(),
        }
    }

    /// The final `segments` of `device`, with their active blocks.
    fn finals(&mut self, list: Option<Val>, device: u32) -> Result<Vec<Final>, Error> {
        let t = self.tree;
        let Some(list) = list else {
            return Ok(Vec::new());
        };
        let items = t
            .items(list)
            .ok_or_else(|| bad("`segments` is not a list"))?;
        let mut out = Vec::new();
        for (i, &s) in items.iter().enumerate() {
            let field = |k: &str| t.get(s, k).and_then(|v| t.int(v));
            if field("device").unwrap_or(0) != i128::from(device) {
                continue;
            }
            let (Some(addr), Some(size)) = (field("address"), field("total_size")) else {
                return Err(bad(format!("segment {i} has no `address` or `total_size`")));
            };
            let what = format!("segment {i}");
            let (addr, size) = range(addr, size, &what)?;
            let pool = t
                .get(s, "segment_pool_id")
                .and_then(|p| t.items(p))
                .and_then(|p| Some((t.int(*p.first()?)? as i64, t.int(*p.get(1)?)? as i64)))
                .filter(|&p| p != (0, 0));
            let mut blocks = Vec::new();
            for &blk in t.get(s, "blocks").and_then(|b| t.items(b)).unwrap_or(&[]) {
                let state = t.get(blk, "state").and_then(|v| t.str(v)).unwrap_or("");
                let int = |k: &str| t.get(blk, k).and_then(|v| t.int(v));
                if !state.starts_with("active") {
                    continue;
                }
                let stack = t
                    .get(blk, "frames")
                    .and_then(node_id)
                    .map(|f| self.stack(f));
                if let (Some(a), Some(sz)) = (int("address"), int("size")) {
                    let (a, sz) = range(a, sz, &format!("a block of {what}"))?;
                    let req = int("requested_size").map_or(sz, |r| r.clamp(0, sz.into()) as u64);
                    blocks.push((a, sz, req, stack.flatten()));
                }
            }
            let small = t.get(s, "segment_type").and_then(|v| t.str(v)) == Some("small");
            out.push(Final {
                addr,
                size,
                small,
                stream: field("stream").unwrap_or(0) as i64,
                expandable: t.get(s, "is_expandable") == Some(Val::Bool(true)),
                pool,
                blocks,
            });
        }
        Ok(out)
    }

    fn blocks(
        &mut self,
        entries: &[Entry],
        finals: &[Final],
        pieces: &Pieces,
        notes: &mut Vec<String>,
    ) -> Vec<Block> {
        let last = (entries.len() as u32).saturating_sub(1);
        // one block per alloc, and the few from before recording
        let allocs = entries.iter().filter(|e| e.action == Action::Alloc).count();
        let mut blocks: Vec<Block> = Vec::with_capacity(allocs + allocs / 64 + 64);
        let mut open: HashMap<u64, usize> = HashMap::new();
        let mut doubled = 0usize;
        let list = &pieces.list;
        let mut live = Live::new(list);
        for (i, e) in entries.iter().enumerate() {
            let step = i as u32;
            live.advance(list, step);
            match e.action {
                Action::Alloc => {
                    let stack = self.stack_opt(e);
                    let block = Block {
                        addr: e.addr,
                        size: round(e.size),
                        requested: e.size,
                        stream: self.streams[e.stream()],
                        start: step,
                        end: last,
                        allocated_in_trace: true,
                        free_requested: None,
                        freed: false,
                        stack,
                        segment: live.find(list, e.addr),
                    };
                    if let Some(prev) = open.insert(e.addr, blocks.len()) {
                        // allocated again without a free: end the old one here
                        blocks[prev].end = step;
                        doubled += 1;
                    }
                    blocks.push(block);
                }
                Action::FreeRequested => {
                    match open.get(&e.addr) {
                        Some(&b) => blocks[b].free_requested = Some(step),
                        None => {
                            // a block from before recording: it opens at step 0
                            let b = before(
                                e,
                                self.streams[e.stream()],
                                self.stack_opt(e),
                                live.find(list, e.addr),
                            );
                            open.insert(e.addr, blocks.len());
                            blocks.push(Block {
                                free_requested: Some(step),
                                ..b
                            });
                        }
                    }
                }
                Action::FreeCompleted => {
                    let b = match open.remove(&e.addr) {
                        Some(b) => b,
                        None => {
                            blocks.push(before(
                                e,
                                self.streams[e.stream()],
                                self.stack_opt(e),
                                live.find(list, e.addr),
                            ));
                            blocks.len() - 1
                        }
                    };
                    blocks[b].end = step;
                    blocks[b].freed = true;
                }
                _ => {}
            }
        }
        // blocks alive at the end that the trace never allocated
        live.advance(list, last);
        for f in finals {
            for &(addr, size, requested, stack) in &f.blocks {
                if open.contains_key(&addr) {
                    continue;
                }
                blocks.push(Block {
                    addr,
                    size,
                    requested,
                    stream: f.stream,
                    start: 0,
                    end: last,
                    allocated_in_trace: false,
                    free_requested: None,
                    freed: false,
                    stack,
                    segment: live.find(list, addr),
                });
            }
        }
        if doubled > 0 {
            notes.push(format!(
                "{doubled} addresses were allocated again before a free_completed: each earlier block ends at the next alloc"
            ));
        }
        blocks
    }

    fn stack_opt(&mut self, e: &Entry) -> Option<u32> {
        e.frames().and_then(|f| self.stack(f))
    }

    /// The stack of a frame list, shared: a list seen before is not read again.
    fn stack(&mut self, node: u32) -> Option<u32> {
        let list = Val::Node(node);
        if let Some(&s) = self.stack_of.get(&node) {
            return Some(s);
        }
        let items = self.tree.items(list)?;
        if items.is_empty() {
            return None;
        }
        let frames: Vec<u32> = items.iter().filter_map(|&f| self.frame(f)).collect();
        let next = self.stacks.len() as u32;
        let id = *self.stack_ids.entry(frames.clone()).or_insert(next);
        if id == next {
            self.stacks.push(frames);
        }
        self.stack_of.insert(node, id);
        Some(id)
    }

    fn frame(&mut self, v: Val) -> Option<u32> {
        let node = node_id(v)?;
        if let Some(&f) = self.frame_of.get(&node) {
            return Some(f);
        }
        let t = self.tree;
        let text = |k: &str| t.get(v, k).and_then(|x| t.str(x)).unwrap_or("").to_string();
        let frame = Frame {
            name: text("name"),
            filename: text("filename"),
            line: t.get(v, "line").and_then(|x| t.int(x)).unwrap_or(0) as i64,
        };
        let next = self.frames.len() as u32;
        let id = *self.frame_ids.entry(frame.clone()).or_insert(next);
        if id == next {
            self.frames.push(frame);
        }
        self.frame_of.insert(node, id);
        Some(id)
    }
}

/// The trace entries of every device, folded from their dicts as the pickle is
/// read (see [`Fold`]): a dict with a string `action` is an entry.
#[derive(Default)]
pub(super) struct Records {
    entries: Chunked<Entry>,
    /// The distinct streams, in order of appearance.
    pub streams: Vec<i64>,
    /// Entries of actions memplan does not know, by action.
    unknown: BTreeMap<String, usize>,
}

impl Fold for Records {
    fn dict(&mut self, t: &Tree, pairs: &[(Val, Val)]) -> Result<Option<u32>, Error> {
        let Some(action) = t.find(pairs, "action").and_then(|a| t.str(a)) else {
            return Ok(None);
        };
        let i = self.entries.len();
        let mut e = Entry {
            action: Action::from_name(action),
            frames: NO_FRAMES,
            ..Entry::default()
        };
        if e.action == Action::Other {
            *self.unknown.entry(action.to_string()).or_default() += 1;
        }
        let mut device_free = 0;
        for &(k, val) in pairs {
            let int = || -> Result<i128, Error> {
                t.int(val).ok_or_else(|| {
                    bad(format!(
                        "trace entry {i}: `{}` is not an integer",
                        t.str(k).unwrap_or("?")
                    ))
                })
            };
            match t.str(k) {
                Some("addr") => e.addr = unsigned(int()?, i, "addr")?,
                Some("size") => e.size = unsigned(int()?, i, "size")?,
                Some("stream") => e.stream = self.stream(int()? as i64, i)?,
                Some("time_us") => e.time_us = int()? as i64,
                Some("device_free") => device_free = unsigned(int()?, i, "device_free")?,
                Some("frames") => e.frames = node_id(val).unwrap_or(NO_FRAMES),
                _ => {}
            }
        }
        range(e.addr.into(), e.size.into(), &format!("trace entry {i}"))?;
        if e.action == Action::Oom {
            e.addr = device_free;
        }
        if i >= MAX_ENTRIES {
            return Err(Error::limit(
                "trace entries",
                i as u64 + 1,
                MAX_ENTRIES as u64,
            ));
        }
        self.entries.push(e);
        Ok(Some(i as u32))
    }
}

/// The most trace entries a snapshot may hold, of every device: 2 GiB of records,
/// a snapshot of about 5 GB (a gzip stream inflating without end stops here).
const MAX_ENTRIES: usize = 1 << 26;

/// How many distinct streams a snapshot may name.
const MAX_STREAMS: usize = 1 << 16;

impl Records {
    fn stream(&mut self, stream: i64, i: usize) -> Result<u16, Error> {
        if let Some(k) = self.streams.iter().position(|&s| s == stream) {
            return Ok(k as u16);
        }
        if self.streams.len() == MAX_STREAMS {
            return Err(bad(format!(
                "trace entry {i}: more than {MAX_STREAMS} streams"
            )));
        }
        self.streams.push(stream);
        Ok(self.streams.len() as u16 - 1)
    }

    /// The entries of one device's trace, `list`; the records are given up as they
    /// are copied, when they are in order (as Python writes them).
    fn take(&mut self, tree: &Tree, list: Val) -> Result<Vec<Entry>, Error> {
        let not_entries =
            || bad("a device's trace holds something other than dicts with an `action`");
        if let Some(run) = tree.record_run(list) {
            let records = std::mem::take(&mut self.entries);
            return Ok(records.into_range(run.start as usize..run.end as usize));
        }
        let numbers = tree.records(list).ok_or_else(not_entries)?;
        (numbers.iter())
            .map(|&r| {
                self.entries
                    .get(r as usize)
                    .copied()
                    .ok_or_else(not_entries)
            })
            .collect()
    }

    fn note(&self, notes: &mut Vec<String>) {
        if !self.unknown.is_empty() {
            let list: Vec<String> = (self.unknown.iter())
                .map(|(a, n)| format!("{a} ({n})"))
                .collect();
            notes.push(format!(
                "skipped the trace entries (of every device) of actions memplan does not know: {}",
                list.join(", ")
            ));
        }
    }
}

/// A block allocated before recording, first seen at its free.
fn before(e: &Entry, stream: i64, stack: Option<u32>, segment: Option<u32>) -> Block {
    Block {
        addr: e.addr,
        size: round(e.size),
        requested: e.size,
        stream,
        start: 0,
        end: 0,
        allocated_in_trace: false,
        free_requested: None,
        freed: false,
        stack,
        segment,
    }
}

/// An address and a size within memplan's limits: a size of at most 1 PiB, and
/// the range below 2^64, so that no sum of them overflows.
fn range(addr: i128, size: i128, what: &str) -> Result<(u64, u64), Error> {
    let limit = i128::from(MAX_TENSOR_BYTES);
    if !(0..=limit).contains(&size) {
        return Err(bad(format!(
            "{what}: a size of {size} bytes (memplan reads 0 to {limit})"
        )));
    }
    match u64::try_from(addr)
        .ok()
        .filter(|a| a.checked_add(size as u64).is_some())
    {
        Some(a) => Ok((a, size as u64)),
        None => Err(bad(format!(
            "{what}: the range at {addr} of {size} bytes ends beyond 2^64"
        ))),
    }
}

fn unsigned(v: i128, i: usize, key: &str) -> Result<u64, Error> {
    u64::try_from(v).map_err(|_| bad(format!("trace entry {i}: `{key}` is {v}, outside 0..2^64")))
}

fn node_id(v: Val) -> Option<u32> {
    match v {
        Val::Node(i) => Some(i),
        _ => None,
    }
}
