//! The work of `memplan plan` without printing, for the Python package
//! (crates/python): the same flags, the same plan, the same JSON as the command.

pub use crate::html::{standalone, Page};
pub use crate::plan::{Input, Outcome};

/// Plans `input` with `flags`, given as to `memplan plan` (`--strategy best-fit`,
/// `--dim batch=1`, `--capacity 16GiB` ...); `--json`, `--svg` and `--progress`
/// are not read. The error is memplan's message.
pub fn plan(input: &Input, flags: &[String]) -> Result<Outcome, String> {
    let args = crate::flags::plan_flags(flags).map_err(|e| e.to_string())?;
    crate::plan::outcome(input, &args).map_err(|e| e.to_string())
}

/// The independent checker's violations of the outcome's plan; none when it is
/// valid.
pub fn check(outcome: &Outcome) -> Vec<String> {
    memplan::check::check(&outcome.graph, &outcome.report.plan)
        .iter()
        .map(ToString::to_string)
        .collect()
}
