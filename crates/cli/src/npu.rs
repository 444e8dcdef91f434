//! `memplan npu CASE --problem N [--method NAME] [--out DIR] [--json OUT]`: solves one
//! NPU case, writes the contest files, checks them with the independent checker,
//! and prints each result beside its lower bound (`memplan_npu::bounds`).

use crate::case::load_case;
use crate::common::{exit_code, write_file};
use crate::flags::{MatmulArgs, NpuArgs};
use memplan_formats::contest::{ContestFile, ContestFiles};
use memplan_npu::bounds::Bounds;
use memplan_npu::case::Case;
use memplan_npu::check::NpuReport;
use memplan_npu::checked::{solve_checked_watched, Checked};
use memplan_npu::export::view;
use memplan_npu::problem::Problem;
use memplan_npu::solve::Solution;
use memplan_npu::watch::Watch;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// What the default work of an NPU solve stands for under `--deterministic
/// --budget MS`: the work is scaled by `MS / NOMINAL_MS` (the default took 4 to 30 s
/// natively on the public cases when it was set, and takes about 1 to 7 s on one
/// core now, depending on the case and problem; kept, so that a deterministic
/// budget gives the plans it gave).
pub const NOMINAL_MS: f64 = 20_000.0;

pub fn run(args: NpuArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let case = load_case(&args.case, args.common.levels.clone())?;
    let started = Instant::now();
    let Checked {
        solution,
        files,
        report,
    } = solve(&case, &args, started)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(dir) = &args.out {
        write_contest_files(dir, &case, args.problem, &files)?;
    }
    let bounds = Bounds::of_plan(
        &case,
        args.problem,
        &solution.plan.schedule,
        &solution.plan.spilled(),
    );
    if let Some(path) = &args.json {
        write_json(path, &case, &solution, &bounds)?;
    }
    if let Some(path) = &args.svg {
        write_file(
            path,
            memplan_render::npu_svg(&view(&case, &solution), 1100)?,
        )?;
    }
    if args.json.as_deref() != Some("-") {
        print_result(&case, &args, &solution, &bounds, seconds);
        print_check(&report);
    }
    Ok(exit_code(report.valid))
}

/// Solves the case as the flags ask: `--budget` stops the search at a wall-clock
/// deadline, or with `--deterministic` scales its work; `--progress` shows each
/// better plan.
fn solve(case: &Case, args: &NpuArgs, started: Instant) -> Result<Checked, memplan::Error> {
    let mut shown = 0usize;
    let mut better = |s: &Solution| {
        shown += 1;
        if args.progress {
            let at = started.elapsed().as_secs_f64();
            let figures = match s.makespan() {
                None => format!("peak L1+UB {}", s.p1_peak),
                Some(span) => format!("movement {} makespan {span}", s.extra_movement()),
            };
            eprintln!("{at:>8.3} s  {figures}  ({})", s.recipe);
        }
    };
    let deadline = (args.budget_ms)
        .filter(|_| !args.deterministic)
        .map(|ms| started + std::time::Duration::from_millis(ms));
    let mut stop = || deadline.is_some_and(|d| Instant::now() >= d);
    let effort = match (args.budget_ms, args.deterministic) {
        (Some(ms), true) => ms as f64 / NOMINAL_MS,
        _ => 1.0,
    };
    let mut watch = Watch::new(&mut better, &mut stop)
        .with_effort(effort)
        .with_threads(args.common.threads)
        .with_seed(args.common.seed);
    let checked = solve_checked_watched(case, args.problem, args.method, &mut watch)?;
    if args.progress {
        eprintln!("{shown} plan(s) shown, the last one returned");
    }
    Ok(checked)
}

/// `--out DIR`: the contest files of the result (the schedule alone for problem 1).
fn write_contest_files(
    dir: &Path,
    case: &Case,
    problem: Problem,
    files: &ContestFiles,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let wanted: &[ContestFile] = if !problem.places() {
        &[ContestFile::Schedule]
    } else {
        &ContestFile::ALL
    };
    for &file in wanted {
        let path = dir.join(file.file_name(&case.name));
        write_file(path, memplan_formats::contest::render(files, file))?;
    }
    Ok(())
}

/// `--json OUT`: the result as the page reads it, with its bounds; `-` prints it.
fn write_json(
    path: &str,
    case: &Case,
    solution: &Solution,
    bounds: &Bounds,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut value = serde_json::to_value(view(case, solution))?;
    if let Some(fields) = value.as_object_mut() {
        fields.insert("bounds".to_string(), bounds_json(bounds));
    }
    let text = serde_json::to_string(&value)?;
    if path == "-" {
        println!("{text}");
    } else {
        write_file(path, text + "\n")?;
    }
    Ok(())
}

/// The result's figures, each beside its lower bound.
fn print_result(case: &Case, args: &NpuArgs, solution: &Solution, bounds: &Bounds, seconds: f64) {
    let problem = args.problem;
    println!(
        "case            {} ({} nodes, {} buffers)",
        case.name,
        case.nodes.len(),
        case.buffers.len()
    );
    println!(
        "problem         {problem}, method {} ({})",
        args.method.name(),
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
        print_placement(solution, bounds);
    }
    println!("time            {seconds:.2} s");
}

/// The figures of problems 2 and 3: spills, movement and makespan.
fn print_placement(solution: &Solution, bounds: &Bounds) {
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

/// What the independent checker said.
fn print_check(report: &NpuReport) {
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

/// `memplan npu-matmul MxKxN [--out FILE]`: a tiled matmul case of that many tiles
/// (`memplan_npu::tiled`) as contest JSON, to FILE or standard output.
pub fn matmul(args: MatmulArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let [m, k, n] = args.tiles;
    let case = memplan_npu::tiled::tiled_matmul(m, k, n)?;
    let text = memplan_formats::npu::write_json(&case);
    match args.out {
        Some(path) => write_file(path, text)?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
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

/// `   (bound 9,000, ratio 1.02)` after a result, `   (lower bound 9,000:
/// proven optimal)` where they meet, or `   (no useful bound known)`.
fn beside(result: u64, bound: Option<u64>) -> String {
    match bound {
        Some(b) if b > 0 && result <= b => format!("   (lower bound {b}: proven optimal)"),
        Some(b) if b > 0 => format!("   (lower bound {b}, ratio {})", ratio(result, b)),
        _ => "   (no useful lower bound known)".to_string(),
    }
}

/// `result / bound` with two decimals.
pub(crate) fn ratio(result: u64, bound: u64) -> String {
    format!("{:.2}", result as f64 / bound as f64)
}
