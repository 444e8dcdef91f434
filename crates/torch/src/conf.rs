//! `PYTORCH_CUDA_ALLOC_CONF` as torch 2.11 reads it (`c10/core/AllocatorConfig.cpp`
//! and `c10/cuda/CUDAAllocatorConfig.cpp`): the same tokens (`,` `:` `[` `]`, spaces
//! dropped), the same keys, the same checks on each value. What the replay models is
//! kept; the keys that do not change where blocks go (pinned host memory, the lock
//! around `cudaMalloc`) are accepted and listed.

use memplan::error::Error;
use memplan_formats::snapshot::RecordedSettings;
use serde::Serialize;
use std::fmt;

const MIB: u64 = 1 << 20;
/// 20 MiB: the smallest `max_split_size_mb` and the default rounding allowance of
/// an oversize block (`max_non_split_rounding_mb`).
pub const LARGE_BUFFER: u64 = 20 * MIB;
/// `roundup_power2_divisions` has one value per power-of-two interval from 1 MiB:
/// [1, 2) MiB, [2, 4) MiB, ... and everything from 32 GiB.
pub const INTERVALS: usize = 16;

/// Every key torch 2.11's CUDA allocator accepts.
pub const KEYS: [&str; 14] = [
    "backend",
    "expandable_segments",
    "garbage_collection_threshold",
    "graph_capture_record_stream_reuse",
    "max_non_split_rounding_mb",
    "max_split_size_mb",
    "per_process_memory_fraction",
    "pinned_num_register_threads",
    "pinned_reserve_segment_size_mb",
    "pinned_use_background_threads",
    "pinned_use_cuda_host_register",
    "pinned_use_hip_host_register",
    "release_lock_on_cudamalloc",
    "roundup_power2_divisions",
];

/// The settings of the caching allocator that decide where blocks go.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AllocConf {
    /// Blocks of this size or more are never split (`max_split_size_mb`); `None`:
    /// no limit (the default).
    pub max_split_size: Option<u64>,
    /// An oversize cached block serves a request at most this much smaller.
    pub max_non_split_rounding: u64,
    /// `roundup_power2_divisions` per interval (0 or 1: plain 512-byte rounding).
    pub roundup_power2_divisions: [u64; INTERVALS],
    /// `garbage_collection_threshold` (0: off). torch applies it only under a
    /// memory fraction (a cap).
    pub garbage_collection_threshold: f64,
    pub expandable_segments: bool,
    /// `per_process_memory_fraction`, when given.
    pub memory_fraction: Option<f64>,
    /// `backend:cudaMallocAsync`: a different allocator, which memplan does not model.
    pub malloc_async: bool,
}

impl Default for AllocConf {
    fn default() -> Self {
        AllocConf {
            max_split_size: None,
            max_non_split_rounding: LARGE_BUFFER,
            roundup_power2_divisions: [0; INTERVALS],
            garbage_collection_threshold: 0.0,
            expandable_segments: false,
            memory_fraction: None,
            malloc_async: false,
        }
    }
}

impl AllocConf {
    /// Parses `PYTORCH_CUDA_ALLOC_CONF`'s text; an unknown key or a bad value is an
    /// error naming it.
    pub fn parse(text: &str) -> Result<AllocConf, Error> {
        let mut conf = AllocConf::default();
        conf.apply(text)?;
        Ok(conf)
    }

