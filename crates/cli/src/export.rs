//! `memplan export`: the graph as memplan's JSON, memplan text (`--format text`
//! or `--text`) or MiniMalloc CSV (`--format minimalloc`: each arena buffer's
//! lifetime on the graph's order, so other planners can be run on it); an NPU case
//! as contest JSON.

use crate::case;
use crate::common::{load, write_file};
use crate::flags::ExportArgs;
use memplan_formats as formats;
use std::process::ExitCode;

pub fn run(args: ExportArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let text = match case::case_at(&args.file)? {
        Some(case) if args.to == "json" => formats::npu::write_json(&case),
        Some(_) => {
            return Err(format!(
                "{}: an NPU case is written as contest JSON, not as {}",
                args.file.display(),
                args.to
            )
            .into())
        }
        None => graph_text(&args)?,
    };
    match args.out.as_deref() {
        None | Some("-") => print!("{text}"),
        Some(path) => write_file(path, text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The graph in `file` written as `--format` asks.
fn graph_text(args: &ExportArgs) -> Result<String, Box<dyn std::error::Error>> {
    let (file, common) = (&args.file, &args.common);
    Ok(match args.to.as_str() {
        "json" => formats::write_native(&load(file, None, &common.read)?),
        "text" => formats::write_text(&load(file, None, &common.read)?)
            .map_err(|e| format!("{}: {e}", file.display()))?,
        "minimalloc" => {
            let graph = load(file, None, &common.read)?;
            let order =
                memplan::order::topological_for(&graph, common.opts.order, common.opts.live)?;
            let live = memplan::liveness::analyse(&graph, &order, common.opts.live)?;
            formats::write_minimalloc(&live.buffers)
        }
        other => {
            return Err(format!(
                "export: unknown output format `{other}` (expected json, text or minimalloc)"
            )
            .into())
        }
    })
}
