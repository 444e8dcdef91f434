//! The contest's three problems on one case (`docs/npu-scheduling.md`).

use memplan::Error;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which problem a schedule answers. Files and reports number them 1, 2 and 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// Problem 1: an order of the nodes whose peak L1 + UB residency is smallest.
    Residency,
    /// Problem 2: order, offsets and spills with the least extra data movement.
    Movement,
    /// Problem 3: as problem 2, with the shortest makespan on the pipes.
    Makespan,
}

impl Problem {
    pub const ALL: [Problem; 3] = [Problem::Residency, Problem::Movement, Problem::Makespan];

    /// The problem's number: 1, 2 or 3.
    pub fn number(self) -> u8 {
        match self {
            Problem::Residency => 1,
            Problem::Movement => 2,
            Problem::Makespan => 3,
        }
    }

    /// Problem `n` (1, 2 or 3).
    pub fn from_number(n: u8) -> Result<Problem, Error> {
        Problem::ALL
            .into_iter()
            .find(|p| p.number() == n)
            .ok_or_else(|| Error::usage(format!("there is no problem {n}: expected 1, 2 or 3")))
    }

    /// True when the answer places buffers at offsets and may spill (problems 2
    /// and 3): the memory and spill files are part of it.
    pub fn places(self) -> bool {
        self != Problem::Residency
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Reports carry the problem as its number.
impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Problem, D::Error> {
        Problem::from_number(u8::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Problem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_numbered_one_to_three() {
        for p in Problem::ALL {
            assert_eq!(Problem::from_number(p.number()).unwrap(), p);
        }
        assert!(Problem::from_number(4)
            .unwrap_err()
            .to_string()
            .contains("no problem 4"));
        assert!(!Problem::Residency.places() && Problem::Makespan.places());
    }
}
