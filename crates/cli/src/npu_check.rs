//! `memplan npu-check CASE DIR --problem N [--levels L1=4096,...]`: checks the contest
//! result files of one case with the independent NPU checker.

use crate::case::load_case;
use crate::common::read_file;
use crate::flags::NpuCheckArgs;
use memplan::Error;
use memplan_formats::contest::{
    parse_memory, parse_schedule, parse_spills, ContestFile, ContestFiles,
};
use memplan_npu::case::Case;
use memplan_npu::check::{check_npu, NpuReport};
use memplan_npu::problem::Problem;
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

/// Violations printed before the count of the rest.
const SHOWN: usize = 20;

pub fn run(args: NpuCheckArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let case = load_case(&args.case, args.levels)?;
    let files = read_results(&args.dir, &case.name, args.problem)?;
    let report = check_npu(&case, args.problem, &files);
    print!("{}", render(&case, args.problem, &report));
    Ok(crate::common::exit_code(report.valid))
}

/// Reads `DIR/<case>_schedule.txt`, the memory file for problems 2 and 3, and the
/// spill file when present.
fn read_results(dir: &Path, case: &str, problem: Problem) -> Result<ContestFiles, Error> {
    let path = |file: ContestFile| dir.join(file.file_name(case));
    let in_file =
        |e: Error, file: ContestFile| Error::usage(format!("{}: {e}", path(file).display()));
    let schedule = read_file(&path(ContestFile::Schedule))?;
    let memory = match problem.places() {
        false => None,
        true => Some(read_file(&path(ContestFile::Memory))?),
    };
    let spill_path = path(ContestFile::Spill);
    let spills = match spill_path.exists() {
        true => Some(read_file(&spill_path)?),
        false => None,
    };
    Ok(ContestFiles {
        schedule: parse_schedule(&schedule).map_err(|e| in_file(e, ContestFile::Schedule))?,
        memory: match memory {
            Some(m) => parse_memory(&m).map_err(|e| in_file(e, ContestFile::Memory))?,
            None => Vec::new(),
        },
        spills: match spills {
            Some(s) => parse_spills(&s).map_err(|e| in_file(e, ContestFile::Spill))?,
            None => Vec::new(),
        },
    })
}

fn render(case: &Case, problem: Problem, report: &NpuReport) -> String {
    let mut out = String::new();
    let head = format!("{}, problem {problem}", case.name);
    if report.valid {
        let _ = writeln!(out, "{head}: valid");
    } else {
        let _ = writeln!(
            out,
            "{head}: invalid, {} violation(s)",
            report.violation_count
        );
        for v in report.violations.iter().take(SHOWN) {
            let _ = writeln!(out, "violation: {v}");
        }
        if report.violation_count > SHOWN {
            let _ = writeln!(out, "... and {} more", report.violation_count - SHOWN);
        }
    }
    let _ = writeln!(out, "p1 peak (L1+UB): {}", report.p1_peak);
    if problem.places() {
        let _ = writeln!(out, "spills: {}", report.spills);
        let _ = writeln!(out, "extra movement: {}", report.extra_movement);
        match report.makespan {
            Some(m) => {
                let _ = writeln!(out, "makespan: {m}");
            }
            None => {
                let _ = writeln!(
                    out,
                    "makespan: not computed (it needs every node scheduled once in edge order and every spill naming a buffer)"
                );
            }
        }
    }
    out
}
