//! The command line, parsed apart from the work: each subcommand's flags become one
//! typed struct ([`PlanArgs`], [`NpuArgs`], [`BenchArgs`] ...) before anything is
//! read or planned, and the flags several subcommands share are read here once:
//! the graph and planning options by [`Common`], the others by the value readers
//! of [`Parser`] (`--budget`, `--seed`, `--threads`, `--problem`, `--levels` ...).
//!
//! Every subcommand rejects a flag it does not know, a second positional argument
//! it has no place for and a short option; a flag given twice keeps its last value
//! unless it is a list (`--dim`, `--input-shape`, `bench --strategy` ...).

mod bench;
mod common;
mod graph;
mod npu;
mod replay;

pub(crate) use bench::{
    BenchArgs, BenchImportArgs, BenchNpuArgs, BenchReplayArgs, BenchSnapshotArgs,
};
pub(crate) use common::Common;
pub(crate) use graph::{CheckArgs, ExportArgs, PageArgs, PlanArgs, ShapesArgs};
pub(crate) use npu::{MatmulArgs, NpuArgs, NpuCheckArgs, NpuCommon};
pub(crate) use replay::{CompareArgs, ReplayArgs};

use memplan::{Error, Strategy};
use memplan_npu::case::Level;
use memplan_npu::problem::Problem;
use std::ffi::OsString;
use std::path::PathBuf;

/// `memplan help`.
pub(crate) const USAGE: &str = include_str!("usage.txt");

pub(crate) type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A subcommand and its arguments.
pub(crate) enum Command {
    Plan(PlanArgs),
    Shapes(ShapesArgs),
    Export(ExportArgs),
    Demo(PageArgs),
    Html(PageArgs),
    Check(CheckArgs),
    Bench(BenchArgs),
    BenchNpu(BenchNpuArgs),
    BenchImport(BenchImportArgs),
    BenchSnapshot(BenchSnapshotArgs),
    BenchReplay(BenchReplayArgs),
    Npu(NpuArgs),
    NpuCheck(NpuCheckArgs),
    NpuMatmul(MatmulArgs),
    Replay(ReplayArgs),
    Compare(CompareArgs),
    OnnxOps,
    Strategies,
    /// `help`, `--help` or `-h`.
    Help,
    /// No command at all: the usage, as an error.
    Missing,
}

/// Parses the arguments after the program's name.
pub(crate) fn parse(args: lexopt::Parser) -> Result<Command> {
    use lexopt::prelude::*;
    let mut p = Parser(args);
    let Some(command) = p.0.next()? else {
        return Ok(Command::Missing);
    };
    let name = match command {
        Value(cmd) => cmd.string()?,
        Short('h') | Long("help") => return Ok(Command::Help),
        other => return Err(other.unexpected().into()),
    };
    let p = &mut p;
    Ok(match name.as_str() {
        "plan" => Command::Plan(PlanArgs::parse(p)?),
        "shapes" => Command::Shapes(ShapesArgs::parse(p)?),
        "export" => Command::Export(ExportArgs::parse(p)?),
        "demo" => Command::Demo(PageArgs::parse(p, "demo")?),
        "html" => Command::Html(PageArgs::parse(p, "html")?),
        "check" => Command::Check(CheckArgs::parse(p)?),
        "bench" => Command::Bench(BenchArgs::parse(p)?),
        "bench-npu" => Command::BenchNpu(BenchNpuArgs::parse(p)?),
        "bench-import" => Command::BenchImport(BenchImportArgs::parse(p)?),
        "bench-snapshot" => Command::BenchSnapshot(BenchSnapshotArgs::parse(p)?),
        "bench-replay" => Command::BenchReplay(BenchReplayArgs::parse(p)?),
        "npu" => Command::Npu(NpuArgs::parse(p)?),
        "npu-check" => Command::NpuCheck(NpuCheckArgs::parse(p)?),
        "npu-matmul" => Command::NpuMatmul(MatmulArgs::parse(p)?),
        "replay" => Command::Replay(ReplayArgs::parse(p)?),
        "compare" => Command::Compare(CompareArgs::parse(p)?),
        // these take no arguments and ignore any given
        "onnx-ops" => Command::OnnxOps,
        "strategies" => Command::Strategies,
        "help" => Command::Help,
        other => return Err(format!("unknown command `{other}` (try `memplan help`)").into()),
    })
}

/// The flags of `plan` alone, without its FILE (the Python package's options).
pub(crate) fn plan_flags(flags: &[String]) -> Result<PlanArgs> {
    let args = std::iter::once("-".to_string()).chain(flags.iter().cloned());
    PlanArgs::parse(&mut Parser(lexopt::Parser::from_args(args)))
}

