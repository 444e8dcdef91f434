//! Readers: detection, the native format, MiniMalloc CSV, and clear errors on bad input.

use memplan_formats::{format_size, parse_size, read, Format};

fn err(data: &str) -> String {
    read(data.as_bytes(), None, "f").unwrap_err().to_string()
}

#[test]
fn sizes_with_units() {
    assert_eq!(parse_size("4096").unwrap(), 4096);
    assert_eq!(parse_size("128MiB").unwrap(), 128 << 20);
    assert_eq!(parse_size("1.5 KiB").unwrap(), 1536);
    assert_eq!(parse_size("2KB").unwrap(), 2000);
    assert_eq!(parse_size("64").unwrap(), 64);
    assert!(parse_size("1.3B")
        .unwrap_err()
        .to_string()
        .contains("whole number of bytes"));
    assert!(parse_size("12 parsecs")
        .unwrap_err()
        .to_string()
        .contains("unknown size unit `parsecs`"));
    assert!(parse_size("99999999999999999999").is_err());
    assert!(parse_size("").is_err());
    assert_eq!(format_size(384 << 20), "384 MiB");
    assert_eq!(format_size(1536), "1.50 KiB");
    assert_eq!(format_size(17), "17 B");
}

#[test]
fn detection_by_content() {
    assert_eq!(
        Format::detect(b"id,lower,upper,size\n0,0,2,8\n").unwrap(),
        Format::MiniMalloc
    );
    assert_eq!(
        Format::detect(br#"{"tensors": [{"name": "x", "size": 1}], "ops": []}"#).unwrap(),
        Format::Native
    );
    let corpus =
        br#"{"tensors": [{"id": 0, "name": "x", "bytes": 4, "kind": "intermediate"}], "ops": []}"#;
    assert_eq!(Format::detect(corpus).unwrap(), Format::Corpus);
    assert!(Format::detect(b"\x00\x01binary")
        .unwrap_err()
        .to_string()
        .contains("unrecognised input"));
    assert!(Format::detect(br#"{"Nodes": [], "Edges": []}"#)
        .unwrap_err()
        .to_string()
        .contains("NPU"));
}

#[test]
fn native_reads_kinds_levels_and_units() {
    let g = read(
        br#"{"name": "n", "tensors": [{"name": "in", "size": "1KiB", "kind": "input"},
             {"name": "h", "size": 64, "level": "UB"}, {"name": "out", "size": 8, "kind": "output"}],
             "ops": [{"name": "f", "type": "Relu", "inputs": ["in"], "outputs": ["h"]},
                     {"inputs": ["h"], "outputs": ["out"]}]}"#,
        None,
        "fallback",
    )
    .unwrap();
    assert_eq!(g.name, "n");
    assert_eq!(g.tensors[0].size, 1024);
    assert_eq!(g.tensors[1].level.as_deref(), Some("UB"));
    assert_eq!(g.ops[1].name, "op1");
    assert_eq!(g.naive_bytes(), 64);
}

