//! `memplan bench`: every strategy (or those named) on every graph, as a table.
//! The searching strategies get `--budget` milliseconds each (default
//! [`BENCH_BUDGET_MS`]); with `--capacity` the table says whether each plan fits.
//! Times: `load` reads, orders and colours the graph (once per file), `plan`
//! is the strategy alone, the time its budget bounds.

use crate::flags::BenchArgs;
use crate::{case, files_in, load};
use memplan::{check, Plan, Strategy};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Default budget of a searching strategy on one graph, in milliseconds.
const BENCH_BUDGET_MS: u64 = 50;

pub fn run(args: BenchArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let files = graph_files(&args.inputs)?;
    let capacity = args.common.opts.pack.capacity;
    let mut totals = Totals {
        ratios: vec![Vec::new(); args.strategies.len()],
        fits: vec![0; args.strategies.len()],
        invalid: 0,
    };
    print_header(capacity);
    for file in &files {
        if case::is_case(file)? {
            println!(
                "{:<46} skipped: an NPU case (see `memplan npu`)",
                file_name(file)
            );
            continue;
        }
        bench_file(file, &args, &mut totals)?;
    }
    print_summary(&args.strategies, &totals, capacity);
    if totals.invalid > 0 {
        eprintln!("memplan: {} plan(s) failed the checker", totals.invalid);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// What the summary counts over the files, per strategy.
struct Totals {
    /// Each plan's peak over its graph's lower bound.
    ratios: Vec<Vec<f64>>,
    /// The plans within `--capacity`.
    fits: Vec<usize>,
    /// The plans the checker rejected, of every strategy.
    invalid: usize,
}

fn print_header(capacity: Option<u64>) {
    println!(
        "{:<46} {:>7} {:>12} {:<12} {:>12} {:>8} {:>9} {:>10}  {}",
        "graph",
        "tensors",
        "lower bound",
        "strategy",
        "peak",
        "ratio",
        "load ms",
        "plan ms",
        if capacity.is_some() {
            "fits (x capacity)"
        } else {
            "proof"
        }
    );
}

/// Reads and analyses one graph, then plans it with each strategy: a row each.
fn bench_file(
    file: &Path,
    args: &BenchArgs,
    totals: &mut Totals,
) -> Result<(), Box<dyn std::error::Error>> {
    let common = &args.common;
    let budget_ms = common.budget_ms.unwrap_or(BENCH_BUDGET_MS) as f64;
    let capacity = common.opts.pack.capacity;
    let started = Instant::now(); // import and analysis
    let graph = load(file, common.format, &common.read)?;
    let analysis = memplan::analyse(&graph, &common.opts)?;
    let analyse_ms = started.elapsed().as_secs_f64() * 1e3;
    for (k, &strategy) in args.strategies.iter().enumerate() {
        let started = Instant::now();
        let mut budget = common.budget(budget_ms);
        let plan = analysis.plan_within(&graph, strategy, &mut budget);
        let pack_ms = started.elapsed().as_secs_f64() * 1e3;
        let over = strategy.overran(&budget);
        let ok = check::check(&graph, &plan).is_empty();
        totals.invalid += usize::from(!ok);
        // against the bound of the graph's own order, also for `reorder`
        let ratio = ratio(plan.peak_bytes, analysis.liveness.lower_bound);
        totals.ratios[k].push(ratio);
        let status = status(&plan, capacity, &mut totals.fits[k]);
        let status = if over {
            format!("{status} over budget (whole passes)")
        } else {
            status
        };
        println!(
            "{:<46} {:>7} {:>12} {:<12} {:>12} {:>8.4} {:>9.1} {:>10.2}  {}{}",
            file_name(file),
            plan.tensors.len(),
            analysis.liveness.lower_bound,
            strategy.name(),
            plan.peak_bytes,
            ratio,
            analyse_ms,
            pack_ms,
            status,
            if ok { "" } else { "  INVALID" }
        );
    }
    Ok(())
}

/// Whether the plan fits `--capacity` (counted in `fits`), or whether it is
/// proven optimal.
fn status(plan: &Plan, capacity: Option<u64>, fits: &mut usize) -> String {
    match capacity {
        Some(cap) if plan.peak_bytes <= cap => {
            *fits += 1;
            format!("yes ({:.4}x)", plan.peak_bytes as f64 / cap as f64)
        }
        Some(cap) => format!(
            "no ({:.4}x){}",
            plan.peak_bytes as f64 / cap as f64,
            if plan.proven_bound > cap {
                ", proven"
            } else {
                ""
            }
        ),
        None if plan.proven_optimal => "optimal".to_string(),
        None => String::new(),
    }
}

/// Per strategy: the geometric mean and the worst of the ratios, the plans at
/// the bound and those that fit.
fn print_summary(strategies: &[Strategy], totals: &Totals, capacity: Option<u64>) {
    println!();
    println!(
        "{:<12} {:>14} {:>10} {:>12}{}",
        "strategy",
        "geomean ratio",
        "worst",
        "at the bound",
        if capacity.is_some() {
            "         fit"
        } else {
            ""
        }
    );
    for (k, strategy) in strategies.iter().enumerate() {
        let r = &totals.ratios[k];
        let geo = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        let worst = r.iter().cloned().fold(1.0, f64::max);
        let tight = r.iter().filter(|&&x| x <= 1.0 + 1e-12).count();
        let fit = match capacity {
            Some(_) => format!(" {:>9}/{}", totals.fits[k], r.len()),
            None => String::new(),
        };
        println!(
            "{:<12} {:>14.4} {:>10.4} {:>9}/{}{fit}",
            strategy.name(),
            geo,
            worst,
            tight,
            r.len()
        );
    }
}

fn ratio(peak: u64, bound: u64) -> f64 {
    if bound == 0 {
        1.0
    } else {
        peak as f64 / bound as f64
    }
}

/// Files named, and the graph and model files of directories named, sorted; a
/// name that does not exist is an error.
fn graph_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    if let Some(missing) = inputs.iter().find(|p| !p.exists()) {
        return Err(format!("{} does not exist", missing.display()));
    }
    files_in(inputs, is_graph_file)
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
