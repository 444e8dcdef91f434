//! The reader's and the writer's unit tests: the documented example, keywords,
//! quoting, inline declarations, every error message, detection, and round trips
//! through the writer.

use super::*;
use crate::Format;
use memplan::graph::{Role, TensorId};
use memplan::liveness::Lifetime;
use memplan::units::size_token;

/// Reads `text`, panicking with the error.
fn ok(text: &str) -> Graph {
    read(text.as_bytes(), "fallback").unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// The error reading `text`.
fn err(text: &str) -> String {
    match read(text.as_bytes(), "fallback") {
        Ok(g) => panic!("{text:?} read as {g:?}"),
        Err(e) => e.to_string(),
    }
}

/// Writes `g` and reads it back: the same graph.
fn round_trip(g: &Graph) -> String {
    let text = write_text(g).unwrap();
    let back = read(text.as_bytes(), "other").unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(&back, g, "{text}");
    text
}

/// `(name, size, role)` of every tensor.
fn tensors(g: &Graph) -> Vec<(&str, u64, Role)> {
    g.tensors
        .iter()
        .map(|t| (t.name.as_str(), t.size, t.role))
        .collect()
}

#[test]
fn reads_the_documented_example() {
    let g = ok("# a chain\n\
        graph ping_pong_chain  # its name\n\
        input image 32MiB\n\
        conv1 32MiB\n\
        relu1 32MiB @UB\n\
        Conv1 Conv: image -> conv1\n\
        Relu1: conv1 -> relu1 s=4MiB\n");
    assert_eq!(g.name, "ping_pong_chain");
    assert_eq!(
        tensors(&g),
        vec![
            ("image", 32 << 20, Role::Input),
            ("conv1", 32 << 20, Role::Arena),
            ("relu1", 32 << 20, Role::Arena),
            ("s", 4 << 20, Role::Arena),
        ]
    );
    assert_eq!(g.tensors[2].level.as_deref(), Some("UB"));
    assert_eq!(g.ops[0].kind, "Conv");
    assert_eq!(g.ops[1].kind, "");
    assert_eq!(g.ops[1].outputs, vec![TensorId(2), TensorId(3)]);
    assert_eq!(ok("x 1\n").name, "fallback");
}

#[test]
fn keywords_are_names_in_other_positions() {
    let g = ok(
        "input 4KiB\ninput in 1\nlife 2 life 0..3\ninput lifeline 3\n\
                output const 4 @life life 1..1\nconst graph 5\noutput output 6\n\
                graph: input -> const\n",
    );
    assert_eq!(
        tensors(&g),
        vec![
            ("input", 4096, Role::Arena),
            ("in", 1, Role::Input),
            ("life", 2, Role::Arena),
            ("lifeline", 3, Role::Input),
            ("const", 4, Role::Output),
            ("graph", 5, Role::Const),
            ("output", 6, Role::Output),
        ]
    );
    assert_eq!(g.tensors[2].lifetime, Some(Lifetime::new(0, 3)));
    assert_eq!(g.tensors[4].level.as_deref(), Some("life"));
    assert_eq!(g.ops[0].name, "graph");
    // `graph SIZE` first declares a tensor; `graph NAME` later is out of place
    assert_eq!(
        tensors(&ok("graph 4KiB\n")),
        vec![("graph", 4096, Role::Arena)]
    );
    assert_eq!(ok("graph \"64\"\n").name, "64");
    assert_eq!(ok("graph 3dunet\n").name, "3dunet");
    assert!(err("x 1\ngraph g\n").contains("line 2: `graph g` must be the first line"));
    assert!(err("graph a\ngraph b\n").contains("line 2: the graph is already named on line 1"));
    // `input life 4KiB` is the input `life`; `life` as a tail needs NAME SIZE first
    assert_eq!(
        tensors(&ok("input life 4KiB\n")),
        vec![("life", 4096, Role::Input)]
    );
    assert!(err("x life 0..3\n").contains("tensor `x` has no size"));
    assert!(err("input x life 0..3\n").contains("write `input x 64MiB`"));
}

#[test]
fn quoted_names_escapes_and_comments() {
    let g = ok("\"input:0\" 1 # a comment with \"quotes\"\n\
                \"a \\\"b\\\" \\\\ c\\n\\r\\t#\" 2 @\"level one\"\n\
                x 3# no space before the comment\n\
                \"\" 4\n\
                \"->\" 5\n\
                \"my op\" \"My Type\": \"input:0\" \"\" -> \"->\" y=6 \"z w\"=7\n");
    assert_eq!(
        tensors(&g),
        vec![
            ("input:0", 1, Role::Arena),
            ("a \"b\" \\ c\n\r\t#", 2, Role::Arena),
            ("x", 3, Role::Arena),
            ("", 4, Role::Arena),
            ("->", 5, Role::Arena),
            ("y", 6, Role::Arena),
            ("z w", 7, Role::Arena),
        ]
    );
    assert_eq!(g.tensors[1].level.as_deref(), Some("level one"));
    assert_eq!(
        (g.ops[0].name.as_str(), g.ops[0].kind.as_str()),
        ("my op", "My Type")
    );
    assert_eq!(g.ops[0].inputs, vec![TensorId(0), TensorId(3)]);
    assert_eq!(
        g.ops[0].outputs,
        vec![TensorId(4), TensorId(5), TensorId(6)]
    );
    // bare names keep backslashes and odd characters
    assert_eq!(tensors(&ok("a\\b<&>é→ 1\n"))[0].0, "a\\b<&>é→");
    assert!(err("\"x 1\n").contains("line 1: unterminated quote"));
    assert!(err("x 1\n\"a\\q\" 1\n").contains("line 2: unknown escape `\\q`"));
    assert!(err("\"a\\").contains("unterminated quote"));
}

#[test]
fn op_lines_and_inline_declarations() {
    let g = ok("f: -> a=1KiB\ng: a -> \nh Type: ->\nk: a b=2 -> c\nc 3\n");
    assert_eq!(
        tensors(&g),
        vec![
            ("a", 1024, Role::Arena),
            ("b", 2, Role::Arena),
            ("c", 3, Role::Arena)
        ]
    );
    assert_eq!(g.ops.len(), 4);
    assert!(g.ops[2].inputs.is_empty() && g.ops[2].outputs.is_empty());
    // spaces around `=` and `@` are allowed
    assert_eq!(
        tensors(&ok("f: -> s = 4\nt 1 @ UB\n"))[0],
        ("s", 4, Role::Arena)
    );
    // an inline declaration may come at a later mention
    assert_eq!(
        tensors(&ok("f: -> s\ng: s=8 -> \n"))[0],
        ("s", 8, Role::Arena)
    );
}

#[test]
fn errors_name_the_line_and_the_fix() {
    let cases = [
        ("x 1\n\nf: x -> s\n", "text: line 3: tensor `s` has no size: declare it as `s 64MiB` or write `s=64MiB` where it is first used"),
        ("f: -> \"input:0\"\n", "declare it as `\"input:0\" 64MiB`"),
        ("x\n", "line 1: tensor `x` has no size: write `x 64MiB`"),
        ("input image\n", "line 1: tensor `image` has no size: write `input image 64MiB`"),
        ("# c\nx 32XB\n", "line 2: tensor `x`: unknown size unit `XB`"),
        ("x 1.3B\n", "line 1: tensor `x`: `1.3B` is not a whole number of bytes"),
        ("x 99999999999999999999\n", "line 1: tensor `x`: `99999999999999999999` is not a size"),
        ("x 64 KiB\n", "write the size as one token: `64KiB`"),
        ("x \"4\"\n", "write sizes without quotes"),
        ("x 1\ny 2\nx 3\n", "line 3: tensor `x` is declared twice (first on line 1)"),
        ("f: -> x=1\ng: -> x=2\n", "line 2: tensor `x` is declared twice (first on line 1)"),
        ("x 1\nf: x y\n", "line 2: expected `NAME [TYPE]: INPUTS -> OUTPUTS`, found `f: x y`"),
        ("f: x->y\n", "put spaces around `->`"),
        ("f: a -> b -> c\n", "one `->`"),
        ("f: a:b -> c\n", "quote a name that has one"),
        (": x -> y\n", "line 1: the op has no name"),
        ("a b c: x -> y\n", "before `:` come the op's name and its type"),
        ("f x -> y\n", "an op needs `:` after its name"),
        ("f: x @UB -> y\n", "`@LEVEL` goes on the tensor's declaration line"),
        ("f: = -> y\n", "`=` must follow a tensor name"),
        ("f: -> y=\n", "tensor `y` has `=` but no size: write `y=64MiB`"),
        ("x=4\n", "`NAME=SIZE` is for op lines"),
        ("x 1 @\n", "`@` needs a memory level"),
        ("x 1 life\n", "`life` needs its steps"),
        ("x 1 life 0..3 @UB\n", "comes last, after `@LEVEL`"),
        ("x 1 life 5..3\n", "line 1: tensor `x` ends before it starts: `life 5..3`"),
        ("x 1 life 0..4294967296\n", "is not a lifetime"),
        ("x 1 life +0..1\n", "is not a lifetime"),
        ("x 1 0..3\n", "fix a lifetime with `life START..END`"),
        ("big bad wolf 1\n", "expected a tensor `[KIND] NAME SIZE [@LEVEL] [life START..END]`"),
        ("x 1\ny 1\nf: x -> y\ng: x -> y\n", "line 4: tensor `y` is produced by both op `f` (line 3) and op `g`"),
        ("y 1\nf: -> y y\n", "line 2: op `f` writes tensor `y` twice"),
        ("x 2048TiB\n", "the size of tensor `x` is 2251799813685248, above the limit"),
    ];
    for (text, expected) in cases {
        let e = err(text);
        assert!(e.contains(expected), "{text:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let long = format!("x 1 {}\n", "y".repeat(10_000));
    assert!(err(&long).len() < 400);
}

#[test]
fn text_that_is_not_utf8_is_named_by_line() {
    assert_eq!(
        read(b"x 1\ny\xff 2\n", "f").unwrap_err().to_string(),
        "text: line 2: not UTF-8 text (an invalid byte at column 2)"
    );
}

#[test]
fn byte_order_marks_and_crlf_are_read() {
    let g = ok("\u{feff}graph g\r\nx 1\r\nf: -> x\r\n");
    assert_eq!((g.name.as_str(), g.tensors[0].name.as_str()), ("g", "x"));
}

#[test]
fn life_is_the_inclusive_native_lifetime() {
    let g = ok("a 4 life 0..0\nb 8 @UB life 2..4294967295\n");
    assert_eq!(g.tensors[0].lifetime, Some(Lifetime::new(0, 0)));
    assert_eq!(g.tensors[1].lifetime, Some(Lifetime::new(2, u32::MAX)));
    let json = br#"{"tensors": [{"name": "a", "size": 4, "lifetime": [0, 0]},
                        {"name": "b", "size": 8, "level": "UB", "lifetime": [2, 4294967295]}]}"#;
    let native = crate::read(json, None, "fallback").unwrap();
    assert_eq!(native, g);
}

#[test]
fn the_writer_quotes_what_needs_it_and_reads_back() {
    let g = ok(
        "graph \"a graph\"\ninput in 1536\nconst w 64KiB\n\"x y\" 1MiB @\"U B\" life 1..2\n\
                \"\" 0\n\"->\" 3GiB\n\"q\\\"\\\\\\n\\r\" 5\n\
                \"op:1\" \"T T\": in w -> \"x y\"\n\"\": \"\" -> \"->\" \"q\\\"\\\\\\n\\r\"\n",
    );
    let text = round_trip(&g);
    assert_eq!(
        text,
        "graph \"a graph\"\ninput in 1536\nconst w 64KiB\n\"x y\" 1MiB @\"U B\" life 1..2\n\
         \"\" 0\n\"->\" 3GiB\n\"q\\\"\\\\\\n\\r\" 5\n\n\
         \"op:1\" \"T T\": in w -> \"x y\"\n\"\": \"\" -> \"->\" \"q\\\"\\\\\\n\\r\"\n"
    );
    for name in ["64", "1.5 KiB", "4KiB", "", "x", "graph", "\n"] {
        let mut g = ok("x 1\n");
        g.name = name.to_string();
        round_trip(&g);
    }
    assert_eq!(size_token(1 << 40), "1TiB");
    assert_eq!(size_token((1 << 20) + 1), "1048577");
    assert_eq!(size_token(3 << 10), "3KiB");
    assert_eq!(size_token(u64::MAX), u64::MAX.to_string());
    assert_eq!(write_text(&ok("")).unwrap(), "graph fallback\n");
}

#[test]
fn graphs_with_bodies_are_refused() {
    let mut g = ok("x 1\n");
    g.subgraphs.push(memplan::graph::Subgraph {
        op: "f".into(),
        attribute: "body".into(),
        graph: ok(""),
    });
    let e = write_text(&g).unwrap_err().to_string();
    assert!(e.contains("export it as JSON instead"), "{e}");
}

#[test]
fn detection_takes_the_first_statement() {
    for text in [
        "# a comment\n\ngraph g\n",
        "x 4KiB\n",
        "input image 32MiB @UB life 0..1\n",
        "f: -> y=1\n",
        "f: garbage",
        "\u{feff}x 1\n",
        "\u{feff}graph g\n",
        "x 32XB\n",
        "input x 1.3B @UB\n",
        "x 1 life 5..3\n",
    ] {
        assert_eq!(
            Format::detect(text.as_bytes()).ok(),
            Some(Format::Text),
            "{text:?}"
        );
    }
    for text in [
        "",
        "# only a comment\n",
        "hello world\n",
        "Version 2 of the thing\n",
        "x 64 KiB\n",
        "a,b,c\n1,2,3\n",
        "\"open\n",
        "\u{1}\u{2}",
    ] {
        let e = Format::detect(text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("memplan text"), "{text:?}: {e}");
    }
    assert_eq!(Format::from_name("text").unwrap(), Format::Text);
}

#[test]
fn odd_inputs_read_or_fail_but_never_panic() {
    let pieces = [
        "x", " ", "\"", "\\", ":", "=", "@", "#", "->", "life", "input", "graph", "0..3", "1KiB",
        "\n", "é", "\u{feff}", "\r", "..", "9", "\t", "\u{a0}",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..(seed % 12) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        if let Ok(g) = read(text.as_bytes(), "g") {
            round_trip(&g);
        }
        let _ = Format::detect(text.as_bytes());
    }
}
