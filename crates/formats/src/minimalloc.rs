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
    let mut tensors = Vec::new();
    for (n, line) in lines {
        let at = || Some(format!("line {}", n + 1));
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != header.len() {
            return Err(Error::parse(
                "minimalloc csv",
                at(),
                format!("expected {} fields, found {}", header.len(), cells.len()),
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
            number(lower, "lower time")?,
            number(upper, "upper time")?,
            number(size, "size")?,
        );
        if hi <= lo {
            return Err(Error::parse(
                "minimalloc csv",
                at(),
                format!(
                    "buffer `{}` has an empty time range [{lo}, {hi})",
                    cells[id]
                ),
            ));
        }
        let hi = u32::try_from(hi - 1).map_err(|_| {
            Error::limit(
                format!("the upper time of buffer `{}`", cells[id]),
                hi,
                u64::from(u32::MAX),
            )
        })?;
        let life = Lifetime::new(lo as u32, hi);
        tensors.push(Tensor {
            name: cells[id].to_string(),
            size: bytes,
            role: Role::Arena,
            level: None,
            lifetime: Some(life),
        });
    }
    Graph::new(name.to_string(), tensors, Vec::new())
}
