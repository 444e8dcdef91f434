//! Helpers shared by the tests of every crate of the workspace (a dev-dependency
//! only): small graphs, where the shared corpus is, FlatBuffers and protobuf
//! writers for hand-made model files ([`fb`], [`pb`]), and running the `memplan`
//! binary from the CLI crate's tests ([`cli!`]).

pub mod fb;
#[cfg(feature = "npu")]
pub mod npu;
pub mod pb;
pub mod scan;

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

/// Where the shared corpus is: `MEMPLAN_CORPUS`, else `../shared/corpus` beside
/// the workspace.
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("MEMPLAN_CORPUS") {
        Some(dir) => root().join(dir),
        None => root().join("../shared/corpus"),
    }
}

/// The shared corpus's folder `sub`, or `None` when the corpus is absent: the
/// test then skips, with one line on stderr and one in the file `MEMPLAN_SKIPS`
/// names (which `./test.sh` counts for its summary). In CI (`CI` set) an absent
/// corpus fails the test, and so does a corpus without `sub` anywhere.
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let corpus = corpus_root();
    let dir = corpus.join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() || corpus.is_dir() {
        panic!(
            "the shared corpus is missing at {} (required in CI; set MEMPLAN_CORPUS=DIR)",
            dir.display()
        );
    }
    skipped(&format!(
        "the shared corpus is absent at {}",
        corpus.display()
    ));
    None
}

/// The `ext` files of the corpus's folder `sub`, sorted, at least `at_least` of
/// them (fewer fails the test: the corpus is not what it should be); `None` when
/// the corpus is absent, as [`corpus_dir`].
pub fn corpus_files(sub: &str, ext: &str, at_least: usize) -> Option<Vec<PathBuf>> {
    let dir = corpus_dir(sub)?;
    let found = files(&dir, ext);
    assert!(
        found.len() >= at_least,
        "expected at least {at_least} files in {sub}, found {}",
        found.len()
    );
    Some(found)
}

/// Says that the running test skips and why: on stderr, and as a line of the
/// file `MEMPLAN_SKIPS` names when it is set.
pub fn skipped(why: &str) {
    let exe = std::env::current_exe().ok();
    let binary = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| {
            s.to_string_lossy()
                .split('-')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    let thread = std::thread::current();
    let line = format!("{binary}::{}: {why}", thread.name().unwrap_or("test"));
    eprintln!("SKIPPED {line}");
    if let Some(log) = std::env::var_os("MEMPLAN_SKIPS") {
        use std::io::Write;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log);
        if let Ok(mut file) = file {
            let _ = writeln!(file, "{line}");
        }
    }
}

/// A file read as a graph, its format detected.
#[cfg(feature = "formats")]
pub fn read_graph(file: &std::path::Path) -> Graph {
    memplan_formats::read(&std::fs::read(file).unwrap(), None, "m").unwrap()
}

/// A fresh directory for test files under the system's temporary directory,
/// named by `name` and this process.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// The workspace's root (where `Cargo.lock` is): tests run in their own crate's
/// folder, so paths to `examples/` and `tests/data/` start here.
pub fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = here.ancestors().find(|d| d.join("Cargo.lock").is_file());
    found.unwrap_or(&here).to_path_buf()
}

/// Runs `binary` (the `memplan` CLI) in the workspace's root with `args`: exit
/// code, stdout, stderr.
pub fn run(binary: &str, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(binary)
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

/// Defines, in a test of the CLI crate, `memplan(args)` (runs the binary Cargo
/// built for the test, see [`run`]) and `memplan_binary()` (its path).
#[macro_export]
macro_rules! cli {
    () => {
        #[allow(dead_code)]
        fn memplan_binary() -> &'static str {
            env!("CARGO_BIN_EXE_memplan")
        }

        #[allow(dead_code)]
        fn memplan(args: &[&str]) -> (i32, String, String) {
            $crate::run(memplan_binary(), args)
        }
    };
}

/// xorshift64: small, seeded, deterministic test data without a dependency.
pub struct Rng(pub u64);

impl Rng {
    #[allow(clippy::should_implement_trait)]
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
