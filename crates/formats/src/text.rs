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
//! Why one long file: the reader and the writer must agree on every token (quoting,
//! keywords by position, sizes), so they sit together; most of the reader is its
//! errors, one per mistake with the way to write it; the unit tests are the last third.

use memplan::error::Error;
use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use memplan::liveness::Lifetime;
use memplan::units::{parse_size, size_token};
use std::borrow::Cow;
use std::collections::HashMap;

/// The format's name in errors: `text: line 3: ...`.
const FORMAT: &str = "text";

/// Characters that end a bare name.
const SPECIAL: [char; 5] = [':', '=', '#', '"', '@'];

/// Longest piece of a line quoted back in an error.
const SHOWN_CHARS: usize = 60;

/// One token of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A bare word: a name, a size, a keyword, `->` or a step range.
    Word(&'a str),
    /// A double quoted name, unescaped: always a name.
    Quoted(String),
    Colon,
    Equals,
    At,
}

impl Token<'_> {
    /// The name this token spells, if it is a word or a quoted string.
    fn name(&self) -> Option<&str> {
        match self {
            Token::Word(w) => Some(w),
            Token::Quoted(q) => Some(q),
            _ => None,
        }
    }

    /// True for the bare word `word` (a quoted one is a name, never a keyword).
    fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Word(w) if *w == word)
    }
}

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

/// True for `[KIND] NAME SIZE` with a size that starts with a digit, then
/// nothing, `@` or `life`: a declaration, maybe with a bad value.
fn starts_like_decl(toks: &[Token]) -> bool {
    let rest = match toks {
        [k, n, size, rest @ ..]
            if kind(k).is_some() && n.name().is_some() && looks_like_size(size) =>
        {
            rest
        }
        [n, size, rest @ ..] if n.name().is_some() && looks_like_size(size) => rest,
        _ => return false,
    };
    match rest.first() {
        None | Some(Token::At) => true,
        Some(t) => t.is_word("life"),
    }
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

/// Splits a line into tokens, up to a `#` outside quotes.
fn tokenize(line: &str) -> Result<Vec<Token<'_>>, String> {
    let mut toks = Vec::new();
    let mut rest = line.trim_start();
    while let Some(c) = rest.chars().next() {
        let (tok, after) = match c {
            '#' => break,
            ':' => (Token::Colon, &rest[1..]),
            '=' => (Token::Equals, &rest[1..]),
            '@' => (Token::At, &rest[1..]),
            '"' => {
                let (name, after) = unquote(&rest[1..])?;
                (Token::Quoted(name), after)
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || SPECIAL.contains(&c))
                    .unwrap_or(rest.len());
                (Token::Word(&rest[..end]), &rest[end..])
            }
        };
        toks.push(tok);
        rest = after.trim_start();
    }
    Ok(toks)
}

/// The quoted name at the start of `text` (just after its opening `"`),
/// unescaped, and the text after its closing `"`.
fn unquote(text: &str) -> Result<(String, &str), String> {
    let mut name = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((name, &text[i + 1..])),
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('"') => name.push('"'),
                Some('\\') => name.push('\\'),
                Some('n') => name.push('\n'),
                Some('r') => name.push('\r'),
                Some('t') => name.push('\t'),
                Some(other) => {
                    return Err(format!(
                        "unknown escape `\\{other}` in a quoted name: write `\\\"` for a quote, `\\\\` for a backslash, `\\n` for a line break"
                    ))
                }
                None => break,
            },
            _ => name.push(c),
        }
    }
    Err(format!(
        "unterminated quote in `{}`: close the name with `\"`",
        shown(text)
    ))
}

