//! `memplan bench-npu [DIR|CASE...]`: every NPU method on every case (default
//! `../shared/corpus/npu`), each result checked by the independent checker, next to
//! the best published numbers: those of `<dir>/published/README.md` when it is
//! there, else (and for the cases it lacks) the claims in [`CLAIMED`]. A second
//! table puts each best result beside its lower bound (`memplan::npu::bounds`)
//! and the ratio, or says that no useful bound is known. `--markdown` prints the
//! tables as markdown.

use super::bench::{cells, print_markdown};
use super::npu::{default_threads, parse_threads};
use super::npu_check::{load_case, set_levels};
use super::{parse_seed, Token};
use lexopt::ValueExt;
use memplan::npu::bounds::Bounds;
use memplan::npu::case::default_levels;
use memplan::npu::checked::solve_checked_watched;
use memplan::npu::problem::Problem;
use memplan::npu::solve::{Method, Solution};
use memplan::npu::watch::Watch;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const DEFAULT_DIR: &str = "../shared/corpus/npu";

/// Best published numbers of one case; `None` where nothing was published.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Published {
    p1_peak: Option<u64>,
    movement: Option<u64>,
    /// Shortest makespan and its movement.
    makespan: Option<(u64, u64)>,
    /// From [`CLAIMED`]: announced without result files.
    claimed: bool,
}

/// Results announced without files (so the checker cannot confirm them): case,
/// P1 peak, P2 movement, P3 makespan and its movement.
const CLAIMED: [(&str, u64, u64, u64, u64); 1] =
    [("Matmul_Case1", 34_816, 316_672, 1_683_725, 316_672)];

