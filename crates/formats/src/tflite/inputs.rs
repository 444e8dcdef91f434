//! The inputs of subgraph 0: their free dimensions (`shape_signature`, `--dim`)
//! and the shapes `--input-shape` and `--dim` give them.

use super::{Budget, TensorInfo};
use crate::import;
use crate::ReadOptions;
use memplan::error::Error;
use memplan::graph::FreeDim;
use std::collections::HashMap;

/// The free dimensions of subgraph 0's inputs and the new shapes of the inputs
/// the options change; unknown names in the options are errors that list the
/// names the model has.
#[allow(clippy::type_complexity)]
pub(super) fn main_inputs(
    tensors: &[TensorInfo],
    inputs: &[usize],
    opts: &ReadOptions,
    budget: &mut Budget,
) -> Result<(Vec<FreeDim>, Vec<(usize, Vec<i64>, bool)>), Error> {
    // a constant listed as an input is a weight, not something the user feeds
    let mut listed = vec![false; tensors.len()];
    let fed: Vec<usize> = inputs
        .iter()
        .copied()
        .filter(|&t| !tensors[t].konst && !std::mem::replace(&mut listed[t], true))
        .collect();
    for (missing, _) in &opts.input_shapes {
        if !fed.iter().any(|&t| &tensors[t].name == missing) {
            let names: Vec<&str> = fed.iter().map(|&t| tensors[t].name.as_str()).collect();
            return Err(Error::usage(format!(
                "a shape is given for input `{missing}`, which is not an input of the model (inputs: {})",
                names.join(", ")
            )));
        }
    }
    let whole = |t: usize| {
        opts.input_shapes
            .iter()
            .find(|(n, _)| n == &tensors[t].name)
            .map(|(_, d)| d)
    };
    let mut free: Vec<FreeDim> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &t in &fed {
        let info = &tensors[t];
        if whole(t).is_some() {
            continue;
        }
        let dynamic = info.signature.iter().flatten().enumerate();
        for (axis, _) in dynamic.filter(|(_, &d)| d < 0) {
            let name = format!("{}:{axis}", info.name);
            let at = format!("{}[{axis}]", info.name);
            budget.spend(2 * name.len() + at.len() + 32)?;
            if let Some(&i) = index.get(&name) {
                // two inputs of one name
                free[i].at.push(at);
                continue;
            }
            // where the signature says -1, TFLite's converter leaves a placeholder
            // in `shape` (1 for a batch exported as None, else the size the model
            // was traced with): that is the default, so a model imports as it
            // always has when no --dim is given; a placeholder of 0 or less reads 1
            let stored = info
                .dims
                .get(axis)
                .copied()
                .filter(|&d| d > 0)
                .map_or(1, |d| d as u64);
            let given = opts.dims.iter().find(|(n, _)| n == &name).map(|d| d.1);
            index.insert(name.clone(), free.len());
            free.push(FreeDim {
                name,
                value: given.unwrap_or(stored),
                given: given.is_some(),
                raised: false,
                at: vec![at],
            });
        }
    }
    if let Some((unknown, _)) = opts.dims.iter().find(|(n, _)| !index.contains_key(n)) {
        return Err(import::unknown_dim(unknown, &free));
    }
    let too_large = |what: String, d: u64| Error::usage(format!("{what} = {d} is too large"));
    let mut set = Vec::new();
    for &t in &fed {
        let info = &tensors[t];
        let dims = match (whole(t), &info.signature) {
            (Some(dims), _) => dims
                .iter()
                .map(|&d| {
                    i64::try_from(d)
                        .map_err(|_| too_large(format!("a dimension of input `{}`", info.name), d))
                })
                .collect::<Result<Vec<_>, _>>()?,
            (None, Some(sig)) if sig.iter().any(|&d| d < 0) => {
                let mut dims = Vec::with_capacity(sig.len());
                for (axis, &d) in sig.iter().enumerate() {
                    let stored = info.dims.get(axis).copied();
                    dims.push(match (d, stored) {
                        (d, _) if d < 0 => {
                            let name = format!("{}:{axis}", info.name);
                            let v = index
                                .get(&name)
                                .and_then(|&i| free.get(i))
                                .map_or(1, |f| f.value);
                            i64::try_from(v).map_err(|_| too_large(format!("`{name}`"), v))?
                        }
                        // the stored shape wins where both are static and the
                        // ranks agree
                        (_, Some(s)) if sig.len() == info.dims.len() => s,
                        (d, _) => d,
                    });
                }
                dims
            }
            _ => continue,
        };
        // a dynamic input is set even at its placeholder (see `Given::Options`)
        let dynamic = info.signature.iter().flatten().any(|&d| d < 0);
        if dims != info.dims || dynamic {
            set.push((t, dims, dynamic));
        }
    }
    Ok((free, set))
}
