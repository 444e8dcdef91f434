//! [`check_npu`]: the checks run in order over the result files, and the report
//! made of what they found. Apart from `mod.rs` so that the run model and the sink
//! the checks share import none of the checks.

use super::{order, pipes, residency, stay};
use super::{resolve_spills, NpuReport, NpuViolation, Run, Sink};
use crate::case::Case;
use crate::contest::ContestFiles;
use crate::problem::Problem;

/// Checks the result `files` for `problem` of `case` (problem 3 is checked like 2).
pub fn check_npu(case: &Case, problem: Problem, files: &ContestFiles) -> NpuReport {
    let mut sink = Sink::default();
    let spills = if !problem.places() {
        if !files.spills.is_empty() {
            sink.push(|| NpuViolation::SpillsInProblem1 {
                count: files.spills.len(),
            });
        }
        Vec::new()
    } else {
        resolve_spills(case, &files.spills, &mut sink)
    };
    let run = Run { case, spills };
    let schedule = order::read_schedule(&run, &files.schedule, &mut sink);
    let edges = order::edges(&run, &schedule);
    let in_order = order::check_order(&run, &schedule, &edges, &mut sink);
    let p1_peak = stay::p1_peak(&run, &schedule);
    let mut makespan = None;
    if !problem.places() {
        stay::check_l0(&run, &schedule, &mut sink);
    } else {
        let offsets = residency::first_offsets(&run, &files.memory, &mut sink);
        let residencies = residency::walk(&run, &schedule, &offsets, &mut sink);
        let resolved = run.spills.iter().all(|s| s.buf.is_some());
        if schedule.complete && in_order && resolved {
            makespan = Some(pipes::makespan(&run, &schedule, &edges, &residencies));
        }
    }
    let extra_movement = run
        .spills
        .iter()
        .filter_map(|s| s.buf)
        .map(|b| {
            let buf = case.buffer(b);
            if buf.copy_in {
                buf.size
            } else {
                2 * buf.size
            }
        })
        .sum();
    NpuReport {
        valid: sink.count == 0,
        violations: sink.list,
        violation_count: sink.count,
        p1_peak,
        spills: run.spills.len(),
        extra_movement,
        makespan,
    }
}
