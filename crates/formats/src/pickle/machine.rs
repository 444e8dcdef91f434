//! The reader's entry points and the machine: a loop over the opcodes with an
//! explicit stack and memo, building the [`Tree`](super::Tree); anything else a
//! pickle can do is refused by name.

use super::input::Input;
use super::tree::{Chunked, Fold, Node, Tree, Val};
use super::{F, MAX_HELD, MAX_INT_BYTES, MEMO_LOOKBACK};
use memplan::error::Error;
use std::io::Read;

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
