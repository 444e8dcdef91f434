//! A small FlatBuffers reader: vtable-based field access over a byte slice, or
//! over a file read by ranges ([`Bytes::paged`]) so that the weights of a model
//! of any size are never read.
//!
//! Every read is bounds-checked and returns an error instead of panicking; a
//! vector's length is checked against the bytes left before anything is collected,
//! so no count taken from the file can make the caller allocate past the file size.

use super::source::Source;
use memplan::error::Error;
use std::borrow::Cow;
use std::cell::RefCell;

/// The bytes a FlatBuffer is read from.
pub enum Bytes<'s> {
    Slice(&'s [u8]),
    /// A source read a page at a time, the pages kept in a small cache.
    Paged {
        src: &'s dyn Source,
        len: usize,
        pages: RefCell<Vec<(usize, Vec<u8>)>>,
    },
}

const PAGE: usize = 64 << 10;
/// Pages kept at once: 16 MiB.
const PAGES: usize = 256;

impl<'s> Bytes<'s> {
    /// `src` read by ranges; it must fit the address space.
    pub fn paged(src: &'s dyn Source) -> Result<Bytes<'s>, Error> {
        let len = usize::try_from(src.size())
            .map_err(|_| bad("the file is larger than this machine can address"))?;
        Ok(Bytes::Paged {
            src,
            len,
            pages: RefCell::new(Vec::new()),
        })
    }

    pub fn len(&self) -> usize {
        match self {
            Bytes::Slice(b) => b.len(),
            Bytes::Paged { len, .. } => *len,
        }
    }

    /// `n` bytes at `pos`, borrowed from a slice or read from the source.
    pub fn range(&self, pos: usize, n: usize) -> Result<Cow<'s, [u8]>, Error> {
        let end = pos
            .checked_add(n)
            .filter(|&e| e <= self.len())
            .ok_or_else(|| {
                bad(format!(
                    "the file is truncated: {n} bytes at offset {pos} lie past its end ({} bytes)",
                    self.len()
                ))
            })?;
        match self {
            Bytes::Slice(b) => Ok(Cow::Borrowed(&b[pos..end])),
            Bytes::Paged { src, .. } if n > PAGE => {
                let mut out = vec![0; n];
                src.read_at(pos as u64, &mut out)?;
                Ok(Cow::Owned(out))
            }
            Bytes::Paged { .. } => {
                let mut out = Vec::with_capacity(n);
                let mut at = pos;
                while at < end {
                    let page = at / PAGE;
                    let from = at - page * PAGE;
                    let take = (end - at).min(PAGE - from);
                    self.with_page(page, |p| out.extend_from_slice(&p[from..from + take]))?;
                    at += take;
                }
                Ok(Cow::Owned(out))
            }
        }
    }

    fn with_page(&self, page: usize, f: impl FnOnce(&[u8])) -> Result<(), Error> {
        let Bytes::Paged { src, len, pages } = self else {
            unreachable!("only paged bytes have pages")
        };
        let mut cache = pages.borrow_mut();
        if let Some((_, p)) = cache.iter().find(|(k, _)| *k == page) {
            f(p);
            return Ok(());
        }
        let start = page * PAGE;
        let mut p = vec![0; (len - start).min(PAGE)];
        src.read_at(start as u64, &mut p)?;
        f(&p);
        if cache.len() >= PAGES {
            cache.remove(0);
        }
        cache.push((page, p));
        Ok(())
    }
}

/// A table: its position in the buffer and its vtable's.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    buf: &'a Bytes<'a>,
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

/// A vector: the position of its first element and its length.
#[derive(Clone, Copy)]
pub struct Vector<'a> {
    buf: &'a Bytes<'a>,
    start: usize,
    len: usize,
}

fn bad(message: impl Into<String>) -> Error {
    Error::parse("tflite", None, message)
}

fn read<const N: usize>(buf: &Bytes, pos: usize) -> Result<[u8; N], Error> {
    let bytes = buf.range(pos, N)?;
    Ok(bytes.as_ref().try_into().expect("a range of length N"))
}

fn u32_at(buf: &Bytes, pos: usize) -> Result<u32, Error> {
    read::<4>(buf, pos).map(u32::from_le_bytes)
}

