//! One call for what every edge does with an NPU case: solve it, write the result
//! as the contest's files, and have the independent checker verify those files.
//! The checker shares no code with the schedulers; this only hands one to the other.

use super::contest::ContestFiles;
use super::export::contest_files;
use super::problem::Problem;
use super::solve::{solve_watched, Method, Solution};
use super::watch::Watch;
use crate::case::Case;
use crate::check::{check_npu, NpuReport};
use memplan::Error;

/// A solved case: the solution, its contest files and the checker's report on them.
pub struct Checked {
    pub solution: Solution,
    pub files: ContestFiles,
    pub report: NpuReport,
}

impl Checked {
    /// True when the checker accepts the files and finds the numbers the solver
    /// claims (the peak for problem 1; movement and makespan too for 2 and 3).
    pub fn agrees(&self, problem: Problem) -> bool {
        let (r, s) = (&self.report, &self.solution);
        r.valid
            && r.p1_peak == s.p1_peak
            && (!problem.places()
                || (r.extra_movement == s.extra_movement() && r.makespan == s.makespan()))
    }
}

/// Solves `problem` of `case` with `method`, writes the contest files and checks them.
pub fn solve_checked(case: &Case, problem: Problem, method: Method) -> Result<Checked, Error> {
    solve_checked_watched(case, problem, method, &mut Watch::none())
}

/// [`solve_checked`] with a [`Watch`] on the solve (only the returned plan is
/// checked here; the plans shown on the way are the caller's to check).
pub fn solve_checked_watched(
    case: &Case,
    problem: Problem,
    method: Method,
    watch: &mut Watch,
) -> Result<Checked, Error> {
    let solution = solve_watched(case, problem, method, watch)?;
    let files = contest_files(case, &solution);
    let report = check_npu(case, problem, &files);
    Ok(Checked {
        solution,
        files,
        report,
    })
}
