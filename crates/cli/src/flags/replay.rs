//! The flags of `replay` and `compare`: PyTorch snapshots replayed through the
//! caching allocator's model, and two runs side by side.

use super::common::{parse_device, parse_entries};
use super::{Parser, Result};
use memplan_formats::snapshot::Entries;
use std::path::PathBuf;

/// `memplan replay SNAP [--alloc-conf CONF] [--capacity SIZE] [--sweep] [--json OUT|-]
/// [--device N] [--entries A..B]`.
pub(crate) struct ReplayArgs {
    pub(crate) file: PathBuf,
    /// `--alloc-conf`: `PYTORCH_CUDA_ALLOC_CONF`'s text; the recorded settings when absent.
    pub(crate) alloc_conf: Option<String>,
    pub(crate) capacity: Option<u64>,
    pub(crate) sweep: bool,
    pub(crate) json: Option<String>,
    pub(crate) device: Option<u32>,
    /// `--entries A..B`: only these entries of the trace.
    pub(crate) entries: Option<Entries>,
}

impl ReplayArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<ReplayArgs> {
        let mut file = None;
        let (mut alloc_conf, mut capacity, mut sweep, mut json, mut device) =
            (None, None, false, None, None);
        let mut entries = None;
        p.each(|p, arg| {
            match arg.long() {
                Some("alloc-conf") => alloc_conf = Some(p.text()?),
                Some("capacity") => capacity = Some(memplan_formats::parse_size(&p.text()?)?),
                Some("sweep") => sweep = true,
                Some("json") => json = Some(p.text()?),
                Some("device") => device = Some(parse_device(&p.text()?)?),
                Some("entries") => entries = Some(parse_entries(&p.text()?)?),
                _ => return Ok(arg.fill(&mut file)),
            }
            Ok(true)
        })?;
        if sweep && alloc_conf.is_some() {
            return Err(
                "replay: --sweep tries its own settings; give --alloc-conf without it".into(),
            );
        }
        Ok(ReplayArgs {
            file: file.ok_or("replay: missing SNAPSHOT")?,
            alloc_conf,
            capacity,
            sweep,
            json,
            device,
            entries,
        })
    }
}

/// `memplan compare A B [--json OUT|-]`.
pub(crate) struct CompareArgs {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) json: Option<String>,
    pub(crate) device: Option<u32>,
}

impl CompareArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<CompareArgs> {
        let (mut files, mut json, mut device) = (Vec::new(), None, None);
        p.each(|p, arg| {
            match arg.long() {
                Some("json") => json = Some(p.text()?),
                Some("device") => device = Some(parse_device(&p.text()?)?),
                _ => return Ok(arg.push(&mut files, 2)),
            }
            Ok(true)
        })?;
        if files.len() != 2 {
            return Err("compare: give two snapshots, A and B".into());
        }
        Ok(CompareArgs {
            files,
            json,
            device,
        })
    }
}
