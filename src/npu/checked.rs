//! One call for what every edge does with an NPU case: solve it, write the result
//! as the contest's files, and have the independent checker verify those files.
//! The checker shares no code with the schedulers; this only hands one to the other.

use super::contest::ContestFiles;
use super::export::contest_files;
use super::problem::Problem;
use super::solve::{solve, Method, Solution};
use crate::check::npu::{check_npu, NpuReport};
use crate::error::Error;
use crate::npu::case::Case;

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
    let solution = solve(case, problem, method)?;
    let files = contest_files(case, &solution);
    let report = check_npu(case, problem, &files);
    Ok(Checked {
        solution,
        files,
        report,
    })
}