/// At most [`SHOWN_CHARS`] characters of `text`, trimmed, for an error message.
fn shown(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The line without its comment, for an error message.
fn statement(line: &str) -> String {
    let mut end = line.len();
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '#' if !quoted => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    shown(&line[..end])
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

/// The role a kind keyword gives, if `tok` is one.
fn kind(tok: &Token) -> Option<Role> {
    match tok {
        Token::Word("input") => Some(Role::Input),
        Token::Word("output") => Some(Role::Output),
        Token::Word("const") => Some(Role::Const),
        _ => None,
    }
}

/// True for a word that starts like a number: meant as a size.
fn looks_like_size(tok: &Token) -> bool {
    matches!(tok, Token::Word(w) if w.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
}

/// `name` as written in this format: bare when it can be, else quoted.
fn quote(name: &str) -> Cow<'_, str> {
    let bare = !name.is_empty()
        && name != "->"
        && !name
            .chars()
            .any(|c| c.is_whitespace() || SPECIAL.contains(&c));
    if bare {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(quoted(name))
    }
}

/// `name` in double quotes, with its quotes, backslashes, line breaks and
/// carriage returns escaped.
fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A declaration line, parsed.
#[derive(Debug)]
struct Decl<'t> {
    name: &'t str,
    role: Role,
    size: u64,
    level: Option<&'t str>,
    life: Option<Lifetime>,
}

/// The form of a declaration, for error messages.
const DECL_FORM: &str = "[KIND] NAME SIZE [@LEVEL] [life START..END]";

/// Parses a declaration: `[KIND] NAME SIZE [@LEVEL] [life START..END]`. The
/// number of tokens tells the forms apart, so keywords may also be names.
fn parse_decl<'t>(line: &str, toks: &'t [Token<'t>]) -> Result<Decl<'t>, String> {
    let (mut head, after_at) = match toks.iter().position(|t| *t == Token::At) {
        Some(i) => (&toks[..i], Some(&toks[i + 1..])),
        None => (toks, None),
    };
    let mut life = None;
    let mut level = None;
    match after_at {
        None => {
            if let [rest @ .., l, range] = head {
                if l.is_word("life") && rest.len() >= 2 {
                    life = Some(range);
                    head = rest;
                }
            }
        }
        Some([l]) => level = Some(level_name(l)?),
        Some([l, kw, range]) if kw.is_word("life") => {
            level = Some(level_name(l)?);
            life = Some(range);
        }
        Some([]) => return Err("`@` needs a memory level after it, e.g. `@UB`".into()),
        Some(_) => return Err(decl_error(line, toks)),
    }
    let (role, name, size) = decl_head(line, toks, head)?;
    let size = decl_size(name, size)?;
    let life = life.map(|r| parse_life(name, r)).transpose()?;
    Ok(Decl {
        name,
        role,
        size,
        level,
        life,
    })
}

/// The level name after `@`.
fn level_name<'t>(tok: &'t Token) -> Result<&'t str, String> {
    tok.name()
        .ok_or_else(|| "`@` needs a memory level after it, e.g. `@UB`".to_string())
}

/// The kind, name and size token of a declaration without its `@LEVEL` and
/// `life` parts: `NAME SIZE` or `KIND NAME SIZE`.
fn decl_head<'t>(
    line: &str,
    toks: &[Token],
    head: &'t [Token<'t>],
) -> Result<(Role, &'t str, &'t Token<'t>), String> {
    let name = |t: &'t Token<'t>| t.name().ok_or_else(|| decl_error(line, toks));
    match head {
        [n] => Err(no_size(name(n)?, None)),
        [k, n] if kind(k).is_some() && !looks_like_size(n) => Err(no_size(name(n)?, k.name())),
        [n, size] => Ok((Role::Arena, name(n)?, size)),
        [k, n, size] => match kind(k) {
            Some(role) => Ok((role, name(n)?, size)),
            None => Err(decl_error(line, toks)),
        },
        _ => Err(decl_error(line, toks)),
    }
}

/// The message for tensor `name` declared without a size (`kind` before it).
fn no_size(name: &str, kind: Option<&str>) -> String {
    let kind = kind.map(|k| format!("{k} ")).unwrap_or_default();
    format!(
        "tensor `{name}` has no size: write `{kind}{} 64MiB`",
        quote(name)
    )
}

/// What is wrong with a declaration line `toks` that fits none of the forms,
/// with a hint for the usual slips.
fn decl_error(line: &str, toks: &[Token]) -> String {
    let hint = if toks.iter().any(|t| t.is_word("->")) {
        "an op needs `:` after its name: `NAME [TYPE]: INPUTS -> OUTPUTS`".to_string()
    } else if let Some(p) = toks.iter().position(|t| t.is_word("life")) {
        let before = p.checked_sub(1).and_then(|b| toks[b].name());
        let with_kind = p == 2 && kind(&toks[0]).is_some();
        match before {
            _ if p + 1 == toks.len() => {
                "`life` needs its steps: `life START..END`, e.g. `life 0..3`".to_string()
            }
            Some(name) if p == 1 || with_kind => {
                return no_size(name, toks[0].name().filter(|_| with_kind));
            }
            _ => "`life START..END` comes last, after `@LEVEL`".to_string(),
        }
    } else if toks
        .iter()
        .any(|t| matches!(t, Token::Word(w) if w.contains("..")))
    {
        "fix a lifetime with `life START..END`".to_string()
    } else if let Some(joined) = split_size(toks) {
        format!("write the size as one token: `{joined}`")
    } else if toks.contains(&Token::Equals) {
        "declare a tensor as `NAME SIZE`; `NAME=SIZE` is for op lines".to_string()
    } else {
        "KIND is input, output or const; quote a name that has spaces".to_string()
    };
    format!(
        "expected a tensor `{DECL_FORM}` or an op `NAME [TYPE]: INPUTS -> OUTPUTS`, found `{}` ({hint})",
        statement(line)
    )
}

