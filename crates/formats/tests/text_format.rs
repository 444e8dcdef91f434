//! memplan text: every example and corpus graph written as text reads back to
//! the same graph and plans the same; bad text gets an error naming its line;
//! hostile names survive; `memplan export --text` plans like the JSON.

use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use memplan::liveness::Lifetime;
use memplan::{check, Options, Strategy};
use memplan_formats::{self as formats, Format};
use std::path::{Path, PathBuf};

/// The JSON files of `dir`, sorted.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    memplan_testkit::files(dir, "json")
}

/// Writes `g` as text, reads it back and asserts the same graph; returns the
/// graph read.
fn through_text(g: &Graph, what: &str) -> Graph {
    let text = formats::write_text(g).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        Format::detect(text.as_bytes()).ok(),
        Some(Format::Text),
        "{what}"
    );
    let back = formats::read(text.as_bytes(), None, "other")
        .unwrap_or_else(|e| panic!("{what} as text: {e}\n{text}"));
    assert_eq!(&back, g, "{what}");
    back
}

/// Plans `g` with the greedy strategy and checks the plan.
fn plan(g: &Graph, what: &str) -> memplan::Plan {
    let plan = memplan::plan(g, Strategy::GreedySize, &Options::default())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(check::check(g, &plan), vec![], "{what}");
    plan
}

#[test]
fn every_example_and_corpus_graph_round_trips_through_text() {
    let root = memplan_testkit::root();
    let mut files = json_files(&root.join("examples"));
    files.extend(json_files(&root.join("examples/teach")));
    let examples = files.len();
    let corpus = memplan_testkit::corpus_dir("graphs");
    if let Some(dir) = &corpus {
        files.extend(json_files(dir));
    }
    let mut seen = vec![false; files.len()];
    for (i, file) in files.iter().enumerate() {
        let data = std::fs::read(file).unwrap();
        if formats::is_npu_case(&data) {
            continue; // an NPU scheduling case, not a graph
        }
        let what = file.display().to_string();
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let g = formats::read(&data, None, stem).unwrap_or_else(|e| panic!("{what}: {e}"));
        if !g.subgraphs.is_empty() {
            continue;
        }
        let back = through_text(&g, &what);
        let (a, b) = (plan(&g, &what), plan(&back, &what));
        assert_eq!(a.tensors, b.tensors, "{what}");
        assert_eq!(a.peak_bytes, b.peak_bytes, "{what}");
        seen[i] = true;
    }
    let from_examples = seen[..examples].iter().filter(|&&s| s).count();
    let from_corpus = seen[examples..].iter().filter(|&&s| s).count();
    assert!(from_examples >= 5, "{from_examples} example graphs");
    assert!(
        corpus.is_none() || from_corpus >= 10,
        "{from_corpus} corpus graphs"
    );
}

/// The typed examples (`examples/*.mgraph`) read, plan and check, and write back
/// to text that reads to the same graph.
#[test]
fn the_typed_examples_plan() {
    let files = memplan_testkit::files(&memplan_testkit::root().join("examples"), "mgraph");
    assert!(!files.is_empty(), "no examples/*.mgraph");
    for file in files {
        let what = file.display().to_string();
        let data = std::fs::read(&file).unwrap();
        assert_eq!(Format::detect(&data).ok(), Some(Format::Text), "{what}");
        let g = formats::read(&data, None, "x").unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(g.ops.len() >= 2 && g.name != "x", "{what}");
        plan(&through_text(&g, &what), &what);
    }
}

