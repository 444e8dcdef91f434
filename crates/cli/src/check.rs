//! `memplan check FILE PLAN.json`: checks a plan written by `plan --json` against
//! the graph.

use crate::common::{exit_code, load, read_file};
use crate::flags::CheckArgs;
use crate::report;
use std::process::ExitCode;

pub fn run(args: CheckArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let common = &args.common;
    let graph = load(&args.graph, common.format, &common.read)?;
    let plan = report::read_plan(&read_file(&args.plan)?)
        .map_err(|e| format!("{}: {e}", args.plan.display()))?;
    let violations = memplan::check::check(&graph, &plan);
    for v in &violations {
        println!("violation: {v}");
    }
    println!("{}: {} violation(s)", args.plan.display(), violations.len());
    Ok(exit_code(violations.is_empty()))
}
