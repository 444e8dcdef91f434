//! A small hand-made NPU case shared by the checker's, the readers' and the CLI's
//! tests: two L1 tiles moved into L0A and L0B and multiplied into L0C, with its
//! contest files and its CSV pair.

use memplan_formats::contest::{self, ContestFile, ContestFiles};
use memplan_formats::npu::read_json;
use memplan_npu::case::{default_levels, Case};
use std::path::Path;

/// Two L1 tiles (buffer 0 copied in, then buffer 2 copied in) moved into buffer 1
/// (L0A) and buffer 3 (`ty3`, L0B unless changed), multiplied into buffer 4 (L0C).
pub fn small_json(ty3: &str) -> String {
    r#"{"Nodes": [
  {"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 100, "Type": "L1"},
  {"Id": 1, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [0]},
  {"Id": 2, "Op": "ALLOC", "BufId": 1, "Size": 64, "Type": "L0A"},
  {"Id": 3, "Op": "MOVE", "Pipe": "MTE1", "Cycles": 5, "Bufs": [1, 0]},
  {"Id": 4, "Op": "FREE", "BufId": 0, "Size": 100, "Type": "L1"},
  {"Id": 5, "Op": "ALLOC", "BufId": 2, "Size": 200, "Type": "L1"},
  {"Id": 6, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [2]},
  {"Id": 7, "Op": "ALLOC", "BufId": 3, "Size": 64, "Type": "TYPE3"},
  {"Id": 8, "Op": "MOVE", "Pipe": "MTE1", "Cycles": 5, "Bufs": [3, 2]},
  {"Id": 9, "Op": "FREE", "BufId": 2, "Size": 200, "Type": "L1"},
  {"Id": 10, "Op": "ALLOC", "BufId": 4, "Size": 128, "Type": "L0C"},
  {"Id": 11, "Op": "MATMUL", "Pipe": "CUBE", "Cycles": 20, "Bufs": [4, 1, 3]},
  {"Id": 12, "Op": "FREE", "BufId": 1, "Size": 64, "Type": "L0A"},
  {"Id": 13, "Op": "FREE", "BufId": 3, "Size": 64, "Type": "TYPE3"},
  {"Id": 14, "Op": "COPY_OUT", "Pipe": "FIXP", "Cycles": 8, "Bufs": [4]},
  {"Id": 15, "Op": "FREE", "BufId": 4, "Size": 128, "Type": "L0C"}
],
"Edges": [[0, 1], [1, 3], [2, 3], [3, 4], [5, 6], [6, 8], [7, 8], [8, 9],
          [3, 11], [8, 11], [10, 11], [11, 12], [11, 13], [11, 14], [14, 15]]}"#
        .replace("TYPE3", ty3)
}

pub fn small(ty3: &str) -> Case {
    read_json(small_json(ty3).as_bytes(), "small", default_levels()).unwrap()
}

pub fn files(schedule: &[u64], memory: &[(u64, u64)], spills: &[(u64, u64)]) -> ContestFiles {
    ContestFiles {
        schedule: schedule.to_vec(),
        memory: memory.to_vec(),
        spills: spills.to_vec(),
    }
}

pub const IN_ORDER: [u64; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
pub const ALL_AT_ZERO: [(u64, u64); 5] = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)];

/// The CSV pair for a JSON case, written from the JSON's values.
pub fn csv_pair(json: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut nodes = String::from("Id,Op,BufId,Size,Type,Pipe,Cycles,Bufs\n");
    for n in v["Nodes"].as_array().unwrap() {
        let field = |k: &str| match &n[k] {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(a) => {
                let ids: Vec<String> = a.iter().map(|x| x.to_string()).collect();
                format!("\"{}\"", ids.join(","))
            }
            other => other.to_string(),
        };
        let row: Vec<String> = [
            "Id", "Op", "BufId", "Size", "Type", "Pipe", "Cycles", "Bufs",
        ]
        .iter()
        .map(|k| field(k))
        .collect();
        nodes += &(row.join(",") + "\n");
    }
    let mut edges = String::from("StartNodeId,EndNodeId\n");
    for e in v["Edges"].as_array().unwrap() {
        edges += &format!("{},{}\n", e[0], e[1]);
    }
    (nodes, edges)
}

/// Writes `f` as the contest's result files of case `small` into `dir`.
pub fn write_results(dir: &Path, f: &ContestFiles) {
    for file in ContestFile::ALL {
        std::fs::write(dir.join(file.file_name("small")), contest::render(f, file)).unwrap();
    }
}
