//! The walker's value table: a new walker and the types its file declares, and
//! the naming of values: defining a name in the graph being walked, and looking
//! one up through the enclosing graphs, which captures it in every body between.

use super::shape::Info;
use super::{dtype, proto, Frame, Options, Source, Walker, F};
use crate::import;
use memplan::error::Error;
use std::collections::HashMap;

impl<'m> Walker<'m> {
    pub(super) fn new(model: &'m proto::Model, opts: &'m Options<'m>) -> Walker<'m> {
        let mut opsets = HashMap::new();
        for (d, v) in &model.opsets {
            let d = if d == "ai.onnx" { "" } else { d.as_str() };
            let e = opsets.entry(d).or_insert(*v);
            *e = (*e).max(*v);
        }
        opsets.entry("").or_insert(model.opset);
        Walker {
            frames: Vec::new(),
            opsets,
            opts,
            declared: HashMap::new(),
            notes: Vec::new(),
            bounds: Vec::new(),
            branches_left_out: 0,
            data_used: 0,
            pending: Vec::new(),
        }
    }

    /// Records the declared types of `g` and of its bodies.
    pub(super) fn declare(&mut self, g: &'m proto::Graph) {
        for v in g.value_info.iter().chain(&g.outputs) {
            self.declared.entry(v.name.as_str()).or_insert(v);
        }
        for n in &g.nodes {
            for a in &n.attributes {
                for b in a.g.iter().chain(&a.graphs) {
                    self.declare(b);
                }
            }
        }
    }

    pub(super) fn top(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    pub(super) fn define(
        &mut self,
        name: &str,
        mut info: Info,
        source: Source,
    ) -> Result<usize, Error> {
        // contents that do not fill the shape (a corrupt tensor) are not trusted
        let count = info
            .shape
            .iter()
            .try_fold(1usize, |p, &d| p.checked_mul(usize::try_from(d).ok()?));
        if info.data.as_ref().is_some_and(|d| Some(d.len()) != count) {
            info.data = None;
        }
        let f = self.top();
        if f.index.contains_key(name) {
            return Err(Error::invalid(format!("value `{name}` is defined twice")));
        }
        let bits = dtype::bits(info.dtype)
            .ok_or_else(|| Error::parse(F, None, format!("unknown element type {}", info.dtype)))?;
        let bytes = match &info.seq {
            None => import::tensor_bytes(F, name, &info.shape, bits)?,
            Some(elems) => elems.iter().try_fold(0u64, |sum, s| {
                let b = import::tensor_bytes(F, name, s, bits)?;
                sum.checked_add(b).ok_or_else(|| {
                    Error::limit(format!("the size of sequence `{name}`"), u64::MAX, u64::MAX)
                })
            })?,
        };
        Ok(f.push(name, bytes, info, source))
    }

    /// The id of `name` in the innermost frame; a name found in an enclosing frame
    /// is captured by every frame in between.
    pub(super) fn lookup(&mut self, name: &str) -> Option<usize> {
        let top = self.frames.len() - 1;
        let level = (0..=top)
            .rev()
            .find(|&k| self.frames[k].index.contains_key(name))?;
        for k in level + 1..=top {
            let outer = self.frames[k - 1].index[name];
            let info = self.frames[k - 1].infos[outer].clone();
            let bytes = self.frames[k - 1].values[outer].bytes;
            let f = &mut self.frames[k];
            let id = f.push(name, bytes, info, Source::Inferred);
            f.inputs.push(id);
            f.captured.push(name.to_string());
        }
        Some(self.frames[top].index[name])
    }
}
