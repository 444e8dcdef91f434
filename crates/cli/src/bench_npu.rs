//! `memplan bench-npu [DIR|CASE...]`: every NPU method on every case (default
//! `../shared/corpus/npu`), each result checked by the independent checker, next to
//! the best published numbers: those of `<dir>/published/README.md` when it is
//! there, else (and for the cases it lacks) the claims in [`CLAIMED`]. A second
//! table puts each best result beside its lower bound (`memplan_npu::bounds`)
//! and the ratio, or says that no useful bound is known. `--markdown` prints the
//! tables as markdown.

use crate::case::{self, load_case};
use crate::common::files_in;
use crate::flags::{BenchNpuArgs, NpuCommon};
use crate::table::{cells, print_markdown, Table};
use memplan_npu::bounds::Bounds;
use memplan_npu::case::Case;
use memplan_npu::checked::solve_checked_watched;
use memplan_npu::problem::Problem;
use memplan_npu::solve::{Method, Solution};
use memplan_npu::watch::Watch;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

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

pub fn run(args: BenchNpuArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let head = [
        "case",
        "P1 peak (pub)",
        "P2 base",
        "P2 best (pub)",
        "P3 span @ move (pub)",
        "time P1/P2b/P2/P3 s",
        "check",
    ];
    let mut main = Table::new(args.markdown, &head, row_text);
    let mut tables = Tables::default();
    for file in files_in(&args.inputs, is_case_file)? {
        let case = load_case(&file, args.common.levels.clone())?;
        let results = solve_all(&case, &args.common)?;
        tables.invalid += results.rows.iter().filter(|(_, _, ok)| !*ok).count();
        main.row(main_row(&case, &results, &published_for(&file)));
        tables.first_rows.push(first_row(&case, &results));
        tables.bound_rows.push(bound_row(&case, &results));
    }
    if args.markdown {
        main.finish();
        print_markdown_tables(&tables, args.common.threads);
    } else {
        print_tables(&tables, args.common.threads);
    }
    Ok(if tables.invalid == 0 {
        ExitCode::SUCCESS
    } else {
        println!(
            "{} result(s) failed the independent checker",
            tables.invalid
        );
        ExitCode::from(1)
    })
}

/// The tables printed after the main one, a row per case, and the results the
/// checker rejected.
#[derive(Default)]
struct Tables {
    /// Each best result beside its lower bound.
    bound_rows: Vec<Vec<String>>,
    /// The time to the first valid plan and to the final one (method best).
    first_rows: Vec<Vec<String>>,
    invalid: usize,
}

/// One case's results: P1 best, P2 baseline, P2 best and P3 best, each with its
/// time in seconds and whether the checker agrees; and the time to the first
/// plan of each best.
struct Results {
    rows: Vec<(Solution, f64, bool)>,
    firsts: Vec<f64>,
}

/// Solves the case for each problem and method, checked.
fn solve_all(case: &Case, common: &NpuCommon) -> Result<Results, memplan::Error> {
    let mut results = Results {
        rows: Vec::new(),
        firsts: Vec::new(),
    };
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
            case,
            problem,
            method,
            &mut Watch::improvements(&mut better)
                .with_threads(common.threads)
                .with_seed(common.seed),
        )?;
        let seconds = started.elapsed().as_secs_f64();
        let ok = checked.agrees(problem);
        if method == Method::Best {
            results.firsts.push(first.unwrap_or(seconds));
        }
        results.rows.push((checked.solution, seconds, ok));
    }
    Ok(results)
}

/// A row of the main table as the terminal prints it.
fn row_text(row: &[String]) -> String {
    format!(
        "{:<22} {:>16} {:>10} {:>18} {:>34} {:>20}  {}",
        row[0], row[1], row[2], row[3], row[4], row[5], row[6]
    )
}

/// The case's row of the main table: each result beside the published one.
fn main_row(case: &Case, results: &Results, published: &Published) -> Vec<String> {
    let rows = &results.rows;
    let ok = rows.iter().all(|(_, _, ok)| *ok);
    let pub_of = |n: Option<u64>| n.map_or("-".to_string(), group);
    let (p1, base, best, p3) = (&rows[0].0, &rows[1].0, &rows[2].0, &rows[3].0);
    let mark = if published.claimed { "*" } else { "" };
    vec![
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
    ]
}

