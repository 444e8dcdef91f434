//! An operator's `builtin_options`: the table of the `BuiltinOptions` union
//! (`Operator` field 3 holds its type, field 4 the table), read field by field
//! with the defaults of `schema.fbs`.

use crate::flatbuf::Table;
use memplan::error::Error;

/// Largest rank an option or a shape rule reads or gives.
pub const MAX_RANK: usize = 64;

/// The options table of one operator, or none (all fields take their defaults).
#[derive(Clone, Copy, Default)]
pub struct Opts<'a> {
    raw: Option<Table<'a>>,
}

impl<'a> Opts<'a> {
    /// The union type and options of operator `op`; a type of 0 (NONE) gives no
    /// table.
    pub fn of(op: &Table<'a>) -> Result<(u8, Opts<'a>), Error> {
        let kind = op.u8(3, 0)?;
        let raw = if kind == 0 { None } else { op.table(4)? };
        Ok((kind, Opts { raw }))
    }

    /// An `int` field.
    pub fn int(&self, field: usize, default: i32) -> Result<i64, String> {
        match self.raw {
            Some(r) => r
                .i32(field, default)
                .map(i64::from)
                .map_err(|e| e.to_string()),
            None => Ok(default.into()),
        }
    }

    /// A `byte` field (an enum such as `Padding`).
    pub fn byte(&self, field: usize, default: i8) -> Result<i64, String> {
        match self.raw {
            Some(r) => r
                .i8(field, default)
                .map(i64::from)
                .map_err(|e| e.to_string()),
            None => Ok(default.into()),
        }
    }

    /// A `bool` field (default false).
    pub fn flag(&self, field: usize) -> Result<bool, String> {
        Ok(self.byte(field, 0)? != 0)
    }

    /// An `[int]` field; `None` when absent. More than [`MAX_RANK`] elements
    /// are refused: the `[int]` options (`new_shape`, `squeeze_dims`) hold at
    /// most one per axis.
    pub fn ints(&self, field: usize) -> Result<Option<Vec<i64>>, String> {
        let Some(r) = self.raw else {
            return Ok(None);
        };
        let Some(v) = r.vector(field, 4).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        if v.len() > MAX_RANK {
            return Err(format!(
                "an option lists {} integers, more than the {MAX_RANK} axes memplan reads",
                v.len()
            ));
        }
        let ints = v.i32s().map_err(|e| e.to_string())?;
        Ok(Some(ints.into_iter().map(i64::from).collect()))
    }
}
