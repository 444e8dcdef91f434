//! `memplan shapes`: every value of an ONNX model's main graph with its shape,
//! element type, bytes and the source of its shape.

use crate::file_source::FileSource;
use crate::{Common, Token};
use lexopt::prelude::*;
use memplan_formats::{self as formats, ValueShape};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Serialize)]
struct Doc<'a> {
    values: Vec<Row<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip_serializing_if = "<[memplan::graph::FreeDim]>::is_empty")]
    free_dims: &'a [memplan::graph::FreeDim],
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

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let (mut file, mut json) = (None::<PathBuf>, None::<String>);
    while let Some(arg) = Token::next(args)? {
        if common.take(&arg, args)? {
            continue;
        }
        match arg {
            Token::Long(l) if l == "json" => json = Some(args.value()?.string()?),
            Token::Value(v) if file.is_none() => file = Some(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    let file = file.ok_or("shapes: missing MODEL")?;
    let src = FileSource::open(&file)?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let (graph, values) = formats::onnx_shapes_source(&src, stem, &common.read)
        .map_err(|e| format!("{}: {e}", file.display()))?;
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
    };
    match json.as_deref() {
        Some("-") => println!("{}", serde_json::to_string_pretty(&doc)?),
        Some(path) => std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
            .map_err(|e| format!("cannot write {path}: {e}"))?,
        None => {
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
            if !graph.free_dims.is_empty() {
                println!(
                    "free dims: {}",
                    crate::report::free_dims_text(&graph.free_dims)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
