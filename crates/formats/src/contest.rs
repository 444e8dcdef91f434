//! The contest's exchange files for one case and one problem:
//!
//! | file | lines |
//! |---|---|
//! | `<case>_schedule.txt` | one node id per line, spill nodes included |
//! | `<case>_memory.txt` | `BufId:Offset`, the first placement of every buffer |
//! | `<case>_spill.txt` | `BufId:NewOffset` per spill, in spill order (may be empty) |
//!
//! Blank lines and surrounding spaces are ignored; anything else that is not of
//! the line's form is an error naming the file kind and the line. Reading and
//! writing work on text only: the caller owns the filesystem.

use memplan::error::Error;
pub use memplan_npu::contest::{ContestFile, ContestFiles};

/// Parses the three files; an absent memory or spill file reads as empty.
pub fn parse(
    schedule: &[u8],
    memory: Option<&[u8]>,
    spills: Option<&[u8]>,
) -> Result<ContestFiles, Error> {
    Ok(ContestFiles {
        schedule: parse_schedule(schedule)?,
        memory: memory.map(parse_memory).transpose()?.unwrap_or_default(),
        spills: spills.map(parse_spills).transpose()?.unwrap_or_default(),
    })
}

/// The text of `file` of `files`, one line per entry, each line ending in a newline.
pub fn render(files: &ContestFiles, file: ContestFile) -> String {
    match file {
        ContestFile::Schedule => files.schedule.iter().map(|id| format!("{id}\n")).collect(),
        ContestFile::Memory => render_pairs(&files.memory),
        ContestFile::Spill => render_pairs(&files.spills),
    }
}

/// The file kind as errors name it.
fn format_name(file: ContestFile) -> &'static str {
    match file {
        ContestFile::Schedule => "contest schedule",
        ContestFile::Memory => "contest memory",
        ContestFile::Spill => "contest spill",
    }
}

pub fn parse_schedule(data: &[u8]) -> Result<Vec<u64>, Error> {
    let format = format_name(ContestFile::Schedule);
    lines(data, format)?
        .map(|(at, line)| {
            line.parse::<u64>()
                .map_err(|_| Error::parse(format, at(), format!("`{line}` is not a node id")))
        })
        .collect()
}

pub fn parse_memory(data: &[u8]) -> Result<Vec<(u64, u64)>, Error> {
    parse_pairs(data, ContestFile::Memory)
}

pub fn parse_spills(data: &[u8]) -> Result<Vec<(u64, u64)>, Error> {
    parse_pairs(data, ContestFile::Spill)
}

fn parse_pairs(data: &[u8], file: ContestFile) -> Result<Vec<(u64, u64)>, Error> {
    let format = format_name(file);
    let offset_name = match file {
        ContestFile::Spill => "NewOffset",
        _ => "Offset",
    };
    lines(data, format)?
        .map(|(at, line)| {
            let (buf, offset) = line.split_once(':').ok_or_else(|| {
                Error::parse(
                    format,
                    at(),
                    format!("`{line}` is not of the form BufId:{offset_name}"),
                )
            })?;
            let number = |text: &str, what: &str| {
                let text = text.trim();
                text.parse::<u64>()
                    .map_err(|_| Error::parse(format, at(), format!("`{text}` is not {what}")))
            };
            Ok((number(buf, "a buffer id")?, number(offset, "an offset")?))
        })
        .collect()
}

/// The non-blank lines of `data`, trimmed, each with a maker of its `line N` label.
fn lines<'a>(
    data: &'a [u8],
    format: &'static str,
) -> Result<impl Iterator<Item = (impl Fn() -> Option<String>, &'a str)>, Error> {
    let text = std::str::from_utf8(data)
        .map_err(|e| Error::parse(format, None, format!("not UTF-8 text ({e})")))?;
    Ok(text
        .trim_start_matches('\u{feff}')
        .lines()
        .enumerate()
        .map(|(n, line)| (move || Some(format!("line {}", n + 1)), line.trim()))
        .filter(|(_, line)| !line.is_empty()))
}

fn render_pairs(pairs: &[(u64, u64)]) -> String {
    pairs.iter().map(|(b, o)| format!("{b}:{o}\n")).collect()
}
