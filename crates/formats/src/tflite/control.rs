//! The control ops `IF`, `WHILE` and `CALL_ONCE`: the subgraphs each calls,
//! built with its inputs' shapes, and the shapes of its outputs from theirs.

use super::shapes::show;
use super::{err, op_at, Given, OpInfo, Reader, State, TensorInfo};
use memplan::error::Error;
use memplan::graph::Graph;

impl Reader<'_> {
    /// Builds the subgraphs that control op `k` calls, with its inputs' shapes
    /// when a changed shape reaches it, and gives its outputs their shapes; a
    /// note when an `IF`'s branches disagree.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(
        &mut self,
        s: usize,
        k: usize,
        op: &OpInfo,
        tensors: &[TensorInfo],
        st: &mut State,
        visit: bool,
        calls: &mut Vec<(usize, &'static str, Graph)>,
    ) -> Result<Option<String>, Error> {
        let at = || op_at(s, k, &op.kind);
        let Some((union_type, table, fields)) = control(&op.kind) else {
            return Ok(None);
        };
        if op.opts_type != union_type {
            return Err(err(at(), format!("it has no {table}")));
        }
        // IF's input 0 is its condition; the branches take the rest
        let skip = usize::from(op.kind == "IF");
        let args = op
            .inputs
            .iter()
            .skip(skip)
            .map(|i| i.map(|t| st.dims[t].clone()))
            .collect::<Option<Vec<_>>>();
        let mut results = Vec::with_capacity(fields.len());
        for &(field, attribute) in fields {
            let index = op.opts.int(field, 0).map_err(|m| err(at(), m))?;
            let index = usize::try_from(index)
                .ok()
                .filter(|&i| i < self.subgraphs.len())
                .ok_or_else(|| {
                    err(
                        at(),
                        format!(
                            "its {attribute} subgraph {index} does not exist (the model has {})",
                            self.subgraphs.len()
                        ),
                    )
                })?;
            let given = match (&args, visit && attribute != "init") {
                (Some(args), true) => Given::Dims(args.clone()),
                (None, true) => return Err(err(at(), "an input it passes on is absent (-1)")),
                _ => Given::Stored,
            };
            let built = self.subgraph(index, None, given)?;
            results.push(built.outputs);
            calls.push((k, attribute, built.graph));
        }
        if !visit {
            return Ok(None);
        }
        let mut note = None;
        let outs: Vec<Vec<i64>> = match (op.kind.as_str(), results.as_slice()) {
            ("IF", [then, other]) => {
                if then != other {
                    let place = op_at(s, k, &op.kind).unwrap_or_default();
                    note = Some(format!(
                        "{place}: its branches give outputs of different shapes; memplan plans the larger size on each axis"
                    ));
                }
                branches(then, other).map_err(|m| err(at(), m))?
            }
            ("WHILE", [_, body]) => {
                let args = args.unwrap_or_default();
                if *body != args {
                    return Err(err(
                        at(),
                        "its body gives its loop values other shapes than it takes, which a static plan cannot hold",
                    ));
                }
                args
            }
            _ => return Ok(None),
        };
        if outs.len() != op.outputs.len() {
            return Err(err(
                at(),
                format!(
                    "it has {} outputs, but its subgraphs give {}",
                    op.outputs.len(),
                    outs.len()
                ),
            ));
        }
        for (o, d) in op.outputs.iter().zip(outs) {
            if let Some(t) = *o {
                st.set(t, d, &tensors[t].dims);
            }
        }
        Ok(note)
    }
}

/// The options of a control op: union type, table name, and the fields that
/// hold subgraph indices with the attribute each becomes.
type Control = (u8, &'static str, &'static [(usize, &'static str)]);

pub(super) fn control(kind: &str) -> Option<Control> {
    match kind {
        "IF" => Some((92, "IfOptions", &[(0, "then"), (1, "else")])),
        "WHILE" => Some((93, "WhileOptions", &[(0, "cond"), (1, "body")])),
        "CALL_ONCE" => Some((103, "CallOnceOptions", &[(0, "init")])),
        _ => None,
    }
}

/// The shapes of an `IF`'s outputs: the branches' where they agree, else the
/// larger size on each axis (the plan holds either branch's result).
fn branches(then: &[Vec<i64>], other: &[Vec<i64>]) -> Result<Vec<Vec<i64>>, String> {
    if then.len() != other.len() {
        return Err(format!(
            "its branches give {} and {} outputs",
            then.len(),
            other.len()
        ));
    }
    then.iter()
        .zip(other)
        .map(|(a, b)| {
            if a.len() != b.len() {
                return Err(format!(
                    "its branches give outputs of shapes {} and {}",
                    show(a),
                    show(b)
                ));
            }
            Ok(a.iter().zip(b).map(|(&x, &y)| x.max(y)).collect())
        })
        .collect()
}
