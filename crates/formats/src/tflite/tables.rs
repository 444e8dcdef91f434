//! The FlatBuffer tables a subgraph is read from, field by field as in
//! `schema.fbs`: operator codes, tensors, operators and their tensor index
//! lists, every read paid for from the [`Budget`](super::Budget); and the values
//! of the small constant integer tensors that shapes are computed from.

use super::ops;
use super::options::Opts;
use super::shapes::{show, MAX_VALUE};
use super::{err, Budget, OpInfo, Reader, State, TensorInfo, INT32, INT64};
use crate::flatbuf::{Table, Vector};
use memplan::error::Error;

/// The kind of each operator code: builtin name or `CUSTOM:<code>`.
pub(super) fn op_codes(model: &Table, budget: &mut Budget) -> Result<Vec<String>, Error> {
    let Some(list) = model.vector(1, 4)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for i in 0..list.len() {
        let code = list.table(i)?;
        // builtin_code (field 3) supersedes the one-byte deprecated_builtin_code
        // (field 0), which saturates at 127 for newer ops
        let builtin = i32::from(code.i8(0, 0)?).max(code.i32(3, 0)?);
        let kind = match code.string(1)? {
            Some(custom) if builtin == 32 => format!("CUSTOM:{custom}"),
            _ => ops::builtin_name(builtin),
        };
        budget.spend(kind.len())?;
        out.push(kind);
    }
    Ok(out)
}

/// Bits per element of a `TensorType`; strings, resources and variants count 0.
fn element_bits(kind: i8) -> Option<u64> {
    Some(match kind {
        0 | 2 | 15 => 32,      // FLOAT32, INT32, UINT32
        1 | 7 | 16 | 18 => 16, // FLOAT16, INT16, UINT16, BFLOAT16
        3 | 6 | 9 => 8,        // UINT8, BOOL, INT8
        4 | 8 | 10 | 12 => 64, // INT64, COMPLEX64, FLOAT64, UINT64
        11 => 128,             // COMPLEX128
        17 => 4,               // INT4
        5 | 13 | 14 => 0,      // STRING, RESOURCE, VARIANT
        _ => return None,
    })
}

impl<'a> Reader<'a> {
    pub(super) fn tensor(&mut self, t: &Table, index: usize) -> Result<TensorInfo, Error> {
        self.budget.spend(16)?;
        let name = t.string(3)?.unwrap_or_else(|| format!("tensor{index}"));
        self.budget.spend(name.len())?;
        let at = || Some(format!("tensor `{name}`"));
        let dims = self.ints(t.vector(0, 4)?)?.unwrap_or_default();
        let signature = self.ints(t.vector(7, 4)?)?;
        let kind = t.i8(1, 0)?;
        let bits =
            element_bits(kind).ok_or_else(|| err(at(), format!("unknown tensor type {kind}")))?;
        let buffer = t.u32(2, 0)? as usize;
        let has_data = match self.buffers {
            Some(list) if buffer < list.len() => {
                let b = list.table(buffer)?;
                b.vector(0, 1)?.is_some_and(|d| !d.is_empty())
                    || (b.u64(1, 0)? > 1 && b.u64(2, 0)? > 0)
            }
            _ if buffer == 0 => false,
            _ => {
                return Err(err(
                    at(),
                    format!(
                        "buffer {buffer} does not exist (the model has {})",
                        self.buffers.map_or(0, |b| b.len())
                    ),
                ))
            }
        };
        let variable = t.u8(5, 0)? != 0;
        Ok(TensorInfo {
            name,
            dims,
            signature,
            kind,
            bits,
            buffer,
            konst: has_data || variable,
        })
    }

    /// An `[int]` vector, paid for.
    fn ints(&mut self, v: Option<Vector>) -> Result<Option<Vec<i64>>, Error> {
        let Some(v) = v else {
            return Ok(None);
        };
        self.budget.spend(4 * v.len())?;
        Ok(Some(v.i32s()?.into_iter().map(i64::from).collect()))
    }

