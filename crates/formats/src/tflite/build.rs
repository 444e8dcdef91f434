//! Building one subgraph: its tensors and operators read, the shapes of its
//! inputs given (by the options, by a caller, or as stored) and propagated op
//! by op, then its graph with the subgraphs its control ops call.

use super::control::control;
use super::inputs::main_inputs;
use super::{err, Built, Given, Reader, State, FORMAT, MAX_DEPTH};
use crate::import::{self, Node, Value};
use memplan::error::Error;
use memplan::graph::{Graph, Subgraph};

impl Reader<'_> {
    /// Builds subgraph `index` (named `name`, else by the file), refusing a
    /// subgraph that calls itself.
    pub(super) fn subgraph(
        &mut self,
        index: usize,
        name: Option<String>,
        given: Given,
    ) -> Result<Built, Error> {
        if let Some(first) = self.stack.iter().position(|&s| s == index) {
            let path: Vec<String> = self.stack[first..]
                .iter()
                .chain([&index])
                .map(|s| s.to_string())
                .collect();
            return Err(err(
                None,
                format!(
                    "subgraph {index} calls itself (subgraph {})",
                    path.join(" -> ")
                ),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(err(
                None,
                format!("subgraph calls nest more than {MAX_DEPTH} deep"),
            ));
        }
        self.stack.push(index);
        let built = self.build(index, name, given);
        self.stack.pop();
        built
    }

    fn build(&mut self, s: usize, name: Option<String>, given: Given) -> Result<Built, Error> {
        // every build is paid for, so that subgraphs called many times over
        // cannot make the reader slow
        self.budget.spend(64)?;
        if s >= self.subgraphs.len() {
            return Err(err(
                None,
                format!(
                    "subgraph {s} does not exist (the model has {})",
                    self.subgraphs.len()
                ),
            ));
        }
        let sub = self.subgraphs.table(s)?;
        let list = sub
            .vector(0, 4)?
            .ok_or_else(|| err(None, format!("subgraph {s} has no tensors")))?;
        let mut tensors = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            tensors.push(self.tensor(&list.table(i)?, i)?);
        }
        let n = tensors.len();
        let mut ops = Vec::new();
        if let Some(list) = sub.vector(3, 4)? {
            ops.reserve(list.len());
            for k in 0..list.len() {
                ops.push(self.operator(&list, k, s, n)?);
            }
        }
        let inputs = self.indices(sub.vector(1, 4)?, s, n, "graph input")?;
        let outputs = self.indices(sub.vector(2, 4)?, s, n, "graph output")?;
        let name = match name {
            Some(name) => name,
            None => sub
                .string(4)?
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("subgraph{s}")),
        };
        self.budget.spend(name.len())?;

        let mut st = State::new(&tensors);
        let free = match given {
            Given::Options(opts, from_inputs) => {
                let (free, set) = main_inputs(&tensors, &inputs, opts, &mut self.budget)?;
                for (t, dims, dynamic) in set {
                    st.set(t, dims, &tensors[t].dims);
                    // at its placeholder, a dynamic input still reaches tensors
                    // whose stored shapes are placeholders too
                    st.changed[t] |= dynamic && from_inputs;
                }
                if from_inputs {
                    for (d, t) in st.dynamic.iter_mut().zip(&tensors) {
                        *d = t.signature.iter().flatten().any(|&x| x < 0);
                    }
                }
                free
            }
            Given::Dims(dims) => {
                if dims.len() != inputs.len() {
                    return Err(err(
                        None,
                        format!(
                            "subgraph {s} has {} inputs, but its caller passes {}",
                            inputs.len(),
                            dims.len()
                        ),
                    ));
                }
                for (&t, d) in inputs.iter().zip(dims) {
                    st.set(t, d, &tensors[t].dims);
                }
                Vec::new()
            }
            Given::Stored => Vec::new(),
        };
        let mut calls: Vec<(usize, &'static str, Graph)> = Vec::new();
        let mut notes = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            let visit = op.inputs.iter().flatten().any(|&t| st.changed[t]);
            if control(&op.kind).is_some() {
                notes.extend(self.call(s, k, op, &tensors, &mut st, visit, &mut calls)?);
            } else if visit {
                self.infer(s, k, op, &tensors, &mut st)?;
            }
        }

        let mut values = Vec::with_capacity(n);
        for (t, dims) in tensors.iter().zip(&st.dims) {
            values.push(Value {
                bytes: import::tensor_bytes(FORMAT, &t.name, dims, t.bits)?,
                name: t.name.clone(),
                konst: t.konst,
            });
        }
        let mut nodes: Vec<Node> = ops
            .iter()
            .map(|op| Node {
                name: None,
                kind: op.kind.clone(),
                inputs: op.inputs.iter().flatten().copied().collect(),
                outputs: op.outputs.iter().flatten().copied().collect(),
                folded: false,
            })
            .collect();
        // a control op never folds, even with constant inputs: its subgraphs run
        for run in nodes.split_mut(|n| control(&n.kind).is_some()) {
            import::fold(&mut values, run);
        }
        let out_dims = outputs.iter().map(|&o| st.dims[o].clone()).collect();
        let mut graph = import::build(name, values, &nodes, &inputs, &outputs)?;
        // the graph keeps the ops that are not folded, in order
        let mut step = vec![None; nodes.len()];
        let mut kept = 0;
        for (k, node) in nodes.iter().enumerate() {
            if !node.folded {
                step[k] = Some(kept);
                kept += 1;
            }
        }
        for (k, attribute, body) in calls {
            let op = step[k]
                .and_then(|j| graph.ops.get(j))
                .map_or_else(|| ops[k].kind.clone(), |o| o.name.clone());
            graph.subgraphs.push(Subgraph {
                op,
                attribute: attribute.to_string(),
                graph: body,
            });
        }
        graph.free_dims = free;
        graph.notes = notes;
        Ok(Built {
            graph,
            outputs: out_dims,
        })
    }
}