    /// Applies the settings of `text` over these, as torch does for each key given.
    pub fn apply(&mut self, text: &str) -> Result<(), Error> {
        let t = tokens(text);
        let mut i = 0;
        while i < t.len() {
            let key = t[i].as_str();
            i = match key {
                "max_split_size_mb" | "max_non_split_rounding_mb" => {
                    let v = size_mb(&t, i, key)?;
                    if key == "max_split_size_mb" {
                        self.max_split_size = Some(v);
                    } else {
                        self.max_non_split_rounding = v;
                    }
                    i + 2
                }
                "garbage_collection_threshold" => {
                    let v = float(&t, i, key)?;
                    if !(v > 0.0 && v < 1.0) {
                        return Err(bad(format!(
                            "garbage_collection_threshold is {v}: set it in (0.0, 1.0)"
                        )));
                    }
                    self.garbage_collection_threshold = v;
                    i + 2
                }
                "roundup_power2_divisions" => self.roundup(&t, i)?,
                "expandable_segments" => {
                    self.expandable_segments = boolean(&t, i, key)?;
                    i + 2
                }
                "release_lock_on_cudamalloc"
                | "release_lock_on_hipmalloc"
                | "pinned_use_cuda_host_register"
                | "pinned_use_hip_host_register"
                | "pinned_use_background_threads"
                | "graph_capture_record_stream_reuse" => {
                    boolean(&t, i, key)?;
                    i + 2
                }
                "pinned_num_register_threads" => {
                    let v = integer(&t, i, key)?;
                    if !v.is_power_of_two() || v > 128 {
                        return Err(bad(format!(
                            "pinned_num_register_threads is {v}: a power of 2, at most 128"
                        )));
                    }
                    i + 2
                }
                "pinned_reserve_segment_size_mb" => {
                    if integer(&t, i, key)? == 0 {
                        return Err(bad("pinned_reserve_segment_size_mb must be greater than 0"));
                    }
                    i + 2
                }
                "per_process_memory_fraction" => {
                    let v = float(&t, i, key)?;
                    if !(0.0..=1.0).contains(&v) {
                        return Err(bad(format!(
                            "per_process_memory_fraction is {v}: set it in [0.0, 1.0]"
                        )));
                    }
                    self.memory_fraction = Some(v);
                    i + 2
                }
                "backend" => {
                    colon(&t, i, key)?;
                    match t.get(i + 2).map(String::as_str) {
                        Some("native") => self.malloc_async = false,
                        Some("cudaMallocAsync") => self.malloc_async = true,
                        other => {
                            return Err(bad(format!(
                                "backend is {}: the backends are native and cudaMallocAsync",
                                other.unwrap_or("missing")
                            )))
                        }
                    }
                    i + 2
                }
                _ => {
                    return Err(bad(format!(
                        "unknown key `{key}`; the keys are {}",
                        KEYS.join(", ")
                    )))
                }
            };
            // `,` between settings
            i += 1;
            if i < t.len() {
                if t[i] != "," {
                    return Err(bad(format!(
                        "expected `,` after {key}'s value, found `{}`",
                        t[i]
                    )));
                }
                // a `,` may end the settings: torch reads it and stops
                i += 1;
            }
        }
        Ok(())
    }

    /// `roundup_power2_divisions:N` (every interval) or `:[256:1,512:2,>:8]`;
    /// returns the index of the value's last token.
    fn roundup(&mut self, t: &[String], i: usize) -> Result<usize, Error> {
        let key = "roundup_power2_divisions";
        colon(t, i, key)?;
        let Some(first) = t.get(i + 2) else {
            return Err(bad("expecting roundup_power2_divisions value"));
        };
        if first != "[" {
            let v = number(first, key)?;
            if !v.is_power_of_two() {
                return Err(bad(format!(
                    "roundup_power2_divisions is {v}: the divisions must be a power of 2"
                )));
            }
            self.roundup_power2_divisions = [v; INTERVALS];
            return Ok(i + 2);
        }
        let mut j = i + 3;
        let mut first_value = true;
        let mut last_index = 0usize;
        loop {
            match t.get(j).map(String::as_str) {
                Some("]") => return Ok(j),
                None => return Err(bad("roundup_power2_divisions: a `[` without its `]`")),
                _ => {}
            }
            let interval = t[j].clone();
            if t.get(j + 1).map(String::as_str) != Some(":") {
                return Err(bad(format!(
                    "roundup_power2_divisions: expected `:` after {interval}"
                )));
            }
            let Some(v) = t.get(j + 2) else {
                return Err(bad("roundup_power2_divisions: a value is missing"));
            };
            let v = number(v, key)?;
            if v != 0 && !v.is_power_of_two() {
                return Err(bad(format!(
                    "roundup_power2_divisions: {v} divisions; they must be a power of 2 or 0"
                )));
            }
            if interval == ">" {
                // from the interval after the last one listed (`last_index + 1`)
                for d in &mut self.roundup_power2_divisions[last_index + 1..] {
                    *d = v;
                }
            } else {
                let mb = number(&interval, key)?;
                if !mb.is_power_of_two() {
                    return Err(bad(format!(
                        "roundup_power2_divisions: the interval {mb} (MiB) must be a power of 2"
                    )));
                }
                let index = (mb.ilog2() as usize).min(INTERVALS - 1);
                if first_value {
                    for d in &mut self.roundup_power2_divisions[..index] {
                        *d = v;
                    }
                    first_value = false;
                }
                self.roundup_power2_divisions[index] = v;
                last_index = index;
            }
            j += 3;
            match t.get(j).map(String::as_str) {
                Some(",") => j += 1,
                Some("]") => {}
                _ => return Err(bad("roundup_power2_divisions: expected `,` or `]`")),
            }
        }
    }

    /// The settings a snapshot recorded, with what `PYTORCH_CUDA_ALLOC_CONF` adds
    /// (keys the settings dict does not carry); `None` for a snapshot without them.
    pub fn recorded(s: &RecordedSettings) -> Result<AllocConf, Error> {
        let mut conf = AllocConf::default();
        if let Some(text) = &s.conf {
            conf.apply(text).map_err(|e| {
                bad(format!(
                    "the snapshot's PYTORCH_CUDA_ALLOC_CONF `{text}`: {e}"
                ))
            })?;
        }
        if let Some(e) = s.expandable_segments {
            conf.expandable_segments = e;
        }
        let limit = |v: i128| (v > 0 && v < i128::from(u64::MAX)).then_some(v as u64);
        if let Some(m) = s.max_split_size {
            conf.max_split_size = limit(m);
        }
        if let Some(r) = s.max_non_split_rounding_size.and_then(limit) {
            conf.max_non_split_rounding = r;
        }
        if let Some(g) = s.garbage_collection_threshold {
            conf.garbage_collection_threshold = g;
        }
        if let Some(list) = &s.roundup_power2_divisions {
            for &(mb, d) in list {
                if mb.is_power_of_two() {
                    conf.roundup_power2_divisions[(mb.ilog2() as usize).min(INTERVALS - 1)] = d;
                }
            }
        }
        Ok(conf)
    }

