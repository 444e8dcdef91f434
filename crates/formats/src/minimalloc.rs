//! MiniMalloc CSV: `id,lower,upper,size` per buffer, live on the half-open time
//! range `[lower, upper)`. There are no ops: each buffer keeps its given lifetime,
//! stored inclusive as `[lower, upper - 1]`.

use memplan::error::Error;
use memplan::graph::{Graph, Role, Tensor};
use memplan::liveness::Lifetime;

pub fn read(data: &[u8], name: &str) -> Result<Graph, Error> {
    let text = std::str::from_utf8(data)
        .map_err(|e| Error::parse("minimalloc csv", None, format!("not UTF-8 text ({e})")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let header: Vec<String> = match lines.next() {
        Some((_, h)) => h
            .trim_start_matches('\u{feff}')
            .split(',')
            .map(|c| c.trim().to_ascii_lowercase())
            .collect(),
        None => return Err(Error::parse("minimalloc csv", None, "the file is empty")),
    };
    let col = |c: &str| {
        header.iter().position(|h| h == c).ok_or_else(|| {
            Error::parse(
                "minimalloc csv",
                Some("line 1".into()),
                format!("the header has no `{c}` column"),
            )
        })
    };
    let (id, lower, upper, size) = (col("id")?, col("lower")?, col("upper")?, col("size")?);
    let columns = Columns {
        count: header.len(),
        id,
        lower,
        upper,
        size,
    };
    let mut tensors = Vec::new();
    for (n, line) in lines {
        tensors.push(columns.tensor(n, line)?);
    }
    Graph::new(name.to_string(), tensors, Vec::new())
}

/// Where a line's fields are.
struct Columns {
    count: usize,
    id: usize,
    lower: usize,
    upper: usize,
    size: usize,
}

impl Columns {
    /// The buffer of line `line` (index `n`). A call of its own per line: a wasm
    /// engine swaps in a function's optimised code only at a later call, so a
    /// loop over a million lines in one call would run unoptimised to its end.
    #[inline(never)]
    fn tensor(&self, n: usize, line: &str) -> Result<Tensor, Error> {
        let at = || Some(format!("line {}", n + 1));
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != self.count {
            return Err(Error::parse(
                "minimalloc csv",
                at(),
                format!("expected {} fields, found {}", self.count, cells.len()),
            ));
        }
        let number = |k: usize, what: &str| -> Result<u64, Error> {
            cells[k].parse::<u64>().map_err(|_| {
                Error::parse(
                    "minimalloc csv",
                    at(),
                    format!("`{}` is not a valid {what}", cells[k]),
                )
            })
        };
        let (lo, hi, bytes) = (
            number(self.lower, "lower time")?,
            number(self.upper, "upper time")?,
            number(self.size, "size")?,
        );
        let id = cells[self.id];
        if hi <= lo {
            return Err(Error::parse(
                "minimalloc csv",
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
        Ok(Tensor {
            name: id.to_string(),
            size: bytes,
            role: Role::Arena,
            level: None,
            lifetime: Some(Lifetime::new(lo as u32, hi)),
        })
    }
}
