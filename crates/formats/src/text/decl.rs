//! Tensor declarations, `[KIND] NAME SIZE [@LEVEL] [life START..END]`: their
//! parsing (kind keywords, sizes, levels, lifetimes) and their errors, one per
//! usual mistake with the way to write it.

use super::tokens::{quote, shown, statement, Token};
use memplan::graph::Role;
use memplan::liveness::Lifetime;
use memplan::units::parse_size;

/// True for `[KIND] NAME SIZE` with a size that starts with a digit, then
/// nothing, `@` or `life`: a declaration, maybe with a bad value.
pub(super) fn starts_like_decl(toks: &[Token]) -> bool {
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
/// A declaration line, parsed.
#[derive(Debug)]
pub(super) struct Decl<'t> {
    pub(super) name: &'t str,
    pub(super) role: Role,
    pub(super) size: u64,
    pub(super) level: Option<&'t str>,
    pub(super) life: Option<Lifetime>,
}

/// The form of a declaration, for error messages.
const DECL_FORM: &str = "[KIND] NAME SIZE [@LEVEL] [life START..END]";

/// Parses a declaration: `[KIND] NAME SIZE [@LEVEL] [life START..END]`. The
/// number of tokens tells the forms apart, so keywords may also be names.
pub(super) fn parse_decl<'t>(line: &str, toks: &'t [Token<'t>]) -> Result<Decl<'t>, String> {
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
pub(super) fn decl_size(name: &str, tok: &Token) -> Result<u64, String> {
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
