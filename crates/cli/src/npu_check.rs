//! `memplan npu-check CASE DIR --problem N [--levels L1=4096,...]`: checks the contest
//! result files of one case with the independent NPU checker.

use super::{read_file, Token};
use lexopt::ValueExt;
use memplan::Error;
use memplan_formats::contest::{
    parse_memory, parse_schedule, parse_spills, ContestFile, ContestFiles,
};
use memplan_formats::npu::{read_csv, read_json};
use memplan_formats::{is_npu_case, MAX_INPUT_BYTES};
use memplan_npu::case::{default_levels, Case, Level};
use memplan_npu::check::{check_npu, NpuReport};
use memplan_npu::problem::Problem;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Violations printed before the count of the rest.
const SHOWN: usize = 20;

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut problem = None::<Problem>;
    let mut levels = default_levels();
    while let Some(arg) = Token::next(args)? {
        match arg {
            Token::Long(l) if l == "problem" => {
                problem = Some(parse_problem(&args.value()?.string()?)?)
            }
            Token::Long(l) if l == "levels" => set_levels(&mut levels, &args.value()?.string()?)?,
            Token::Value(v) if paths.len() < 2 => paths.push(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    let [case_path, dir] = <[PathBuf; 2]>::try_from(paths)
        .map_err(|_| "npu-check: expected CASE (.json or _Nodes.csv) and DIR")?;
    let problem = problem.ok_or("npu-check: missing --problem 1|2|3")?;
    let case = load_case(&case_path, levels)?;
    let files = read_results(&dir, &case.name, problem)?;
    let report = check_npu(&case, problem, &files);
    print!("{}", render(&case, problem, &report));
    Ok(if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `1`, `2` or `3`.
pub(super) fn parse_problem(text: &str) -> Result<Problem, Error> {
    let bad = || Error::usage(format!("--problem: expected 1, 2 or 3, not `{text}`"));
    Problem::from_number(text.parse().map_err(|_| bad())?).map_err(|_| bad())
}

/// Applies `L1=4096,UB=1024,...` over the default levels: a known name changes its
/// capacity, a new name adds a level.
pub(super) fn set_levels(levels: &mut Vec<Level>, spec: &str) -> Result<(), Error> {
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let parsed = item
            .split_once('=')
            .and_then(|(name, cap)| Some((name.trim(), cap.trim().parse::<u64>().ok()?)));
        let Some((name, capacity)) = parsed.filter(|(name, _)| !name.is_empty()) else {
            return Err(Error::usage(format!(
                "--levels: `{item}` is not of the form NAME=CAPACITY"
            )));
        };
        match levels.iter_mut().find(|l| l.name == name) {
            Some(level) => level.capacity = capacity,
            None => levels.push(Level {
                name: name.to_string(),
                capacity,
            }),
        }
    }
    Ok(())
}

/// The NPU case at `path` (JSON with `Nodes` and `Edges`, or `_Nodes.csv` beside
/// its `_Edges.csv`) at the default capacities, or `None` when it is not one.
pub(super) fn case_at(path: &Path) -> Result<Option<Case>, Error> {
    let csv = path.to_str().is_some_and(|p| p.ends_with("_Nodes.csv"));
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_INPUT_BYTES as u64);
    // only a JSON file can be a case: a model is not read whole to find that out
    if csv || (small && starts_like_json(path)? && is_npu_case(&read_file(path)?)) {
        return load_case(path, default_levels()).map(Some);
    }
    Ok(None)
}

/// True when the first bytes of the file at `path` that are not blank open a JSON object.
fn starts_like_json(path: &Path) -> Result<bool, Error> {
    use std::io::Read;
    let cannot = |e: std::io::Error| Error::usage(format!("cannot read {}: {e}", path.display()));
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(4096)
        .read_to_end(&mut head)
        .map_err(cannot)?;
    let text = String::from_utf8_lossy(&head);
    Ok(text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{'))
}

/// Reads a case from `<name>.json` or from `<name>_Nodes.csv` and its sibling
/// `<name>_Edges.csv`; the case is called `<name>`.
pub(super) fn load_case(path: &Path, levels: Vec<Level>) -> Result<Case, Error> {
    let file_name = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
    let in_file = |e: Error, p: &Path| Error::usage(format!("{}: {e}", p.display()));
    if let Some(name) = file_name.strip_suffix("_Nodes.csv") {
        let edges_path = path.with_file_name(format!("{name}_Edges.csv"));
        let nodes = read_file(path)?;
        let edges = read_file(&edges_path)?;
        return read_csv(&nodes, &edges, name, levels).map_err(|e| in_file(e, path));
    }
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("case");
    read_json(&read_file(path)?, name, levels).map_err(|e| in_file(e, path))
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
