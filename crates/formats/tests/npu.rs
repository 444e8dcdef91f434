//! The NPU case readers (JSON, the CSV pair and their errors) and the contest's
//! result files, on the small case of `memplan_testkit::npu`.

use memplan_formats::contest::{self, ContestFile};
use memplan_formats::npu::{read_csv, read_json, write_json};
use memplan_npu::case::default_levels;
use memplan_testkit::npu::{csv_pair, files, small, small_json};
use memplan_testkit::temp_dir;
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    memplan_testkit::corpus_dir("npu")
}

// ---- the case readers

#[test]
fn csv_pair_and_json_read_the_same_case() {
    let json = small_json("L0B");
    let (nodes, edges) = csv_pair(&json);
    let dir = temp_dir("csv");
    std::fs::write(dir.join("small_Nodes.csv"), &nodes).unwrap();
    std::fs::write(dir.join("small_Edges.csv"), &edges).unwrap();
    let from_csv = read_csv(
        &std::fs::read(dir.join("small_Nodes.csv")).unwrap(),
        &std::fs::read(dir.join("small_Edges.csv")).unwrap(),
        "small",
        default_levels(),
    )
    .unwrap();
    assert_eq!(from_csv, small("L0B"));
    assert!(from_csv.buffers[0].copy_in && !from_csv.buffers[1].copy_in);
}

/// `write_json` (how `memplan export` and a demo write a case) reads back to the
/// same case, for every corpus case and the example.
#[test]
fn written_cases_read_back_the_same() {
    let mut files = vec![memplan_testkit::root().join("examples/npu_tiny_matmul.json")];
    if let Some(dir) = corpus() {
        files.extend(memplan_testkit::files(&dir, "json"));
    }
    for file in &files {
        let case = read_json(&std::fs::read(file).unwrap(), "c", default_levels()).unwrap();
        let back = read_json(write_json(&case).as_bytes(), "c", default_levels()).unwrap();
        assert_eq!(back, case, "{}", file.display());
    }
    assert!(
        files.len() >= 6 || corpus().is_none(),
        "{} cases",
        files.len()
    );
}

fn json_error(json: &str) -> String {
    read_json(json.as_bytes(), "bad", default_levels())
        .unwrap_err()
        .to_string()
}

#[test]
fn reader_rejects_a_buffer_without_free() {
    let json = small_json("L0B")
        .replace(
            ",\n  {\"Id\": 15, \"Op\": \"FREE\", \"BufId\": 4, \"Size\": 128, \"Type\": \"L0C\"}",
            "",
        )
        .replace(", [14, 15]", "");
    assert_eq!(
        json_error(&json),
        "buffer 4 is allocated at node 10 but never freed"
    );
}

#[test]
fn reader_rejects_an_unknown_memory_type() {
    assert_eq!(
        json_error(&small_json("L2")),
        "buffer 3 has memory type `L2`, which is none of L1, UB, L0A, L0B, L0C"
    );
}

#[test]
fn reader_rejects_a_bufs_entry_naming_no_buffer() {
    let json = small_json("L0B").replace("\"Bufs\": [4, 1, 3]", "\"Bufs\": [4, 1, 9]");
    assert_eq!(
        json_error(&json),
        "node 11 (MATMUL) uses buffer 9, which has no ALLOC"
    );
}

#[test]
fn reader_rejects_a_cycle() {
    let json = small_json("L0B").replace("[14, 15]]", "[14, 15], [11, 8]]");
    assert_eq!(
        json_error(&json),
        "the graph has a cycle: `node 8 (MOVE)` -> `node 11 (MATMUL)` -> `node 8 (MOVE)`"
    );
}

#[test]
fn reader_rejects_a_size_larger_than_its_level() {
    let json = small_json("L0B").replace(
        "\"BufId\": 1, \"Size\": 64, \"Type\": \"L0A\"}",
        "\"BufId\": 1, \"Size\": 300, \"Type\": \"L0A\"}",
    );
    assert_eq!(
        json_error(&json),
        "buffer 1 needs 300 units but L0A holds only 256"
    );
}
// ---- the contest files

#[test]
fn contest_files_round_trip() {
    let f = files(&[2, 0, 1], &[(0, 16), (1, 0)], &[(1, 128)]);
    let parsed = contest::parse(
        contest::render(&f, ContestFile::Schedule).as_bytes(),
        Some(contest::render(&f, ContestFile::Memory).as_bytes()),
        Some(contest::render(&f, ContestFile::Spill).as_bytes()),
    )
    .unwrap();
    assert_eq!(parsed, f);
    assert_eq!(contest::render(&f, ContestFile::Memory), "0:16\n1:0\n");
    // blank lines, spaces, CRLF and a missing last newline are accepted
    let loose = contest::parse(b"2\r\n\r\n 0 \n1", Some(b"0 : 16\n1:0\n\n"), None).unwrap();
    assert_eq!(loose.schedule, [2, 0, 1]);
    assert_eq!(loose.memory, [(0, 16), (1, 0)]);
    assert!(loose.spills.is_empty());
    assert_eq!(
        ContestFile::Spill.file_name("Conv_Case0"),
        "Conv_Case0_spill.txt"
    );
}

#[test]
fn contest_files_name_the_bad_line() {
    let err = |s: &[u8], m: Option<&[u8]>, p: Option<&[u8]>| {
        contest::parse(s, m, p).unwrap_err().to_string()
    };
    assert_eq!(
        err(b"0\n1\nx2\n", None, None),
        "contest schedule: line 3: `x2` is not a node id"
    );
    assert_eq!(
        err(b"0\n", Some(b"0:1\n5\n"), None),
        "contest memory: line 2: `5` is not of the form BufId:Offset"
    );
    assert_eq!(
        err(b"0\n", None, Some(b"a:1\n")),
        "contest spill: line 1: `a` is not a buffer id"
    );
    assert_eq!(
        err(b"0\n", None, Some(b"\n3:-1\n")),
        "contest spill: line 2: `-1` is not an offset"
    );
}
