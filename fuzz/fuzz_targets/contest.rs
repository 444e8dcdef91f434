//! The contest result files (schedule, memory, spill; split at NUL bytes) parsed,
//! then checked against the tiny NPU example for problems 1 and 2: the checker
//! reports violations, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_npu::check::check_npu;
use memplan_formats::contest;
use memplan_formats::npu::read_json;
use memplan_npu::case::{default_levels, Case};
use memplan_npu::problem::Problem;
use std::sync::OnceLock;

static TINY: &[u8] = include_bytes!("../../examples/npu_tiny_matmul.json");

fn case() -> &'static Case {
    static CASE: OnceLock<Case> = OnceLock::new();
    CASE.get_or_init(|| read_json(TINY, "npu_tiny_matmul", default_levels()).unwrap())
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let schedule = parts.next().unwrap_or_default();
    let memory = parts.next();
    let spills = parts.next();
    if let Ok(files) = contest::parse(schedule, memory, spills) {
        for problem in [Problem::Residency, Problem::Movement] {
            let _ = check_npu(case(), problem, &files);
        }
    }
});