/// The size of `NAME NUMBER UNIT` written with a space inside (`x 64 KiB`), if
/// `toks` is one.
fn split_size(toks: &[Token]) -> Option<String> {
    let [_, Token::Word(num), Token::Word(unit)] = toks else {
        return None;
    };
    let joined = format!("{num}{unit}");
    parse_size(&joined).is_ok().then_some(joined)
}

/// The bytes of tensor `name`'s size token.
fn decl_size(name: &str, tok: &Token) -> Result<u64, String> {
    match tok {
        Token::Word(w) => parse_size(w).map_err(|e| format!("tensor `{name}`: {e}")),
        Token::Quoted(q) => Err(format!(
            "tensor `{name}`: the size `\"{q}\"` is quoted: write sizes without quotes, e.g. `64MiB`"
        )),
        _ => Err(format!(
            "tensor `{name}` has no size: write `{} 64MiB`",
            quote(name)
        )),
    }
}

/// Tensor `name`'s steps from `START..END` (both included).
fn parse_life(name: &str, tok: &Token) -> Result<Lifetime, String> {
    let bad = || {
        format!(
            "tensor `{name}`: `{}` is not a lifetime: write `life START..END` with steps from 0 to {}, e.g. `life 0..3`",
            tok.name().map(shown).unwrap_or_default(),
            u32::MAX
        )
    };
    let Token::Word(w) = tok else {
        return Err(bad());
    };
    let (start, end) = w.split_once("..").ok_or_else(bad)?;
    let step = |s: &str| {
        if s.starts_with('+') {
            return Err(bad());
        }
        s.parse::<u32>().map_err(|_| bad())
    };
    let (start, end) = (step(start)?, step(end)?);
    if end < start {
        return Err(format!(
            "tensor `{name}` ends before it starts: `life {start}..{end}` (START is its first step, END its last)"
        ));
    }
    Ok(Lifetime::new(start, end))
}

/// An op as read, naming tensors by slot until every declaration is known.
struct PendingOp {
    name: String,
    kind: String,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    line: usize,
}

/// The graph as its lines are read.
#[derive(Default)]
struct Builder {
    /// The `graph` line: the name and the line number.
    graph: Option<(String, usize)>,
    /// A statement was read (the `graph` line must come first).
    started: bool,
    /// Every name declared or mentioned, to its slot.
    names: HashMap<String, usize>,
    /// Per slot: the tensor's index and its declaration's line, once declared.
    slots: Vec<Option<(usize, usize)>>,
    tensors: Vec<Tensor>,
    ops: Vec<PendingOp>,
}

impl Builder {
    /// Reads line `n`.
    fn line(&mut self, n: usize, line: &str) -> Result<(), String> {
        let toks = tokenize(line)?;
        if toks.is_empty() {
            return Ok(());
        }
        if toks.contains(&Token::Colon) {
            self.op(n, line, &toks)?;
        } else if let Some(name) = graph_name(&toks) {
            self.graph_line(n, name)?;
        } else {
            let d = parse_decl(line, &toks)?;
            let tensor = Tensor {
                name: d.name.to_string(),
                size: d.size,
                role: d.role,
                level: d.level.map(str::to_string),
                lifetime: d.life,
            };
            self.declare(n, tensor)?;
        }
        self.started = true;
        Ok(())
    }

    /// Takes the graph's name from a `graph NAME` line: the first statement.
    fn graph_line(&mut self, n: usize, name: &str) -> Result<(), String> {
        if let Some((_, first)) = &self.graph {
            return Err(format!("the graph is already named on line {first}"));
        }
        if self.started {
            return Err(format!(
                "`graph {}` must be the first line (comments aside), before any tensor or op",
                quote(name)
            ));
        }
        self.graph = Some((name.to_string(), n));
        Ok(())
    }

    /// The slot of `name`, made on its first mention or declaration.
    fn slot(&mut self, name: &str) -> usize {
        if let Some(&s) = self.names.get(name) {
            return s;
        }
        self.slots.push(None);
        self.names.insert(name.to_string(), self.slots.len() - 1);
        self.slots.len() - 1
    }

    /// Declares `tensor` on line `n`, once per name; returns its slot.
    fn declare(&mut self, n: usize, tensor: Tensor) -> Result<usize, String> {
        let s = self.slot(&tensor.name);
        if let Some((_, first)) = self.slots[s] {
            return Err(format!(
                "tensor `{}` is declared twice (first on line {first})",
                tensor.name
            ));
        }
        self.slots[s] = Some((self.tensors.len(), n));
        self.tensors.push(tensor);
        Ok(s)
    }

