//! `memplan bench`: every strategy (or those named) on every graph, as a table.
//! The searching strategies get `--budget` milliseconds each (default
//! [`BENCH_BUDGET_MS`]); with `--capacity` the table says whether each plan fits.
//! Times: `load` reads, orders and colours the graph (once per file), `plan`
//! is the strategy alone, the time its budget bounds. `--markdown` prints the
//! tables as markdown instead: the ratio per graph and strategy, the summary,
//! then every plan.

use crate::case;
use crate::common::{files_in, load};
use crate::flags::BenchArgs;
use crate::table::{cells, print_markdown, Table};
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
        graphs: Vec::new(),
    };
    let mut table = header(capacity, args.markdown);
    for file in &files {
        if case::is_case(file)? {
            let skipped = "skipped: an NPU case (see `memplan npu`)";
            let name = file_name(file);
            let text = format!("{name:<46} {skipped}");
            table.row_said(cells(&[&name, "", "", "", "", "", "", "", skipped]), &text);
            continue;
        }
        bench_file(file, &args, &mut totals, &mut table)?;
    }
    if table.markdown() {
        print_markdown_summary(&args.strategies, &totals, capacity);
        println!();
        table.finish();
    } else {
        print_summary(&args.strategies, &totals, capacity);
    }
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
    /// Per graph: its name, tensors and lower bound (for `--markdown`).
    graphs: Vec<[String; 3]>,
}

/// The table of every plan, its header printed unless markdown.
fn header(capacity: Option<u64>, markdown: bool) -> Table {
    let last = if capacity.is_some() {
        "fits (x capacity)"
    } else {
        "proof"
    };
    let head = [
        "graph",
        "tensors",
        "lower bound",
        "strategy",
        "peak",
        "ratio",
        "load ms",
        "plan ms",
        last,
    ];
    Table::new(markdown, &head, plan_line)
}

/// A plan's row as the terminal shows it.
fn plan_line(row: &[String]) -> String {
    format!(
        "{:<46} {:>7} {:>12} {:<12} {:>12} {:>8} {:>9} {:>10}  {}",
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]
    )
}

/// Reads and analyses one graph, then plans it with each strategy: a row each.
fn bench_file(
    file: &Path,
    args: &BenchArgs,
    totals: &mut Totals,
    table: &mut Table,
) -> Result<(), Box<dyn std::error::Error>> {
    let common = &args.common;
    let budget_ms = common.budget_ms.unwrap_or(BENCH_BUDGET_MS) as f64;
    let capacity = common.opts.pack.capacity;
    let started = Instant::now(); // import and analysis
    let graph = load(file, common.format, &common.read)?;
    let analysis = memplan::analyse(&graph, &common.opts)?;
    let analyse_ms = started.elapsed().as_secs_f64() * 1e3;
    let bound = analysis.liveness.lower_bound;
    for (k, &strategy) in args.strategies.iter().enumerate() {
        let started = Instant::now();
        let mut budget = common.budget(budget_ms);
        let plan = analysis.plan_within(&graph, strategy, &mut budget);
        let pack_ms = started.elapsed().as_secs_f64() * 1e3;
        let over = strategy.overran(&budget);
        let ok = check::check(&graph, &plan).is_empty();
        totals.invalid += usize::from(!ok);
        // against the bound of the graph's own order, also for `reorder`
        let ratio = ratio(plan.peak_bytes, bound);
        totals.ratios[k].push(ratio);
        let status = status(&plan, capacity, &mut totals.fits[k]);
        let status = if over {
            format!("{status} over budget (whole passes)")
        } else {
            status
        };
        if k == 0 {
            let (name, n) = (file_name(file), plan.tensors.len().to_string());
            totals.graphs.push([name, n, bound.to_string()]);
        }
        table.row(vec![
            file_name(file),
            plan.tensors.len().to_string(),
            bound.to_string(),
            strategy.name().to_string(),
            plan.peak_bytes.to_string(),
            format!("{ratio:.4}"),
            format!("{analyse_ms:.1}"),
            format!("{pack_ms:.2}"),
            format!("{status}{}", if ok { "" } else { "  INVALID" }),
        ]);
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
        let (geo, worst, tight) = spread(r);
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

/// `--markdown`: the ratio of every strategy per graph, then the summary.
fn print_markdown_summary(strategies: &[Strategy], totals: &Totals, capacity: Option<u64>) {
    let mut head = cells(&["graph", "tensors", "lower bound"]);
    head.extend(strategies.iter().map(|s| s.name().to_string()));
    let mut per_graph = vec![head];
    for (i, graph) in totals.graphs.iter().enumerate() {
        let mut row = graph.to_vec();
        row.extend(totals.ratios.iter().map(|r| format!("{:.3}", r[i])));
        per_graph.push(row);
    }
    print_markdown(&per_graph);
    println!();
    let mut summary = vec![cells(&[
        "strategy",
        "geomean ratio",
        "worst",
        "at the bound",
    ])];
    if capacity.is_some() {
        summary[0].push("fit".to_string());
    }
    for (k, strategy) in strategies.iter().enumerate() {
        let (r, (geo, worst, tight)) = (&totals.ratios[k], spread(&totals.ratios[k]));
        let mut row = vec![
            strategy.name().to_string(),
            format!("{geo:.4}"),
            format!("{worst:.4}"),
            format!("{tight}/{}", r.len()),
        ];
        if capacity.is_some() {
            row.push(format!("{}/{}", totals.fits[k], r.len()));
        }
        summary.push(row);
    }
    print_markdown(&summary);
}

/// The geometric mean and the worst of `ratios`, and how many are at the bound.
fn spread(ratios: &[f64]) -> (f64, f64, usize) {
    let geo = (ratios.iter().map(|x| x.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
    let worst = ratios.iter().cloned().fold(1.0, f64::max);
    let tight = ratios.iter().filter(|&&x| x <= 1.0 + 1e-12).count();
    (geo, worst, tight)
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
