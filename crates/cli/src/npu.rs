//! `memplan npu CASE --problem N [--method NAME] [--out DIR] [--json OUT]`: solves one
//! NPU case, writes the contest files, checks them with the independent checker.

use super::npu_check::{load_case, parse_problem, set_levels};
use super::Token;
use lexopt::ValueExt;
use memplan::npu::case::default_levels;
use memplan::npu::checked::{solve_checked, Checked};
use memplan::npu::export::view;
use memplan::npu::problem::Problem;
use memplan::npu::solve::Method;
use memplan_formats::contest::ContestFile;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let (mut case_path, mut problem, mut method) = (None::<PathBuf>, None::<Problem>, Method::Best);
    let (mut out, mut json, mut levels) = (None::<PathBuf>, None::<String>, default_levels());
    let mut svg = None::<PathBuf>;
    while let Some(arg) = Token::next(args)? {
        match arg {
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
    let Checked {
        solution,
        files,
        report,
    } = solve_checked(&case, problem, method)?;
    let seconds = started.elapsed().as_secs_f64();
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
    if let Some(path) = &json {
        let text = serde_json::to_string(&view(&case, &solution))?;
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
        println!("peak L1+UB      {}", solution.p1_peak);
        if problem.places() {
            println!("spills          {}", solution.plan.spills.len());
            println!("extra movement  {}", solution.extra_movement());
            println!("makespan        {}", solution.makespan().unwrap_or(0));
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
