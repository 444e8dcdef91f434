use super::graph::view_pairs;
use super::*;
use memplan::order::OrderKind;

/// The command `args` parse to, or the error's message.
fn parsed(args: &[&str]) -> std::result::Result<Command, String> {
    parse(lexopt::Parser::from_args(args)).map_err(|e| e.to_string())
}

fn error(args: &[&str]) -> String {
    match parsed(args) {
        Ok(_) => panic!("{args:?} parsed"),
        Err(e) => e,
    }
}

fn plan(args: &[&str]) -> PlanArgs {
    match parsed(&[&["plan"], args].concat()) {
        Ok(Command::Plan(a)) => a,
        Ok(_) => panic!("not plan"),
        Err(e) => panic!("{args:?}: {e}"),
    }
}

fn npu(args: &[&str]) -> NpuArgs {
    match parsed(&[&["npu"], args].concat()) {
        Ok(Command::Npu(a)) => a,
        Ok(_) => panic!("not npu"),
        Err(e) => panic!("{args:?}: {e}"),
    }
}

#[test]
fn commands_and_help() {
    assert!(matches!(parsed(&[]), Ok(Command::Missing)));
    for help in ["help", "--help", "-h"] {
        assert!(matches!(parsed(&[help]), Ok(Command::Help)));
    }
    // the commands without arguments ignore any given
    assert!(matches!(
        parsed(&["strategies", "--x"]),
        Ok(Command::Strategies)
    ));
    assert!(matches!(parsed(&["onnx-ops", "y"]), Ok(Command::OnnxOps)));
    assert_eq!(
        error(&["bogus"]),
        "unknown command `bogus` (try `memplan help`)"
    );
    assert_eq!(error(&["-x"]), "invalid option '-x'");
}

#[test]
fn unknown_flags_and_arguments() {
    assert_eq!(
        error(&["plan", "f", "--bogus"]),
        "unexpected option --bogus"
    );
    assert_eq!(error(&["plan", "f", "-h"]), "unexpected option -h");
    assert_eq!(error(&["plan", "f", "g"]), "unexpected argument g");
    assert_eq!(error(&["check", "f", "p", "q"]), "unexpected argument q");
    // a flag of one subcommand is unknown to another
    assert_eq!(
        error(&["npu", "c", "--problem", "1", "--align", "8"]),
        "unexpected option --align"
    );
    assert_eq!(
        error(&["npu-check", "c", "d", "--threads", "2"]),
        "unexpected option --threads"
    );
    assert_eq!(
        error(&["plan", "f", "--progress=1"]),
        "unexpected argument for option '--progress': \"1\""
    );
}

#[test]
fn missing_values_and_arguments() {
    assert_eq!(
        error(&["plan", "f", "--budget"]),
        "missing argument for option '--budget'"
    );
    assert_eq!(
        error(&["npu", "c", "--problem"]),
        "missing argument for option '--problem'"
    );
    assert_eq!(error(&["plan"]), "plan: missing FILE");
    assert_eq!(error(&["shapes"]), "shapes: missing MODEL");
    assert_eq!(error(&["export"]), "export: missing FILE");
    assert_eq!(error(&["demo", "m"]), "demo: missing --out DIR");
    assert_eq!(error(&["html"]), "html: missing FILE");
    assert_eq!(error(&["check", "f"]), "check: expected FILE and PLAN.json");
    assert_eq!(
        error(&["npu", "--problem", "1"]),
        "npu: missing CASE (.json or _Nodes.csv)"
    );
    assert_eq!(error(&["npu", "c"]), "npu: missing --problem 1|2|3");
    assert_eq!(
        error(&["npu-check", "c"]),
        "npu-check: expected CASE (.json or _Nodes.csv) and DIR"
    );
    assert_eq!(
        error(&["npu-matmul"]),
        "npu-matmul: missing MxKxN (tiles, e.g. 20x20x20)"
    );
}