/// Follows the unsigned offset stored at `pos`.
fn deref(buf: &Bytes, pos: usize) -> Result<usize, Error> {
    let target = pos as u64 + u64::from(u32_at(buf, pos)?);
    if target >= buf.len() as u64 {
        return Err(bad(format!(
            "an offset at {pos} points to {target}, past the end of the file ({} bytes)",
            buf.len()
        )));
    }
    Ok(target as usize)
}

impl<'a> Table<'a> {
    /// The root table: the offset stored in the first four bytes.
    pub fn root(buf: &'a Bytes<'a>) -> Result<Table<'a>, Error> {
        Table::at(buf, deref(buf, 0)?)
    }

    fn at(buf: &'a Bytes<'a>, pos: usize) -> Result<Table<'a>, Error> {
        let soffset = i32::from_le_bytes(read::<4>(buf, pos)?);
        let vtable = pos as i64 - i64::from(soffset);
        if vtable < 0 || vtable as u64 + 4 > buf.len() as u64 {
            return Err(bad(format!(
                "the table at {pos} has its vtable at {vtable}, outside the file"
            )));
        }
        let vtable = vtable as usize;
        let vtable_len = usize::from(u16::from_le_bytes(read::<2>(buf, vtable)?));
        if vtable_len < 4 || vtable + vtable_len > buf.len() {
            return Err(bad(format!(
                "the vtable at {vtable} claims {vtable_len} bytes, which do not fit"
            )));
        }
        Ok(Table {
            buf,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Position of field `index`, or `None` when absent.
    fn field(&self, index: usize) -> Result<Option<usize>, Error> {
        let slot = 4 + 2 * index;
        if slot + 2 > self.vtable_len {
            return Ok(None);
        }
        let off = u16::from_le_bytes(read::<2>(self.buf, self.vtable + slot)?);
        Ok((off != 0).then_some(self.pos + usize::from(off)))
    }

    fn scalar<const N: usize>(&self, index: usize) -> Result<Option<[u8; N]>, Error> {
        match self.field(index)? {
            Some(pos) => read::<N>(self.buf, pos).map(Some),
            None => Ok(None),
        }
    }

    pub fn u8(&self, index: usize, default: u8) -> Result<u8, Error> {
        Ok(self.scalar::<1>(index)?.map_or(default, |b| b[0]))
    }

    pub fn i8(&self, index: usize, default: i8) -> Result<i8, Error> {
        Ok(self.scalar::<1>(index)?.map_or(default, |b| b[0] as i8))
    }

    pub fn u32(&self, index: usize, default: u32) -> Result<u32, Error> {
        Ok(self.scalar::<4>(index)?.map_or(default, u32::from_le_bytes))
    }

    pub fn i32(&self, index: usize, default: i32) -> Result<i32, Error> {
        Ok(self.scalar::<4>(index)?.map_or(default, i32::from_le_bytes))
    }

    pub fn u64(&self, index: usize, default: u64) -> Result<u64, Error> {
        Ok(self.scalar::<8>(index)?.map_or(default, u64::from_le_bytes))
    }

    /// A vector of `elem_size`-byte elements (4 for offsets to tables).
    pub fn vector(&self, index: usize, elem_size: usize) -> Result<Option<Vector<'a>>, Error> {
        let Some(pos) = self.field(index)? else {
            return Ok(None);
        };
        let start = deref(self.buf, pos)?;
        let len = u32_at(self.buf, start)? as u64;
        let room = (self.buf.len() - start - 4) as u64;
        if len.saturating_mul(elem_size as u64) > room {
            return Err(bad(format!(
                "the vector at {start} claims {len} elements of {elem_size} bytes, more than the {room} bytes left"
            )));
        }
        Ok(Some(Vector {
            buf: self.buf,
            start: start + 4,
            len: len as usize,
        }))
    }

    /// A table-valued field (a union's table), or `None` when absent.
    pub fn table(&self, index: usize) -> Result<Option<Table<'a>>, Error> {
        match self.field(index)? {
            Some(pos) => Table::at(self.buf, deref(self.buf, pos)?).map(Some),
            None => Ok(None),
        }
    }

    /// A string; invalid UTF-8 is replaced rather than refused.
    pub fn string(&self, index: usize) -> Result<Option<String>, Error> {
        match self.vector(index, 1)? {
            Some(v) => Ok(Some(String::from_utf8_lossy(&v.bytes()?).into_owned())),
            None => Ok(None),
        }
    }
}

