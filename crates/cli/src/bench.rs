//! `memplan bench`: every strategy (or those named) on every graph, as a table.
//! The searching strategies get `--budget` milliseconds each (default
//! [`BENCH_BUDGET_MS`]); with `--capacity` the table says whether each plan fits.
//! Times: `load` reads, orders and colours the graph (once per file), `plan`
//! is the strategy alone, the time its budget bounds. `--markdown` prints the
//! tables as markdown instead: the ratio per graph and strategy, the summary,
//! then every plan.

use super::{load, Common, Token};
use lexopt::prelude::*;
use memplan::{check, Strategy};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const DEFAULT_DIRS: [&str; 2] = ["../shared/corpus/graphs", "../shared/corpus/minimalloc"];

/// Default budget of a searching strategy on one graph, in milliseconds.
const BENCH_BUDGET_MS: u64 = 50;

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut chosen: Vec<Strategy> = Vec::new();
    let mut markdown = false;
    while let Some(arg) = Token::next(args)? {
        if common.take(&arg, args)? {
            continue;
        }
        match arg {
            Token::Long(l) if l == "strategy" => {
                chosen.push(Strategy::from_name(&args.value()?.string()?)?)
            }
            Token::Long(l) if l == "markdown" => markdown = true,
            Token::Value(v) => inputs.push(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    if inputs.is_empty() {
        inputs = DEFAULT_DIRS.iter().map(PathBuf::from).collect();
    }
    let strategies = if chosen.is_empty() {
        Strategy::ALL.to_vec()
    } else {
        chosen
    };
    let budget_ms = common.budget_ms.unwrap_or(BENCH_BUDGET_MS) as f64;
    let capacity = common.opts.pack.capacity;
    let files = expand(&inputs)?;
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); strategies.len()];
    let mut fits: Vec<usize> = vec![0; strategies.len()];
    let mut invalid = 0usize;
    let last = if capacity.is_some() {
        "fits (x capacity)"
    } else {
        "proof"
    };
    // --markdown: every plan, and per graph its tensors, bound and ratios
    let mut plans = vec![cells(&[
        "graph",
        "tensors",
        "lower bound",
        "strategy",
        "peak",
        "ratio",
        "load ms",
        "plan ms",
        last,
    ])];
    let mut graphs: Vec<Vec<String>> = Vec::new();
    if !markdown {
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
            last
        );
    }
    for file in &files {
        if std::fs::read(file).is_ok_and(|d| memplan_formats::is_npu_case(&d)) {
            let skipped = "skipped: an NPU case (see `memplan npu`)";
            if markdown {
                let name = file_name(file);
                plans.push(cells(&[&name, "", "", "", "", "", "", "", skipped]));
            } else {
                println!("{:<46} {skipped}", file_name(file));
            }
            continue;
        }
        let started = Instant::now(); // import and analysis
        let graph = load(file, common.format, &common.read)?;
        let analysis = memplan::analyse(&graph, &common.opts)?;
        let analyse_ms = started.elapsed().as_secs_f64() * 1e3;
        for (k, &strategy) in strategies.iter().enumerate() {
            let started = Instant::now();
            let mut budget = common.budget(budget_ms);
            let plan = analysis.plan_within(&graph, strategy, &mut budget);
            let pack_ms = started.elapsed().as_secs_f64() * 1e3;
            let over = strategy.overran(&budget);
            let ok = check::check(&graph, &plan).is_empty();
            invalid += usize::from(!ok);
            // against the bound of the graph's own order, also for `reorder`
            let ratio = ratio(plan.peak_bytes, analysis.liveness.lower_bound);
            ratios[k].push(ratio);
            let status = match capacity {
                Some(cap) if plan.peak_bytes <= cap => {
                    fits[k] += 1;
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
            };
            let status = if over {
                format!("{status} over budget (whole passes)")
            } else {
                status
            };
            if k == 0 {
                let (n, bound) = (plan.tensors.len(), analysis.liveness.lower_bound);
                graphs.push(vec![file_name(file), n.to_string(), bound.to_string()]);
            }
            if markdown {
                plans.push(vec![
                    file_name(file),
                    plan.tensors.len().to_string(),
                    analysis.liveness.lower_bound.to_string(),
                    strategy.name().to_string(),
                    plan.peak_bytes.to_string(),
                    format!("{ratio:.4}"),
                    format!("{analyse_ms:.1}"),
                    format!("{pack_ms:.2}"),
                    format!("{status}{}", if ok { "" } else { " INVALID" }),
                ]);
                continue;
            }
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
    }
    if markdown {
        return markdown_tables(
            &strategies,
            &ratios,
            &fits,
            capacity,
            &graphs,
            &plans,
            invalid,
        );
    }
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
        let r = &ratios[k];
        let geo = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        let worst = r.iter().cloned().fold(1.0, f64::max);
        let tight = r.iter().filter(|&&x| x <= 1.0 + 1e-12).count();
        let fit = match capacity {
            Some(_) => format!(" {:>9}/{}", fits[k], r.len()),
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
    if invalid > 0 {
        eprintln!("memplan: {invalid} plan(s) failed the checker");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--markdown`: the ratio of every strategy per graph, the summary (as the
/// terminal's), then every plan.
fn markdown_tables(
    strategies: &[Strategy],
    ratios: &[Vec<f64>],
    fits: &[usize],
    capacity: Option<u64>,
    graphs: &[Vec<String>],
    plans: &[Vec<String>],
    invalid: usize,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut head = cells(&["graph", "tensors", "lower bound"]);
    head.extend(strategies.iter().map(|s| s.name().to_string()));
    let mut per_graph = vec![head];
    for (i, graph) in graphs.iter().enumerate() {
        let mut row = graph.clone();
        row.extend(ratios.iter().map(|r| format!("{:.3}", r[i])));
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
        let r = &ratios[k];
        let geo = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        let worst = r.iter().cloned().fold(1.0, f64::max);
        let tight = r.iter().filter(|&&x| x <= 1.0 + 1e-12).count();
        let mut row = vec![
            strategy.name().to_string(),
            format!("{geo:.4}"),
            format!("{worst:.4}"),
            format!("{tight}/{}", r.len()),
        ];
        if capacity.is_some() {
            row.push(format!("{}/{}", fits[k], r.len()));
        }
        summary.push(row);
    }
    print_markdown(&summary);
    println!();
    print_markdown(plans);
    if invalid > 0 {
        eprintln!("memplan: {invalid} plan(s) failed the checker");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn cells(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

/// A markdown table whose first row is the header; a column whose cells start
/// with a digit is aligned right.
pub(crate) fn print_markdown(rows: &[Vec<String>]) {
    let Some((head, body)) = rows.split_first() else {
        return;
    };
    println!("| {} |", head.join(" | "));
    let numeric = |i: usize| (body.iter()).any(|r| r[i].starts_with(|c: char| c.is_ascii_digit()));
    let rule: Vec<&str> = (0..head.len())
        .map(|i| if i > 0 && numeric(i) { "---:" } else { "---" })
        .collect();
    println!("|{}|", rule.join("|"));
    for row in body {
        println!("| {} |", row.join(" | "));
    }
}

fn ratio(peak: u64, bound: u64) -> f64 {
    if bound == 0 {
        1.0
    } else {
        peak as f64 / bound as f64
    }
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
