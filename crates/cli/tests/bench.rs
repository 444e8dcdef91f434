//! The bench commands' tables, for a terminal and as markdown (`--markdown`).

memplan_testkit::cli!();

#[test]
fn bench_prints_a_row_per_strategy_and_a_summary() {
    let (code, out, err) = memplan(&["bench", "examples"]);
    assert_eq!(code, 0, "{err}");
    let rows = out
        .lines()
        .filter(|l| l.starts_with("transformer_layer.json"))
        .count();
    let (_, list, _) = memplan(&["strategies"]);
    assert_eq!(rows, list.lines().count(), "one row per strategy");
    assert!(out.contains("geomean ratio"));
    let best = out
        .lines()
        .find(|l| l.starts_with("transformer_layer.json") && l.contains("best-fit"))
        .unwrap();
    assert!(best.contains("402653184"), "{best}");
}

/// The rows of the markdown table whose header is `header` in `out`, after
/// checking that every line from the header to the next blank line is a table
/// row with as many cells as the header, the second one its rule.
fn markdown_rows<'a>(out: &'a str, header: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| *l == header);
    let at = at.unwrap_or_else(|| panic!("no header `{header}` in:\n{out}"));
    let cells = |l: &str| l.matches('|').count();
    let table: Vec<&str> = lines[at..]
        .iter()
        .copied()
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(table.len() >= 2, "{out}");
    assert!(
        table[1].chars().all(|c| "|-:".contains(c)),
        "rule: {}",
        table[1]
    );
    for row in &table {
        assert!(row.starts_with("| ") || row.starts_with("|-"), "{row}");
        assert!(row.ends_with(" |") || row.ends_with('|'), "{row}");
        assert_eq!(cells(row), cells(header), "cells of `{row}`");
    }
    table[2..].to_vec()
}

#[test]
fn bench_prints_markdown_tables() {
    let (code, out, err) = memplan(&["bench", "examples", "--markdown"]);
    assert_eq!(code, 0, "{err}");
    let (_, list, _) = memplan(&["strategies"]);
    let names: Vec<&str> = list.lines().map(|l| l.split(' ').next().unwrap()).collect();
    let header = format!("| graph | tensors | lower bound | {} |", names.join(" | "));
    let rows = markdown_rows(&out, &header);
    assert_eq!(
        rows,
        ["| transformer_layer.json | 8 | 402653184 | 2.333 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |"]
    );
    let rows = markdown_rows(&out, "| strategy | geomean ratio | worst | at the bound |");
    assert_eq!(rows.len(), names.len());
    let header =
        "| graph | tensors | lower bound | strategy | peak | ratio | load ms | plan ms | proof |";
    let rows = markdown_rows(&out, header);
    // the NPU case among the examples is said to be skipped, then a row per strategy
    assert!(rows[0].contains("skipped: an NPU case"), "{}", rows[0]);
    assert_eq!(rows.len(), 1 + names.len());
    // every line is a table row or the blank line between two tables
    assert!(
        out.lines().all(|l| l.is_empty() || l.starts_with('|')),
        "{out}"
    );
}

#[test]
fn bench_npu_prints_markdown_tables() {
    let (code, out, err) = memplan(&["bench-npu", "examples/npu_tiny_matmul.json", "--markdown"]);
    assert_eq!(code, 0, "{err}");
    let header = "| case | P1 peak (pub) | P2 base | P2 best (pub) | P3 span @ move (pub) | time P1/P2b/P2/P3 s | check |";
    let rows = markdown_rows(&out, header);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].starts_with("| npu_tiny_matmul | "), "{}", rows[0]);
    assert!(rows[0].ends_with(" | valid |"), "{}", rows[0]);
    let header = "| case | P1 bound (ratio) | P2 bound (ratio) | P3 bound (ratio) |";
    assert_eq!(markdown_rows(&out, header).len(), 1);
    let header = "| case | first plan P1/P2/P3 ms | final plan P1/P2/P3 s |";
    assert_eq!(markdown_rows(&out, header).len(), 1);
}

#[test]
fn bench_import_prints_a_markdown_table() {
    let models = [
        "tests/data/reshape100.onnx",
        "tests/data/sklearn_logreg_zipmap.onnx",
    ];
    let (code, out, err) = memplan(&["bench-import", models[0], models[1], "--markdown"]);
    // reshape100.onnx does not import at its default dims: a row says why
    assert_eq!(code, 1, "{err}");
    let header = "| model | MB | ops | arena | bodies | import ms | peak heap MB |";
    let rows = markdown_rows(&out, header);
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].starts_with("| reshape100.onnx |"), "{}", rows[0]);
    assert!(rows[0].contains("error: onnx: op `r`"), "{}", rows[0]);
    assert!(
        rows[1].starts_with("| sklearn_logreg_zipmap.onnx | 0.00 | 5 | 4 | 0 | "),
        "{}",
        rows[1]
    );
    assert!(out.lines().all(|l| l.starts_with('|')), "{out}");
}
