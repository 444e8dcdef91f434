//! The flags of the benchmarks: `bench`, `bench-npu`, `bench-import` and
//! `bench-snapshot` and `bench-replay`. Each takes files and folders (a default folder of the shared
//! corpus when none is named) and `--markdown`.

use super::npu::NpuCommon;
use super::{Common, Parser, Result, Token};
use memplan::Strategy;
use std::path::PathBuf;

/// `memplan bench [DIR|FILE...] ...`.
pub(crate) struct BenchArgs {
    /// The files and folders named, by default the corpus's graphs and MiniMalloc CSVs.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) common: Common,
    /// The strategies named, by default every one.
    pub(crate) strategies: Vec<Strategy>,
    /// `--markdown`: the tables as Markdown.
    pub(crate) markdown: bool,
}

impl BenchArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<BenchArgs> {
        let (mut common, mut inputs, mut chosen) = (Common::default(), Vec::new(), Vec::new());
        let mut markdown = false;
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("strategy") => chosen.push(p.strategy()?),
                Some("markdown") => markdown = true,
                _ => return Ok(arg.push(&mut inputs, usize::MAX)),
            }
            Ok(true)
        })?;
        Ok(BenchArgs {
            inputs: or_default(
                inputs,
                &["../shared/corpus/graphs", "../shared/corpus/minimalloc"],
            ),
            common,
            strategies: if chosen.is_empty() {
                Strategy::ALL.to_vec()
            } else {
                chosen
            },
            markdown,
        })
    }
}

/// `memplan bench-npu [DIR|CASE...] ...`.
pub(crate) struct BenchNpuArgs {
    /// The cases and folders named, by default the corpus's NPU cases.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) common: NpuCommon,
    /// `--markdown`: the tables as Markdown.
    pub(crate) markdown: bool,
}

impl BenchNpuArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<BenchNpuArgs> {
        let mut common = NpuCommon::default();
        let (inputs, markdown) = inputs_and_markdown(p, |arg, p| common.take(arg, p))?;
        Ok(BenchNpuArgs {
            inputs: or_default(inputs, &["../shared/corpus/npu"]),
            common,
            markdown,
        })
    }
}

/// `memplan bench-import [DIR|MODEL...] ...`.
pub(crate) struct BenchImportArgs {
    /// The models and folders named, by default the corpus's models.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) common: Common,
    /// `--markdown`: the table as Markdown.
    pub(crate) markdown: bool,
}

impl BenchImportArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<BenchImportArgs> {
        let mut common = Common::default();
        let (inputs, markdown) = inputs_and_markdown(p, |arg, p| common.take(arg, p))?;
        Ok(BenchImportArgs {
            inputs: or_default(inputs, &["../shared/corpus/models"]),
            common,
            markdown,
        })
    }
}

/// The files and folders named and `--markdown`, every other flag offered to
/// `take` (a subcommand's shared flags) first.
fn inputs_and_markdown(
    p: &mut Parser,
    mut take: impl FnMut(&Token, &mut Parser) -> Result<bool>,
) -> Result<(Vec<PathBuf>, bool)> {
    let (mut inputs, mut markdown) = (Vec::new(), false);
    p.each(|p, arg| {
        if take(arg, p)? {
            return Ok(true);
        }
        match arg.long() {
            Some("markdown") => markdown = true,
            _ => return Ok(arg.push(&mut inputs, usize::MAX)),
        }
        Ok(true)
    })?;
    Ok((inputs, markdown))
}

/// `memplan bench-snapshot [DIR|SNAPSHOT...] ...`.
pub(crate) struct BenchSnapshotArgs {
    /// The snapshots and folders named, by default the corpus's PyTorch snapshots.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) common: Common,
    pub(crate) strategy: Strategy,
    pub(crate) markdown: bool,
}

impl BenchSnapshotArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<BenchSnapshotArgs> {
        let (mut common, mut inputs, mut strategy) =
            (Common::default(), Vec::new(), Strategy::Auto);
        let mut markdown = false;
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("strategy") => strategy = p.strategy()?,
                Some("markdown") => markdown = true,
                _ => return Ok(arg.push(&mut inputs, usize::MAX)),
            }
            Ok(true)
        })?;
        Ok(BenchSnapshotArgs {
            inputs: or_default(inputs, &["../shared/corpus/torch"]),
            common,
            strategy,
            markdown,
        })
    }
}

/// `memplan bench-replay [DIR|SNAPSHOT...] [--capacity NAME=SIZE]... [--markdown]`.
pub(crate) struct BenchReplayArgs {
    pub(crate) inputs: Vec<PathBuf>,
    /// The cap each file had, by the start of its name.
    pub(crate) capacities: Vec<(String, u64)>,
    pub(crate) markdown: bool,
}

impl BenchReplayArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<BenchReplayArgs> {
        let (mut inputs, mut capacities, mut markdown) = (Vec::new(), Vec::new(), false);
        p.each(|p, arg| {
            match arg.long() {
                Some("capacity") => {
                    let text = p.text()?;
                    let Some((name, size)) = text.split_once('=') else {
                        return Err(format!("--capacity: `{text}` is not NAME=SIZE").into());
                    };
                    capacities.push((name.to_string(), memplan_formats::parse_size(size)?));
                }
                Some("markdown") => markdown = true,
                _ => return Ok(arg.push(&mut inputs, usize::MAX)),
            }
            Ok(true)
        })?;
        Ok(BenchReplayArgs {
            inputs: or_default(inputs, &["../shared/corpus/torch"]),
            capacities,
            markdown,
        })
    }
}

/// `inputs`, or `default` when none were named.
fn or_default(inputs: Vec<PathBuf>, default: &[&str]) -> Vec<PathBuf> {
    if inputs.is_empty() {
        default.iter().map(PathBuf::from).collect()
    } else {
        inputs
    }
}
