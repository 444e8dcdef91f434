//! The layering, checked: the crates' dependencies point the data's way (npu ->
//! core; formats -> npu, core <- render; wasm and the CLI on top), the NPU checker
//! imports nothing of the NPU solvers, and no two files of a crate import each
//! other, directly or around a ring. A module and the modules inside it (a `mod.rs`
//! or `lib.rs` and its children) may use each other, and a parent's `pub use` of
//! its children declares them rather than using them; but a longer ring that
//! passes through a parent (`raster -> time_address -> time_address::pixels ->
//! raster`) is a ring.

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
        "memplan-torch",
        "memplan-testkit",
    ]
    .map(String::from)
    .into();
    let ours = |d: &BTreeSet<String>| d.intersection(&memplan).cloned().collect::<Vec<_>>();
    assert_eq!(ours(&deps("crates/npu")), ["memplan"]);
    assert_eq!(ours(&deps("crates/formats")), ["memplan", "memplan-npu"]);
    assert_eq!(ours(&deps("crates/render")), ["memplan", "memplan-npu"]);
    assert_eq!(
        ours(&deps("crates/torch")),
        ["memplan", "memplan-formats"],
        "the allocator replay reads snapshots and nothing else"
    );
    for top in ["crates/wasm", "crates/cli"] {
        assert_eq!(
            ours(&deps(top)),
            [
                "memplan",
                "memplan-formats",
                "memplan-npu",
                "memplan-render",
                "memplan-torch"
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
        ("crates/torch", ["plotters", "wasm-bindgen", "lexopt"]),
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
/// `use super::{a, b::c}` lists spread out; comments, `#[cfg(test)] mod tests`
/// and macro calls (`crate::define_id!`) left out.
/// A path that starts with one of the module's `children` (`pixels::Painter` in
/// the module that declares `mod pixels`) is read as `self::pixels::Painter`.
fn paths(text: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let text = text
        .match_indices("#[cfg(test)]\n")
        .find(|(at, attr)| {
            let next = text[at + attr.len()..].lines().next().unwrap_or("");
            next.starts_with("mod tests") || next.starts_with("pub(super) mod tests")
        })
        .map_or(text, |(at, _)| &text[..at]);
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect();
    let bytes: Vec<char> = code.join("\n").chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':');
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| text_at(&bytes, i, p) && (i == 0 || !is_ident(bytes[i - 1])));
        let child = boundary
            && !starts
            && children
                .iter()
                .any(|c| text_at(&bytes, i, &format!("{c}::")));
        if !starts && !child {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        if child {
            segs.push("self".to_string());
        }
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
        if bytes.get(i) == Some(&'!') {
            // `crate::name!`: an exported macro sits at the root whatever file
            // defines it, so its path names no module
            continue;
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

/// `a` is `b`'s parent or an ancestor of it (the crate root is everyone's).
fn encloses(a: &str, b: &str) -> bool {
    a != b && (a.is_empty() || b.starts_with(&format!("{a}::")))
}

/// The rings of imports among the files of the crate at `src`. A module and a
/// module inside it may use each other (the parent declares and re-exports its
/// children, a child uses its parent's items), so that pair alone is no ring; but
/// their edges stay in the graph, and a longer ring through a parent is one.
fn rings(src: &Path) -> Vec<Vec<String>> {
    let modules = modules(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, file) in &modules {
        let me: Vec<String> = name
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let children: BTreeSet<String> = modules
            .keys()
            .filter_map(|m| match name.as_str() {
                "" => Some(m.as_str()),
                _ => m.strip_prefix(&format!("{name}::")),
            })
            .filter(|c| !c.is_empty() && !c.contains("::"))
            .map(String::from)
            .collect();
        let (uses, reexports) = reexports(&std::fs::read_to_string(file).unwrap());
        let uses = paths(&uses, &children).into_iter().map(|p| (p, false));
        let reexports = paths(&reexports, &children).into_iter().map(|p| (p, true));
        for (segs, reexport) in uses.chain(reexports) {
            let Some(to) = target(&modules, &me, &segs) else {
                continue;
            };
            if to != *name && !(reexport && encloses(name, &to)) {
                edges.entry(name.clone()).or_default().insert(to);
            }
        }
    }
    // Each ring once, from its least module; a walk is `long` once closing it
    // would make more than a module and its own parent or child.
    let mut found = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            let long = path.len() > 2 || (path.len() == 2 && !related(start, &at));
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    if long {
                        found.push(path.clone());
                    }
                    continue;
                }
                let path = [path.clone(), vec![next.clone()]].concat();
                let next_long = path.len() > 2 || !related(start, next);
                if next > start
                    && !path[..path.len() - 1].contains(next)
                    && seen.insert((next.clone(), next_long))
                {
                    stack.push((next.clone(), path));
                }
            }
        }
    }
    found
}