#[test]
fn native_errors_name_the_item() {
    assert_eq!(
        err(
            r#"{"tensors": [{"name": "x", "size": 1}], "ops": [{"name": "f", "inputs": ["y"], "outputs": ["x"]}]}"#
        ),
        "op `f` reads tensor `y`, which is not declared in `tensors`"
    );
    assert!(
        err(r#"{"tensors": [{"name": "x", "size": "lots"}], "ops": []}"#)
            .starts_with("tensor `x`: ")
    );
    assert!(
        err(r#"{"tensors": [{"name": "x", "size": 1, "kind": "weird"}], "ops": []}"#)
            .contains("kind `weird`")
    );
    let e = err(r#"{"tensors": [{"name": "x", "szie": 1}], "ops": []}"#);
    assert!(e.starts_with("native json: line 1"), "{e}");
    assert!(e.contains("szie"), "{e}");
    let e = err("{\"tensors\": [");
    assert!(e.starts_with("json: line 1"), "{e}");
    let e = err(r#"{"tensors": [{"name": "x", "size": 2000000000000000000}], "ops": []}"#);
    assert_eq!(
        e,
        "the size of tensor `x` is 2000000000000000000, above the limit of 1125899906842624"
    );
}

#[test]
fn hostile_names_are_kept_as_data() {
    let g = read(br#"{"tensors": [{"name": "<script>alert(1)</script>", "size": 1}], "ops": [{"name": "\"';--", "outputs": ["<script>alert(1)</script>"]}]}"#, None, "f").unwrap();
    assert_eq!(g.tensors[0].name, "<script>alert(1)</script>");
}

#[test]
fn minimalloc_rows_become_inclusive_lifetimes() {
    let g = read(b"id,lower,upper,size\n0,0,3,10\n1,3,5,20\n", None, "mm").unwrap();
    let lives: Vec<(u32, u32)> = g
        .tensors
        .iter()
        .map(|t| t.lifetime.map(|l| (l.start, l.end)).unwrap())
        .collect();
    assert_eq!(lives, [(0, 2), (3, 4)]);
    let a = memplan::analyse(&g, &Default::default()).unwrap();
    assert_eq!(a.liveness.lower_bound, 20); // [0,3) and [3,5) do not overlap
}

/// MiniMalloc's other spellings read as it reads them: columns by name in any
/// order, `buffer`/`start`/`end` (an inclusive end, from its older files), a
/// solution's `offset` and unknown columns ignored, `gaps` ignored with a note
/// (each buffer keeps its whole lifespan), an alignment above 1 refused.
#[test]
fn minimalloc_spellings_read_as_minimalloc_reads_them() {
    let lives = |text: &[u8]| {
        let g = read(text, None, "mm").unwrap_or_else(|e| panic!("{e}"));
        let lives: Vec<(String, u32, u32, u64)> = (g.tensors.iter())
            .map(|t| {
                let l = t.lifetime.unwrap();
                (t.name.clone(), l.start, l.end, t.size)
            })
            .collect();
        (lives, g.notes)
    };
    let want = vec![("a".to_string(), 0, 2, 10), ("b".to_string(), 3, 4, 20)];
    let (plain, notes) = lives(b"id,lower,upper,size\na,0,3,10\nb,3,5,20\n");
    assert_eq!((plain, notes.len()), (want.clone(), 0));
    let (old, _) = lives(b"buffer,start,end,size\na,0,2,10\nb,3,4,20\n");
    assert_eq!(old, want, "an end is inclusive");
    let (moved, notes) =
        lives(b"size,upper,offset,lower,buffer_id,x\n10,3,0,0,a,q\n20,5,10,3,b,r\n");
    assert_eq!(moved, want);
    assert!(
        notes.iter().any(|n| n.contains("offsets are ignored")),
        "{notes:?}"
    );
    let (gapped, notes) =
        lives(b"id,lower,upper,size,alignment,gaps\na,0,3,10,1,1-2\nb,3,5,20,1,\n");
    assert_eq!(gapped, want);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("gaps of 1 buffers are ignored")),
        "{notes:?}"
    );
    let e = err("id,lower,upper,size,alignment\na,0,3,10,64\n");
    assert!(
        e.contains("alignment of 64") && e.contains("plan with an alignment"),
        "{e}"
    );
    // not MiniMalloc: a required column missing, or twice
    assert!(Format::detect(b"id,lower,size\n0,0,2\n").is_err());
    assert!(Format::detect(b"id,lower,upper,end,size\n0,0,2,1,8\n").is_err());
}

#[test]
fn minimalloc_errors_give_the_line() {
    assert_eq!(
        err("id,lower,upper,size\n0,0,3\n"),
        "minimalloc csv: line 2: expected 4 fields, found 3"
    );
    assert_eq!(
        err("id,lower,upper,size\n0,5,5,1\n"),
        "minimalloc csv: line 2: buffer `0` has an empty time range [5, 5)"
    );
    assert_eq!(
        err("id,lower,upper,size\n0,0,x,1\n"),
        "minimalloc csv: line 2: `x` is not a valid upper time"
    );
    assert!(err("id,lower,upper,size\n0,0,9999999999,1\n").contains("above the limit"));
    assert!(err("id,lower,upper,size\n0,0,1,1\n0,0,1,1\n").contains("declared twice"));
}

#[test]
fn oversized_input_is_refused() {
    let big = vec![b' '; memplan_formats::MAX_INPUT_BYTES + 1];
    assert!(read(&big, None, "big")
        .unwrap_err()
        .to_string()
        .starts_with("the input size in bytes is"));
}
