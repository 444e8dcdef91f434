//! What a solve returns: the method asked for and the plan it found, with the
//! figures the problems are judged by.

use super::makespan::pipes::Timing;
use super::movement::spill::NpuPlan;
use super::problem::Problem;
use memplan::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Baseline,
    Best,
}

impl Method {
    pub fn from_name(name: &str) -> Result<Method, Error> {
        match name {
            "baseline" => Ok(Method::Baseline),
            "best" => Ok(Method::Best),
            other => Err(Error::usage(format!(
                "unknown NPU method `{other}` (expected baseline or best)"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Baseline => "baseline",
            Method::Best => "best",
        }
    }
}

/// A method is written by its name.
impl serde::Serialize for Method {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Method {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Method, D::Error> {
        Method::from_name(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug)]
pub struct Solution {
    pub problem: Problem,
    pub method: Method,
    /// What produced the plan, e.g. `dfs order, best fit, furthest next use`.
    pub recipe: String,
    pub plan: NpuPlan,
    /// L1+UB peak of the schedule's original nodes.
    pub p1_peak: u64,
    /// `None` for Problem 1, which places nothing.
    pub timing: Option<Timing>,
}

impl Solution {
    pub fn extra_movement(&self) -> u64 {
        self.plan.extra_movement()
    }

    pub fn makespan(&self) -> Option<u64> {
        self.timing.as_ref().map(|t| t.makespan)
    }
}