    pub(super) fn operator(
        &mut self,
        list: &Vector<'a>,
        k: usize,
        s: usize,
        n_tensors: usize,
    ) -> Result<OpInfo<'a>, Error> {
        self.budget.spend(16)?;
        let op = list.table(k)?;
        let code = op.u32(0, 0)? as usize;
        let kind = self.codes.get(code).cloned().ok_or_else(|| {
            err(
                Some(format!("operator {k}")),
                format!(
                    "opcode index {code} does not exist (the model has {})",
                    self.codes.len()
                ),
            )
        })?;
        self.budget.spend(kind.len())?;
        let what = format!("input of operator {k} ({kind})");
        let inputs = self.positions(op.vector(1, 4)?, s, n_tensors, &what)?;
        let what = format!("output of operator {k} ({kind})");
        let outputs = self.positions(op.vector(2, 4)?, s, n_tensors, &what)?;
        let (opts_type, opts) = Opts::of(&op)?;
        let custom = match op.vector(5, 1)? {
            Some(v) => Some(v.prefix(1 << 10)?),
            None => None,
        };
        Ok(OpInfo {
            kind,
            inputs,
            outputs,
            opts_type,
            opts,
            custom,
        })
    }

    /// Tensor indices of an `[int]` vector by position; `-1` (an absent optional
    /// tensor) is `None`.
    fn positions(
        &mut self,
        list: Option<Vector>,
        s: usize,
        n_tensors: usize,
        what: &str,
    ) -> Result<Vec<Option<usize>>, Error> {
        let Some(list) = list else {
            return Ok(Vec::new());
        };
        self.budget.spend(4 * list.len())?;
        let mut out = Vec::with_capacity(list.len());
        for i in list.i32s()? {
            match usize::try_from(i) {
                Ok(t) if t < n_tensors => out.push(Some(t)),
                _ if i == -1 => out.push(None),
                _ => {
                    return Err(err(
                        None,
                        format!(
                            "{what} names tensor {i}, but subgraph {s} has {n_tensors} tensors"
                        ),
                    ))
                }
            }
        }
        Ok(out)
    }

    /// Tensor indices, absent ones skipped.
    pub(super) fn indices(
        &mut self,
        list: Option<Vector>,
        s: usize,
        n_tensors: usize,
        what: &str,
    ) -> Result<Vec<usize>, Error> {
        Ok(self
            .positions(list, s, n_tensors, what)?
            .into_iter()
            .flatten()
            .collect())
    }

    /// Looks up the value of constant integer tensor `t` once.
    pub(super) fn load(
        &mut self,
        t: usize,
        info: &TensorInfo,
        st: &mut State,
    ) -> Result<(), Error> {
        if std::mem::replace(&mut st.loaded[t], true) || !info.konst {
            return Ok(());
        }
        let size = match info.kind {
            INT32 => 4,
            INT64 => 8,
            _ => return Ok(()),
        };
        let count = info
            .dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?));
        let Some(count) = count.filter(|&c| c <= MAX_VALUE as u64) else {
            return Ok(());
        };
        let count = count as usize;
        let Some(list) = self.buffers.filter(|b| info.buffer < b.len()) else {
            return Ok(());
        };
        let b = list.table(info.buffer)?;
        let bad = |m: String| err(Some(format!("tensor `{}`", info.name)), m);
        let (offset, len) = (b.u64(1, 0)?, b.u64(2, 0)?);
        let bytes = match b.vector(0, 1)? {
            Some(v) if !v.is_empty() => v.prefix(count * size)?,
            // a variable, without data
            _ if offset <= 1 || len == 0 => return Ok(()),
            _ => {
                // a model over 2 GB keeps its buffers after the FlatBuffer
                usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(o, l)| self.data.range(o, l.min(count * size)).ok())
                    .ok_or_else(|| {
                        bad(format!(
                            "its buffer ({len} bytes at offset {offset}) lies outside the file"
                        ))
                    })?
            }
        };
        let bytes = bytes.get(..count * size).ok_or_else(|| {
            bad(format!(
                "its buffer holds {} bytes, but its shape {} needs {}",
                bytes.len(),
                show(&info.dims),
                count * size
            ))
        })?;
        self.budget.spend(count * 8)?;
        st.values[t] = Some(
            bytes
                .chunks_exact(size)
                .map(|c| match *c {
                    [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
                    [a, b, c, d, e, f, g, h] => i64::from_le_bytes([a, b, c, d, e, f, g, h]),
                    _ => 0,
                })
                .collect(),
        );
        Ok(())
    }
}
