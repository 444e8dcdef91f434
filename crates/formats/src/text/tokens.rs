//! The tokens of a line of memplan text (names, words, `:`, `=`, `@`), the
//! unquoting of quoted names when reading and the quoting of names when writing,
//! and the pieces of a line shown back in errors.

use std::borrow::Cow;

/// Characters that end a bare name.
const SPECIAL: [char; 5] = [':', '=', '#', '"', '@'];

/// Longest piece of a line quoted back in an error.
const SHOWN_CHARS: usize = 60;

/// One token of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token<'a> {
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
    pub(super) fn name(&self) -> Option<&str> {
        match self {
            Token::Word(w) => Some(w),
            Token::Quoted(q) => Some(q),
            _ => None,
        }
    }

    /// True for the bare word `word` (a quoted one is a name, never a keyword).
    pub(super) fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Word(w) if *w == word)
    }
}
/// Splits a line into tokens, up to a `#` outside quotes.
pub(super) fn tokenize(line: &str) -> Result<Vec<Token<'_>>, String> {
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
pub(super) fn shown(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The line without its comment, for an error message.
pub(super) fn statement(line: &str) -> String {
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
/// `name` as written in this format: bare when it can be, else quoted.
pub(super) fn quote(name: &str) -> Cow<'_, str> {
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
pub(super) fn quoted(name: &str) -> String {
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
