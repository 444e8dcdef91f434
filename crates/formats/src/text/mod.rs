//! memplan text: a graph typed by hand, one statement a line.
//!
//! ```text
//! # a comment runs from # to the end of the line; blank lines are ignored
//! graph ping_pong_chain        # the graph's name: optional, the first statement
//! input image 32MiB            # a tensor: [KIND] NAME SIZE [@LEVEL] [life START..END]
//! conv1 32MiB
//! relu1 32MiB @UB
//! Conv1 Conv: image -> conv1   # an op: NAME [TYPE]: INPUTS -> OUTPUTS
//! Relu1: conv1 -> relu1 s=4MiB # NAME=SIZE declares an intermediate tensor here
//! ```
//!
//! - **Tensors.** `KIND` is `input`, `output` or `const` (outside the arena);
//!   without it the tensor is intermediate (in the arena). `SIZE` is one token:
//!   bytes or a number with a unit (`4096`, `64KiB`, `1.5MiB`, `2KB`; units `B`,
//!   `KiB`, `MiB`, `GiB`, `TiB`, `KB`, `MB`, `GB`). `@LEVEL` names a memory level.
//!   `life START..END` fixes the steps the tensor is live, both included (the
//!   JSON `lifetime: [START, END]`), for instances without ops.
//! - **Ops.** Inputs and outputs are separated by spaces, either side may be
//!   empty, and `->` stands alone between them. The name is required, the type
//!   optional. A tensor written `NAME=SIZE` in an op line (once, at any of its
//!   mentions) is declared there as an intermediate tensor.
//! - **Names** are runs of characters other than whitespace and `: = # " @`, or
//!   double quoted strings in which `\"`, `\\`, `\n`, `\r` and `\t` stand for a
//!   quote, a backslash, a line break, a carriage return and a tab: `"input:0"`,
//!   `"my tensor"`, `"->"`. `graph`, `input`, `output`, `const` and `life` are
//!   keywords only where shown above: `input 4KiB` declares a tensor named
//!   `input`. A graph name that reads as a size is quoted: `graph "64"`.
//! - Every tensor an op names is declared exactly once, before or after the op.
//!   Tensors keep the order of their declarations, ops the order of their lines.
//!   No tensor has two producers. Errors name the line.
//!
//! [`write_text`] writes any graph without op bodies (`subgraphs`): the `graph`
//! line, the declarations in tensor order, then the ops in order; reading it
//! back gives the same graph. Free dimensions and notes are not written.
//!
//! The reader and the writer must agree on every token (quoting, keywords by
//! position, sizes): [`tokens`] splits a line and quotes names both ways,
//! [`decl`] reads tensor declarations, [`build`] assembles the graph from the
//! lines and [`write`] writes a graph back. This file reads, numbers the lines and
//! tells memplan text from other inputs.

mod build;
mod decl;
mod tokens;
mod write;

pub use write::write_text;

use build::Builder;
use decl::{parse_decl, starts_like_decl};
use memplan::error::Error;
use memplan::graph::Graph;
use memplan::units::parse_size;
use tokens::{tokenize, Token};

/// The format's name in errors: `text: line 3: ...`.
const FORMAT: &str = "text";
/// Reads memplan text; `name` names the graph when no `graph` line does.
pub fn read(data: &[u8], name: &str) -> Result<Graph, Error> {
    let text = utf8(data)?;
    let mut builder = Builder::default();
    for (n, line) in lines(text) {
        builder.line(n, line).map_err(|m| at(n, m))?;
    }
    builder.finish(name)
}

/// True when `data` is UTF-8 whose first statement is a `graph NAME` line, a
/// declaration (or starts like one: `x 32XB` is text with a bad unit) or an op
/// line (it has a `:`): what [`super::Format::detect`] takes for memplan text.
pub(super) fn is_text(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (_, line) in lines(text) {
        let Ok(toks) = tokenize(line) else {
            return false;
        };
        if !toks.is_empty() {
            return toks.contains(&Token::Colon)
                || graph_name(&toks).is_some()
                || parse_decl(line, &toks).is_ok()
                || starts_like_decl(&toks);
        }
    }
    false
}
/// An error at line `n`.
fn at(n: usize, message: String) -> Error {
    Error::parse(FORMAT, Some(format!("line {n}")), message)
}

/// `data` as text without a leading byte order mark, or an error naming the line
/// of the first byte that is not UTF-8.
fn utf8(data: &[u8]) -> Result<&str, Error> {
    let text = std::str::from_utf8(data).map_err(|e| {
        let before = &data[..e.valid_up_to()];
        let n = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        at(
            n,
            format!("not UTF-8 text (an invalid byte at column {column})"),
        )
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// The lines of `text` numbered from 1, without their `\n` or `\r\n`.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| (i + 1, l))
}
/// The graph's name if `toks` is a `graph NAME` line: `graph` and one name that
/// is quoted or does not read as a size (`graph 4KiB` declares a tensor).
fn graph_name<'t>(toks: &'t [Token]) -> Option<&'t str> {
    match toks {
        [g, Token::Quoted(name)] if g.is_word("graph") => Some(name),
        [g, Token::Word(name)] if g.is_word("graph") && parse_size(name).is_err() => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