pub fn run(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut levels = default_levels();
    let mut threads = default_threads();
    let mut seed = 0u64;
    let mut markdown = false;
    while let Some(arg) = Token::next(args)? {
        match arg {
            Token::Long(l) if l == "markdown" => markdown = true,
            Token::Long(l) if l == "threads" => threads = parse_threads(&args.value()?.string()?)?,
            Token::Long(l) if l == "levels" => set_levels(&mut levels, &args.value()?.string()?)?,
            Token::Long(l) if l == "seed" => seed = parse_seed(&args.value()?.string()?)?,
            Token::Value(v) => inputs.push(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    if inputs.is_empty() {
        inputs.push(PathBuf::from(DEFAULT_DIR));
    }
    let mut invalid = 0usize;
    let mut bound_rows: Vec<Vec<String>> = Vec::new();
    // time to the first valid plan and to the final one, per case (method best)
    let mut first_rows: Vec<Vec<String>> = Vec::new();
    let head = [
        "case",
        "P1 peak (pub)",
        "P2 base",
        "P2 best (pub)",
        "P3 span @ move (pub)",
        "time P1/P2b/P2/P3 s",
        "check",
    ];
    // --markdown: the rows, printed as one table once every case is solved
    let mut table = vec![cells(&head)];
    if !markdown {
        println!(
            "{:<22} {:>16} {:>10} {:>18} {:>34} {:>20}  {}",
            head[0], head[1], head[2], head[3], head[4], head[5], head[6]
        );
    }
    for (file, published) in cases(&inputs)? {
        let case = load_case(&file, levels.clone())?;
        let mut rows: Vec<(Solution, f64, bool)> = Vec::new();
        let mut firsts: Vec<f64> = Vec::new();
        for (problem, method) in [
            (Problem::Residency, Method::Best),
            (Problem::Movement, Method::Baseline),
            (Problem::Movement, Method::Best),
            (Problem::Makespan, Method::Best),
        ] {
            let started = Instant::now();
            let mut first = None;
            let mut better = |_: &Solution| {
                first.get_or_insert_with(|| started.elapsed().as_secs_f64());
            };
            let checked = solve_checked_watched(
                &case,
                problem,
                method,
                &mut Watch::improvements(&mut better)
                    .with_threads(threads)
                    .with_seed(seed),
            )?;
            let seconds = started.elapsed().as_secs_f64();
            let ok = checked.agrees(problem);
            if method == Method::Best {
                firsts.push(first.unwrap_or(seconds));
            }
            rows.push((checked.solution, seconds, ok));
        }
        first_rows.push(vec![
            case.name.clone(),
            firsts
                .iter()
                .map(|s| format!("{:.0}", s * 1000.0))
                .collect::<Vec<_>>()
                .join(" / "),
            [&rows[0], &rows[2], &rows[3]]
                .iter()
                .map(|(_, s, _)| format!("{s:.1}"))
                .collect::<Vec<_>>()
                .join(" / "),
        ]);
        let ok = rows.iter().all(|(_, _, ok)| *ok);
        invalid += rows.iter().filter(|(_, _, ok)| !*ok).count();
        let pub_of = |n: Option<u64>| n.map_or("-".to_string(), group);
        let (p1, base, best, p3) = (&rows[0].0, &rows[1].0, &rows[2].0, &rows[3].0);
        let mark = if published.claimed { "*" } else { "" };
        let row = vec![
            case.name.clone(),
            format!(
                "{} ({}{mark})",
                group(p1.p1_peak),
                pub_of(published.p1_peak)
            ),
            group(base.extra_movement()),
            format!(
                "{} ({}{mark})",
                group(best.extra_movement()),
                pub_of(published.movement)
            ),
            format!(
                "{} @ {} ({}{mark})",
                group(p3.makespan().unwrap_or(0)),
                group(p3.extra_movement()),
                published
                    .makespan
                    .map_or("-".to_string(), |(m, at)| format!(
                        "{} @ {}",
                        group(m),
                        group(at)
                    ))
            ),
            rows.iter()
                .map(|(_, s, _)| format!("{s:.1}"))
                .collect::<Vec<_>>()
                .join("/"),
            (if ok { "valid" } else { "INVALID" }).to_string(),
        ];
        if markdown {
            table.push(row);
        } else {
            println!(
                "{:<22} {:>16} {:>10} {:>18} {:>34} {:>20}  {}",
                row[0], row[1], row[2], row[3], row[4], row[5], row[6]
            );
        }
        let beside_plan =
            |s: &Solution| Bounds::of_plan(&case, s.problem, &s.plan.schedule, &s.plan.spilled());
        bound_rows.push(vec![
            case.name.clone(),
            beside(p1.p1_peak, beside_plan(p1).p1_peak),
            beside(best.extra_movement(), beside_plan(best).extra_movement),
            beside(
                p3.makespan().unwrap_or(0),
                beside_plan(p3).makespan.map(|b| b.value()),
            ),
        ]);
    }
    if markdown {
        return markdown_tables(table, bound_rows, first_rows, threads, invalid);
    }
    println!("(pub) best valid published result; * claimed without result files");
    println!();
    println!(
        "{:<22} {:>24} {:>24} {:>24}",
        "lower bounds", "P1 bound (ratio)", "P2 bound (ratio)", "P3 bound (ratio)"
    );
    for row in &bound_rows {
        println!(
            "{:<22} {:>24} {:>24} {:>24}",
            row[0], row[1], row[2], row[3]
        );
    }
    println!("(ratio) the best result above over the bound; P3's bound counts that plan's spills");
    println!();
    println!(
        "{:<22} {:>24} {:>24}",
        "best: time to", "first plan P1/P2/P3 ms", "final plan P1/P2/P3 s"
    );
    for row in &first_rows {
        println!("{:<22} {:>24} {:>24}", row[0], row[1], row[2]);
    }
    println!("(times on {threads} thread(s); --threads N to change, the plans stay the same)");
    Ok(if invalid == 0 {
        ExitCode::SUCCESS
    } else {
        println!("{invalid} result(s) failed the independent checker");
        ExitCode::from(1)
    })
}

/// `--markdown`: the results, the bounds and the times as three tables, each
/// with its note below it.
fn markdown_tables(
    results: Vec<Vec<String>>,
    bound_rows: Vec<Vec<String>>,
    first_rows: Vec<Vec<String>>,
    threads: usize,
    invalid: usize,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    print_markdown(&results);
    println!();
    println!("(pub) best valid published result; * claimed without result files.");
    println!();
    let head = [
        "case",
        "P1 bound (ratio)",
        "P2 bound (ratio)",
        "P3 bound (ratio)",
    ];
    print_markdown(&[vec![cells(&head)], bound_rows].concat());
    println!();
    println!("(ratio) the best result above over the bound; P3's bound counts that plan's spills.");
    println!();
    let head = ["case", "first plan P1/P2/P3 ms", "final plan P1/P2/P3 s"];
    print_markdown(&[vec![cells(&head)], first_rows].concat());
    println!();
    println!(
        "Times of method best on {threads} thread(s); --threads N changes them, not the plans."
    );
    Ok(if invalid == 0 {
        ExitCode::SUCCESS
    } else {
        println!();
        println!("{invalid} result(s) failed the independent checker");
        ExitCode::from(1)
    })
}

/// The case files named or found in the given folders, each with its published
/// numbers (from `published/README.md` beside the case, then [`CLAIMED`]).
fn cases(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, Published)>, String> {
    let mut out = Vec::new();
    for input in inputs {
        let files: Vec<PathBuf> = if input.is_dir() {
            let mut list: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| format!("cannot read {}: {e}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|e| e == "json")
                        || p.to_string_lossy().ends_with("_Nodes.csv")
                })
                .collect();
            list.sort();
            list
        } else {
            vec![input.clone()]
        };
        for file in files {
            let dir = file.parent().unwrap_or(Path::new("."));
            let table =
                std::fs::read_to_string(dir.join("published/README.md")).unwrap_or_default();
            let name = case_name(&file);
            out.push((file, published(&table, &name)));
        }
    }
    Ok(out)
}

fn case_name(file: &Path) -> String {
    let stem = file.file_name().and_then(|s| s.to_str()).unwrap_or("");
    stem.strip_suffix("_Nodes.csv")
        .or_else(|| stem.strip_suffix(".json"))
        .unwrap_or(stem)
        .to_string()
}

/// Best valid numbers of `case` in the published table (rows `| folder | case |
/// problem | valid | P1 peak | spills | movement | makespan |`), else its claim.
fn published(table: &str, case: &str) -> Published {
    let mut best = Published::default();
    for line in table.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 9 || cells[2] != case || !cells[4].starts_with("yes") {
            continue;
        }
        let num = |s: &str| s.replace(',', "").parse::<u64>().ok();
        let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        if cells[3] == "1" {
            best.p1_peak = min(best.p1_peak, num(cells[5]));
        }
        if cells[3] == "2" || cells[3] == "3" {
            best.movement = min(best.movement, num(cells[7]));
            if let (Some(span), Some(moved)) = (num(cells[8]), num(cells[7])) {
                if best.makespan.is_none_or(|(m, _)| span < m) {
                    best.makespan = Some((span, moved));
                }
            }
        }
    }
    if best == Published::default() {
        if let Some(&(_, p1, moved, span, at)) = CLAIMED.iter().find(|c| c.0 == case) {
            return Published {
                p1_peak: Some(p1),
                movement: Some(moved),
                makespan: Some((span, at)),
                claimed: true,
            };
        }
    }
    best
}

/// A bound and the ratio `result / bound`, `7,186 (1.28)`, or `none useful` where
/// there is no bound (never a 0 that would look meaningful).
fn beside(result: u64, bound: Option<u64>) -> String {
    match bound {
        Some(b) if b > 0 => format!("{} ({:.2})", group(b), result as f64 / b as f64),
        _ => "none useful".to_string(),
    }
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_best_valid_rows_of_the_published_table() {
        let table = "\
| p1-a | A | 1 | yes | 9216 | | | |
| p1-b | A | 1 | yes | 9000 | | | |
| p1-x | A | 1 | no: two L0A buffers | 4096 | | | |
| p2-a | A | 2 | yes | 11264 | 97 | 12416 | 140398 |
| p2-b | A | 2 | yes | 11264 | 90 | 13000 | 130000 |
";
        let p = published(table, "A");
        assert_eq!(p.p1_peak, Some(9000));
        assert_eq!(p.movement, Some(12416));
        assert_eq!(p.makespan, Some((130000, 13000)));
        assert!(!p.claimed);
        assert!(published(table, "Matmul_Case1").claimed);
        assert_eq!(published(table, "B"), Published::default());
        assert_eq!(group(1683725), "1,683,725");
        assert_eq!(group(512), "512");
        assert_eq!(beside(9216, Some(4608)), "4,608 (2.00)");
        assert_eq!(beside(100, None), "none useful");
        assert_eq!(beside(100, Some(0)), "none useful");
    }
}