/// A command-line argument that no longer borrows the parser.
pub(crate) enum Token {
    Short(char),
    Long(String),
    Value(OsString),
}

impl Token {
    /// The name of a long option.
    fn long(&self) -> Option<&str> {
        match self {
            Token::Long(l) => Some(l),
            _ => None,
        }
    }

    /// Puts a positional argument in `slot` when it is empty; false for anything
    /// else, which the subcommand does not take.
    fn fill(&self, slot: &mut Option<PathBuf>) -> bool {
        match self {
            Token::Value(v) if slot.is_none() => *slot = Some(v.into()),
            _ => return false,
        }
        true
    }

    /// Adds a positional argument to `list` while it holds fewer than `most`.
    fn push(&self, list: &mut Vec<PathBuf>, most: usize) -> bool {
        match self {
            Token::Value(v) if list.len() < most => list.push(v.into()),
            _ => return false,
        }
        true
    }

    fn unexpected(&self) -> Box<dyn std::error::Error> {
        match self {
            Token::Short(c) => format!("unexpected option -{c}").into(),
            Token::Long(l) => format!("unexpected option --{l}").into(),
            Token::Value(v) => format!("unexpected argument {}", v.to_string_lossy()).into(),
        }
    }
}

/// The arguments after the subcommand's name, with readers of the values that
/// several subcommands take.
pub(crate) struct Parser(lexopt::Parser);

impl Parser {
    /// Runs `take` on each argument left; an argument it does not take (it returns
    /// false) is an error.
    fn each(&mut self, mut take: impl FnMut(&mut Parser, &Token) -> Result<bool>) -> Result<()> {
        while let Some(arg) = self.next()? {
            if !take(self, &arg)? {
                return Err(arg.unexpected());
            }
        }
        Ok(())
    }

    fn next(&mut self) -> std::result::Result<Option<Token>, lexopt::Error> {
        use lexopt::Arg;
        Ok(self.0.next()?.map(|arg| match arg {
            Arg::Short(c) => Token::Short(c),
            Arg::Long(l) => Token::Long(l.to_string()),
            Arg::Value(v) => Token::Value(v),
        }))
    }

    /// The value of the option just read, as text.
    fn text(&mut self) -> std::result::Result<String, lexopt::Error> {
        use lexopt::ValueExt;
        self.0.value()?.string()
    }

    /// The value of the option just read, as a path.
    fn path(&mut self) -> std::result::Result<PathBuf, lexopt::Error> {
        Ok(self.0.value()?.into())
    }

    /// `--strategy NAME`.
    fn strategy(&mut self) -> Result<Strategy> {
        Ok(Strategy::from_name(&self.text()?)?)
    }

    /// `--budget MS`.
    fn budget(&mut self) -> Result<u64> {
        Ok(parse_budget(&self.text()?)?)
    }

    /// `--seed N`.
    fn seed(&mut self) -> Result<u64> {
        Ok(parse_seed(&self.text()?)?)
    }

    /// `--threads N`.
    fn threads(&mut self) -> Result<usize> {
        Ok(parse_threads(&self.text()?)?)
    }

    /// `--problem 1|2|3`.
    fn problem(&mut self) -> Result<Problem> {
        Ok(parse_problem(&self.text()?)?)
    }

    /// `--levels L1=4096,...` over `levels`.
    fn levels(&mut self, levels: &mut Vec<Level>) -> Result<()> {
        Ok(set_levels(levels, &self.text()?)?)
    }
}

/// `--budget MS`: milliseconds.
fn parse_budget(text: &str) -> std::result::Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("--budget: `{text}` is not a number of milliseconds"))
}

/// `--seed N` of `plan`, `bench`, `npu` and `bench-npu`.
fn parse_seed(text: &str) -> std::result::Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("--seed: `{text}` is not a number"))
}

/// `--threads N`, at least 1.
fn parse_threads(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "--threads: `{text}` is not a number of threads (1 or more)"
        )),
    }
}

/// The threads a solve uses unless `--threads` says: the machine's cores.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--problem`: `1`, `2` or `3`.
fn parse_problem(text: &str) -> std::result::Result<Problem, Error> {
    let bad = || Error::usage(format!("--problem: expected 1, 2 or 3, not `{text}`"));
    Problem::from_number(text.parse().map_err(|_| bad())?).map_err(|_| bad())
}

/// Applies `--levels L1=4096,UB=1024,...` over `levels`: a known name changes its
/// capacity, a new name adds a level.
fn set_levels(levels: &mut Vec<Level>, spec: &str) -> std::result::Result<(), Error> {
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

#[cfg(test)]
mod tests;
