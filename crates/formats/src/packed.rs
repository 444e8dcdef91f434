//! Plan reports packed for the hand-off from the worker to the page: a JSON head
//! (the report with empty tensor and profile lists, and `plan.placed` counting the
//! tensors), the live-bytes profile and the tensors as little-endian records, so
//! that the page reads a million tensors, and a trace's profile of a million
//! changes, without parsing (or, in the page's code, holding) 160 MB of JSON.
//!
//! Layout: `MPK2`, the head's length (u32) and the head; the profile's length (u32)
//! and per change: step (u32), bytes (u64); the tensor count (u32), then per
//! tensor: id (u32), size (u64), start (u32), end (u32), offset (u64), pool (u32),
//! the name's length in bytes (u32) and the name (UTF-8).

use memplan::plan::Placement;

const MAGIC: &[u8; 4] = b"MPK2";

/// Bytes of a profile change.
const CHANGE: usize = 4 + 8;

/// What [`unpack`] reads: the head (JSON text), the profile and the tensors.
pub type Unpacked<'a> = (&'a str, Vec<(u32, u64)>, Vec<Placement>);

/// Bytes of a record besides the name.
const FIXED: usize = 4 + 8 + 4 + 4 + 8 + 4 + 4;

/// `head` (JSON text), `profile` and `tensors`, packed.
pub fn pack(head: &str, profile: &[(u32, u64)], tensors: &[Placement]) -> Vec<u8> {
    let names: usize = tensors.iter().map(|t| t.name.len()).sum();
    let records = CHANGE * profile.len() + FIXED * tensors.len() + names;
    let mut out = Vec::with_capacity(16 + head.len() + records);
    out.extend_from_slice(MAGIC);
    put_len(&mut out, head.len());
    out.extend_from_slice(head.as_bytes());
    put_len(&mut out, profile.len());
    for &(step, bytes) in profile {
        out.extend_from_slice(&step.to_le_bytes());
        out.extend_from_slice(&bytes.to_le_bytes());
    }
    put_len(&mut out, tensors.len());
    for t in tensors {
        out.extend_from_slice(&t.id.to_le_bytes());
        out.extend_from_slice(&t.size.to_le_bytes());
        out.extend_from_slice(&t.start.to_le_bytes());
        out.extend_from_slice(&t.end.to_le_bytes());
        out.extend_from_slice(&t.offset.to_le_bytes());
        out.extend_from_slice(&t.pool.to_le_bytes());
        put_len(&mut out, t.name.len());
        out.extend_from_slice(t.name.as_bytes());
    }
    out
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    let len = u32::try_from(len).expect("under 4 GiB: inputs are limited to 256 MiB");
    out.extend_from_slice(&len.to_le_bytes());
}

/// The head (JSON text), the profile and the tensors of `bytes`, or what is wrong
/// with them.
pub fn unpack(bytes: &[u8]) -> Result<Unpacked<'_>, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err("not a packed plan report".into());
    }
    let len = r.u32()? as usize;
    let head = std::str::from_utf8(r.take(len)?).map_err(|_| "the report head is not UTF-8")?;
    let changes = r.count(CHANGE, "profile changes")?;
    let mut profile = Vec::with_capacity(changes);
    for _ in 0..changes {
        profile.push((r.u32()?, r.u64()?));
    }
    // every record takes FIXED bytes at least: a count beyond that is a lie
    let count = r.count(FIXED, "tensors")?;
    let mut tensors = Vec::with_capacity(count);
    for _ in 0..count {
        let (id, size, start, end) = (r.u32()?, r.u64()?, r.u32()?, r.u32()?);
        let (offset, pool, len) = (r.u64()?, r.u32()?, r.u32()? as usize);
        let name = std::str::from_utf8(r.take(len)?).map_err(|_| "a tensor name is not UTF-8")?;
        tensors.push(Placement {
            id,
            name: name.to_string(),
            size,
            start,
            end,
            offset,
            pool,
        });
    }
    if r.at != bytes.len() {
        return Err("bytes left after the last tensor".into());
    }
    Ok((head, profile, tensors))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("the packed report ends early")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// A count of records of at least `each` bytes: one beyond what the bytes
    /// left can hold is a lie.
    fn count(&mut self, each: usize, what: &str) -> Result<usize, String> {
        let n = self.u32()? as usize;
        if n > (self.bytes.len() - self.at) / each {
            return Err(format!("{n} {what} cannot fit in the packed report"));
        }
        Ok(n)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("eight bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(id: u32, name: &str) -> Placement {
        Placement {
            id,
            name: name.into(),
            size: u64::MAX - u64::from(id),
            start: id,
            end: id + 3,
            offset: 1 << 40,
            pool: 7,
        }
    }

    #[test]
    fn a_report_comes_back_as_it_went() {
        let tensors = vec![tensor(0, "x"), tensor(5, ""), tensor(9, "<img src=x> ünï")];
        let profile = vec![(0, 5), (3, u64::MAX), (u32::MAX, 0)];
        let bytes = pack(r#"{"a": 1}"#, &profile, &tensors);
        let (head, changes, back) = unpack(&bytes).unwrap();
        assert_eq!(head, r#"{"a": 1}"#);
        assert_eq!(changes, profile);
        assert_eq!(back, tensors);
    }

    #[test]
    fn every_truncation_and_a_lying_count_are_errors() {
        let bytes = pack("{}", &[(1, 2)], &[tensor(1, "name"), tensor(2, "other")]);
        for cut in 0..bytes.len() {
            assert!(unpack(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(unpack(&extra).is_err());
        // a lying profile length, then a lying tensor count
        for at in [4 + 4 + 2, 4 + 4 + 2 + 4 + CHANGE] {
            let mut lying = bytes.clone();
            lying[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            assert!(
                unpack(&lying).unwrap_err().contains("cannot fit"),
                "at {at}"
            );
        }
        let mut magic = bytes;
        magic[0] = b'X';
        assert!(unpack(&magic).is_err());
    }
}
