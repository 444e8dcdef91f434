//! Random access to the bytes of an input that may be too large to hold: a model
//! file of several gigabytes is read by ranges, and its weights are never copied.
//! The core reads no files: the CLI implements [`Source`] over a file, the page
//! over a `Blob`; a byte slice (`&[u8]`) is one too.

use memplan::error::Error;

/// The bytes of an input, read by ranges.
pub trait Source {
    /// The input's length in bytes.
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`; an error past the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error>;
}

impl Source for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let start = usize::try_from(offset).ok().filter(|&s| s <= self.len());
        let bytes = start
            .and_then(|s| self.get(s..s.checked_add(buf.len())?))
            .ok_or_else(|| Error::usage("a read past the end of the input"))?;
        buf.copy_from_slice(bytes);
        Ok(())
    }
}

/// Reads a protobuf message's fields from a [`Source`], a window at a time, so
/// that a field of any length can be skipped without reading it.
pub struct Cursor<'s> {
    src: &'s dyn Source,
    pos: u64,
    end: u64,
    window: Vec<u8>,
    window_at: u64,
    format: &'static str,
}

/// One field's payload: a number, or where its bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes { at: u64, len: u64 },
}

const WINDOW: usize = 64 << 10;

impl<'s> Cursor<'s> {
    /// The fields of the message in `at..at + len` of `src`.
    pub fn new(src: &'s dyn Source, at: u64, len: u64, format: &'static str) -> Cursor<'s> {
        Cursor {
            src,
            pos: at,
            end: at.saturating_add(len).min(src.size()),
            window: Vec::new(),
            window_at: 0,
            format,
        }
    }

    fn truncated(&self, what: &str) -> Error {
        Error::parse(
            self.format,
            None,
            format!("the file is truncated or corrupt: {what}"),
        )
    }

    fn byte(&mut self) -> Result<u8, Error> {
        if self.pos >= self.end {
            return Err(self.truncated("a varint runs past the end"));
        }
        let in_window =
            self.pos >= self.window_at && self.pos < self.window_at + self.window.len() as u64;
        if !in_window {
            let n = (self.end - self.pos).min(WINDOW as u64) as usize;
            self.window.resize(n, 0);
            self.src.read_at(self.pos, &mut self.window)?;
            self.window_at = self.pos;
        }
        let b = self.window[(self.pos - self.window_at) as usize];
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, Error> {
        let mut value: u64 = 0;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            if shift == 63 && byte > 1 {
                return Err(self.truncated("a varint overflows 64 bits"));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(self.truncated("a varint is longer than ten bytes"))
    }

    fn fixed(&mut self, n: usize) -> Result<u64, Error> {
        let mut v = 0u64;
        for k in 0..n {
            v |= u64::from(self.byte()?) << (8 * k);
        }
        Ok(v)
    }

    /// The next field, `None` at the end of the message.
    pub fn next_field(&mut self) -> Result<Option<(u32, Field)>, Error> {
        if self.pos >= self.end {
            return Ok(None);
        }
        let key = self.varint()?;
        let number =
            u32::try_from(key >> 3).map_err(|_| self.truncated("a field number overflows"))?;
        let field = match key & 7 {
            0 => Field::Varint(self.varint()?),
            1 => Field::Fixed64(self.fixed(8)?),
            5 => Field::Fixed32(self.fixed(4)? as u32),
            2 => {
                let len = self.varint()?;
                if len > self.end - self.pos {
                    return Err(self.truncated("a field runs past the end"));
                }
                let at = self.pos;
                self.pos += len;
                Field::Bytes { at, len }
            }
            w => return Err(self.truncated(&format!("wire type {w}"))),
        };
        Ok(Some((number, field)))
    }

    /// The bytes at `at..at + len`, read into memory.
    pub fn read(&self, at: u64, len: u64) -> Result<Vec<u8>, Error> {
        let n = usize::try_from(len).map_err(|_| self.truncated("a field too long to read"))?;
        let mut buf = vec![0; n];
        self.src.read_at(at, &mut buf)?;
        Ok(buf)
    }
}

/// Appends a protobuf varint.
pub fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends field `number` with `field`'s payload (`bytes` for a length-delimited one).
pub fn put_field(number: u32, field: Field, bytes: &[u8], out: &mut Vec<u8>) {
    let wire = match field {
        Field::Varint(_) => 0,
        Field::Fixed64(_) => 1,
        Field::Fixed32(_) => 5,
        Field::Bytes { .. } => 2,
    };
    put_varint((u64::from(number) << 3) | wire, out);
    match field {
        Field::Varint(v) => put_varint(v, out),
        Field::Fixed64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Field::Fixed32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Field::Bytes { .. } => {
            put_varint(bytes.len() as u64, out);
            out.extend_from_slice(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_across_windows_and_skip_payloads() {
        // field 1 varint 300, field 2: 100,000 bytes, field 3 fixed32
        let mut msg = Vec::new();
        put_field(1, Field::Varint(300), &[], &mut msg);
        put_field(
            2,
            Field::Bytes { at: 0, len: 0 },
            &vec![7u8; 100_000],
            &mut msg,
        );
        put_field(3, Field::Fixed32(9), &[], &mut msg);
        let src: &[u8] = &msg;
        let mut c = Cursor::new(&src, 0, msg.len() as u64, "t");
        assert_eq!(c.next_field().unwrap(), Some((1, Field::Varint(300))));
        let Some((2, Field::Bytes { at, len })) = c.next_field().unwrap() else {
            panic!("field 2")
        };
        assert_eq!(len, 100_000);
        assert_eq!(c.read(at + len - 1, 1).unwrap(), vec![7]);
        assert_eq!(c.next_field().unwrap(), Some((3, Field::Fixed32(9))));
        assert_eq!(c.next_field().unwrap(), None);
        let cut: &[u8] = &msg[..50];
        let mut c = Cursor::new(&cut, 0, 50, "t");
        c.next_field().unwrap();
        assert!(c.next_field().is_err());
    }
}
