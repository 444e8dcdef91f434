//! The `memplan` command line as a library: [`run`] parses the arguments and runs one
//! subcommand, as the `memplan` binary (src/main.rs) and the Python package's
//! `memplan` command do; [`api`] gives the Python package the same work without
//! printing. `flags` parses the arguments into one struct per subcommand; each
//! subcommand's module does the work and prints.

pub mod api;
mod bench;
mod bench_import;
mod bench_npu;
mod bench_replay;
mod bench_snapshot;
mod case;
mod check;
mod common;
mod demo;
mod export;
mod file_source;
mod flags;
mod html;
mod npu;
mod npu_check;
mod plan;
mod replay;
mod report;
mod shapes;
mod snapshot;
mod table;

use flags::{Command, USAGE};
use memplan::Strategy;
use memplan_formats as formats;
use std::process::ExitCode;

pub use bench_import::Counting;

/// Runs the command line `args` (without the program's name) and gives its exit
/// code: 0 success, 1 an invalid plan or check, 2 an error (said on stderr).
pub fn run_args<I>(args: I) -> u8
where
    I: IntoIterator,
    I::Item: Into<std::ffi::OsString>,
{
    let code = match flags::parse(lexopt::Parser::from_args(args)).and_then(run) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("memplan: error: {e}");
            ExitCode::from(2)
        }
    };
    use std::io::Write;
    let _ = std::io::stdout().flush();
    [0u8, 1, 2]
        .into_iter()
        .find(|&c| ExitCode::from(c) == code)
        .unwrap_or(2)
}

fn run(command: Command) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match command {
        Command::Plan(args) => plan::run(args),
        Command::Shapes(args) => shapes::run(args),
        Command::Export(args) => export::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Html(args) => html::run(args),
        Command::Check(args) => check::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchNpu(args) => bench_npu::run(args),
        Command::BenchImport(args) => bench_import::run(args),
        Command::BenchSnapshot(args) => bench_snapshot::run(args),
        Command::BenchReplay(args) => bench_replay::run(args),
        Command::Npu(args) => npu::run(args),
        Command::NpuCheck(args) => npu_check::run(args),
        Command::NpuMatmul(args) => npu::matmul(args),
        Command::Replay(args) => replay::run(args),
        Command::Compare(args) => replay::compare(args),
        Command::OnnxOps => Ok(onnx_ops()),
        Command::Strategies => {
            for s in Strategy::ALL {
                println!("{:<12} {}", s.name(), s.about());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Help => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Missing => {
            print!("{USAGE}");
            Ok(ExitCode::from(2))
        }
    }
}

/// `memplan onnx-ops`: the ONNX op types with shape inference, per domain.
fn onnx_ops() -> ExitCode {
    let ops = formats::onnx_ops();
    let mut domains: Vec<&str> = ops.iter().map(|o| o.0).collect();
    domains.dedup();
    for d in domains {
        let names: Vec<&str> = ops.iter().filter(|o| o.0 == d).map(|o| o.1).collect();
        println!("{d} ({}): {}", names.len(), names.join(" "));
    }
    ExitCode::SUCCESS
}