    /// Reads an op line (one with a `:`): `NAME [TYPE]: INPUTS -> OUTPUTS`.
    fn op(&mut self, n: usize, line: &str, toks: &[Token]) -> Result<(), String> {
        let form = || {
            format!(
                "expected `NAME [TYPE]: INPUTS -> OUTPUTS`, found `{}`",
                statement(line)
            )
        };
        let colon = toks.iter().position(|t| *t == Token::Colon).unwrap_or(0);
        let (head, rest) = (&toks[..colon], &toks[colon + 1..]);
        if rest.contains(&Token::Colon) {
            return Err(format!(
                "{}: an op line has one `:`; quote a name that has one, e.g. `\"input:0\"`",
                form()
            ));
        }
        let (name, kind) = match head {
            [] => {
                return Err(format!(
                    "the op has no name: write `NAME: INPUTS -> OUTPUTS`, e.g. `relu1: x -> y` (found `{}`)",
                    statement(line)
                ))
            }
            [n] => (n.name(), Some("")),
            [n, t] => (n.name(), t.name()),
            _ => (None, None),
        };
        let (Some(name), Some(kind)) = (name, kind) else {
            return Err(format!(
                "{}: before `:` come the op's name and its type; quote a name that has spaces",
                form()
            ));
        };
        let Some(arrow) = rest.iter().position(|t| t.is_word("->")) else {
            let hint = if rest
                .iter()
                .any(|t| matches!(t, Token::Word(w) if w.contains("->")))
            {
                "put spaces around `->`"
            } else {
                "`->` separates the inputs from the outputs, e.g. `relu1: x -> y`"
            };
            return Err(format!("{} ({hint})", form()));
        };
        if rest[arrow + 1..].iter().any(|t| t.is_word("->")) {
            return Err(format!(
                "{}: an op line has one `->`; quote a tensor named `->`",
                form()
            ));
        }
        let inputs = self.side(n, &rest[..arrow])?;
        let outputs = self.side(n, &rest[arrow + 1..])?;
        self.ops.push(PendingOp {
            name: name.to_string(),
            kind: kind.to_string(),
            inputs,
            outputs,
            line: n,
        });
        Ok(())
    }

    /// The slots of the tensors an op lists on one side of `->`, declaring those
    /// written `NAME=SIZE`.
    fn side(&mut self, n: usize, toks: &[Token]) -> Result<Vec<usize>, String> {
        let mut slots = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let Some(name) = toks[i].name() else {
                return Err(misplaced(&toks[i]));
            };
            if toks.get(i + 1) == Some(&Token::Equals) {
                let size = match toks.get(i + 2) {
                    Some(t @ (Token::Word(_) | Token::Quoted(_))) => decl_size(name, t)?,
                    _ => {
                        return Err(format!(
                            "tensor `{name}` has `=` but no size: write `{}=64MiB`",
                            quote(name)
                        ))
                    }
                };
                let tensor = Tensor {
                    name: name.to_string(),
                    size,
                    role: Role::Arena,
                    level: None,
                    lifetime: None,
                };
                slots.push(self.declare(n, tensor)?);
                i += 3;
            } else {
                slots.push(self.slot(name));
                i += 1;
            }
        }
        Ok(slots)
    }

    /// The graph: every op's tensors resolved, checked for a second producer.
    fn finish(self, fallback: &str) -> Result<Graph, Error> {
        let mut producer: Vec<Option<usize>> = vec![None; self.tensors.len()];
        let mut ops = Vec::with_capacity(self.ops.len());
        for (i, op) in self.ops.iter().enumerate() {
            let inputs = self.resolve(op, &op.inputs)?;
            let outputs = self.resolve(op, &op.outputs)?;
            for t in &outputs {
                if let Some(first) = producer[t.index()].replace(i) {
                    return Err(self.second_producer(i, first, *t));
                }
            }
            ops.push(Op {
                name: op.name.clone(),
                kind: op.kind.clone(),
                inputs,
                outputs,
            });
        }
        let name = match self.graph {
            Some((name, _)) => name,
            None => fallback.to_string(),
        };
        Graph::new(name, self.tensors, ops)
    }

    /// The tensor ids of `slots`, or an error at `op`'s line (its first use)
    /// for a tensor never declared.
    fn resolve(&self, op: &PendingOp, slots: &[usize]) -> Result<Vec<TensorId>, Error> {
        slots
            .iter()
            .map(|&s| match self.slots[s] {
                Some((t, _)) => u32::try_from(t)
                    .map(TensorId)
                    .map_err(|_| Error::limit("tensors", t as u64, u64::from(u32::MAX))),
                None => {
                    let name = self.name_of(s);
                    Err(at(
                        op.line,
                        format!(
                            "tensor `{name}` has no size: declare it as `{q} 64MiB` or write `{q}=64MiB` where it is first used",
                            q = quote(name)
                        ),
                    ))
                }
            })
            .collect()
    }

    /// The name of slot `s` (a scan: for error messages only).
    fn name_of(&self, s: usize) -> &str {
        self.names
            .iter()
            .find(|(_, &v)| v == s)
            .map_or("", |(k, _)| k.as_str())
    }

    /// The error for op `i` writing tensor `t`, which op `first` writes already.
    fn second_producer(&self, i: usize, first: usize, t: TensorId) -> Error {
        let tensor = &self.tensors[t.index()].name;
        let (op, earlier) = (&self.ops[i], &self.ops[first]);
        let message = if i == first {
            format!("op `{}` writes tensor `{tensor}` twice", op.name)
        } else {
            format!(
                "tensor `{tensor}` is produced by both op `{}` (line {}) and op `{}`",
                earlier.name, earlier.line, op.name
            )
        };
        at(op.line, message)
    }
}