/// The case's row of the times to the first and to the final plan.
fn first_row(case: &Case, results: &Results) -> Vec<String> {
    let rows = &results.rows;
    vec![
        case.name.clone(),
        (results.firsts)
            .iter()
            .map(|s| format!("{:.0}", s * 1000.0))
            .collect::<Vec<_>>()
            .join(" / "),
        [&rows[0], &rows[2], &rows[3]]
            .iter()
            .map(|(_, s, _)| format!("{s:.1}"))
            .collect::<Vec<_>>()
            .join(" / "),
    ]
}

/// The case's row of the bounds: each best result's bound and ratio.
fn bound_row(case: &Case, results: &Results) -> Vec<String> {
    let rows = &results.rows;
    let (p1, best, p3) = (&rows[0].0, &rows[2].0, &rows[3].0);
    let beside_plan =
        |s: &Solution| Bounds::of_plan(case, s.problem, &s.plan.schedule, &s.plan.spilled());
    vec![
        case.name.clone(),
        beside(p1.p1_peak, beside_plan(p1).p1_peak),
        beside(best.extra_movement(), beside_plan(best).extra_movement),
        beside(
            p3.makespan().unwrap_or(0),
            beside_plan(p3).makespan.map(|b| b.value()),
        ),
    ]
}

/// The main table's note, then the bounds and the times.
fn print_tables(tables: &Tables, threads: usize) {
    println!("(pub) best valid published result; * claimed without result files");
    println!();
    println!(
        "{:<22} {:>24} {:>24} {:>24}",
        "lower bounds", "P1 bound (ratio)", "P2 bound (ratio)", "P3 bound (ratio)"
    );
    for row in &tables.bound_rows {
        println!(
            "{:<22} {:>24} {:>24} {:>24}",
            row[0], row[1], row[2], row[3]
        );
    }
    println!("(ratio) the best result above over the bound; P3's bound counts that plan's spills;");
    println!("(optimal) the result meets its bound: proven optimal");
    println!();
    println!(
        "{:<22} {:>24} {:>24}",
        "best: time to", "first plan P1/P2/P3 ms", "final plan P1/P2/P3 s"
    );
    for row in &tables.first_rows {
        println!("{:<22} {:>24} {:>24}", row[0], row[1], row[2]);
    }
    println!("(times on {threads} thread(s); --threads N to change, the plans stay the same)");
}

/// `--markdown`: the main table's note, then the bounds and the times as tables,
/// each with its note below it.
fn print_markdown_tables(tables: &Tables, threads: usize) {
    println!();
    println!("(pub) best valid published result; * claimed without result files.");
    println!();
    let head = [
        "case",
        "P1 bound (ratio)",
        "P2 bound (ratio)",
        "P3 bound (ratio)",
    ];
    print_markdown(&[vec![cells(&head)], tables.bound_rows.clone()].concat());
    println!();
    println!(
        "(ratio) the best result above over the bound; P3's bound counts that plan's spills; \
         (optimal) the result meets its bound: proven optimal."
    );
    println!();
    let head = ["case", "first plan P1/P2/P3 ms", "final plan P1/P2/P3 s"];
    print_markdown(&[vec![cells(&head)], tables.first_rows.clone()].concat());
    println!();
    println!(
        "Times of method best on {threads} thread(s); --threads N changes them, not the plans."
    );
}

/// A case a folder holds: contest JSON or the nodes file of a CSV pair.
fn is_case_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "json") || case::csv_name(p).is_some()
}

/// The published numbers of the case in `file`: those of `published/README.md`
/// beside it, then [`CLAIMED`].
fn published_for(file: &Path) -> Published {
    let dir = file.parent().unwrap_or(Path::new("."));
    let table = std::fs::read_to_string(dir.join("published/README.md")).unwrap_or_default();
    published(&table, &case_name(file))
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

/// A bound and the ratio `result / bound`, `7,186 (1.28)`, `9,216 (optimal)`
/// where they meet (the result proven optimal), or `none useful` where there is
/// no bound (never a 0 that would look meaningful).
fn beside(result: u64, bound: Option<u64>) -> String {
    match bound {
        Some(b) if b > 0 && result <= b => format!("{} (optimal)", group(b)),
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