/// `text` split in two: all but its `pub use` statements, and those statements.
/// A parent that re-exports a child's items declares them and uses none of them.
fn reexports(text: &str) -> (String, String) {
    let (mut rest, mut out) = (String::new(), String::new());
    let mut statement = false;
    for line in text.lines() {
        let t = line.trim_start();
        if !statement && t.starts_with("pub") && t.contains(" use ") {
            let head = t.split(" use ").next().unwrap();
            statement = head == "pub" || (head.starts_with("pub(") && head.ends_with(')'));
        }
        let to = if statement { &mut out } else { &mut rest };
        to.push_str(line);
        to.push('\n');
        if line.contains(';') {
            statement = false;
        }
    }
    (rest, out)
}

/// A module and its parent (or an ancestor), either way round.
fn related(a: &str, b: &str) -> bool {
    encloses(a, b) || encloses(b, a)
}

#[test]
fn no_two_files_import_each_other() {
    let root = memplan_testkit::root();
    let mut all = Vec::new();
    for src in [
        "src",
        "crates/npu/src",
        "crates/formats/src",
        "crates/torch/src",
        "crates/render/src",
        "crates/wasm/src",
        "crates/cli/src",
    ] {
        for ring in rings(&root.join(src)) {
            let names: Vec<&str> = ring
                .iter()
                .map(|m| if m.is_empty() { "crate" } else { m })
                .collect();
            all.push(format!("{src}: {}", names.join(" -> ")));
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
        for segs in paths(&text, &BTreeSet::new()) {
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
    let found = rings_of(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a.rs", "use crate::b::thing;\n"),
        ("b.rs", "use super::{c::other, a};\n"),
        ("c.rs", "pub fn other() { crate::a::f() }\n"),
    ]);
    assert!(!found.is_empty(), "a -> b -> a and a -> b -> c -> a");
    assert!(found.iter().any(|r| r.len() == 3), "{found:?}");
}

/// `a` uses its child `a::x` and `a::x` uses `a` back: no ring, nor when `a` only
/// re-exports what `a::x` makes. `b` uses `a`, which uses its child `a::x`, which
/// uses `b`: a ring through a parent.
#[test]
fn the_ring_finder_finds_a_ring_through_a_parent() {
    let pair = rings_of(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a/mod.rs",
            "mod x;\nuse x::f;\npub struct S;\npub fn h() { f() }\n",
        ),
        ("a/x.rs", "use super::S;\npub fn f() {}\n"),
        ("b.rs", "use crate::a::h;\n"),
    ]);
    assert!(pair.is_empty(), "{pair:?}");
    let declared = rings_of(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a/mod.rs", "mod x;\npub use x::f;\npub struct S;\n"),
        ("a/x.rs", "use crate::b::g;\npub fn f() {}\n"),
        ("b.rs", "use crate::a::S;\npub fn g() {}\n"),
    ]);
    assert!(declared.is_empty(), "{declared:?}");
    let found = rings_of(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a/mod.rs",
            "mod x;\nuse x::f;\npub struct S;\npub fn h() { f() }\n",
        ),
        ("a/x.rs", "use crate::b::g;\npub fn f() {}\n"),
        ("b.rs", "use crate::a::S;\npub fn g() {}\n"),
    ]);
    assert_eq!(found, [["a", "a::x", "b"]], "{found:?}");
}

/// The rings of a crate made of `files` (path under `src`, text).
fn rings_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("memplan-layers-{}-{n}", std::process::id()));
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let found = rings(&dir);
    std::fs::remove_dir_all(&dir).ok();
    found
}