/// The error for a `=` or `@` out of place in an op's tensor list.
fn misplaced(tok: &Token) -> String {
    match tok {
        Token::At => {
            "`@LEVEL` goes on the tensor's declaration line, e.g. `x 4KiB @UB`".to_string()
        }
        _ => "`=` must follow a tensor name, e.g. `s=64MiB`".to_string(),
    }
}

/// The graph's name as written after `graph`: quoted when it would read as a size.
fn graph_name_token(name: &str) -> Cow<'_, str> {
    if parse_size(name).is_ok() {
        Cow::Owned(quoted(name))
    } else {
        quote(name)
    }
}

/// Appends tensor `t`'s declaration line.
fn push_tensor(out: &mut String, t: &Tensor) {
    match t.role {
        Role::Arena => {}
        Role::Input => out.push_str("input "),
        Role::Output => out.push_str("output "),
        Role::Const => out.push_str("const "),
    }
    out.push_str(&quote(&t.name));
    out.push(' ');
    out.push_str(&size_token(t.size));
    if let Some(level) = &t.level {
        out.push_str(" @");
        out.push_str(&quote(level));
    }
    if let Some(l) = t.lifetime {
        out.push_str(&format!(" life {}..{}", l.start, l.end));
    }
    out.push('\n');
}

/// Appends `op`'s line.
fn push_op(out: &mut String, graph: &Graph, op: &Op) {
    out.push_str(&quote(&op.name));
    if !op.kind.is_empty() {
        out.push(' ');
        out.push_str(&quote(&op.kind));
    }
    out.push(':');
    for t in &op.inputs {
        out.push(' ');
        out.push_str(&quote(&graph.tensor(*t).name));
    }
    out.push_str(" ->");
    for t in &op.outputs {
        out.push(' ');
        out.push_str(&quote(&graph.tensor(*t).name));
    }
    out.push('\n');
}

