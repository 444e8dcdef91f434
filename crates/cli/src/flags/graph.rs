//! The flags of the subcommands on one graph: `plan`, `shapes`, `export`, `demo`
//! and `check`.

use super::{Common, Parser, Result};
use memplan::Strategy;
use std::path::PathBuf;

/// `memplan plan FILE ...`.
pub(crate) struct PlanArgs {
    pub(crate) file: PathBuf,
    pub(crate) common: Common,
    pub(crate) strategy: Strategy,
    /// `--json OUT`, `-` for standard output.
    pub(crate) json: Option<String>,
    pub(crate) svg: Option<String>,
    pub(crate) progress: bool,
}

impl PlanArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<PlanArgs> {
        let (mut common, mut file, mut strategy) = (Common::default(), None, Strategy::Auto);
        let (mut json, mut svg, mut progress) = (None, None, false);
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("strategy") => strategy = p.strategy()?,
                Some("json") => json = Some(p.text()?),
                Some("svg") => svg = Some(p.text()?),
                Some("progress") => progress = true,
                _ => return Ok(arg.fill(&mut file)),
            }
            Ok(true)
        })?;
        Ok(PlanArgs {
            file: file.ok_or("plan: missing FILE")?,
            common,
            strategy,
            json,
            svg,
            progress,
        })
    }
}

/// `memplan shapes MODEL ...`.
pub(crate) struct ShapesArgs {
    pub(crate) file: PathBuf,
    pub(crate) common: Common,
    pub(crate) json: Option<String>,
}

impl ShapesArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<ShapesArgs> {
        let (mut common, mut file, mut json) = (Common::default(), None, None);
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("json") => json = Some(p.text()?),
                _ => return Ok(arg.fill(&mut file)),
            }
            Ok(true)
        })?;
        let file = file.ok_or("shapes: missing MODEL")?;
        Ok(ShapesArgs { file, common, json })
    }
}

/// `memplan export FILE ...`.
pub(crate) struct ExportArgs {
    pub(crate) file: PathBuf,
    /// The reading and ordering options; its `--format` is not read: `export`'s
    /// own `--format` names what it writes.
    pub(crate) common: Common,
    /// `json`, `text` or `minimalloc` (checked when the file is known: an NPU case
    /// is written as JSON only).
    pub(crate) to: String,
    pub(crate) out: Option<String>,
}

impl ExportArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<ExportArgs> {
        let (mut common, mut file, mut out) = (Common::default(), None, None);
        let mut to = "json".to_string();
        p.each(|p, arg| {
            match arg.long() {
                Some("out") => out = Some(p.text()?),
                Some("text") => to = "text".into(),
                Some("format") => to = p.text()?,
                _ => return Ok(arg.fill(&mut file) || common.take(arg, p)?),
            }
            Ok(true)
        })?;
        let file = file.ok_or("export: missing FILE")?;
        Ok(ExportArgs {
            file,
            common,
            to,
            out,
        })
    }
}

/// `memplan demo MODEL --out DIR ...` and `memplan html FILE [--out OUT.html] ...`:
/// one file shown in the built page.
pub(crate) struct PageArgs {
    pub(crate) file: PathBuf,
    pub(crate) common: Common,
    /// `--out`: demo's folder (required), html's file (FILE's stem and `.html`
    /// when absent).
    pub(crate) out: Option<PathBuf>,
    /// `--page DIR`, the built page (default `.`).
    pub(crate) page: PathBuf,
    /// The page options of `--strategy` and `--view`, in their order.
    pub(crate) view: Vec<(String, String)>,
}

impl PageArgs {
    /// The flags of `demo` (`command`, whose `--out` is required) or `html`.
    pub(super) fn parse(p: &mut Parser, command: &str) -> Result<PageArgs> {
        let (mut common, mut file, mut out) = (Common::default(), None, None);
        let (mut page, mut view) = (PathBuf::from("."), Vec::new());
        p.each(|p, arg| {
            if common.take(arg, p)? {
                return Ok(true);
            }
            match arg.long() {
                Some("out") => out = Some(p.path()?),
                Some("page") => page = p.path()?,
                Some("strategy") => {
                    let name = p.text()?;
                    Strategy::from_name(&name)?;
                    view.push(("strategy".into(), name));
                }
                Some("view") => view.extend(view_pairs(&p.text()?)?),
                _ => return Ok(arg.fill(&mut file)),
            }
            Ok(true)
        })?;
        let file = file.ok_or(if command == "demo" {
            "demo: missing MODEL"
        } else {
            "html: missing FILE"
        })?;
        if command == "demo" && out.is_none() {
            return Err("demo: missing --out DIR".into());
        }
        Ok(PageArgs {
            file,
            common,
            out,
            page,
            view,
        })
    }
}

/// `--view strategy=best-fit&select=3` as pairs; `src` is the bundle's own.
pub(super) fn view_pairs(text: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for item in text
        .trim_start_matches('?')
        .split('&')
        .filter(|s| !s.is_empty())
    {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        if k == "src" || k == "example" {
            return Err(format!(
                "--view: `{k}` is set by the bundle (its graph opens first)"
            ));
        }
        pairs.push((k.to_string(), v.to_string()));
    }
    Ok(pairs)
}

/// `memplan check FILE PLAN.json`.
pub(crate) struct CheckArgs {
    pub(crate) graph: PathBuf,
    pub(crate) plan: PathBuf,
    pub(crate) common: Common,
}

impl CheckArgs {
    pub(super) fn parse(p: &mut Parser) -> Result<CheckArgs> {
        let (mut common, mut files) = (Common::default(), Vec::new());
        p.each(|p, arg| Ok(common.take(arg, p)? || arg.push(&mut files, 2)))?;
        let [graph, plan] =
            <[PathBuf; 2]>::try_from(files).map_err(|_| "check: expected FILE and PLAN.json")?;
        Ok(CheckArgs {
            graph,
            plan,
            common,
        })
    }
}
