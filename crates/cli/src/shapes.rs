//! `memplan shapes`: every value of an ONNX model's main graph with its shape,
//! element type, bytes and the source of its shape.

use crate::file_source::FileSource;
use crate::flags::ShapesArgs;
use memplan_formats::{self as formats, ValueShape};
use serde::Serialize;
use std::process::ExitCode;

#[derive(Serialize)]
struct Doc<'a> {
    values: Vec<Row<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip_serializing_if = "<[memplan::graph::FreeDim]>::is_empty")]
    free_dims: &'a [memplan::graph::FreeDim],
    #[serde(skip_serializing_if = "<[memplan::graph::Bound]>::is_empty")]
    bounds: &'a [memplan::graph::Bound],
}

#[derive(Serialize)]
struct Row<'a> {
    name: &'a str,
    dims: &'a [i64],
    dtype: &'a str,
    bytes: u64,
    source: &'static str,
    kind: &'static str,
}

fn kind(v: &ValueShape, role: memplan::graph::Role) -> &'static str {
    use memplan::graph::Role;
    match role {
        _ if v.input => "input",
        _ if v.output => "output",
        Role::Const => "const",
        _ => "intermediate",
    }
}

pub fn run(args: ShapesArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let file = &args.file;
    let src = FileSource::open(file)?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let (graph, values) = formats::onnx_shapes_source(&src, stem, &args.common.read)
        .map_err(|e| crate::common::in_file(file, &e))?;
    let rows: Vec<Row> = values
        .iter()
        .zip(&graph.tensors)
        .map(|(v, t)| Row {
            name: &v.name,
            dims: &v.dims,
            dtype: &v.dtype,
            bytes: v.bytes,
            source: v.source.name(),
            kind: kind(v, t.role),
        })
        .collect();
    let doc = Doc {
        values: rows,
        notes: &graph.notes,
        free_dims: &graph.free_dims,
        bounds: &graph.bounds,
    };
    match args.json.as_deref() {
        Some("-") => println!("{}", serde_json::to_string_pretty(&doc)?),
        Some(path) => crate::common::write_file(path, serde_json::to_string_pretty(&doc)? + "\n")?,
        None => print_table(&doc),
    }
    Ok(ExitCode::SUCCESS)
}

/// The values as a table, then the notes and the free dimensions.
fn print_table(doc: &Doc) {
    let width = doc
        .values
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 60);
    println!(
        "{:<width$}  {:<12}  {:<10}  {:>12}  {:<10}  dims",
        "name", "kind", "dtype", "bytes", "source"
    );
    for r in &doc.values {
        let dims: Vec<String> = r.dims.iter().map(i64::to_string).collect();
        println!(
            "{:<width$}  {:<12}  {:<10}  {:>12}  {:<10}  [{}]",
            r.name,
            r.kind,
            r.dtype,
            r.bytes,
            r.source,
            dims.join(", ")
        );
    }
    for n in doc.notes {
        println!("note: {n}");
    }
    if !doc.free_dims.is_empty() {
        println!(
            "free dims: {}",
            crate::report::free_dims_text(doc.free_dims)
        );
    }
    print!("{}", crate::report::bounds_text(doc.bounds));
}
