//! The flags of the subcommands that read graphs and plan them: how a file is read
//! (`--format`, `--dim`, `--input-shape`, `--device` ...) and how it is planned
//! (`--align`, `--order`, `--budget`, `--seed`, `--capacity` ...).

use super::{Parser, Result, Token};
use memplan::liveness::LiveOptions;
use memplan::order::OrderKind;
use memplan::{Budget, Options, PackOptions};
use memplan_formats::snapshot::Entries;
use memplan_formats::{self as formats, Format, ReadOptions};

/// Options shared by `plan`, `check`, `export`, `demo`, `shapes` and the graph
/// benchmarks.
#[derive(Default)]
pub(crate) struct Common {
    pub(crate) opts: Options,
    /// `--format`, when given.
    pub(crate) format: Option<Format>,
    pub(crate) read: ReadOptions,
    /// `--budget`, when given.
    pub(crate) budget_ms: Option<u64>,
    /// `--deterministic`: budgets count work units, not wall time.
    pub(crate) deterministic: bool,
}

impl Common {
    /// A budget of `ms` milliseconds: wall time, or with `--deterministic` the work
    /// units that stand for it, so that every machine and the browser find the
    /// same plan.
    pub(crate) fn budget<'a>(&self, ms: f64) -> Budget<'a> {
        if self.deterministic {
            Budget::work_for_ms(ms as u64)
        } else {
            Budget::timed(&clock_ms, ms)
        }
    }

    /// Takes `arg` if it is a shared option; returns whether it was.
    pub(super) fn take(&mut self, arg: &Token, p: &mut Parser) -> Result<bool> {
        let Some(name) = arg.long() else {
            return Ok(false);
        };
        match name {
            "align" => self.opts.pack.align = PackOptions::new(size(p)?)?.align,
            "budget" => {
                let ms = p.budget()?;
                self.budget_ms = Some(ms);
                self.opts.pack.budget_ms = ms;
            }
            "deterministic" => self.deterministic = true,
            "seed" => self.opts.pack.seed = p.seed()?,
            "capacity" => self.opts.pack.capacity = Some(size(p)?),
            "order" => self.opts.order = OrderKind::from_name(&p.text()?)?,
            "keep-outputs" => self.opts.live = LiveOptions { keep_outputs: true },
            "format" => self.format = Some(Format::from_name(&p.text()?)?),
            "input-shape" => (self.read.input_shapes).push(formats::parse_input_shape(&p.text()?)?),
            "value-shape" => (self.read.value_shapes).push(formats::parse_input_shape(&p.text()?)?),
            "no-declared" => self.read.no_declared = true,
            "dim" => (self.read.dims).push(formats::parse_dim(&p.text()?)?),
            "device" => self.read.device = Some(parse_device(&p.text()?)?),
            "entries" => self.read.entries = Some(parse_entries(&p.text()?)?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A size with its unit, `64`, `4KiB` or `1.5MB`.
fn size(p: &mut Parser) -> Result<u64> {
    Ok(formats::parse_size(&p.text()?)?)
}

/// `--device N`: a snapshot's device number.
pub(super) fn parse_device(text: &str) -> std::result::Result<u32, String> {
    (text.parse::<u32>()).map_err(|_| format!("--device: `{text}` is not a device number"))
}

/// `--entries A..B`: only these entries of a snapshot's trace.
pub(super) fn parse_entries(text: &str) -> std::result::Result<Entries, String> {
    Entries::parse(text).map_err(|e| format!("--entries: {e}"))
}

/// Milliseconds on the process's monotonic clock.
fn clock_ms() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e3
}
