//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod fb;
pub mod pb;

use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use std::path::PathBuf;

/// Builds a graph from `(name, size)` tensors and `(name, inputs, outputs)` ops,
/// tensors named by index.
pub fn graph(tensors: &[(&str, u64)], ops: &[(&str, &[u32], &[u32])]) -> Graph {
    let tensors = tensors
        .iter()
        .map(|&(n, s)| Tensor {
            name: n.to_string(),
            size: s,
            role: Role::Arena,
            level: None,
            lifetime: None,
        })
        .collect();
    let ops = ops
        .iter()
        .map(|&(n, i, o)| Op {
            name: n.to_string(),
            kind: String::new(),
            inputs: i.iter().map(|&t| TensorId(t)).collect(),
            outputs: o.iter().map(|&t| TensorId(t)).collect(),
        })
        .collect();
    Graph::new("test".into(), tensors, ops).expect("valid test graph")
}

/// The shared corpus directory `sub`, or `None` (with a message) when it is absent
/// outside CI. In CI (`CI` set) a missing corpus fails the test.
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let dir = root().join("../shared/corpus").join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "the shared corpus is missing at {} (required in CI)",
            dir.display()
        );
    }
    eprintln!("SKIPPED: the shared corpus is missing at {}", dir.display());
    None
}

/// The `ext` files of the shared corpus's `sub`, sorted, at least `at_least` of
/// them: the test needs them, so a missing corpus fails it (no skipping).
pub fn required_corpus(sub: &str, ext: &str, at_least: usize) -> Vec<PathBuf> {
    let dir = root().join("../shared/corpus").join(sub);
    assert!(
        dir.is_dir(),
        "the shared corpus is missing at {} (this test needs it)",
        dir.display()
    );
    let found = files(&dir, ext);
    assert!(
        found.len() >= at_least,
        "expected at least {at_least} files in {sub}, found {}",
        found.len()
    );
    found
}

/// A file read as a graph, its format detected.
pub fn read_graph(file: &std::path::Path) -> Graph {
    memplan_formats::read(&std::fs::read(file).unwrap(), None, "m").unwrap()
}

/// Files of `dir` with extension `ext`, sorted.
pub fn files(dir: &std::path::Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

pub const MIB: u64 = 1 << 20;

/// Tensors `b0, b1, ...` with the given (first step, last step, size), as a graph
/// without ops named `name`, like a MiniMalloc instance.
pub fn intervals(name: &str, spec: impl IntoIterator<Item = (u32, u32, u64)>) -> Graph {
    let tensors = spec
        .into_iter()
        .enumerate()
        .map(|(i, (start, end, size))| Tensor {
            name: format!("b{i}"),
            size,
            role: Role::Arena,
            level: None,
            lifetime: Some(memplan::graph::Lifetime::new(start, end)),
        })
        .collect();
    Graph::new(name.into(), tensors, Vec::new()).expect("valid intervals")
}

/// The workspace's root (where `Cargo.lock` is): these helpers serve the tests of
/// the core in `tests/` and those of the crates under `crates/`.
pub fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = here.ancestors().find(|d| d.join("Cargo.lock").is_file());
    found.unwrap_or(&here).to_path_buf()
}

/// The `memplan` binary of the CLI crate, beside this test's own build (in
/// `target/<profile>/`), built first if needed: the CLI is a crate of its own, so
/// Cargo gives the core's tests no path to it.
pub fn memplan_binary() -> &'static std::path::Path {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = std::process::Command::new(cargo);
        build.args(["build", "--quiet", "-p", "memplan-cli", "--bin", "memplan"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "building the memplan CLI failed");
        let binary = dir.join(format!("memplan{}", std::env::consts::EXE_SUFFIX));
        assert!(binary.is_file(), "no CLI at {}", binary.display());
        binary
    })
}

/// Runs the `memplan` binary in the project root: exit code, stdout, stderr.
pub fn memplan(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(memplan_binary())
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// xorshift64: small, seeded, deterministic test data without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform-ish in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