/// `graph` as memplan text: the `graph` line, every tensor's declaration in
/// order, a blank line, every op in order. A graph with op bodies (`subgraphs`)
/// is refused: only the JSON format holds them.
pub fn write_text(graph: &Graph) -> Result<String, Error> {
    if !graph.subgraphs.is_empty() {
        return Err(Error::usage(format!(
            "graph `{}` has op bodies (subgraphs), which memplan text cannot hold: export it as JSON instead",
            graph.name
        )));
    }
    let mut out = format!("graph {}\n", graph_name_token(&graph.name));
    for t in &graph.tensors {
        push_tensor(&mut out, t);
    }
    if !graph.ops.is_empty() {
        out.push('\n');
    }
    for op in &graph.ops {
        push_op(&mut out, graph, op);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    /// Reads `text`, panicking with the error.
    fn ok(text: &str) -> Graph {
        read(text.as_bytes(), "fallback").unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    /// The error reading `text`.
    fn err(text: &str) -> String {
        match read(text.as_bytes(), "fallback") {
            Ok(g) => panic!("{text:?} read as {g:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Writes `g` and reads it back: the same graph.
    fn round_trip(g: &Graph) -> String {
        let text = write_text(g).unwrap();
        let back = read(text.as_bytes(), "other").unwrap_or_else(|e| panic!("{text}\n{e}"));
        assert_eq!(&back, g, "{text}");
        text
    }

    /// `(name, size, role)` of every tensor.
    fn tensors(g: &Graph) -> Vec<(&str, u64, Role)> {
        g.tensors
            .iter()
            .map(|t| (t.name.as_str(), t.size, t.role))
            .collect()
    }

    #[test]
    fn reads_the_documented_example() {
        let g = ok("# a chain\n\
            graph ping_pong_chain  # its name\n\
            input image 32MiB\n\
            conv1 32MiB\n\
            relu1 32MiB @UB\n\
            Conv1 Conv: image -> conv1\n\
            Relu1: conv1 -> relu1 s=4MiB\n");
        assert_eq!(g.name, "ping_pong_chain");
        assert_eq!(
            tensors(&g),
            vec![
                ("image", 32 << 20, Role::Input),
                ("conv1", 32 << 20, Role::Arena),
                ("relu1", 32 << 20, Role::Arena),
                ("s", 4 << 20, Role::Arena),
            ]
        );
        assert_eq!(g.tensors[2].level.as_deref(), Some("UB"));
        assert_eq!(g.ops[0].kind, "Conv");
        assert_eq!(g.ops[1].kind, "");
        assert_eq!(g.ops[1].outputs, vec![TensorId(2), TensorId(3)]);
        assert_eq!(ok("x 1\n").name, "fallback");
    }

    #[test]
    fn keywords_are_names_in_other_positions() {
        let g = ok(
            "input 4KiB\ninput in 1\nlife 2 life 0..3\ninput lifeline 3\n\
                    output const 4 @life life 1..1\nconst graph 5\noutput output 6\n\
                    graph: input -> const\n",
        );
        assert_eq!(
            tensors(&g),
            vec![
                ("input", 4096, Role::Arena),
                ("in", 1, Role::Input),
                ("life", 2, Role::Arena),
                ("lifeline", 3, Role::Input),
                ("const", 4, Role::Output),
                ("graph", 5, Role::Const),
                ("output", 6, Role::Output),
            ]
        );
        assert_eq!(g.tensors[2].lifetime, Some(Lifetime::new(0, 3)));
        assert_eq!(g.tensors[4].level.as_deref(), Some("life"));
        assert_eq!(g.ops[0].name, "graph");
        // `graph SIZE` first declares a tensor; `graph NAME` later is out of place
        assert_eq!(
            tensors(&ok("graph 4KiB\n")),
            vec![("graph", 4096, Role::Arena)]
        );
        assert_eq!(ok("graph \"64\"\n").name, "64");
        assert_eq!(ok("graph 3dunet\n").name, "3dunet");
        assert!(err("x 1\ngraph g\n").contains("line 2: `graph g` must be the first line"));
        assert!(err("graph a\ngraph b\n").contains("line 2: the graph is already named on line 1"));
        // `input life 4KiB` is the input `life`; `life` as a tail needs NAME SIZE first
        assert_eq!(
            tensors(&ok("input life 4KiB\n")),
            vec![("life", 4096, Role::Input)]
        );
        assert!(err("x life 0..3\n").contains("tensor `x` has no size"));
        assert!(err("input x life 0..3\n").contains("write `input x 64MiB`"));
    }

    #[test]
    fn quoted_names_escapes_and_comments() {
        let g = ok("\"input:0\" 1 # a comment with \"quotes\"\n\
                    \"a \\\"b\\\" \\\\ c\\n\\r\\t#\" 2 @\"level one\"\n\
                    x 3# no space before the comment\n\
                    \"\" 4\n\
                    \"->\" 5\n\
                    \"my op\" \"My Type\": \"input:0\" \"\" -> \"->\" y=6 \"z w\"=7\n");
        assert_eq!(
            tensors(&g),
            vec![
                ("input:0", 1, Role::Arena),
                ("a \"b\" \\ c\n\r\t#", 2, Role::Arena),
                ("x", 3, Role::Arena),
                ("", 4, Role::Arena),
                ("->", 5, Role::Arena),
                ("y", 6, Role::Arena),
                ("z w", 7, Role::Arena),
            ]
        );
        assert_eq!(g.tensors[1].level.as_deref(), Some("level one"));
        assert_eq!(
            (g.ops[0].name.as_str(), g.ops[0].kind.as_str()),
            ("my op", "My Type")
        );
        assert_eq!(g.ops[0].inputs, vec![TensorId(0), TensorId(3)]);
        assert_eq!(
            g.ops[0].outputs,
            vec![TensorId(4), TensorId(5), TensorId(6)]
        );
        // bare names keep backslashes and odd characters
        assert_eq!(tensors(&ok("a\\b<&>é→ 1\n"))[0].0, "a\\b<&>é→");
        assert!(err("\"x 1\n").contains("line 1: unterminated quote"));
        assert!(err("x 1\n\"a\\q\" 1\n").contains("line 2: unknown escape `\\q`"));
        assert!(err("\"a\\").contains("unterminated quote"));
    }

    #[test]
    fn op_lines_and_inline_declarations() {
        let g = ok("f: -> a=1KiB\ng: a -> \nh Type: ->\nk: a b=2 -> c\nc 3\n");
        assert_eq!(
            tensors(&g),
            vec![
                ("a", 1024, Role::Arena),
                ("b", 2, Role::Arena),
                ("c", 3, Role::Arena)
            ]
        );
        assert_eq!(g.ops.len(), 4);
        assert!(g.ops[2].inputs.is_empty() && g.ops[2].outputs.is_empty());
        // spaces around `=` and `@` are allowed
        assert_eq!(
            tensors(&ok("f: -> s = 4\nt 1 @ UB\n"))[0],
            ("s", 4, Role::Arena)
        );
        // an inline declaration may come at a later mention
        assert_eq!(
            tensors(&ok("f: -> s\ng: s=8 -> \n"))[0],
            ("s", 8, Role::Arena)
        );
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        let cases = [
            ("x 1\n\nf: x -> s\n", "text: line 3: tensor `s` has no size: declare it as `s 64MiB` or write `s=64MiB` where it is first used"),
            ("f: -> \"input:0\"\n", "declare it as `\"input:0\" 64MiB`"),
            ("x\n", "line 1: tensor `x` has no size: write `x 64MiB`"),
            ("input image\n", "line 1: tensor `image` has no size: write `input image 64MiB`"),
            ("# c\nx 32XB\n", "line 2: tensor `x`: unknown size unit `XB`"),
            ("x 1.3B\n", "line 1: tensor `x`: `1.3B` is not a whole number of bytes"),
            ("x 99999999999999999999\n", "line 1: tensor `x`: `99999999999999999999` is not a size"),
            ("x 64 KiB\n", "write the size as one token: `64KiB`"),
            ("x \"4\"\n", "write sizes without quotes"),
            ("x 1\ny 2\nx 3\n", "line 3: tensor `x` is declared twice (first on line 1)"),
            ("f: -> x=1\ng: -> x=2\n", "line 2: tensor `x` is declared twice (first on line 1)"),
            ("x 1\nf: x y\n", "line 2: expected `NAME [TYPE]: INPUTS -> OUTPUTS`, found `f: x y`"),
            ("f: x->y\n", "put spaces around `->`"),
            ("f: a -> b -> c\n", "one `->`"),
            ("f: a:b -> c\n", "quote a name that has one"),
            (": x -> y\n", "line 1: the op has no name"),
            ("a b c: x -> y\n", "before `:` come the op's name and its type"),
            ("f x -> y\n", "an op needs `:` after its name"),
            ("f: x @UB -> y\n", "`@LEVEL` goes on the tensor's declaration line"),
            ("f: = -> y\n", "`=` must follow a tensor name"),
            ("f: -> y=\n", "tensor `y` has `=` but no size: write `y=64MiB`"),
            ("x=4\n", "`NAME=SIZE` is for op lines"),
            ("x 1 @\n", "`@` needs a memory level"),
            ("x 1 life\n", "`life` needs its steps"),
            ("x 1 life 0..3 @UB\n", "comes last, after `@LEVEL`"),
            ("x 1 life 5..3\n", "line 1: tensor `x` ends before it starts: `life 5..3`"),
            ("x 1 life 0..4294967296\n", "is not a lifetime"),
            ("x 1 life +0..1\n", "is not a lifetime"),
            ("x 1 0..3\n", "fix a lifetime with `life START..END`"),
            ("big bad wolf 1\n", "expected a tensor `[KIND] NAME SIZE [@LEVEL] [life START..END]`"),
            ("x 1\ny 1\nf: x -> y\ng: x -> y\n", "line 4: tensor `y` is produced by both op `f` (line 3) and op `g`"),
            ("y 1\nf: -> y y\n", "line 2: op `f` writes tensor `y` twice"),
            ("x 2048TiB\n", "the size of tensor `x` is 2251799813685248, above the limit"),
        ];
        for (text, expected) in cases {
            let e = err(text);
            assert!(e.contains(expected), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let long = format!("x 1 {}\n", "y".repeat(10_000));
        assert!(err(&long).len() < 400);
    }

    #[test]
    fn text_that_is_not_utf8_is_named_by_line() {
        assert_eq!(
            read(b"x 1\ny\xff 2\n", "f").unwrap_err().to_string(),
            "text: line 2: not UTF-8 text (an invalid byte at column 2)"
        );
    }

    #[test]
    fn byte_order_marks_and_crlf_are_read() {
        let g = ok("\u{feff}graph g\r\nx 1\r\nf: -> x\r\n");
        assert_eq!((g.name.as_str(), g.tensors[0].name.as_str()), ("g", "x"));
    }

    #[test]
    fn life_is_the_inclusive_native_lifetime() {
        let g = ok("a 4 life 0..0\nb 8 @UB life 2..4294967295\n");
        assert_eq!(g.tensors[0].lifetime, Some(Lifetime::new(0, 0)));
        assert_eq!(g.tensors[1].lifetime, Some(Lifetime::new(2, u32::MAX)));
        let json = br#"{"tensors": [{"name": "a", "size": 4, "lifetime": [0, 0]},
                        {"name": "b", "size": 8, "level": "UB", "lifetime": [2, 4294967295]}]}"#;
        let native = crate::read(json, None, "fallback").unwrap();
        assert_eq!(native, g);
    }

    #[test]
    fn the_writer_quotes_what_needs_it_and_reads_back() {
        let g = ok(
            "graph \"a graph\"\ninput in 1536\nconst w 64KiB\n\"x y\" 1MiB @\"U B\" life 1..2\n\
                    \"\" 0\n\"->\" 3GiB\n\"q\\\"\\\\\\n\\r\" 5\n\
                    \"op:1\" \"T T\": in w -> \"x y\"\n\"\": \"\" -> \"->\" \"q\\\"\\\\\\n\\r\"\n",
        );
        let text = round_trip(&g);
        assert_eq!(
            text,
            "graph \"a graph\"\ninput in 1536\nconst w 64KiB\n\"x y\" 1MiB @\"U B\" life 1..2\n\
             \"\" 0\n\"->\" 3GiB\n\"q\\\"\\\\\\n\\r\" 5\n\n\
             \"op:1\" \"T T\": in w -> \"x y\"\n\"\": \"\" -> \"->\" \"q\\\"\\\\\\n\\r\"\n"
        );
        for name in ["64", "1.5 KiB", "4KiB", "", "x", "graph", "\n"] {
            let mut g = ok("x 1\n");
            g.name = name.to_string();
            round_trip(&g);
        }
        assert_eq!(size_token(1 << 40), "1TiB");
        assert_eq!(size_token((1 << 20) + 1), "1048577");
        assert_eq!(size_token(3 << 10), "3KiB");
        assert_eq!(size_token(u64::MAX), u64::MAX.to_string());
        assert_eq!(write_text(&ok("")).unwrap(), "graph fallback\n");
    }

    #[test]
    fn graphs_with_bodies_are_refused() {
        let mut g = ok("x 1\n");
        g.subgraphs.push(memplan::graph::Subgraph {
            op: "f".into(),
            attribute: "body".into(),
            graph: ok(""),
        });
        let e = write_text(&g).unwrap_err().to_string();
        assert!(e.contains("export it as JSON instead"), "{e}");
    }

    #[test]
    fn detection_takes_the_first_statement() {
        for text in [
            "# a comment\n\ngraph g\n",
            "x 4KiB\n",
            "input image 32MiB @UB life 0..1\n",
            "f: -> y=1\n",
            "f: garbage",
            "\u{feff}x 1\n",
            "\u{feff}graph g\n",
            "x 32XB\n",
            "input x 1.3B @UB\n",
            "x 1 life 5..3\n",
        ] {
            assert_eq!(
                Format::detect(text.as_bytes()).ok(),
                Some(Format::Text),
                "{text:?}"
            );
        }
        for text in [
            "",
            "# only a comment\n",
            "hello world\n",
            "Version 2 of the thing\n",
            "x 64 KiB\n",
            "a,b,c\n1,2,3\n",
            "\"open\n",
            "\u{1}\u{2}",
        ] {
            let e = Format::detect(text.as_bytes()).unwrap_err().to_string();
            assert!(e.contains("memplan text"), "{text:?}: {e}");
        }
        assert_eq!(Format::from_name("text").unwrap(), Format::Text);
    }

    #[test]
    fn odd_inputs_read_or_fail_but_never_panic() {
        let pieces = [
            "x", " ", "\"", "\\", ":", "=", "@", "#", "->", "life", "input", "graph", "0..3",
            "1KiB", "\n", "é", "\u{feff}", "\r", "..", "9", "\t", "\u{a0}",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(seed % 12) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            if let Ok(g) = read(text.as_bytes(), "g") {
                round_trip(&g);
            }
            let _ = Format::detect(text.as_bytes());
        }
    }
}
