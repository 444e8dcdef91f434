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
//! Why one file: the opcode machine (`Machine`, two thirds of it) and the input it
//! reads, the tree it builds and the refusals it names are one reader; each opcode
//! reads and writes the same stack, memo and arena, and no part is used without
//! the others.

use memplan::error::Error;
use std::io::Read;

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
    text: Vec<u8>,
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

/// Reads a whole pickle held in memory, keeping every dict.
pub fn read(data: Vec<u8>) -> Result<Tree, Error> {
    read_from(data.as_slice(), &mut ())
}

/// Reads a pickle from a stream, `fold` deciding which dicts become records.
pub fn read_from(input: impl Read, fold: &mut dyn Fold) -> Result<Tree, Error> {
    read_limited(input, fold, MAX_HELD)
}

/// [`read_from`] holding at most `limit` values at once (see [`MAX_HELD`]).
pub fn read_limited(input: impl Read, fold: &mut dyn Fold, limit: usize) -> Result<Tree, Error> {
    let mut m = Machine {
        input: Input::new(input),
        tree: Tree::default(),
        fold,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: Chunked::default(),
        stored: 0,
        limit,
    };
    m.tree.root = m.run()?;
    Ok(m.tree)
}

/// True when `data` starts like a pickle of protocol 2 or later.
pub fn is_pickle(data: &[u8]) -> bool {
    matches!(data, [0x80, 2..=5, ..])
}

/// The input as a stream, in a buffer that grows only with bytes read.
struct Input<R> {
    src: R,
    buf: Vec<u8>,
    /// The next byte to take, and the end of what was read, in `buf`.
    pos: usize,
    len: usize,
    /// The input's offset of `buf[0]`.
    offset: u64,
}

impl<R: Read> Input<R> {
    fn new(src: R) -> Self {
        Input {
            src,
            buf: Vec::new(),
            pos: 0,
            len: 0,
            offset: 0,
        }
    }

    /// The input's offset of the next byte.
    fn at(&self) -> u64 {
        self.offset + self.pos as u64
    }

    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if self.len - self.pos < n {
            self.fill(n)?;
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads until `n` bytes are buffered after `pos`, or fails at the end.
    fn fill(&mut self, n: usize) -> Result<(), Error> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.offset += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        while self.len < n {
            let want = (self.len + CHUNK).min(n.max(CHUNK));
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
            let got = loop {
                match self.src.read(&mut self.buf[self.len..]) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            match got {
                Ok(0) => {
                    return Err(Error::parse(
                        F,
                        Some(format!("byte {}", self.at())),
                        format!("truncated: {n} bytes needed, {} left", self.len),
                    ))
                }
                Ok(k) => self.len += k,
                Err(e) => {
                    return Err(Error::parse(
                        F,
                        Some(format!("byte {}", self.at())),
                        e.to_string(),
                    ))
                }
            }
        }
        Ok(())
    }
}

struct Machine<'f, R> {
    input: Input<R>,
    tree: Tree,
    fold: &'f mut dyn Fold,
    stack: Vec<Val>,
    /// Stack heights at each MARK.
    marks: Vec<usize>,
    memo: Chunked<Val>,
    /// Values stored in containers.
    stored: usize,
    /// The most values held at once (see [`MAX_HELD`]).
    limit: usize,
}

