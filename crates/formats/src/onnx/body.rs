//! The bodies of control-flow ops (`If` branches, `Loop` and `Scan` bodies):
//! each walked in a frame of its own and built as a graph of its own, with the
//! names it reads from enclosing graphs.

use super::inputs::{graph_input, weight};
use super::ops::Bodies;
use super::shape::Info;
use super::{proto, Frame, Options, Source, Walker};
use crate::import;
use memplan::error::Error;

impl Bodies for Walker<'_> {
    fn walk(
        &mut self,
        attr: &str,
        body: &proto::Graph,
        inputs: Vec<Info>,
    ) -> Result<Vec<Info>, String> {
        let pending = std::mem::take(&mut self.pending);
        self.frames.push(Frame::default());
        let result = self.walk_body(body, inputs);
        let frame = self.frames.pop().expect("the body's frame");
        self.pending = pending;
        let outputs = result.map_err(|e| format!("in its `{attr}`: {e}"))?;
        let out_ids: Vec<usize> = body.outputs.iter().map(|v| frame.index[&v.name]).collect();
        let graph = import::build(
            body.name.clone(),
            frame.values,
            &frame.nodes,
            &frame.inputs,
            &out_ids,
        )
        .map(|mut g| {
            g.subgraphs = frame.subgraphs;
            g
        })
        .map_err(|e| format!("in its `{attr}`: {e}"))?;
        self.pending.push((attr.to_string(), graph, frame.captured));
        Ok(outputs)
    }

    fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    fn branch_cannot_run(&mut self, text: String) {
        self.branches_left_out += 1;
        self.notes.push(text);
    }
}

impl Walker<'_> {
    fn walk_body(&mut self, body: &proto::Graph, inputs: Vec<Info>) -> Result<Vec<Info>, Error> {
        for t in &body.initializers {
            self.define(&t.name, weight(t), Source::Weight)?;
        }
        for (i, v) in body.inputs.iter().enumerate() {
            let info = match inputs.get(i) {
                Some(info) => info.clone(),
                None => graph_input(v, &Options::default(), &[])?.0,
            };
            let id = self.define(&v.name, info, Source::Inferred)?;
            self.top().inputs.push(id);
        }
        self.walk_nodes(body, false)?;
        body.outputs
            .iter()
            .map(|v| {
                let id = self.lookup(&v.name).ok_or_else(|| {
                    Error::invalid(format!("subgraph output `{}` is never produced", v.name))
                })?;
                Ok(self.top().infos[id].clone())
            })
            .collect()
    }
}
