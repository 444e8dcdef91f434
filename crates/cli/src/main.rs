//! The `memplan` command line: plan, check and bench over the core.

mod bench;
mod bench_import;
mod bench_npu;
mod bench_snapshot;
mod demo;
mod file_source;
mod npu;
mod npu_check;
mod report;
mod shapes;
mod snapshot;

use lexopt::prelude::*;
use memplan::liveness::LiveOptions;
use memplan::order::OrderKind;
use memplan::{Budget, Error, Graph, Options, PackOptions, Strategy};
use memplan_formats::{self as formats, Format, ReadOptions};

/// Default `--budget` of `plan`, in milliseconds.
const PLAN_BUDGET_MS: u64 = 1000;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
memplan: static memory planning for computation graphs

usage:
  memplan plan FILE [--strategy NAME] [--order kahn|dfs|memory] [--align N]
                    [--keep-outputs] [--format F] [--json OUT|-] [--svg OUT]
                    [--budget MS] [--deterministic] [--seed N] [--capacity SIZE]
                    [--progress]
                    [--input-shape NAME=DIMS]...  (model inputs, e.g. data=1x3x224x224, n=scalar)
                    [--value-shape NAME=DIMS]...  (upper bounds of data-dependent ONNX values)
                    [--no-declared]               (ONNX: ignore value_info, infer every shape)
                    [--dim NAME=VALUE]...         (a free input dimension, e.g. seq=128, x:2=48)
  memplan shapes MODEL [--json OUT|-] [--no-declared] [--input-shape NAME=DIMS]...
                    [--value-shape NAME=DIMS]...
                                    every value of an ONNX model: shape, element type,
                                    bytes and where the shape came from
  memplan export FILE [--out OUT|-] [--format json|text|minimalloc] [--text]
                    [--dim ...] [--input-shape ...] [--device N]
                                    the graph as memplan's JSON (text: memplan
                                    text), without weights: plans the same, shares
                                    small; minimalloc: each buffer's lifetime and
                                    size as MiniMalloc CSV (e.g. a PyTorch
                                    snapshot's allocations, for other planners)
  memplan demo FILE --out DIR [--page DIR] [--strategy NAME] [--view QUERY]
                    [--dim ...] [--input-shape ...]
                                    a static demo: the built page (from --page,
                                    default .) opening FILE's graph first, for any
                                    static host; --view adds page options
                                    (e.g. 'compare=best-fit&select=3')
  memplan check FILE PLAN.json      check a plan written by `plan --json`
  memplan bench [DIR|FILE...] [--align N] [--strategy NAME]... [--budget MS]
                [--deterministic] [--seed N] [--capacity SIZE] [--markdown]
                                    every strategy (or those named) on every graph
                                    (default: ../shared/corpus/graphs and minimalloc)
  memplan bench-import [DIR|MODEL...] [--input-shape ...] [--markdown]
                                    import time (median of 5) and peak heap of each
                                    model (default ../shared/corpus/models)
  memplan bench-snapshot [DIR|SNAPSHOT...] [--strategy NAME] [--markdown]
                                    per PyTorch snapshot: time and heap to open it,
                                    live and reserved peaks, the plan (checked)
                                    (default ../shared/corpus/torch)
  memplan onnx-ops                  the ONNX op types with shape inference, per domain
  memplan strategies                list the strategies
  memplan npu CASE --problem 1|2|3 [--method baseline|best] [--out DIR]
                  [--json OUT|-] [--svg OUT] [--levels L1=4096,UB=1024,...]
                  [--progress] [--budget MS] [--deterministic] [--threads N]
                  [--seed N]
                                    solve an NPU case (contest JSON or _Nodes.csv);
                                    --progress prints each better plan as found,
                                    --budget stops at MS ms of wall time with the
                                    best so far (with --deterministic: the default
                                    work scaled by MS/20000, the same plan anywhere);
                                    --threads N runs the independent searches on N
                                    threads (default: the cores; same plans);
                                    --seed N draws the searches' choices from other
                                    seeds (default 0)
  memplan npu-check CASE DIR --problem 1|2|3 [--levels L1=4096,UB=1024,...]
                                    check NPU contest results DIR/<case>_schedule.txt
                                    (+ _memory.txt, _spill.txt); CASE is .json or
                                    _Nodes.csv (beside _Edges.csv)
  memplan npu-matmul MxKxN [--out FILE]
                                    a tiled matmul NPU case of M x K by K x N tiles,
                                    of the public Matmul cases' kind, as contest JSON
                                    (20x20x20: 59,600 nodes)
  memplan bench-npu [DIR|CASE...] [--levels L1=4096,...] [--threads N] [--seed N]
                    [--markdown]
                                    every NPU method on every case, checked, beside
                                    the best published numbers (default
                                    ../shared/corpus/npu)

budgets (best-of, search, reorder): --budget MS of wall time per plan (default
  1000 for plan, 50 for bench); --deterministic counts work units instead
  (about 400 per ms), so every machine and the browser find the same plan;
  --capacity stops as soon as a plan fits and says how far the best one is from
  fitting

--markdown (bench, bench-npu, bench-import, bench-snapshot): the tables as
  markdown, as bench/results.sh writes them into docs/results.md

formats (detected from the content, or forced with --format):
  native      memplan's JSON graph (see docs/formats.md)
  corpus      reference graph JSON (tensors with bytes and kind)
  minimalloc  CSV with the columns id,lower,upper,size (any order; MiniMalloc's
              buffer, start, end, offset, gaps too)
  tflite      TFLite model (.tflite)
  onnx        ONNX model (.onnx), any size: the weights are not read
  free input dimensions (ONNX dim_param, TFLite shape_signature -1) are 1 (TFLite:
  the stored placeholder) unless --dim or --input-shape sets them; an ONNX model
  that cannot run at 1 has them raised; the report lists them
";

#[global_allocator]
static ALLOC: bench_import::Counting = bench_import::Counting;

/// A closed stdout (`memplan plan ... | head`) ends the process as it ends Unix
/// tools, by SIGPIPE, instead of a panic on the next print: Rust ignores the
/// signal by default, this restores it.
#[cfg(unix)]
fn die_on_closed_pipes() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: sets the disposition of one signal to the default, before any
    // thread starts; no handler of ours runs.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    die_on_closed_pipes();
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("memplan: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut args = lexopt::Parser::from_env();
    let Some(command) = args.next()? else {
        print!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match command {
        Value(cmd) => match cmd.string()?.as_str() {
            "plan" => plan(&mut args),
            "shapes" => shapes::run(&mut args),
            "export" => export(&mut args),
            "demo" => demo::run(&mut args),
            "check" => check(&mut args),
            "bench" => bench::run(&mut args),
            "bench-npu" => bench_npu::run(&mut args),
            "bench-import" => bench_import::run(&mut args),
            "bench-snapshot" => bench_snapshot::run(&mut args),
            "npu" => npu::run(&mut args),
            "npu-check" => npu_check::run(&mut args),
            "npu-matmul" => npu::matmul(&mut args),
            "onnx-ops" => {
                let ops = formats::onnx_ops();
                let mut domains: Vec<&str> = ops.iter().map(|o| o.0).collect();
                domains.dedup();
                for d in domains {
                    let names: Vec<&str> = ops.iter().filter(|o| o.0 == d).map(|o| o.1).collect();
                    println!("{d} ({}): {}", names.len(), names.join(" "));
                }
                Ok(ExitCode::SUCCESS)
            }
            "strategies" => {
                for s in Strategy::ALL {
                    println!("{:<12} {}", s.name(), s.about());
                }
                Ok(ExitCode::SUCCESS)
            }
            "help" => {
                print!("{USAGE}");
                Ok(ExitCode::SUCCESS)
            }
            other => Err(format!("unknown command `{other}` (try `memplan help`)").into()),
        },
        Short('h') | Long("help") => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(other.unexpected().into()),
    }
}

/// A command-line argument that no longer borrows the parser.
pub(crate) enum Token {
    Short(char),
    Long(String),
    Value(std::ffi::OsString),
}

impl Token {
    pub(crate) fn next(args: &mut lexopt::Parser) -> Result<Option<Token>, lexopt::Error> {
        Ok(args.next()?.map(|arg| match arg {
            Short(c) => Token::Short(c),
            Long(l) => Token::Long(l.to_string()),
            Value(v) => Token::Value(v),
        }))
    }

    pub(crate) fn unexpected(self) -> Box<dyn std::error::Error> {
        match self {
            Token::Short(c) => format!("unexpected option -{c}").into(),
            Token::Long(l) => format!("unexpected option --{l}").into(),
            Token::Value(v) => format!("unexpected argument {}", v.to_string_lossy()).into(),
        }
    }
}

/// Options shared by `plan` and `bench`.
#[derive(Default)]
pub(crate) struct Common {
    pub(crate) opts: Options,
    format: Option<Format>,
    pub(crate) read: ReadOptions,
    /// `--budget`, when given.
    pub(crate) budget_ms: Option<u64>,
    /// `--deterministic`: budgets count work units, not wall time.
    deterministic: bool,
}

/// `--seed N` of `plan`, `bench`, `npu` and `bench-npu`.
fn parse_seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("--seed: `{text}` is not a number"))
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
    pub(crate) fn take(
        &mut self,
        arg: &Token,
        args: &mut lexopt::Parser,
    ) -> Result<bool, Box<dyn std::error::Error>> {
        let Token::Long(name) = arg else {
            return Ok(false);
        };
        match name.as_str() {
            "align" => {
                let text = args.value()?.string()?;
                self.opts.pack.align = PackOptions::new(formats::parse_size(&text)?)?.align;
            }
            "budget" => {
                let ms = args.value()?.string()?;
                let ms = ms
                    .parse::<u64>()
                    .map_err(|_| format!("--budget: `{ms}` is not a number of milliseconds"))?;
                self.budget_ms = Some(ms);
                self.opts.pack.budget_ms = ms;
            }
            "deterministic" => self.deterministic = true,
            "seed" => self.opts.pack.seed = parse_seed(&args.value()?.string()?)?,
            "capacity" => {
                let text = args.value()?.string()?;
                self.opts.pack.capacity = Some(formats::parse_size(&text)?);
            }
            "order" => self.opts.order = OrderKind::from_name(&args.value()?.string()?)?,
            "keep-outputs" => self.opts.live = LiveOptions { keep_outputs: true },
            "format" => self.format = Some(Format::from_name(&args.value()?.string()?)?),
            "input-shape" => {
                (self.read.input_shapes).push(formats::parse_input_shape(&args.value()?.string()?)?)
            }
            "value-shape" => {
                (self.read.value_shapes).push(formats::parse_input_shape(&args.value()?.string()?)?)
            }
            "no-declared" => self.read.no_declared = true,
            "dim" => (self.read.dims).push(formats::parse_dim(&args.value()?.string()?)?),
            "device" => {
                let d = args.value()?.string()?;
                let d = (d.parse::<u32>())
                    .map_err(|_| format!("--device: `{d}` is not a device number"))?;
                self.read.device = Some(d);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn plan(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let (mut file, mut strategy, mut json) = (None::<PathBuf>, Strategy::Auto, None::<String>);
    let mut svg = None::<String>;
    let mut progress = false;
    while let Some(arg) = Token::next(args)? {
        if common.take(&arg, args)? {
            continue;
        }
        match arg {
            Token::Long(l) if l == "strategy" => {
                strategy = Strategy::from_name(&args.value()?.string()?)?
            }
            Token::Long(l) if l == "json" => json = Some(args.value()?.string()?),
            Token::Long(l) if l == "svg" => svg = Some(args.value()?.string()?),
            Token::Long(l) if l == "progress" => progress = true,
            Token::Value(v) if file.is_none() => file = Some(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    let file = file.ok_or("plan: missing FILE")?;
    if common.format.is_none_or(|f| f == Format::Snapshot) && snapshot::is_snapshot_file(&file) {
        return plan_snapshot(&file, strategy, &common, json, svg);
    }
    let graph = load(&file, common.format, &common.read)?;
    let analysis = memplan::analyse(&graph, &common.opts)?;
    let budget_ms = common.budget_ms.unwrap_or(PLAN_BUDGET_MS) as f64;
    let mut show = |p: &memplan::pack::Progress| {
        eprintln!(
            "{:>9.1} ms  {:<16} peak {} (bound {})",
            p.elapsed_ms.unwrap_or(0.0),
            p.phase,
            p.best_peak,
            p.lower_bound
        )
    };
    let mut budget = common.budget(budget_ms);
    if progress {
        budget = budget.with_progress(&mut show);
    }
    let nested = report::nested_reports(&graph, strategy, &common.opts)?;
    let mut plan_report = analysis.report(&graph, strategy, &mut budget);
    plan_report.valid &= nested.iter().all(|n| n.report.valid);
    let plan = &plan_report.plan;
    let reordered = plan.order_kind != common.opts.order.name();
    let ordered = if reordered {
        let opts = Options {
            order: OrderKind::Memory,
            ..common.opts
        };
        memplan::analyse(&graph, &opts)?
    } else {
        analysis.clone()
    };
    if let Some(path) = svg {
        let doc = memplan_render::svg(plan, &plan_report.profile, 960, 720)?;
        std::fs::write(&path, doc).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    let doc = report::plan_json(&graph, &plan_report, &nested);
    let text = || {
        print!(
            "{}",
            report::plan_text(&graph, plan, &plan_report.violations)
        );
        print!("{}", search_text(&analysis, &ordered, plan, &common.opts));
        if plan_report.over_budget {
            println!(
                "budget       {budget_ms} ms exceeded by more than a tenth: the whole greedy \
                 passes a search always makes (one; two for auto) take longer on this graph"
            );
        }
        print!("{}", report::nested_text(&graph, &nested));
    };
    match json.as_deref() {
        Some("-") => println!("{}", serde_json::to_string_pretty(&doc)?),
        Some(path) => {
            std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
                .map_err(|e| format!("cannot write {path}: {e}"))?;
            text();
        }
        None => text(),
    }
    Ok(if plan_report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `plan` on a PyTorch memory snapshot.
fn plan_snapshot(
    file: &Path,
    strategy: Strategy,
    common: &Common,
    json: Option<String>,
    svg: Option<String>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let snap = snapshot::load(file, common.read.device)?;
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("snapshot");
    let budget_ms = common.budget_ms.unwrap_or(PLAN_BUDGET_MS) as f64;
    let planned = snapshot::plan(snap, stem, strategy, common, budget_ms)?;
    if let Some(path) = svg {
        // the allocator's real layout over memplan's plan of the same blocks
        let (plan, profile) = (&planned.report.plan, &planned.report.profile);
        let doc = memplan_render::svg_pair(&planned.snap.layout(plan), plan, profile, 960, 1440)?;
        std::fs::write(&path, doc).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    // the plan report as for any graph (a plan file `check` reads), and the snapshot's section
    let mut doc = serde_json::to_value(report::plan_json(&planned.graph, &planned.report, &[]))?;
    doc["snapshot"] = serde_json::to_value(&planned.summary)?;
    match json.as_deref() {
        Some("-") => println!("{}", serde_json::to_string_pretty(&doc)?),
        Some(path) => {
            std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
                .map_err(|e| format!("cannot write {path}: {e}"))?;
            print!("{}", snapshot::text(&planned));
        }
        None => print!("{}", snapshot::text(&planned)),
    }
    Ok(if planned.report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What the searching strategies add to the report: proof, capacity, orders.
fn search_text(
    analysis: &memplan::Analysis,
    ordered: &memplan::Analysis,
    plan: &memplan::Plan,
    opts: &Options,
) -> String {
    let mut s = String::new();
    if plan.proven_optimal {
        s += "proof        optimal on this order\n";
    } else if plan.proven_bound > plan.lower_bound {
        s += &format!("proof        no plan below {} B\n", plan.proven_bound);
    }
    if let Some(cap) = opts.pack.capacity {
        if plan.peak_bytes <= cap {
            s += &format!("capacity     fits in {cap} B\n");
        } else {
            let over = plan.peak_bytes - cap;
            let proven = if plan.proven_bound > cap {
                ", proven impossible"
            } else {
                ""
            };
            s += &format!(
                "capacity     does not fit in {cap} B: {over} B over ({:.4}x){proven}\n",
                plan.peak_bytes as f64 / cap as f64
            );
        }
    }
    if plan.order != analysis.order.iter().map(|o| o.0).collect::<Vec<_>>() {
        s += &format!(
            "orders       {} bound {} B, {} bound {} B\n",
            opts.order.name(),
            analysis.liveness.lower_bound,
            plan.order_kind,
            ordered.liveness.lower_bound
        );
    }
    s
}

/// `memplan export`: the graph as memplan's JSON, memplan text (`--format text`
/// or `--text`) or MiniMalloc CSV (`--format minimalloc`: each arena buffer's
/// lifetime on the graph's order, so other planners can be run on it).
fn export(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let (mut file, mut out) = (None::<PathBuf>, None::<String>);
    let mut to = "json".to_string();
    while let Some(arg) = Token::next(args)? {
        match arg {
            Token::Long(l) if l == "out" => out = Some(args.value()?.string()?),
            Token::Long(l) if l == "text" => to = "text".into(),
            Token::Long(l) if l == "format" => to = args.value()?.string()?,
            Token::Value(v) if file.is_none() => file = Some(v.into()),
            other if common.take(&other, args)? => {}
            other => return Err(other.unexpected()),
        }
    }
    let file = file.ok_or("export: missing FILE")?;
    let case = npu_check::case_at(&file)?;
    let text = match (case, to.as_str()) {
        (Some(case), "json") => formats::npu::write_json(&case),
        (Some(_), other) => {
            return Err(format!(
                "{}: an NPU case is written as contest JSON, not as {other}",
                file.display()
            )
            .into())
        }
        (None, "json") => formats::write_native(&load(&file, None, &common.read)?),
        (None, "text") => formats::write_text(&load(&file, None, &common.read)?)
            .map_err(|e| format!("{}: {e}", file.display()))?,
        (None, "minimalloc") => {
            let graph = load(&file, None, &common.read)?;
            let order =
                memplan::order::topological_for(&graph, common.opts.order, common.opts.live)?;
            let live = memplan::liveness::analyse(&graph, &order, common.opts.live)?;
            formats::write_minimalloc(&live.buffers)
        }
        (None, other) => {
            return Err(format!(
                "export: unknown output format `{other}` (expected json, text or minimalloc)"
            )
            .into())
        }
    };
    match out.as_deref() {
        None | Some("-") => print!("{text}"),
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: &mut lexopt::Parser) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut common = Common::default();
    let mut files: Vec<PathBuf> = Vec::new();
    while let Some(arg) = Token::next(args)? {
        if common.take(&arg, args)? {
            continue;
        }
        match arg {
            Token::Value(v) if files.len() < 2 => files.push(v.into()),
            other => return Err(other.unexpected()),
        }
    }
    let [graph_file, plan_file] =
        <[PathBuf; 2]>::try_from(files).map_err(|_| "check: expected FILE and PLAN.json")?;
    let graph = load(&graph_file, common.format, &common.read)?;
    let plan = report::read_plan(&read_file(&plan_file)?)
        .map_err(|e| format!("{}: {e}", plan_file.display()))?;
    let violations = memplan::check::check(&graph, &plan);
    for v in &violations {
        println!("violation: {v}");
    }
    println!("{}: {} violation(s)", plan_file.display(), violations.len());
    Ok(if violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The files named, and those of the directories named that `keep` accepts (each
/// directory's sorted), for the bench commands.
pub(crate) fn files_in(
    inputs: &[PathBuf],
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            files.push(input.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(input)
            .map_err(|e| format!("cannot read {}: {e}", input.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| keep(p))
            .collect();
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::usage(format!("cannot read {}: {e}", path.display())))?;
    if meta.len() > formats::MAX_INPUT_BYTES as u64 {
        return Err(Error::limit(
            format!("the size of {}", path.display()),
            meta.len(),
            formats::MAX_INPUT_BYTES as u64,
        ));
    }
    std::fs::read(path).map_err(|e| Error::usage(format!("cannot read {}: {e}", path.display())))
}

/// Reads and parses one graph file (an ONNX model by ranges, without its
/// weights); errors name the file.
fn load(path: &Path, format: Option<Format>, read: &ReadOptions) -> Result<Graph, Error> {
    let src = file_source::FileSource::open(path)?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("graph");
    formats::read_source(&src, format, stem, read)
        .map_err(|e| Error::usage(format!("{}: {e}", path.display())))
}
