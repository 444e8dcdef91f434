//! The layering, checked: the crates' dependencies point the data's way (npu ->
//! core; formats -> npu, core <- render; wasm and the CLI on top), the NPU checker
//! imports nothing of the NPU solvers, and no two files of a crate import each
//! other, directly or around a ring. A module and the modules inside it (a `mod.rs`
//! or `lib.rs` and its children) may use each other: the parent declares and
//! re-exports its children.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The `[dependencies]` of the manifest at `path` (not dev-dependencies): their names.
fn dependencies(path: &Path) -> BTreeSet<String> {
    section(path, "[dependencies]")
}

/// The names listed in the manifest's section `header` (`[dev-dependencies]`).
fn section(path: &Path, header: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut deps = BTreeSet::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap();
            deps.insert(name.trim().to_string());
        }
    }
    deps
}

#[test]
fn the_crates_depend_the_way_the_data_flows() {
    let root = memplan_testkit::root();
    let deps = |crate_dir: &str| dependencies(&root.join(crate_dir).join("Cargo.toml"));
    let core = deps(".");
    assert_eq!(
        core,
        BTreeSet::from(["serde".into(), "serde_json".into()]),
        "the core"
    );
    let memplan: BTreeSet<String> = [
        "memplan",
        "memplan-npu",
        "memplan-formats",
        "memplan-render",
        "memplan-testkit",
    ]
    .map(String::from)
    .into();
    let ours = |d: &BTreeSet<String>| d.intersection(&memplan).cloned().collect::<Vec<_>>();
    assert_eq!(ours(&deps("crates/npu")), ["memplan"]);
    assert_eq!(ours(&deps("crates/formats")), ["memplan", "memplan-npu"]);
    assert_eq!(ours(&deps("crates/render")), ["memplan", "memplan-npu"]);
    for top in ["crates/wasm", "crates/cli"] {
        assert_eq!(
            ours(&deps(top)),
            [
                "memplan",
                "memplan-formats",
                "memplan-npu",
                "memplan-render"
            ],
            "{top}"
        );
    }
    let dev = section(&root.join("Cargo.toml"), "[dev-dependencies]");
    assert_eq!(
        ours(&dev),
        ["memplan-testkit"],
        "the core's tests use no reader"
    );
    let testkit = std::fs::read_to_string(root.join("crates/testkit/Cargo.toml")).unwrap();
    assert!(
        testkit
            .lines()
            .filter(|l| l.starts_with("memplan-formats") || l.starts_with("memplan-npu"))
            .all(|l| l.contains("optional = true")),
        "the testkit takes the readers only when a test asks for them"
    );
    for (dir, foreign) in [
        ("crates/npu", ["plotters", "wasm-bindgen", "lexopt"]),
        ("crates/formats", ["plotters", "wasm-bindgen", "lexopt"]),
        ("crates/render", ["wasm-bindgen", "web-sys", "lexopt"]),
        ("crates/cli", ["wasm-bindgen", "web-sys", "plotters"]),
    ] {
        let d = deps(dir);
        assert!(foreign.iter().all(|f| !d.contains(*f)), "{dir}: {d:?}");
    }
    assert!(
        !deps("crates/wasm").contains("plotters"),
        "plotters comes through render"
    );
}

/// Every `.rs` file under `src` by its module path (`onnx::ops::quant`).
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let mut parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if ["lib", "mod", "main"].contains(&parts.last().unwrap().as_str()) {
                    parts.pop();
                }
                out.insert(parts.join("::"), path);
            }
        }
    }
    out
}

/// The paths `crate::a::b`, `super::x` and `self::y` written in `text`, with
/// `use super::{a, b::c}` lists spread out; `#[cfg(test)] mod tests` left out.
fn paths(text: &str) -> Vec<Vec<String>> {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    let bytes: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .find(|p| text_at(&bytes, i, p) && (i == 0 || !is_ident(bytes[i - 1])));
        let Some(_) = starts else {
            i += 1;
            continue;
        };
        let mut segs = Vec::new();
        let mut word = String::new();
        while i < bytes.len() && (is_ident(bytes[i]) || bytes[i] == ':') {
            if bytes[i] == ':' {
                if !word.is_empty() {
                    segs.push(std::mem::take(&mut word));
                }
            } else {
                word.push(bytes[i]);
            }
            i += 1;
        }
        if !word.is_empty() {
            segs.push(word);
        }
        if i < bytes.len() && bytes[i] == '{' {
            let end = (i..bytes.len())
                .find(|&j| bytes[j] == '}')
                .unwrap_or(bytes.len());
            let list: String = bytes[i + 1..end].iter().collect();
            for item in list.split(',') {
                let first = item.trim().split([':', ' ']).next().unwrap_or("");
                if !first.is_empty() && first != "self" {
                    out.push([segs.clone(), vec![first.to_string()]].concat());
                }
            }
            i = end;
        }
        out.push(segs);
    }
    out
}

