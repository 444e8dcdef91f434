//! `memplan bench`: every strategy on every graph, as a table.

use super::{load, Common, Token};
use memplan::{check, Strategy};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const DEFAULT_DIRS: [&str; 2] = ["../shared/corpus/graphs", "../shared/corpus/minimalloc"];

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let mut inputs: Vec<PathBuf> = Vec::new();
    while let Some(arg) = Token::next(args)? {
        if common.take(&arg, args)? {
            continue;
        }
        match arg {
            Token::Value(v) => inputs.push(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    if inputs.is_empty() {
        inputs = DEFAULT_DIRS.iter().map(PathBuf::from).collect();
    }
    let files = expand(&inputs)?;
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); Strategy::ALL.len()];
    let mut invalid = 0usize;
    println!(
        "{:<46} {:>7} {:>12} {:<12} {:>12} {:>8} {:>10}",
        "graph", "tensors", "lower bound", "strategy", "peak", "ratio", "time ms"
    );
    for file in &files {
        if std::fs::read(file).is_ok_and(|d| memplan::formats::is_npu_case(&d)) {
            println!(
                "{:<46} skipped: an NPU case (see `memplan npu`)",
                file_name(file)
            );
            continue;
        }
        let started = Instant::now(); // import, analysis and plan
        let graph = load(file, common.format, &common.read)?;
        let analysis = memplan::analyse(&graph, &common.opts)?;
        let analyse_ms = started.elapsed().as_secs_f64() * 1e3;
        for (k, strategy) in Strategy::ALL.into_iter().enumerate() {
            let started = Instant::now();
            let plan = analysis.plan(&graph, strategy);
            let ms = started.elapsed().as_secs_f64() * 1e3 + analyse_ms;
            let ok = check::check(&graph, &plan).is_empty();
            invalid += usize::from(!ok);
            ratios[k].push(plan.ratio());
            let name = file_name(file);
            println!(
                "{:<46} {:>7} {:>12} {:<12} {:>12} {:>8.4} {:>10.2}{}",
                name,
                plan.tensors.len(),
                plan.lower_bound,
                strategy.name(),
                plan.peak_bytes,
                plan.ratio(),
                ms,
                if ok { "" } else { "  INVALID" }
            );
        }
    }
    println!();
    println!(
        "{:<12} {:>14} {:>10} {:>12}",
        "strategy", "geomean ratio", "worst", "at the bound"
    );
    for (k, strategy) in Strategy::ALL.into_iter().enumerate() {
        let r = &ratios[k];
        let geo = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        let worst = r.iter().cloned().fold(1.0, f64::max);
        let tight = r.iter().filter(|&&x| x <= 1.0 + 1e-12).count();
        println!(
            "{:<12} {:>14.4} {:>10.4} {:>9}/{}",
            strategy.name(),
            geo,
            worst,
            tight,
            r.len()
        );
    }
    if invalid > 0 {
        eprintln!("memplan: {invalid} plan(s) failed the checker");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Files named, and the graph and model files of directories named, sorted.
fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| format!("cannot read {}: {e}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_graph_file(p))
                .collect();
            found.sort();
            out.extend(found);
        } else if input.exists() {
            out.push(input.clone());
        } else {
            return Err(format!("{} does not exist", input.display()));
        }
    }
    Ok(out)
}

fn is_graph_file(p: &Path) -> bool {
    p.is_file()
        && matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("json" | "csv" | "tflite" | "onnx")
        )
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
