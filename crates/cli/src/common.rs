//! What several subcommands share: reading a file (within the size memplan
//! accepts) or a graph from it, writing one, listing the files of the folders
//! named, and the exit code of a verdict. A module of its own, not `main.rs`,
//! so that no subcommand imports the file that dispatches to it.

use crate::file_source;
use memplan::{Error, Graph};
use memplan_formats::{self as formats, Format, ReadOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Success, or 1 when a plan, check or result was invalid (2 is an error).
pub fn exit_code(valid: bool) -> ExitCode {
    if valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Writes `contents` to `path`; the error names the file.
pub fn write_file(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Result<(), String> {
    let path = path.as_ref();
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The files named, and those of the directories named that `keep` accepts (each
/// directory's sorted), for the bench commands.
pub fn files_in(inputs: &[PathBuf], keep: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            files.push(input.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(input)
            .map_err(|e| format!("cannot read {}: {e}", input.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| keep(p))
            .collect();
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// The bytes of `path`, refused past the size memplan reads (`MAX_INPUT_BYTES`).
pub fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::usage(format!("cannot read {}: {e}", path.display())))?;
    if meta.len() > formats::MAX_INPUT_BYTES as u64 {
        return Err(Error::limit(
            format!("the size of {}", path.display()),
            meta.len(),
            formats::MAX_INPUT_BYTES as u64,
        ));
    }
    std::fs::read(path).map_err(|e| Error::usage(format!("cannot read {}: {e}", path.display())))
}

/// Reads and parses one graph file (an ONNX model by ranges, without its
/// weights); errors name the file.
pub fn load(path: &Path, format: Option<Format>, read: &ReadOptions) -> Result<Graph, Error> {
    let src = file_source::FileSource::open(path)?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("graph");
    formats::read_source(&src, format, stem, read).map_err(|e| in_file(path, &e))
}

/// An error of reading `path`, naming the file, with the flag that gives what
/// the reader asks for (the readers' messages name no flag: the page has its
/// own controls).
pub fn in_file(path: &Path, e: &Error) -> Error {
    let mut text = format!("{}: {e}", path.display());
    if let Some(value) = e.value_needing_shape() {
        text += &format!("; give an upper bound with --value-shape {value}=DIMS");
    }
    if e.free_dims().iter().any(|d| !d.given) {
        text += "; set free dims with --dim NAME=VALUE";
    }
    Error::usage(text)
}