fn text_at(chars: &[char], i: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The module of `modules` that path `segs`, written in module `me`, names: its
/// longest prefix that is a module (`super` of `a::b` is `a`, for `a/b.rs` and
/// `a/b/mod.rs` alike).
fn target(modules: &BTreeMap<String, PathBuf>, me: &[String], segs: &[String]) -> Option<String> {
    let (mut base, mut rest) = match segs.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &segs[1..]),
        Some("self") => (me.to_vec(), &segs[1..]),
        _ => (me.to_vec(), segs),
    };
    while rest.first().map(String::as_str) == Some("super") {
        base.pop();
        rest = &rest[1..];
    }
    (0..=rest.len()).rev().find_map(|k| {
        let name = [base.clone(), rest[..k].to_vec()].concat().join("::");
        modules.contains_key(&name).then_some(name)
    })
}

/// The rings of imports among the files of the crate at `src`.
fn rings(src: &Path) -> Vec<Vec<String>> {
    let modules = modules(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, file) in &modules {
        let me: Vec<String> = name
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        for segs in paths(&std::fs::read_to_string(file).unwrap()) {
            let Some(to) = target(&modules, &me, &segs) else {
                continue;
            };
            let related = |a: &str, b: &str| a.is_empty() || b.starts_with(&format!("{a}::"));
            if to != *name && !related(name, &to) && !related(&to, name) {
                edges.entry(name.clone()).or_default().insert(to);
            }
        }
    }
    let mut found = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    found.push(path.clone());
                } else if seen.insert(next.clone()) && next > start {
                    stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
                }
            }
        }
    }
    found
}

#[test]
fn no_two_files_import_each_other() {
    let root = memplan_testkit::root();
    let mut all = Vec::new();
    for src in [
        "src",
        "crates/npu/src",
        "crates/formats/src",
        "crates/render/src",
        "crates/wasm/src",
        "crates/cli/src",
    ] {
        for ring in rings(&root.join(src)) {
            all.push(format!("{src}: {}", ring.join(" -> ")));
        }
    }
    assert!(all.is_empty(), "import rings:\n{}", all.join("\n"));
}

/// The NPU checker (`memplan_npu::check`) reads only the case and result model:
/// a bug in a solver cannot hide in the checker if the checker shares no code
/// with the solvers.
#[test]
fn the_npu_checker_imports_nothing_of_the_solvers() {
    let src = memplan_testkit::root().join("crates/npu/src");
    let model = ["case", "id", "contest", "problem", "check"];
    let mut bad = Vec::new();
    for (name, file) in modules(&src) {
        if name != "check" && !name.starts_with("check::") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for segs in paths(&text) {
            if segs.first().map(String::as_str) == Some("crate")
                && !segs.get(1).is_some_and(|m| model.contains(&m.as_str()))
            {
                bad.push(format!("{name}: {}", segs.join("::")));
            }
        }
        if text.contains("memplan::") {
            bad.push(format!("{name}: uses the core"));
        }
    }
    assert!(
        bad.is_empty(),
        "the checker reaches into the solvers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_ring_finder_finds_a_ring() {
    let dir = std::env::temp_dir().join(format!("memplan-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(dir.join("a.rs"), "use crate::b::thing;\n").unwrap();
    std::fs::write(dir.join("b.rs"), "use super::{c::other, a};\n").unwrap();
    std::fs::write(dir.join("c.rs"), "pub fn other() { crate::a::f() }\n").unwrap();
    let found = rings(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!found.is_empty(), "a -> b -> a and a -> b -> c -> a");
    assert!(found.iter().any(|r| r.len() == 3), "{found:?}");
}
