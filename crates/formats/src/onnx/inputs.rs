//! What a graph starts from: its weights (initializers), the declared types of
//! its values, and its inputs' shapes with their free dimensions (`--dim`,
//! `--input-shape`).

use super::shape::{Data, Info};
use super::{proto, Options, Source, F};
use crate::import;
use memplan::error::Error;
use memplan::graph::FreeDim;

pub(super) fn weight(t: &proto::Tensor) -> Info {
    Info {
        dtype: t.data_type,
        shape: t.dims.clone(),
        seq: None,
        data: t
            .ints
            .clone()
            .map(Data::Int)
            .or_else(|| t.floats.clone().map(Data::Float)),
        konst: true,
        bounded: false,
    }
}

/// A declared type whose shape is fully known.
pub(super) fn static_shape(v: &proto::ValueInfo) -> Option<(i32, Vec<i64>)> {
    if v.kind != Some(proto::TypeKind::Tensor) {
        return None;
    }
    let dims = v.shape.as_ref()?;
    let shape = dims
        .iter()
        .map(|d| d.filter(|&d| d >= 0))
        .collect::<Option<Vec<_>>>()?;
    Some((v.elem_type, shape))
}

/// The name of a free dimension: its `dim_param`, or `INPUT:AXIS` when unnamed.
pub(super) fn dim_name(v: &proto::ValueInfo, axis: usize) -> String {
    match v.params.get(axis) {
        Some(p) if !p.is_empty() => p.clone(),
        _ => format!("{}:{axis}", v.name),
    }
}

/// The free dimensions of the graph inputs, with the values `--dim` gives (else
/// 1); a `--dim` name that none of them has is an error listing those it has.
pub(super) fn free_dims<'a>(
    inputs: impl Iterator<Item = &'a proto::ValueInfo>,
    opts: &Options,
) -> Result<Vec<FreeDim>, Error> {
    let mut free: Vec<FreeDim> = Vec::new();
    for v in inputs {
        let whole = opts.input_shapes.iter().any(|(n, _)| n == &v.name);
        for (axis, d) in v.shape.iter().flatten().enumerate() {
            if d.is_some_and(|d| d >= 0) || whole {
                continue;
            }
            let name = dim_name(v, axis);
            let at = format!("{}[{axis}]", v.name);
            match free.iter_mut().find(|f| f.name == name) {
                Some(f) => f.at.push(at),
                None => {
                    let given = opts.dims.iter().find(|(n, _)| n == &name).map(|d| d.1);
                    free.push(FreeDim {
                        name,
                        value: given.unwrap_or(1),
                        given: given.is_some(),
                        raised: false,
                        at: vec![at],
                    });
                }
            }
        }
    }
    if let Some((unknown, _)) = opts
        .dims
        .iter()
        .find(|(n, _)| !free.iter().any(|f| &f.name == n))
    {
        return Err(import::unknown_dim(unknown, &free));
    }
    Ok(free)
}

pub(super) fn graph_input(
    v: &proto::ValueInfo,
    opts: &Options,
    free: &[FreeDim],
) -> Result<(Info, Source), Error> {
    // an input the file gives no shape may have one as a value's bound
    let given = (opts.input_shapes.iter().find(|(n, _)| n == &v.name)).or_else(|| {
        (opts.value_shapes.iter())
            .find(|(n, _)| n == &v.name)
            .filter(|_| v.shape.is_none())
    });
    let (shape, source) = match (given, &v.shape) {
        (Some((_, dims)), _) => (
            dims.iter()
                .map(|&d| {
                    i64::try_from(d).map_err(|_| {
                        Error::usage(format!("dimension {d} of input `{}` is too large", v.name))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
            Source::User,
        ),
        (None, Some(dims)) => {
            let mut shape = Vec::with_capacity(dims.len());
            for (axis, d) in dims.iter().enumerate() {
                let value = match d.filter(|&d| d >= 0) {
                    Some(d) => d,
                    None => {
                        let name = dim_name(v, axis);
                        let f = free.iter().find(|f| f.name == name).map_or(1, |f| f.value);
                        i64::try_from(f).map_err(|_| {
                            Error::usage(format!("dimension `{name}` = {f} is too large"))
                        })?
                    }
                };
                shape.push(value);
            }
            (shape, Source::Declared)
        }
        (None, None) => {
            return Err(Error::needs_shape(
                F,
                Some(format!("input `{}`", v.name)),
                &v.name,
                "the model gives no shape for this input, so it needs one",
            ))
        }
    };
    Ok((Info::new(v.elem_type, shape), source))
}
