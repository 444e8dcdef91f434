//! The free dimensions of a model's inputs: what the graph reports having used,
//! and what an import error reports having tried.

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
