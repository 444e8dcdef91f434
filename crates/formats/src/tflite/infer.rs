//! Propagating a changed shape through one operator by its rule in
//! [`shapes`](super::shapes), with errors that say which input changed.

use super::shapes::{self, show, In, MAX_RANK, MAX_VALUE};
use super::{err, op_at, OpInfo, Reader, State, TensorInfo, INT32, INT64};
use memplan::error::Error;

impl Reader<'_> {
    /// Applies the shape rule of op `k`, which a changed shape reaches.
    pub(super) fn infer(
        &mut self,
        s: usize,
        k: usize,
        op: &OpInfo,
        tensors: &[TensorInfo],
        st: &mut State,
    ) -> Result<(), Error> {
        let at = || op_at(s, k, &op.kind);
        let changed = op.inputs.iter().flatten().copied().find(|&t| st.changed[t]);
        let why = match changed {
            Some(t) if st.dims[t] == tensors[t].dims => format!(
                "its input `{}` holds values computed from a changed shape",
                tensors[t].name
            ),
            Some(t) => format!(
                "its input `{}` is now {} (stored {})",
                tensors[t].name,
                show(&st.dims[t]),
                show(&tensors[t].dims)
            ),
            None => "its inputs changed".to_string(),
        };
        let Some(rule) = shapes::rule(&op.kind) else {
            return Err(err(
                at(),
                format!(
                    "memplan has no shape rule for {}, and {why}: give input shapes that leave it unchanged",
                    op.kind
                ),
            ));
        };
        for &t in op.inputs.iter().flatten() {
            self.load(t, &tensors[t], st)?;
            let d = &st.dims[t];
            if d.len() > MAX_RANK || d.iter().any(|&x| x < 0) {
                return Err(err(
                    at(),
                    format!(
                        "its input `{}` has shape {}, which memplan cannot propagate (a negative size or a rank above {MAX_RANK})",
                        tensors[t].name,
                        show(d)
                    ),
                ));
            }
        }
        let outs = {
            let ins: Vec<Option<In>> = op
                .inputs
                .iter()
                .map(|i| {
                    i.map(|t| In {
                        dims: &st.dims[t],
                        value: st.values[t].as_deref(),
                    })
                })
                .collect();
            let ctx = shapes::Ctx {
                inputs: &ins,
                outputs: op.outputs.len(),
                opts: op.opts,
                custom: op.custom.as_deref(),
            };
            rule(&ctx).map_err(|m| err(at(), format!("{m}; {why}")))?
        };
        if outs.len() != op.outputs.len() {
            return Err(err(
                at(),
                format!(
                    "its shape rule gives {} outputs, but it has {}",
                    outs.len(),
                    op.outputs.len()
                ),
            ));
        }
        for (o, out) in op.outputs.iter().zip(outs) {
            let Some(t) = *o else { continue };
            if out.dims.len() > MAX_RANK || out.dims.iter().any(|&d| d < 0) {
                return Err(err(
                    at(),
                    format!(
                        "its output `{}` would have shape {}; {why}",
                        tensors[t].name,
                        show(&out.dims)
                    ),
                ));
            }
            let int = matches!(tensors[t].kind, INT32 | INT64);
            let value = out.value.filter(|v| int && v.len() <= MAX_VALUE);
            self.budget
                .spend(8 * (out.dims.len() + value.as_ref().map_or(0, Vec::len)))?;
            st.loaded[t] = true;
            st.changed[t] = out.dims != tensors[t].dims || value.is_some() || st.dynamic[t];
            st.dims[t] = out.dims;
            st.values[t] = value;
        }
        Ok(())
    }
}
