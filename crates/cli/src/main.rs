//! The `memplan` command line: plan, check and bench over the core. `flags` parses
//! the arguments into one struct per subcommand; each subcommand's module does the
//! work and prints.

mod bench;
mod bench_import;
mod bench_npu;
mod bench_snapshot;
mod case;
mod check;
mod common;
mod demo;
mod export;
mod file_source;
mod flags;
mod npu;
mod npu_check;
mod plan;
mod report;
mod shapes;
mod snapshot;
mod table;

use flags::{Command, USAGE};
use memplan::Strategy;
use memplan_formats as formats;
use std::process::ExitCode;

#[global_allocator]
static ALLOC: bench_import::Counting = bench_import::Counting;

/// A closed stdout (`memplan plan ... | head`) ends the process as it ends Unix
/// tools, by SIGPIPE, instead of a panic on the next print: Rust ignores the
/// signal by default, this restores it.
#[cfg(unix)]
fn die_on_closed_pipes() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: sets the disposition of one signal to the default, before any
    // thread starts; no handler of ours runs.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    die_on_closed_pipes();
    match flags::parse(lexopt::Parser::from_env()).and_then(run) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("memplan: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match command {
        Command::Plan(args) => plan::run(args),
        Command::Shapes(args) => shapes::run(args),
        Command::Export(args) => export::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Check(args) => check::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchNpu(args) => bench_npu::run(args),
        Command::BenchImport(args) => bench_import::run(args),
        Command::BenchSnapshot(args) => bench_snapshot::run(args),
        Command::Npu(args) => npu::run(args),
        Command::NpuCheck(args) => npu_check::run(args),
        Command::NpuMatmul(args) => npu::matmul(args),
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
