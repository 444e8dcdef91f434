//! The NPU result model: the contest's three exchange files for one case and
//! one problem, as entries (`formats::contest` reads and writes their text).
//!
//! | file | lines |
//! |---|---|
//! | `<case>_schedule.txt` | one node id per line, spill nodes included |
//! | `<case>_memory.txt` | `BufId:Offset`, the first placement of every buffer |
//! | `<case>_spill.txt` | `BufId:NewOffset` per spill, in spill order (may be empty) |

/// The result files of one case, as written: nothing is resolved against a case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContestFiles {
    /// Node ids in schedule order.
    pub schedule: Vec<u64>,
    /// `(BufId, Offset)` per memory line, in file order.
    pub memory: Vec<(u64, u64)>,
    /// `(BufId, NewOffset)` per spill, in spill order.
    pub spills: Vec<(u64, u64)>,
}

/// Which of the three files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContestFile {
    Schedule,
    Memory,
    Spill,
}

impl ContestFile {
    pub const ALL: [ContestFile; 3] = [
        ContestFile::Schedule,
        ContestFile::Memory,
        ContestFile::Spill,
    ];

    /// The file name for case `case`: `Matmul_Case0_schedule.txt`.
    pub fn file_name(self, case: &str) -> String {
        let suffix = match self {
            ContestFile::Schedule => "schedule",
            ContestFile::Memory => "memory",
            ContestFile::Spill => "spill",
        };
        format!("{case}_{suffix}.txt")
    }
}