impl<'a> Vector<'a> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements as raw bytes (for `[ubyte]` vectors).
    pub fn bytes(&self) -> Result<Cow<'a, [u8]>, Error> {
        self.buf.range(self.start, self.len)
    }

    /// The first `n` bytes (all when fewer): a weight's buffer is read only as
    /// far as a caller needs.
    pub fn prefix(&self, n: usize) -> Result<Cow<'a, [u8]>, Error> {
        self.buf.range(self.start, self.len.min(n))
    }

    pub fn table(&self, i: usize) -> Result<Table<'a>, Error> {
        self.check(i)?;
        Table::at(self.buf, deref(self.buf, self.start + 4 * i)?)
    }

    pub fn i32(&self, i: usize) -> Result<i32, Error> {
        self.check(i)?;
        read::<4>(self.buf, self.start + 4 * i).map(i32::from_le_bytes)
    }

    /// All elements of an `[int]` vector.
    pub fn i32s(&self) -> Result<Vec<i32>, Error> {
        (0..self.len).map(|i| self.i32(i)).collect()
    }

    fn check(&self, i: usize) -> Result<(), Error> {
        if i < self.len {
            Ok(())
        } else {
            Err(bad(format!(
                "element {i} of a vector of {} elements",
                self.len
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root table with one vtable of two fields: a u32 = 7 and a vector [1, 2].
    fn sample() -> Vec<u8> {
        let mut b = vec![0u8; 40];
        b[0..4].copy_from_slice(&12u32.to_le_bytes()); // root at 12
        b[4..6].copy_from_slice(&8u16.to_le_bytes()); // vtable at 4: 8 bytes
        b[6..8].copy_from_slice(&12u16.to_le_bytes());
        b[8..10].copy_from_slice(&4u16.to_le_bytes()); // field 0 at +4
        b[10..12].copy_from_slice(&8u16.to_le_bytes()); // field 1 at +8
        b[12..16].copy_from_slice(&8i32.to_le_bytes()); // vtable = 12 - 8
        b[16..20].copy_from_slice(&7u32.to_le_bytes());
        b[20..24].copy_from_slice(&8u32.to_le_bytes()); // vector at 28
        b[28..32].copy_from_slice(&2u32.to_le_bytes());
        b[32..36].copy_from_slice(&1i32.to_le_bytes());
        b[36..40].copy_from_slice(&2i32.to_le_bytes());
        b
    }

    #[test]
    fn reads_fields_and_defaults() {
        let data = sample();
        let b = Bytes::Slice(&data);
        let t = Table::root(&b).unwrap();
        assert_eq!(t.u32(0, 0).unwrap(), 7);
        assert_eq!(t.vector(1, 4).unwrap().unwrap().i32s().unwrap(), vec![1, 2]);
        assert_eq!(t.u32(5, 42).unwrap(), 42);
        assert!(t.vector(5, 4).unwrap().is_none());
        assert!(t.table(5).unwrap().is_none());
        // field 0 holds 7, which as an offset points past the end
        assert!(t.table(0).is_err());
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let mut data = sample();
        data[28..32].copy_from_slice(&1000u32.to_le_bytes());
        let b = Bytes::Slice(&data);
        let t = Table::root(&b).unwrap();
        assert!(t.vector(1, 4).is_err());
        assert!(Table::root(&Bytes::Slice(&data[..3])).is_err());
        let mut data = sample();
        data[12..16].copy_from_slice(&(-100i32).to_le_bytes());
        assert!(Table::root(&Bytes::Slice(&data)).is_err());
    }

    #[test]
    fn paged_reads_match_the_slice() {
        // the sample padded past two pages, read through a source
        let mut data = sample();
        data.resize(3 * PAGE + 17, 0);
        let src: &[u8] = &data;
        let b = Bytes::paged(&src).unwrap();
        let t = Table::root(&b).unwrap();
        assert_eq!(t.u32(0, 0).unwrap(), 7);
        assert_eq!(t.vector(1, 4).unwrap().unwrap().i32s().unwrap(), vec![1, 2]);
        // a range across a page boundary
        assert_eq!(b.range(PAGE - 2, 5).unwrap().len(), 5);
        assert!(b.range(3 * PAGE + 10, 8).is_err());
    }
}
