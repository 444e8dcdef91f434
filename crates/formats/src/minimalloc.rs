//! MiniMalloc CSV: `id,lower,upper,size` per buffer, live on the half-open time
//! range `[lower, upper)`. There are no ops: each buffer keeps its given lifetime,
//! stored inclusive as `[lower, upper - 1]`.
//!
//! The columns are found by name, in any order, as MiniMalloc reads them:
//! `buffer` or `buffer_id` for `id`, `begin` or `start` for `lower`, and `end`
//! for an inclusive upper time (MiniMalloc's older files); other columns are
//! ignored. Of MiniMalloc's optional columns, `offset` (a solution's) is
//! ignored, `gaps` (times within a lifespan when a buffer holds nothing) is
//! ignored with a note: each buffer then keeps its whole lifespan, a valid plan
//! that may be above the optimum; `alignment` must be 1, as memplan aligns every
//! buffer alike (`--align`).

use memplan::error::Error;
use memplan::graph::{Graph, Role, Tensor};
use memplan::liveness::{Buffer, Lifetime};
use std::fmt::Write;

const F: &str = "minimalloc csv";

/// The columns MiniMalloc knows, each with the column it stands for.
const COLUMNS: [(&str, &str); 12] = [
    ("id", "id"),
    ("buffer", "id"),
    ("buffer_id", "id"),
    ("lower", "lower"),
    ("begin", "lower"),
    ("start", "lower"),
    ("upper", "upper"),
    ("end", "end"),
    ("size", "size"),
    ("alignment", "alignment"),
    ("gaps", "gaps"),
    ("offset", "offset"),
];

/// The header's columns as MiniMalloc reads them (`None` for one it does not know).
fn columns(header: &str) -> Vec<Option<&'static str>> {
    (header.trim_start_matches('\u{feff}').split(','))
        .map(|c| {
            let c = c.trim().to_ascii_lowercase();
            COLUMNS
                .iter()
                .find(|(name, _)| *name == c)
                .map(|&(_, to)| to)
        })
        .collect()
}

/// True when `line` is a MiniMalloc header: an id, a lower and an upper (or end)
/// time and a size, each once (other columns are ignored, as MiniMalloc does).
pub fn is_header(line: &str) -> bool {
    let cols = columns(line);
    let count = |c: &str| cols.iter().filter(|&&x| x == Some(c)).count();
    count("id") == 1
        && count("lower") == 1
        && count("upper") + count("end") == 1
        && count("size") == 1
        && ["alignment", "gaps", "offset"]
            .iter()
            .all(|c| count(c) <= 1)
}

pub fn read(data: &[u8], name: &str) -> Result<Graph, Error> {
    let text = std::str::from_utf8(data)
        .map_err(|e| Error::parse(F, None, format!("not UTF-8 text ({e})")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let header = match lines.next() {
        Some((_, h)) => columns(h),
        None => return Err(Error::parse(F, None, "the file is empty")),
    };
    let col = |c: &str| header.iter().position(|&h| h == Some(c));
    let missing = |names: &str| {
        Error::parse(
            F,
            Some("line 1".into()),
            format!("the header has no {names} column"),
        )
    };
    let need = |c: &str, names: &str| col(c).ok_or_else(|| missing(names));
    // an `end` column holds inclusive times: one past it is the upper time
    let (upper, inclusive) = match (col("upper"), col("end")) {
        (Some(u), _) => (u, false),
        (None, Some(e)) => (e, true),
        (None, None) => return Err(missing("`upper` (or `end`)")),
    };
    let columns = Columns {
        count: header.len(),
        id: need("id", "`id` (or `buffer`, `buffer_id`)")?,
        lower: need("lower", "`lower` (or `begin`, `start`)")?,
        upper,
        inclusive,
        size: need("size", "`size`")?,
        alignment: col("alignment"),
        gaps: col("gaps"),
    };
    let mut tensors = Vec::new();
    let mut gaps = 0usize;
    for (n, line) in lines {
        let (tensor, gapped) = columns.tensor(n, line)?;
        tensors.push(tensor);
        gaps += usize::from(gapped);
    }
    let mut graph = Graph::new(name.to_string(), tensors, Vec::new())?;
    if gaps > 0 {
        graph.notes.push(format!(
            "the gaps of {gaps} buffers are ignored: each keeps its whole lifespan (a valid plan, possibly above the optimum)"
        ));
    }
    if col("offset").is_some() {
        graph
            .notes
            .push("the file's offsets are ignored: memplan plans its own".to_string());
    }
    Ok(graph)
}

/// Where a line's fields are.
struct Columns {
    count: usize,
    id: usize,
    lower: usize,
    upper: usize,
    /// The upper column is MiniMalloc's `end`: inclusive.
    inclusive: bool,
    size: usize,
    alignment: Option<usize>,
    gaps: Option<usize>,
}

impl Columns {
    /// The buffer of line `line` (index `n`), and whether it has gaps. A call of
    /// its own per line: a wasm engine swaps in a function's optimised code only
    /// at a later call, so a loop over a million lines in one call would run
    /// unoptimised to its end.
    #[inline(never)]
    fn tensor(&self, n: usize, line: &str) -> Result<(Tensor, bool), Error> {
        let at = || Some(format!("line {}", n + 1));
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != self.count {
            return Err(Error::parse(
                F,
                at(),
                format!("expected {} fields, found {}", self.count, cells.len()),
            ));
        }
        let number = |k: usize, what: &str| -> Result<u64, Error> {
            cells[k]
                .parse::<u64>()
                .map_err(|_| Error::parse(F, at(), format!("`{}` is not a valid {what}", cells[k])))
        };
        let (lo, hi, bytes) = (
            number(self.lower, "lower time")?,
            number(self.upper, "upper time")?,
            number(self.size, "size")?,
        );
        let hi = if self.inclusive {
            hi.checked_add(1)
                .ok_or_else(|| Error::parse(F, at(), "an end time overflows"))?
        } else {
            hi
        };
        let id = cells[self.id];
        if let Some(k) = self.alignment {
            if number(k, "alignment")? > 1 {
                return Err(Error::parse(
                    F,
                    at(),
                    format!(
                        "buffer `{id}` asks for an alignment of {}: memplan aligns every buffer alike; drop the column and plan with an alignment for every buffer",
                        cells[k]
                    ),
                ));
            }
        }
        if hi <= lo {
            return Err(Error::parse(
                F,
                at(),
                format!("buffer `{id}` has an empty time range [{lo}, {hi})"),
            ));
        }
        let hi = u32::try_from(hi - 1).map_err(|_| {
            Error::limit(
                format!("the upper time of buffer `{id}`"),
                hi,
                u64::from(u32::MAX),
            )
        })?;
        let gapped = self.gaps.is_some_and(|k| !cells[k].is_empty());
        let tensor = Tensor {
            name: id.to_string(),
            size: bytes,
            role: Role::Arena,
            level: None,
            lifetime: Some(Lifetime::new(lo as u32, hi)),
        };
        Ok((tensor, gapped))
    }
}

/// Buffers as MiniMalloc CSV, `id,lower,upper,size` with the half-open time range
/// MiniMalloc reads; `id` is the tensor's index. Reading it back gives the same
/// buffers.
pub fn write(buffers: &[Buffer]) -> String {
    let mut out = String::with_capacity(24 * buffers.len() + 24);
    out.push_str("id,lower,upper,size\n");
    for b in buffers {
        let _ = writeln!(
            out,
            "{},{},{},{}",
            b.tensor.0,
            b.life.start,
            u64::from(b.life.end) + 1,
            b.size
        );
    }
    out
}