impl<R: Read> Machine<'_, R> {
    fn run(&mut self) -> Result<Val, Error> {
        loop {
            let at = self.input.at();
            let held = self.stack.len()
                + self.marks.len()
                + self.memo.len()
                + self.tree.nodes.len()
                + self.stored
                + self.tree.text.len() / 16;
            if held > self.limit {
                return Err(Error::limit(
                    "the values a pickle holds at once",
                    held as u64,
                    self.limit as u64,
                ));
            }
            let op = self.byte()?;
            if op == b'.' {
                return match (self.stack.pop(), self.stack.is_empty()) {
                    (Some(v), true) => Ok(v),
                    _ => Err(self.error(at, "STOP with a stack of other than one value")),
                };
            }
            self.step(op, at)?;
        }
    }
    fn step(&mut self, op: u8, at: u64) -> Result<(), Error> {
        match op {
            0x80 => {
                let proto = self.byte()?;
                if !(2..=5).contains(&proto) {
                    return Err(self.error(at, format!("protocol {proto} (memplan reads 2 to 5)")));
                }
            }
            0x95 => {
                self.take(8)?; // FRAME: a length hint only
            }
            b'N' => self.stack.push(Val::None),
            0x88 => self.stack.push(Val::Bool(true)),
            0x89 => self.stack.push(Val::Bool(false)),
            b'J' => {
                let b = self.array::<4>()?;
                self.stack.push(Val::Int(i32::from_le_bytes(b).into()))
            }
            b'K' => {
                let b = self.byte()?;
                self.stack.push(Val::Int(b.into()))
            }
            b'M' => {
                let b = self.array::<2>()?;
                self.stack.push(Val::Int(u16::from_le_bytes(b).into()))
            }
            0x8a => {
                let n = self.byte()? as usize;
                self.long(n, at)?
            }
            0x8b => {
                let n = u32::from_le_bytes(self.array::<4>()?) as usize;
                self.long(n, at)?
            }
            b'G' => {
                let b = self.array::<8>()?;
                self.stack.push(Val::Float(f64::from_be_bytes(b)))
            }
            0x8c => {
                let n = self.byte()? as u64;
                self.string(n, at)?
            }
            b'X' => {
                let n = u32::from_le_bytes(self.array::<4>()?) as u64;
                self.string(n, at)?
            }
            0x8d => {
                let n = u64::from_le_bytes(self.array::<8>()?);
                self.string(n, at)?
            }
            b']' => self.push_node(Node::List(Vec::new())),
            b'}' => self.push_node(Node::Dict(Vec::new())),
            b')' => self.push_node(Node::Tuple(Vec::new())),
            0x85..=0x87 => {
                let n = (op - 0x84) as usize;
                let items = self.pop_n(n, op, at)?;
                self.push_node(Node::Tuple(items))
            }
            b'(' => self.marks.push(self.stack.len()),
            b't' => {
                let items = self.pop_mark(op, at)?;
                self.push_node(Node::Tuple(items))
            }
            b'l' => {
                let items = self.pop_mark(op, at)?;
                self.push_node(Node::List(items))
            }
            b'd' => {
                let items = self.pop_mark(op, at)?;
                let pairs = self.pairs(items, at)?;
                self.push_node(Node::Dict(pairs));
                self.fold_top(op, at)?
            }
            b'a' => {
                let item = self.pop_n(1, op, at)?;
                self.extend(item, op, at)?
            }
            b'e' => {
                let items = self.pop_mark(op, at)?;
                self.extend(items, op, at)?
            }
            b's' => {
                let items = self.pop_n(2, op, at)?;
                self.extend(items, op, at)?;
                self.fold_top(op, at)?
            }
            b'u' => {
                let items = self.pop_mark(op, at)?;
                self.extend(items, op, at)?;
                self.fold_top(op, at)?
            }
            b'0' => {
                self.pop_n(1, op, at)?;
            }
            b'1' => {
                self.pop_mark(op, at)?;
            }
            b'2' => {
                let top = *self
                    .stack
                    .last()
                    .ok_or_else(|| self.error(at, "DUP on an empty stack"))?;
                self.stack.push(top)
            }
            b'q' => {
                let i = self.byte()? as usize;
                self.put(i, at)?
            }
            b'r' => {
                let i = u32::from_le_bytes(self.array::<4>()?) as usize;
                self.put(i, at)?
            }
            0x94 => self.put(self.memo.len(), at)?,
            b'h' => {
                let i = self.byte()? as usize;
                self.get(i, at)?
            }
            b'j' => {
                let i = u32::from_le_bytes(self.array::<4>()?) as usize;
                self.get(i, at)?
            }
            other => return Err(self.error(at, refused(other))),
        }
        Ok(())
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.input.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        Ok(self
            .input
            .take(N)?
            .try_into()
            .expect("take returns N bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        self.input.take(n)
    }

    /// LONG1 / LONG4: `n` bytes of a little-endian two's complement integer.
    fn long(&mut self, n: usize, at: u64) -> Result<(), Error> {
        let b = self.input.take(n)?;
        if n > MAX_INT_BYTES {
            return Err(self.error(
                at,
                format!("an integer of {n} bytes (memplan reads up to {MAX_INT_BYTES})"),
            ));
        }
        let mut v: i128 = 0;
        for (i, &x) in b.iter().enumerate() {
            v |= i128::from(x) << (8 * i);
        }
        if n > 0 && n < MAX_INT_BYTES && b[n - 1] & 0x80 != 0 {
            v -= 1i128 << (8 * n); // negative: sign-extend
        }
        let v = if let Ok(i) = i64::try_from(v) {
            Val::Int(i)
        } else if let Ok(u) = u64::try_from(v) {
            Val::UInt(u)
        } else {
            return Err(self.error(
                at,
                "an integer outside 64 bits (memplan reads integers up to 2^64)",
            ));
        };
        self.stack.push(v);
        Ok(())
    }

    fn string(&mut self, n: u64, at: u64) -> Result<(), Error> {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let start = self.tree.text.len();
        let s = self.input.take(n)?;
        if let Err(e) = std::str::from_utf8(s) {
            return Err(self.error(at, format!("a string that is not UTF-8 ({e})")));
        }
        if start + n > u32::MAX as usize {
            return Err(Error::limit(
                "the bytes of a pickle's strings",
                (start + n) as u64,
                u32::MAX as u64,
            ));
        }
        self.tree.text.extend_from_slice(s);
        self.stack.push(Val::Str {
            start: start as u32,
            len: n as u32,
        });
        Ok(())
    }

    fn push_node(&mut self, node: Node) {
        self.stored += match &node {
            Node::List(items) | Node::Tuple(items) => items.len(),
            Node::Dict(pairs) => 2 * pairs.len(),
            Node::Records { .. } => 0,
        };
        self.tree.nodes.push(node);
        self.stack.push(Val::Node(self.tree.nodes.len() as u32 - 1));
    }

    fn pop_n(&mut self, n: usize, op: u8, at: u64) -> Result<Vec<Val>, Error> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() < floor + n {
            return Err(self.error(at, format!("{} needs {n} values on the stack", name(op))));
        }
        Ok(self.stack.split_off(self.stack.len() - n))
    }

    fn pop_mark(&mut self, op: u8, at: u64) -> Result<Vec<Val>, Error> {
        let mark = (self.marks.pop())
            .ok_or_else(|| self.error(at, format!("{} without a MARK", name(op))))?;
        Ok(self.stack.split_off(mark))
    }

    fn pairs(&self, items: Vec<Val>, at: u64) -> Result<Vec<(Val, Val)>, Error> {
        self.even(&items, at)?;
        Ok(items.chunks_exact(2).map(|kv| (kv[0], kv[1])).collect())
    }

    /// `items` as keys and values: an even number of them.
    fn even(&self, items: &[Val], at: u64) -> Result<(), Error> {
        if items.len().is_multiple_of(2) {
            Ok(())
        } else {
            Err(self.error(at, "a dict of an odd number of keys and values"))
        }
    }

    /// APPEND(S) / SETITEM(S): `items` into the list or dict under them.
    fn extend(&mut self, items: Vec<Val>, op: u8, at: u64) -> Result<(), Error> {
        let (set, what) = if is_set(op) {
            (true, "dict")
        } else {
            (false, "list")
        };
        if set {
            self.even(&items, at)?;
        }
        let target = match self.stack.last() {
            Some(Val::Node(i)) => self.tree.nodes.get_mut(*i as usize),
            _ => None,
        };
        self.stored += match (target, set) {
            (Some(Node::Dict(d)), true) => {
                d.extend(items.chunks_exact(2).map(|kv| (kv[0], kv[1])));
                items.len()
            }
            (Some(node @ Node::List(_)), false) => append(node, items),
            (Some(node @ Node::Records { .. }), false) => append(node, items),
            _ => {
                return Err(self.error(at, format!("{} on something other than a {what}", name(op))))
            }
        };
        Ok(())
    }

    /// Offers the complete dict on top of the stack to the fold; a record replaces
    /// it on the stack and in its own memo slot, and its node is given back when
    /// it is the last one made.
    fn fold_top(&mut self, op: u8, at: u64) -> Result<(), Error> {
        let Some(&Val::Node(i)) = self.stack.last() else {
            return Err(self.error(at, format!("{} on something other than a dict", name(op))));
        };
        let Some(Node::Dict(pairs)) = self.tree.nodes.get(i as usize) else {
            return Ok(());
        };
        let Some(r) = self.fold.dict(&self.tree, pairs)? else {
            return Ok(());
        };
        *self.stack.last_mut().expect("a dict on top") = Val::Record(r);
        // the dict's pairs are given back with it
        if let Node::Dict(pairs) =
            std::mem::replace(&mut self.tree.nodes[i as usize], Node::Dict(Vec::new()))
        {
            self.stored -= 2 * pairs.len();
        }
        let back = self.memo.len().saturating_sub(MEMO_LOOKBACK);
        let slot = (back..self.memo.len())
            .rev()
            .find(|&k| self.memo.get(k) == Some(&Val::Node(i)));
        if let Some(k) = slot {
            self.memo.set(k, Val::Record(r));
        }
        let unnamed = op == b'd' || slot.is_some();
        if unnamed && i as usize + 1 == self.tree.nodes.len() {
            self.tree.nodes.pop();
        }
        Ok(())
    }

    fn put(&mut self, i: usize, at: u64) -> Result<(), Error> {
        let top =
            *(self.stack.last()).ok_or_else(|| self.error(at, "a memo PUT on an empty stack"))?;
        // each PUT costs at least one byte, so no honest index exceeds the bytes read
        if i as u64 > self.input.at() {
            return Err(self.error(at, format!("memo index {i} beyond the input's size")));
        }
        self.memo.set(i, top);
        Ok(())
    }

    fn get(&mut self, i: usize, at: u64) -> Result<(), Error> {
        let v = *(self.memo.get(i))
            .ok_or_else(|| self.error(at, format!("memo index {i} was never stored")))?;
        self.stack.push(v);
        Ok(())
    }

    fn error(&self, at: u64, message: impl Into<String>) -> Error {
        Error::parse(F, Some(format!("byte {at}")), message)
    }
}