#[test]
fn parse_errors_name_the_line() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "missing size",
            "graph g\ninput x 1KiB\n\nf: x -> y\n",
            "text: line 4: tensor `y` has no size: declare it as `y 64MiB` or write `y=64MiB` where it is first used",
        ),
        (
            "missing size on a declaration",
            "# tensors\nx 1\ny\n",
            "text: line 3: tensor `y` has no size: write `y 64MiB`",
        ),
        (
            "bad unit",
            "x 1KiB\ny 32XB\n",
            "text: line 2: tensor `y`: unknown size unit `XB`",
        ),
        (
            "duplicate declaration",
            "x 1\ny 2\n\nx 3\n",
            "text: line 4: tensor `x` is declared twice (first on line 1)",
        ),
        (
            "duplicate inline declaration",
            "f: -> x=1\ng: x -> y=2 x=3\n",
            "text: line 2: tensor `x` is declared twice (first on line 1)",
        ),
        (
            "missing ->",
            "x 1\ny 1\nf: x y\n",
            "text: line 3: expected `NAME [TYPE]: INPUTS -> OUTPUTS`, found `f: x y`",
        ),
        (
            "missing op name",
            "x 1\n\n: x -> y=1\n",
            "text: line 3: the op has no name",
        ),
        (
            "unterminated quote",
            "x 1\n\"input:0 4KiB\n",
            "text: line 2: unterminated quote",
        ),
        (
            "two producers",
            "x 1\ny 1\nf: x -> y\n# again\ng: x -> y\n",
            "text: line 5: tensor `y` is produced by both op `f` (line 3) and op `g`",
        ),
        (
            "graph line out of place",
            "x 1\ngraph g\n",
            "text: line 2: `graph g` must be the first line",
        ),
        (
            "bad lifetime",
            "x 1 life 3..1\n",
            "text: line 1: tensor `x` ends before it starts",
        ),
    ];
    for (what, text, expected) in cases {
        let e = formats::read(text.as_bytes(), Some(Format::Text), "f")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(expected), "{what}: {e}");
        // detected as text too, with the same error
        let detected = formats::read(text.as_bytes(), None, "f")
            .unwrap_err()
            .to_string();
        assert_eq!(detected, e, "{what}");
    }
}

/// A tensor of the arena named `name`.
fn tensor(name: &str, size: u64, role: Role) -> Tensor {
    Tensor {
        name: name.to_string(),
        size,
        role,
        level: None,
        lifetime: None,
    }
}

#[test]
fn hostile_names_round_trip() {
    let names = [
        "<img src=x onerror=alert(1)>",
        "say \"hi\"",
        "\"",
        "back\\slash\\",
        "two  spaces",
        " leading and trailing ",
        "tab\there",
        "line\nbreak",
        "carriage\rreturn",
        "名前テンソル",
        "émoji 🦀",
        "nbsp\u{a0}space",
        "input:0",
        "a=b",
        "#not a comment",
        "@level",
        "->",
        "-",
        ">",
        "input",
        "output",
        "const",
        "life",
        "graph",
        "64KiB",
        "0..3",
        "",
        "\u{feff}bom",
        "\u{0}nul",
        "\u{2028}separator",
    ];
    let mut tensors: Vec<Tensor> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let role = [Role::Arena, Role::Input, Role::Output, Role::Const][i % 4];
            tensor(n, 1 << (i % 30), role)
        })
        .collect();
    tensors[0].level = Some("<b>UB</b> \"x\"".into());
    tensors[4].lifetime = Some(Lifetime::new(2, 7));
    tensors[8].level = Some(String::new());
    tensors[8].lifetime = Some(Lifetime::new(0, 0));
    let ops: Vec<Op> = (0..names.len() as u32 - 1)
        .map(|i| Op {
            name: names[(i as usize * 7) % names.len()].to_string(),
            kind: names[(i as usize * 3) % names.len()].to_string(),
            inputs: vec![TensorId(i)],
            outputs: vec![TensorId(i + 1)],
        })
        .collect();
    for name in ["<script>alert(1)</script>", "", "64", "a \"b\"\n"] {
        let g = Graph::new(name.to_string(), tensors.clone(), ops.clone()).unwrap();
        through_text(&g, name);
    }
}

#[test]
fn graphs_with_bodies_are_refused_in_words() {
    let mut g = Graph::new("g".into(), vec![tensor("x", 1, Role::Arena)], vec![]).unwrap();
    g.subgraphs.push(memplan::graph::Subgraph {
        op: "loop".into(),
        attribute: "body".into(),
        graph: g.clone(),
    });
    let e = formats::write_text(&g).unwrap_err().to_string();
    assert!(e.contains("export it as JSON instead"), "{e}");
}