#[test]
fn bad_values() {
    let cases: [(&[&str], &str); 9] = [
        (
            &["plan", "f", "--budget", "x"],
            "--budget: `x` is not a number of milliseconds",
        ),
        (&["bench", "--seed", "-1"], "--seed: `-1` is not a number"),
        (
            &["plan", "f", "--device", "x"],
            "--device: `x` is not a device number",
        ),
        (
            &["plan", "f", "--order", "x"],
            "unknown order `x` (expected kahn, dfs or memory)",
        ),
        (
            &["npu", "c", "--problem", "4"],
            "--problem: expected 1, 2 or 3, not `4`",
        ),
        (
            &["bench-npu", "--threads", "0"],
            "--threads: `0` is not a number of threads (1 or more)",
        ),
        (
            &["npu-check", "c", "d", "--levels", "L1"],
            "--levels: `L1` is not of the form NAME=CAPACITY",
        ),
        (
            &["npu-matmul", "2x2"],
            "npu-matmul: `2x2` is not MxKxN (e.g. 20x20x20)",
        ),
        (
            &["demo", "m", "--view", "src=x"],
            "--view: `src` is set by the bundle (its graph opens first)",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(error(args), message, "{args:?}");
    }
    assert!(error(&["plan", "f", "--strategy", "x"]).starts_with("unknown strategy `x`"));
    assert!(error(&["plan", "f", "--align", "x"]).starts_with("unknown size unit `x`"));
    // the first error stops the parse
    assert_eq!(
        error(&["plan", "--bogus", "--budget", "x"]),
        "unexpected option --bogus"
    );
}

#[test]
fn a_repeated_flag_keeps_its_last_value_and_lists_grow() {
    let a = plan(&[
        "f",
        "--strategy",
        "naive",
        "--strategy",
        "best-fit",
        "--budget",
        "5",
        "--budget",
        "7",
        "--dim",
        "a=1",
        "--dim",
        "b=2",
        "--order",
        "dfs",
    ]);
    assert_eq!(a.strategy, memplan::Strategy::BestFit);
    assert_eq!(a.common.budget_ms, Some(7));
    assert_eq!(a.common.opts.pack.budget_ms, 7);
    assert_eq!(a.common.read.dims, [("a".into(), 1), ("b".into(), 2)]);
    assert_eq!(a.common.opts.order, OrderKind::Dfs);
    match parsed(&[
        "bench",
        "d",
        "e",
        "--strategy",
        "naive",
        "--strategy",
        "pools",
    ]) {
        Ok(Command::Bench(b)) => {
            assert_eq!(b.strategies.len(), 2);
            assert_eq!(b.inputs.len(), 2);
        }
        _ => panic!("bench"),
    }
    match parsed(&["bench-npu", "--levels", "L1=1", "--levels", "UB=2,X=3"]) {
        Ok(Command::BenchNpu(b)) => {
            let l1 = b.common.levels.iter().find(|l| l.name == "L1").unwrap();
            assert_eq!(l1.capacity, 1);
            assert!(b
                .common
                .levels
                .iter()
                .any(|l| l.name == "X" && l.capacity == 3));
            assert_eq!(b.inputs, [PathBuf::from("../shared/corpus/npu")]);
        }
        _ => panic!("bench-npu"),
    }
}

#[test]
fn defaults_and_values() {
    let a = plan(&["f"]);
    assert_eq!(a.file, PathBuf::from("f"));
    assert_eq!(a.strategy, memplan::Strategy::Auto);
    assert_eq!((a.common.budget_ms, a.common.deterministic), (None, false));
    let a = plan(&[
        "--seed=3",
        "--deterministic",
        "--json",
        "-",
        "f",
        "--progress",
    ]);
    assert_eq!(a.common.opts.pack.seed, 3);
    assert!(a.common.deterministic && a.progress);
    assert_eq!(a.json.as_deref(), Some("-"));
    let n = npu(&["c", "--problem", "2", "--threads", "3", "--budget", "9"]);
    assert_eq!(
        (n.common.threads, n.common.seed, n.budget_ms),
        (3, 0, Some(9))
    );
    assert_eq!(n.problem, memplan_npu::problem::Problem::Movement);
    match parsed(&["npu-matmul", "2x3x4", "--out", "m.json"]) {
        Ok(Command::NpuMatmul(m)) => assert_eq!(m.tiles, [2, 3, 4]),
        _ => panic!("npu-matmul"),
    }
}

#[test]
fn export_reads_its_own_format_and_text_in_order() {
    let to = |args: &[&str]| match parsed(&[&["export", "f"], args].concat()) {
        Ok(Command::Export(e)) => e.to,
        _ => panic!("export"),
    };
    assert_eq!(to(&[]), "json");
    assert_eq!(to(&["--text", "--format", "minimalloc"]), "minimalloc");
    assert_eq!(to(&["--format", "minimalloc", "--text"]), "text");
    // checked when the file is known
    assert_eq!(to(&["--format", "nope"]), "nope");
}

#[test]
fn demo_views_keep_their_order() {
    match parsed(&[
        "demo",
        "m",
        "--out",
        "o",
        "--view",
        "a=1",
        "--strategy",
        "naive",
    ]) {
        Ok(Command::Demo(d)) => assert_eq!(
            d.view,
            [
                ("a".into(), "1".into()),
                ("strategy".into(), "naive".into())
            ]
        ),
        _ => panic!("demo"),
    }
    match parsed(&[
        "html",
        "m",
        "--strategy",
        "best-fit",
        "--view",
        "compare=naive",
    ]) {
        Ok(Command::Html(h)) => {
            assert!(h.out.is_none());
            assert_eq!(h.view.len(), 2);
            assert_eq!(h.page, std::path::Path::new("."));
        }
        _ => panic!("html"),
    }
    assert_eq!(view_pairs("strategy=best-fit&select=2").unwrap().len(), 2);
    assert!(view_pairs("src=http://elsewhere/x.json").is_err());
}