    /// The divisions that apply to a request of `size` bytes.
    pub fn divisions(&self, size: u64) -> u64 {
        let log = size.max(1).ilog2() as i64 - 20;
        self.roundup_power2_divisions[log.clamp(0, INTERVALS as i64 - 1) as usize]
    }
}

/// The settings in `PYTORCH_CUDA_ALLOC_CONF`'s own syntax, defaults left out
/// (`""` for torch's defaults).
impl fmt::Display for AllocConf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = AllocConf::default();
        let mut parts: Vec<String> = Vec::new();
        if self.malloc_async {
            parts.push("backend:cudaMallocAsync".into());
        }
        if self.expandable_segments {
            parts.push("expandable_segments:True".into());
        }
        if let Some(m) = self.max_split_size {
            parts.push(format!("max_split_size_mb:{}", m / MIB));
        }
        if self.max_non_split_rounding != d.max_non_split_rounding {
            parts.push(format!(
                "max_non_split_rounding_mb:{}",
                self.max_non_split_rounding / MIB
            ));
        }
        let r = &self.roundup_power2_divisions;
        if r.iter().all(|&v| v == r[0]) {
            if r[0] != 0 {
                parts.push(format!("roundup_power2_divisions:{}", r[0]));
            }
        } else {
            let list: Vec<String> = (r.iter().enumerate())
                .map(|(i, v)| format!("{}:{v}", 1u64 << i))
                .collect();
            parts.push(format!("roundup_power2_divisions:[{}]", list.join(",")));
        }
        if self.garbage_collection_threshold > 0.0 {
            parts.push(format!(
                "garbage_collection_threshold:{}",
                self.garbage_collection_threshold
            ));
        }
        if let Some(m) = self.memory_fraction {
            parts.push(format!("per_process_memory_fraction:{m}"));
        }
        f.write_str(&parts.join(","))
    }
}

fn bad(message: impl Into<String>) -> Error {
    Error::usage(format!("PYTORCH_CUDA_ALLOC_CONF: {}", message.into()))
}

/// torch's lexer: `,` `:` `[` `]` are tokens of their own, spaces (`std::isspace`:
/// space, tab, newline, vertical tab, form feed, carriage return) are dropped.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for c in text.chars() {
        if matches!(c, ',' | ':' | '[' | ']') {
            if !buf.is_empty() {
                out.push(std::mem::take(&mut buf));
            }
            out.push(c.to_string());
        } else if !matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r') {
            buf.push(c);
        }
    }
    if !buf.is_empty() {
        out.push(buf);
    }
    out
}

fn colon(t: &[String], i: usize, key: &str) -> Result<(), Error> {
    match t.get(i + 1).map(String::as_str) {
        Some(":") => Ok(()),
        _ => Err(bad(format!("expected `:` after {key}"))),
    }
}

fn value<'t>(t: &'t [String], i: usize, key: &str) -> Result<&'t str, Error> {
    colon(t, i, key)?;
    match t.get(i + 2).map(String::as_str) {
        Some(v) if !matches!(v, "," | ":" | "[" | "]") => Ok(v),
        _ => Err(bad(format!("expecting {key} value"))),
    }
}

fn number(v: &str, key: &str) -> Result<u64, Error> {
    v.parse::<u64>()
        .map_err(|_| bad(format!("{key}: `{v}` is not a whole number")))
}

fn integer(t: &[String], i: usize, key: &str) -> Result<u64, Error> {
    number(value(t, i, key)?, key)
}

fn float(t: &[String], i: usize, key: &str) -> Result<f64, Error> {
    let v = value(t, i, key)?;
    v.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| bad(format!("{key}: `{v}` is not a number")))
}

fn boolean(t: &[String], i: usize, key: &str) -> Result<bool, Error> {
    match value(t, i, key) {
        Ok("True") => Ok(true),
        Ok("False") => Ok(false),
        _ => Err(bad(format!("expected True or False for {key}"))),
    }
}

/// A size in MiB of at least 20 (torch's smallest), as bytes.
fn size_mb(t: &[String], i: usize, key: &str) -> Result<u64, Error> {
    let v = integer(t, i, key)?;
    if v < LARGE_BUFFER / MIB {
        return Err(bad(format!("{key} is {v}: too small, it must be >= 20")));
    }
    Ok(v.min(u64::MAX / MIB / 1024) * MIB)
}
