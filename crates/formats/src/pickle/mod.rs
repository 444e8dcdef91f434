//! A reader of the pickles Python writes for plain data: dicts, lists, tuples, str,
//! int, float, bool and None, in protocols 2 to 5, as `pickle.dump` emits them.
//! Anything else a pickle can do (import a global, call it, build an object, read
//! an out-of-band buffer) is refused by name, so reading never runs code.
//!
//! The result is a [`Tree`]: containers live once in an arena and are named by
//! index, so a memo reference (`BINGET`) to a list is the same index as the list,
//! never a copy. Strings are checked as UTF-8 once and kept in one buffer. The
//! machine is a loop over the opcodes with an explicit stack, so a deeply nested
//! pickle costs memory in proportion to its size, never the call stack.
//!
//! The input is read as a stream ([`std::io::Read`]): a file or a gzip stream is
//! never held whole. A [`Fold`] may turn each dict, once complete, into a record
//! of its own (a trace entry of a snapshot: 48 bytes where the dict would take
//! hundreds), so the tree holds only what the caller keeps as a tree.
//!
//! A length is never trusted: the buffer grows only with bytes actually read, so
//! a string claiming 2^60 bytes ends in "truncated", not in an allocation; a memo
//! index is checked against the bytes read (each PUT costs at least one).
//!
//! The reader is in `machine` (the entry points and the opcode loop), `input` (the
//! stream it reads) and `tree` (what it builds, and the fold); this module holds
//! the limits they share.

mod input;
mod machine;
mod tree;

pub use machine::{is_pickle, read, read_from, read_limited};
pub use tree::{Chunked, Fold, Node, Tree, Val};

const F: &str = "pickle";

/// Integers wider than this many bytes are refused (an address needs 9).
const MAX_INT_BYTES: usize = 16;

/// How much of the input is read at a time.
const CHUNK: usize = 1 << 20;

/// The most values a pickle may make the reader hold at once (on its stack, in
/// its memo and containers, and its strings' bytes counted by sixteen): about
/// 2 GiB. A real 1 GB snapshot holds a few million; a pickle of a billion empty
/// lists, or a gzip stream that inflates to one, ends here in an error instead of
/// exhausting memory.
pub const MAX_HELD: usize = 1 << 27;

/// How far back in the memo a folded dict's own PUT is looked for.
const MEMO_LOOKBACK: usize = 64;
