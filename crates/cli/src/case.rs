//! NPU case files: which files are cases (`memplan-formats` decides from the
//! content, or from the name of a CSV pair) and reading them.

use crate::common::read_file;
use crate::file_source::FileSource;
use memplan::Error;
use memplan_formats::npu::{csv_case_name, csv_edges_name, read_csv, read_json};
use memplan_npu::case::{default_levels, Case, Level};
use std::path::Path;

/// True when the file at `path` is an NPU case: contest JSON (`Nodes` and `Edges`)
/// or a `_Nodes.csv` (beside its `_Edges.csv`).
pub fn is_case(path: &Path) -> Result<bool, Error> {
    if csv_name(path).is_some() {
        return Ok(true);
    }
    memplan_formats::is_npu_case_source(&FileSource::open(path)?)
}

/// The NPU case at `path` at the default capacities, or `None` when it is not one.
pub fn case_at(path: &Path) -> Result<Option<Case>, Error> {
    match is_case(path)? {
        true => load_case(path, default_levels()).map(Some),
        false => Ok(None),
    }
}

/// Reads a case from `<name>.json` or from `<name>_Nodes.csv` and its sibling
/// `<name>_Edges.csv`; the case is called `<name>`.
pub fn load_case(path: &Path, levels: Vec<Level>) -> Result<Case, Error> {
    let in_file = |e: Error, p: &Path| Error::usage(format!("{}: {e}", p.display()));
    if let Some(name) = csv_name(path) {
        let edges_path = path.with_file_name(csv_edges_name(name));
        let nodes = read_file(path)?;
        let edges = read_file(&edges_path)?;
        return read_csv(&nodes, &edges, name, levels).map_err(|e| in_file(e, path));
    }
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("case");
    read_json(&read_file(path)?, name, levels).map_err(|e| in_file(e, path))
}

/// The case named by a `<case>_Nodes.csv` path.
pub fn csv_name(path: &Path) -> Option<&str> {
    csv_case_name(path.file_name()?.to_str()?)
}