/// Appends `items` to a list, keeping a list of records in order as a run;
/// returns how many values it stored (none when a run grew).
fn append(node: &mut Node, items: Vec<Val>) -> usize {
    let added = items.len();
    let run = |first: u32, len: u32| {
        (items.iter().enumerate()).all(|(k, v)| *v == Val::Record(first + len + k as u32))
    };
    match node {
        Node::List(l) if l.is_empty() => match items.first() {
            Some(&Val::Record(first)) if run(first, 0) => {
                *node = Node::Records {
                    first,
                    len: added as u32,
                };
                0
            }
            _ => {
                *l = items;
                added
            }
        },
        Node::List(l) => {
            l.extend(items);
            added
        }
        Node::Records { first, len } if run(*first, *len) => {
            *len += added as u32;
            0
        }
        Node::Records { first, len } => {
            let mut l: Vec<Val> = (*first..*first + *len).map(Val::Record).collect();
            l.extend(items);
            let stored = l.len();
            *node = Node::List(l);
            stored
        }
        _ => unreachable!("append is given lists"),
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

fn is_set(op: u8) -> bool {
    matches!(op, b's' | b'u')
}

/// The name of an opcode this reader takes, for messages.
fn name(op: u8) -> &'static str {
    match op {
        b'a' => "APPEND",
        b'e' => "APPENDS",
        b's' => "SETITEM",
        b'u' => "SETITEMS",
        b't' => "TUPLE",
        b'l' => "LIST",
        b'd' => "DICT",
        b'0' => "POP",
        b'1' => "POP_MARK",
        0x85 => "TUPLE1",
        0x86 => "TUPLE2",
        0x87 => "TUPLE3",
        _ => "an opcode",
    }
}

/// Why an opcode is refused.
fn refused(op: u8) -> String {
    let code = match op {
        b'c' => Some("GLOBAL"),
        0x93 => Some("STACK_GLOBAL"),
        b'R' => Some("REDUCE"),
        b'b' => Some("BUILD"),
        b'i' => Some("INST"),
        b'o' => Some("OBJ"),
        0x81 => Some("NEWOBJ"),
        0x92 => Some("NEWOBJ_EX"),
        0x82..=0x84 => Some("EXT"),
        b'P' | b'Q' => Some("PERSID"),
        _ => None,
    };
    match code {
        Some(name) => format!(
            "opcode {name} would import or call Python code: memplan reads only plain data (dicts, lists, tuples, str, int, float, bool, None)"
        ),
        None => format!(
            "opcode {op:#04x} ({:?}) is not one Python writes for plain data (dicts, lists, tuples, str, int, float, bool, None)",
            op as char
        ),
    }
}
