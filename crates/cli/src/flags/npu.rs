//! The flags of the NPU subcommands: `npu`, `npu-check` and `npu-matmul` (and the
//! options `bench-npu` shares with `npu`).

use super::{default_threads, Parser, Result, Token};
use memplan_npu::case::{default_levels, Level};
use memplan_npu::problem::Problem;
use memplan_npu::solve::Method;
use std::path::PathBuf;

/// Options shared by `npu` and `bench-npu`: the memory levels and how the searches run.
pub(crate) struct NpuCommon {
    /// The default levels with `--levels` applied.
    pub(crate) levels: Vec<Level>,
    /// `--threads N` (default: the cores).
    pub(crate) threads: usize,
    /// `--seed N` (default 0).
    pub(crate) seed: u64,
}

impl Default for NpuCommon {
    fn default() -> NpuCommon {
        NpuCommon {
            levels: default_levels(),
            threads: default_threads(),
            seed: 0,
        }
    }
}

impl NpuCommon {
    /// Takes `arg` if it is a shared option; returns whether it was.
    pub(super) fn take(&mut self, arg: &Token, p: &mut Parser) -> Result<bool> {
        match arg.long() {
            Some("threads") => self.threads = p.threads()?,
            Some("levels") => p.levels(&mut self.levels)?,
            Some("seed") => self.seed = p.seed()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `memplan npu CASE --problem N ...`.
pub(crate) struct NpuArgs {
    pub(crate) case: PathBuf,
    pub(crate) problem: Problem,
    pub(crate) method: Method,
    pub(crate) common: NpuCommon,
    /// `--out DIR`: the contest files.
    pub(crate) out: Option<PathBuf>,
    /// `--json OUT`, `-` for standard output (which then carries nothing else).
    pub(crate) json: Option<String>,
    pub(crate) svg: Option<PathBuf>,
    pub(crate) progress: bool,
    pub(crate) budget_ms: Option<u64>,
    pub(crate) deterministic: bool,
}

impl NpuArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<NpuArgs> {
        let (mut common, mut case, mut problem) = (NpuCommon::default(), None, None);
        let (mut method, mut out, mut json, mut svg) = (Method::Best, None, None, None);
        let (mut progress, mut budget_ms, mut deterministic) = (false, None, false);
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("progress") => progress = true,
                Some("deterministic") => deterministic = true,
                Some("budget") => budget_ms = Some(p.budget()?),
                Some("problem") => problem = Some(p.problem()?),
                Some("method") => method = Method::from_name(&p.text()?)?,
                Some("out") => out = Some(p.path()?),
                Some("json") => json = Some(p.text()?),
                Some("svg") => svg = Some(p.path()?),
                _ => return Ok(arg.fill(&mut case)),
            }
            Ok(true)
        })?;
        Ok(NpuArgs {
            case: case.ok_or("npu: missing CASE (.json or _Nodes.csv)")?,
            problem: problem.ok_or("npu: missing --problem 1|2|3")?,
            method,
            common,
            out,
            json,
            svg,
            progress,
            budget_ms,
            deterministic,
        })
    }
}

/// `memplan npu-check CASE DIR --problem N [--levels ...]`.
pub(crate) struct NpuCheckArgs {
    pub(crate) case: PathBuf,
    /// The folder of the result files.
    pub(crate) dir: PathBuf,
    pub(crate) problem: Problem,
    pub(crate) levels: Vec<Level>,
}

impl NpuCheckArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<NpuCheckArgs> {
        let (mut paths, mut problem, mut levels) = (Vec::new(), None, default_levels());
        p.each(|p, arg| {
            match arg.long() {
                Some("problem") => problem = Some(p.problem()?),
                Some("levels") => p.levels(&mut levels)?,
                _ => return Ok(arg.push(&mut paths, 2)),
            }
            Ok(true)
        })?;
        let [case, dir] = <[PathBuf; 2]>::try_from(paths)
            .map_err(|_| "npu-check: expected CASE (.json or _Nodes.csv) and DIR")?;
        let problem = problem.ok_or("npu-check: missing --problem 1|2|3")?;
        Ok(NpuCheckArgs {
            case,
            dir,
            problem,
            levels,
        })
    }
}

/// `memplan npu-matmul MxKxN [--out FILE]`.
pub(crate) struct MatmulArgs {
    /// The tiles: M, K and N.
    pub(crate) tiles: [usize; 3],
    pub(crate) out: Option<PathBuf>,
}

impl MatmulArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<MatmulArgs> {
        let (mut shape, mut out) = (None, None);
        p.each(|p, arg| {
            match arg {
                Token::Long(l) if l == "out" => out = Some(p.path()?),
                Token::Value(v) if shape.is_none() => shape = Some(lexopt_string(v)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        let shape = shape.ok_or("npu-matmul: missing MxKxN (tiles, e.g. 20x20x20)")?;
        let tiles = parse_tiles(&shape)
            .ok_or_else(|| format!("npu-matmul: `{shape}` is not MxKxN (e.g. 20x20x20)"))?;
        Ok(MatmulArgs { tiles, out })
    }
}

/// A positional argument as text, with lexopt's error when it is not UTF-8.
fn lexopt_string(v: &std::ffi::OsString) -> std::result::Result<String, lexopt::Error> {
    use lexopt::ValueExt;
    v.clone().string()
}

/// `20x20x20` as `[20, 20, 20]`.
fn parse_tiles(shape: &str) -> Option<[usize; 3]> {
    let dims: Vec<usize> = shape
        .split('x')
        .map(|d| d.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    <[usize; 3]>::try_from(dims).ok()
}
