//! What a pickle is read into: a [`Tree`] of values ([`Val`]) and containers
//! ([`Node`]), the [`Fold`] that may turn dicts into the caller's records, and
//! the chunked array ([`Chunked`]) such records are kept in.

use memplan::error::Error;

/// A value: scalars inline, strings as ranges of [`Tree`]'s text, containers by
/// index, and records of a [`Fold`] by the fold's own index.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Val {
    #[default]
    None,
    Bool(bool),
    Int(i64),
    /// An integer in `[2^63, 2^64)`: an address, say.
    UInt(u64),
    Float(f64),
    /// Bytes `start .. start + len` of the tree's text: checked UTF-8.
    Str {
        start: u32,
        len: u32,
    },
    /// A list, tuple or dict: an index into [`Tree::nodes`].
    Node(u32),
    /// A dict a [`Fold`] turned into its record number.
    Record(u32),
}

/// A container.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    List(Vec<Val>),
    Tuple(Vec<Val>),
    Dict(Vec<(Val, Val)>),
    /// A list of the records `first .. first + len` in order, as a fold's records
    /// are appended (a trace of millions of entries costs no item each).
    Records {
        first: u32,
        len: u32,
    },
}

/// A whole pickle: its strings, its containers and its top value.
#[derive(Debug, Default)]
pub struct Tree {
    pub(super) text: Vec<u8>,
    pub nodes: Vec<Node>,
    pub root: Val,
}

/// Turns complete dicts into records of the caller's (see the module's doc).
pub trait Fold {
    /// Called after each batch of items a dict gets (`SETITEM`, `SETITEMS`, or
    /// `DICT` with all of them; Python writes a dict in batches of 1,000): a record
    /// number to stand for it from now on, or `None` to keep it as a dict. A dict
    /// folded into a record takes no further items.
    fn dict(&mut self, tree: &Tree, pairs: &[(Val, Val)]) -> Result<Option<u32>, Error>;
}

/// Keeps every dict.
impl Fold for () {
    fn dict(&mut self, _: &Tree, _: &[(Val, Val)]) -> Result<Option<u32>, Error> {
        Ok(None)
    }
}

impl Tree {
    /// The text of a string value.
    pub fn str(&self, v: Val) -> Option<&str> {
        // checked when read
        std::str::from_utf8(self.str_bytes(v)?).ok()
    }

    pub fn int(&self, v: Val) -> Option<i128> {
        match v {
            Val::Int(i) => Some(i.into()),
            Val::UInt(u) => Some(u.into()),
            Val::Bool(b) => Some(i128::from(b)),
            _ => None,
        }
    }

    /// The items of a list or tuple (`None` for a list of [`Node::Records`]).
    pub fn items(&self, v: Val) -> Option<&[Val]> {
        match self.node(v)? {
            Node::List(items) | Node::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// The record numbers a list holds, in order, when it holds only records.
    pub fn records(&self, v: Val) -> Option<Vec<u32>> {
        match self.node(v)? {
            Node::Records { first, len } => Some((*first..first + len).collect()),
            Node::List(items) => (items.iter())
                .map(|v| match v {
                    Val::Record(r) => Some(*r),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The range of records a list holds, when they are in order.
    pub fn record_run(&self, v: Val) -> Option<std::ops::Range<u32>> {
        match self.node(v)? {
            Node::Records { first, len } => Some(*first..first + len),
            Node::List(items) if items.is_empty() => Some(0..0),
            _ => None,
        }
    }

    /// The number of items of a list or tuple.
    pub fn len(&self, v: Val) -> Option<usize> {
        match self.node(v)? {
            Node::List(items) | Node::Tuple(items) => Some(items.len()),
            Node::Records { len, .. } => Some(*len as usize),
            Node::Dict(pairs) => Some(pairs.len()),
        }
    }

    /// The pairs of a dict.
    pub fn pairs(&self, v: Val) -> Option<&[(Val, Val)]> {
        match self.node(v)? {
            Node::Dict(pairs) => Some(pairs),
            _ => None,
        }
    }

    /// The value of the string key `key` in dict `v` (the last, as Python keeps).
    pub fn get(&self, v: Val, key: &str) -> Option<Val> {
        self.pairs(v).and_then(|p| self.find(p, key))
    }

    /// The value of the string key `key` among `pairs`.
    pub fn find(&self, pairs: &[(Val, Val)], key: &str) -> Option<Val> {
        (pairs.iter().rev())
            .find(|(k, _)| self.str_bytes(*k) == Some(key.as_bytes()))
            .map(|&(_, v)| v)
    }

    fn node(&self, v: Val) -> Option<&Node> {
        match v {
            Val::Node(i) => self.nodes.get(i as usize),
            _ => None,
        }
    }

    fn str_bytes(&self, v: Val) -> Option<&[u8]> {
        match v {
            Val::Str { start, len } => self.text.get(start as usize..start as usize + len as usize),
            _ => None,
        }
    }
}

/// A growing array in fixed chunks: no reallocation copies it whole, and its
/// capacity exceeds its length by at most one chunk.
#[derive(Debug)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

const CHUNK_ITEMS: usize = 1 << 16;

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone + Default> Chunked<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, v: T) {
        if self.len.is_multiple_of(CHUNK_ITEMS) {
            self.chunks.push(Vec::with_capacity(CHUNK_ITEMS));
        }
        self.chunks.last_mut().expect("a chunk").push(v);
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK_ITEMS)?.get(i % CHUNK_ITEMS)
    }

    /// Sets item `i`, first growing to `i + 1` items with defaults.
    pub fn set(&mut self, i: usize, v: T) {
        while self.len <= i {
            self.push(T::default());
        }
        self.chunks[i / CHUNK_ITEMS][i % CHUNK_ITEMS] = v;
    }

    /// Items `range`, in one vector, giving up the chunks as they are copied.
    pub fn into_range(self, range: std::ops::Range<usize>) -> Vec<T> {
        let end = range.end.min(self.len);
        let mut out = Vec::with_capacity(end.saturating_sub(range.start));
        for (c, chunk) in self.chunks.into_iter().enumerate() {
            let at = c * CHUNK_ITEMS;
            let (lo, hi) = (range.start.max(at), end.min(at + chunk.len()));
            if lo < hi {
                out.extend_from_slice(&chunk[lo - at..hi - at]);
            }
        }
        out
    }
}
