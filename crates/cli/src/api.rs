//! The work of `memplan plan` without printing, for the Python package
//! (crates/python): the same flags, the same plan, the same JSON as the command.

pub use crate::html::{standalone, Page};
pub use crate::plan::{Input, Outcome};

/// Plans `input` with `flags`, given as to `memplan plan` (`--strategy best-fit`,
/// `--dim batch=1`, `--capacity 16GiB` ...); `--json`, `--svg` and `--progress`
/// are not read. The error is memplan's message.
pub fn plan(input: &Input, flags: &[String]) -> Result<Outcome, String> {
    let args = crate::flags::plan_flags(flags).map_err(|e| e.to_string())?;
    crate::plan::outcome(input, &args).map_err(|e| e.to_string())
}

/// The independent checker's violations of the outcome's plan; none when it is
/// valid.
pub fn check(outcome: &Outcome) -> Vec<String> {
    memplan::check::check(&outcome.graph, &outcome.report.plan)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The snapshot in `input` replayed through the caching allocator's model under
/// `conf` (`PYTORCH_CUDA_ALLOC_CONF`'s text; `None`: the recorded settings) with
/// at most `capacity` reserved (a size, `6GiB`): the JSON `memplan replay --json`
/// writes.
pub fn replay(
    input: &Input,
    conf: Option<&str>,
    capacity: Option<&str>,
    device: Option<u32>,
) -> Result<String, String> {
    let snap = snapshot_of(input, device)?;
    let conf = conf
        .map(memplan_torch::AllocConf::parse)
        .transpose()
        .map_err(|e| e.to_string())?;
    let cap = size_of(capacity)?;
    let r = memplan_torch::what_if(&snap, conf.as_ref(), cap).map_err(|e| e.to_string())?;
    serde_json::to_string(&r).map_err(|e| e.to_string())
}

/// The sweep `memplan replay --sweep --json` writes, with memplan's checked plan of
/// the blocks as the floor.
pub fn sweep(input: &Input, capacity: Option<&str>, device: Option<u32>) -> Result<String, String> {
    let snap = snapshot_of(input, device)?;
    let cap = size_of(capacity)?;
    let floor = crate::replay::plan_floor(&snap).map_err(|e| e.to_string())?;
    let sw = memplan_torch::sweep::sweep(&snap, cap, floor).map_err(|e| e.to_string())?;
    serde_json::to_string(&sw).map_err(|e| e.to_string())
}

fn snapshot_of(
    input: &Input,
    device: Option<u32>,
) -> Result<memplan_formats::snapshot::Snapshot, String> {
    match input {
        Input::Path(p) => crate::snapshot::load(p, device, None).map_err(|e| e.to_string()),
        Input::Bytes { data, .. } => {
            memplan_formats::snapshot::read_stream(*data, device).map_err(|e| e.to_string())
        }
    }
}

fn size_of(text: Option<&str>) -> Result<Option<u64>, String> {
    text.map(|t| memplan_formats::parse_size(t).map_err(|e| format!("capacity: {e}")))
        .transpose()
}
