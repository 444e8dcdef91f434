//! Byte sizes as people write and read them: `4096`, `64KiB`, `128 MiB`, `1.5GiB`,
//! `2KB`. The readers parse them, the renderers and the CLI print them.

use crate::error::Error;

/// Parses a size with an optional unit: B, KB/MB/GB (powers of 1000) or
/// KiB/MiB/GiB/TiB (powers of 1024). Fractions must come out to whole bytes.
pub fn parse_size(text: &str) -> Result<u64, Error> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "KB" | "kB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" | "K" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        "TiB" | "T" => 1 << 40,
        other => {
            return Err(Error::usage(format!(
                "unknown size unit `{other}` in `{t}` (use B, KiB, MiB, GiB, KB, MB, GB)"
            )))
        }
    };
    let bad = || Error::usage(format!("`{t}` is not a size"));
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let mut bytes = whole
        .checked_mul(mult)
        .ok_or_else(|| Error::limit(format!("the size `{t}`"), u64::MAX, u64::MAX))?;
    if !frac.is_empty() {
        if frac.len() > 9 {
            return Err(bad());
        }
        let f: u64 = frac.parse().map_err(|_| bad())?;
        let scale = 10u64.pow(frac.len() as u32);
        let part = u128::from(f) * u128::from(mult);
        if part % u128::from(scale) != 0 {
            return Err(Error::usage(format!(
                "`{t}` is not a whole number of bytes"
            )));
        }
        bytes = bytes
            .checked_add((part / u128::from(scale)) as u64)
            .ok_or_else(bad)?;
    }
    Ok(bytes)
}

/// The binary units, largest first.
const UNITS: [(&str, u64); 4] = [
    ("TiB", 1 << 40),
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
];

/// The largest binary unit that `bytes` reaches, with its size; `("B", 1)` below
/// 1 KiB. Sizes for people and the charts' axes use it alike.
pub fn unit_for(bytes: u64) -> (&'static str, u64) {
    UNITS
        .into_iter()
        .find(|&(_, size)| bytes >= size)
        .unwrap_or(("B", 1))
}

/// A size as one token that [`parse_size`] reads back: an exact `KiB`, `MiB`,
/// `GiB` or `TiB` when there is one (`32MiB`), else bytes.
pub fn size_token(bytes: u64) -> String {
    for (unit, scale) in UNITS {
        if bytes >= scale && bytes.is_multiple_of(scale) {
            return format!("{}{unit}", bytes / scale);
        }
    }
    bytes.to_string()
}

/// A size for people: exact bytes below 1 KiB, else two decimals in KiB, MiB or GiB
/// (no decimals when exact).
pub fn format_size(bytes: u64) -> String {
    let (unit, scale) = unit_for(bytes);
    if bytes.is_multiple_of(scale) {
        format!("{} {unit}", bytes / scale)
    } else {
        format!("{:.2} {unit}", bytes as f64 / scale as f64)
    }
}
