//! The page shows the messages of the readers, the core and the wasm layer as
//! they are, and the page has no flags: no such message may name one
//! (`--value-shape`, `--dim` ...). The CLI adds its flags where it prints them.
//! This reads every string literal of that code (tests aside) and fails on `--`
//! followed by a letter.

use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, sorted.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") && !p.ends_with("tests.rs") {
            out.push(p);
        }
    }
}

/// The string literals of `code` up to its test module, comments skipped.
fn literals(code: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    let mut found = Vec::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut chars = line.chars().peekable();
        let mut current: Option<String> = None;
        while let Some(c) = chars.next() {
            match (&mut current, c) {
                (None, '/') if chars.peek() == Some(&'/') => break,
                (None, '\'') => {
                    // a char literal such as '"' is not a string
                    if chars.peek() == Some(&'"') {
                        chars.next();
                    }
                }
                (None, '"') => current = Some(String::new()),
                (Some(s), '\\') => {
                    s.push('\\');
                    s.extend(chars.next());
                }
                (Some(_), '"') => found.push(current.take().unwrap()),
                (Some(s), c) => s.push(c),
                (None, _) => {}
            }
        }
        // a literal continued on the next line
        if let Some(s) = current {
            found.push(s);
        }
    }
    found
}

/// `--` and a letter: a flag.
fn names_a_flag(text: &str) -> bool {
    text.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'-' && w[1] == b'-' && w[2].is_ascii_alphabetic())
}

#[test]
fn no_message_the_page_can_show_names_a_flag() {
    let root = memplan_testkit::root();
    let mut files = Vec::new();
    for dir in ["src", "crates/formats/src", "crates/wasm/src"] {
        sources(&root.join(dir), &mut files);
    }
    let (mut read, mut flagged) = (0, Vec::new());
    for file in &files {
        let code = std::fs::read_to_string(file).unwrap();
        for text in literals(&code) {
            read += 1;
            if names_a_flag(&text) {
                flagged.push(format!("{}: \"{text}\"", file.display()));
            }
        }
    }
    eprintln!("{} files, {read} string literals read", files.len());
    assert!(
        files.len() > 100 && read > 2000,
        "{} files, {read} literals",
        files.len()
    );
    assert!(
        flagged.is_empty(),
        "messages naming a flag:\n{}",
        flagged.join("\n")
    );
}

#[test]
fn the_literal_reader_finds_flags() {
    let code = "let a = '\"'; f(\"give --value-shape x\"); // \"--dim\"\n\"x-y\"";
    let found = literals(code);
    assert_eq!(found, ["give --value-shape x", "x-y"]);
    assert!(names_a_flag(&found[0]) && !names_a_flag(&found[1]));
}
