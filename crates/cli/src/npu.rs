//! `memplan npu CASE --problem N [--method NAME] [--out DIR] [--json OUT]`: solves one
//! NPU case, writes the contest files, checks them with the independent checker,
//! and prints each result beside its lower bound (`memplan_npu::bounds`).

use super::npu_check::{load_case, parse_problem, set_levels};
use super::{parse_seed, Token};
use lexopt::ValueExt;
use memplan_formats::contest::ContestFile;
use memplan_npu::bounds::Bounds;
use memplan_npu::case::default_levels;
use memplan_npu::checked::{solve_checked_watched, Checked};
use memplan_npu::export::view;
use memplan_npu::problem::Problem;
use memplan_npu::solve::{Method, Solution};
use memplan_npu::watch::Watch;
use std::path::PathBuf;
use std::process::ExitCode;

/// What the default work of an NPU solve stands for under `--deterministic
/// --budget MS`: the work is scaled by `MS / NOMINAL_MS` (the default took 4 to 30 s
/// natively on the public cases when it was set, and takes about 1 to 7 s on one
/// core now, depending on the case and problem; kept, so that a deterministic
/// budget gives the plans it gave).
pub const NOMINAL_MS: f64 = 20_000.0;

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let (mut case_path, mut problem, mut method) = (None::<PathBuf>, None::<Problem>, Method::Best);
    let (mut out, mut json, mut levels) = (None::<PathBuf>, None::<String>, default_levels());
    let mut svg = None::<PathBuf>;
    let (mut progress, mut budget_ms, mut deterministic) = (false, None::<u64>, false);
    let mut seed = 0u64;
    let mut threads = default_threads();
    while let Some(arg) = Token::next(args)? {
        match arg {
            Token::Long(l) if l == "threads" => threads = parse_threads(&args.value()?.string()?)?,
            Token::Long(l) if l == "progress" => progress = true,
            Token::Long(l) if l == "seed" => seed = parse_seed(&args.value()?.string()?)?,
            Token::Long(l) if l == "deterministic" => deterministic = true,
            Token::Long(l) if l == "budget" => {
                let ms = args.value()?.string()?;
                budget_ms =
                    Some(ms.parse::<u64>().map_err(|_| {
                        format!("--budget: `{ms}` is not a number of milliseconds")
                    })?);
            }
            Token::Long(l) if l == "problem" => {
                problem = Some(parse_problem(&args.value()?.string()?)?)
            }
            Token::Long(l) if l == "method" => {
                method = Method::from_name(&args.value()?.string()?)?
            }
            Token::Long(l) if l == "out" => out = Some(args.value()?.into()),
            Token::Long(l) if l == "json" => json = Some(args.value()?.string()?),
            Token::Long(l) if l == "svg" => svg = Some(args.value()?.into()),
            Token::Long(l) if l == "levels" => set_levels(&mut levels, &args.value()?.string()?)?,
            Token::Value(v) if case_path.is_none() => case_path = Some(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    let case_path = case_path.ok_or("npu: missing CASE (.json or _Nodes.csv)")?;
    let problem = problem.ok_or("npu: missing --problem 1|2|3")?;
    let case = load_case(&case_path, levels)?;
    let started = std::time::Instant::now();
    let mut shown = 0usize;
    let mut better = |s: &Solution| {
        shown += 1;
        if progress {
            let at = started.elapsed().as_secs_f64();
            let figures = match s.makespan() {
                None => format!("peak L1+UB {}", s.p1_peak),
                Some(span) => format!("movement {} makespan {span}", s.extra_movement()),
            };
            eprintln!("{at:>8.3} s  {figures}  ({})", s.recipe);
        }
    };
    // a wall-clock budget stops the search; a deterministic one scales its work
    let deadline = budget_ms
        .filter(|_| !deterministic)
        .map(|ms| started + std::time::Duration::from_millis(ms));
    let mut stop = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
    let effort = match (budget_ms, deterministic) {
        (Some(ms), true) => ms as f64 / NOMINAL_MS,
        _ => 1.0,
    };
    let mut watch = Watch::new(&mut better, &mut stop)
        .with_effort(effort)
        .with_threads(threads)
        .with_seed(seed);
    let Checked {
        solution,
        files,
        report,
    } = solve_checked_watched(&case, problem, method, &mut watch)?;
    let seconds = started.elapsed().as_secs_f64();
    if progress {
        eprintln!("{shown} plan(s) shown, the last one returned");
    }
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let wanted: &[ContestFile] = if !problem.places() {
            &[ContestFile::Schedule]
        } else {
            &ContestFile::ALL
        };
        for &file in wanted {
            let path = dir.join(file.file_name(&case.name));
            std::fs::write(&path, memplan_formats::contest::render(&files, file))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    let bounds = Bounds::of_plan(
        &case,
        problem,
        &solution.plan.schedule,
        &solution.plan.spilled(),
    );
    if let Some(path) = &json {
        let mut value = serde_json::to_value(view(&case, &solution))?;
        if let Some(fields) = value.as_object_mut() {
            fields.insert("bounds".to_string(), bounds_json(&bounds));
        }
        let text = serde_json::to_string(&value)?;
        if path == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {path}: {e}"))?;
        }
    }
    if let Some(path) = &svg {
        let text = memplan_render::npu_svg(&view(&case, &solution), 1100)?;
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let print = json.as_deref() != Some("-");
    if print {
        println!(
            "case            {} ({} nodes, {} buffers)",
            case.name,
            case.nodes.len(),
            case.buffers.len()
        );
        println!(
            "problem         {problem}, method {} ({})",
            method.name(),
            solution.recipe
        );
        match problem.places() {
            false => println!(
                "peak L1+UB      {}{}",
                solution.p1_peak,
                beside(solution.p1_peak, bounds.p1_peak)
            ),
            true => println!("peak L1+UB      {}", solution.p1_peak),
        }
        if problem.places() {
            let moved = solution.extra_movement();
            println!("spills          {}", solution.plan.spills.len());
            println!(
                "extra movement  {moved}{}",
                beside(moved, bounds.extra_movement)
            );
            let span = solution.makespan().unwrap_or(0);
            let bound = bounds.makespan;
            println!(
                "makespan        {span}{}",
                beside(span, bound.map(|b| b.value()))
            );
            if let Some(b) = bound {
                println!(
                    "                (bound of this plan's spills: critical path {}, busiest pipe {} {})",
                    b.critical_path,
                    b.pipe.map_or("-", |p| p.name()),
                    b.busiest_pipe
                );
            }
        }
        println!("time            {seconds:.2} s");
        match report.valid {
            true => println!("check           valid (independent checker)"),
            false => {
                println!(
                    "check           INVALID: {} violation(s)",
                    report.violation_count
                );
                for v in report.violations.iter().take(10) {
                    println!("  {v}");
                }
            }
        }
    }
    Ok(if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `memplan npu-matmul MxKxN [--out FILE]`: a tiled matmul case of that many tiles
/// (`memplan_npu::tiled`) as contest JSON, to FILE or standard output.
pub fn matmul(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let (mut shape, mut out) = (None::<String>, None::<PathBuf>);
    while let Some(arg) = Token::next(args)? {
        match arg {
            Token::Long(l) if l == "out" => out = Some(args.value()?.into()),
            Token::Value(v) if shape.is_none() => shape = Some(v.string()?),
            other => return Err(other.unexpected()),
        }
    }
    let shape = shape.ok_or("npu-matmul: missing MxKxN (tiles, e.g. 20x20x20)")?;
    let dims: Vec<usize> = shape
        .split('x')
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("npu-matmul: `{shape}` is not MxKxN (e.g. 20x20x20)"))?;
    let [m, k, n] = <[usize; 3]>::try_from(dims)
        .map_err(|_| format!("npu-matmul: `{shape}` is not MxKxN (e.g. 20x20x20)"))?;
    let case = memplan_npu::tiled::tiled_matmul(m, k, n)?;
    let text = memplan_formats::npu::write_json(&case);
    match out {
        Some(path) => std::fs::write(&path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The threads a solve uses unless `--threads` says: the machine's cores.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--threads N`, at least 1.
pub(crate) fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "--threads: `{text}` is not a number of threads (1 or more)"
        )),
    }
}

/// The bounds beside the result, as `--json` writes them: `{"p1_peak": n|null,
/// "extra_movement": n|null, "makespan": n|null, ...}`.
fn bounds_json(bounds: &Bounds) -> serde_json::Value {
    serde_json::json!({
        "p1_peak": bounds.p1_peak,
        "extra_movement": bounds.extra_movement,
        "makespan": bounds.makespan.map(|b| b.value()),
        "makespan_critical_path": bounds.makespan.map(|b| b.critical_path),
        "makespan_busiest_pipe": bounds.makespan.map(|b| b.busiest_pipe),
    })
}

/// `   (bound 9,000, ratio 1.02)` after a result, or `   (no useful bound known)`.
fn beside(result: u64, bound: Option<u64>) -> String {
    match bound {
        Some(b) if b > 0 => format!("   (lower bound {b}, ratio {})", ratio(result, b)),
        _ => "   (no useful lower bound known)".to_string(),
    }
}

/// `result / bound` with two decimals.
pub(crate) fn ratio(result: u64, bound: u64) -> String {
    format!("{:.2}", result as f64 / bound as f64)
}
