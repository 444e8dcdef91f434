//! The free dimensions of a model's inputs: what the graph reports having used,
//! and what an import error reports having tried; and the values whose size
//! depends on the input data, planned at a bound.

use serde::Serialize;

/// A dimension of a model's inputs that the file leaves free: a named one
/// (ONNX `dim_param` such as `batch`) or an unnamed one, named `INPUT:AXIS`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FreeDim {
    pub name: String,
    pub value: u64,
    /// Set by the user (`--dim`), not the default 1.
    pub given: bool,
    /// Not given, and above its default because the model does not import with
    /// the default (a window wider than an input of 1, say; the graph's notes say
    /// why).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub raised: bool,
    /// Where it occurs: `input[axis]`.
    pub at: Vec<String>,
}

/// A value whose size depends on the input data (`NonZero`'s output, the boxes
/// `NonMaxSuppression` keeps): the graph is planned with it at `dims`, its worst
/// case unless the user gave a smaller bound. A plan made at the worst case holds
/// for every input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bound {
    /// The value's name.
    pub value: String,
    /// The dims planned for.
    pub dims: Vec<u64>,
    /// The largest dims the input shapes allow.
    pub worst: Vec<u64>,
    /// Why the worst case is what it is (`every element nonzero`).
    pub why: String,
    /// The user gave `dims` (a bound of their own), not the worst case.
    pub given: bool,
}
