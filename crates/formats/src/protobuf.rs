//! A protobuf wire-format decoder: varints, length-delimited fields, fixed32/64,
//! packed repeated scalars. Every length is checked against the bytes left, so a
//! corrupt file yields an error, never a panic or an allocation past its size.

use memplan::error::Error;

/// One field's payload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

/// The fields of one message, in file order.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    format: &'static str,
}

/// Iterates over the fields of the message in `buf`; errors carry `format`.
pub fn fields<'a>(buf: &'a [u8], format: &'static str) -> Fields<'a> {
    Fields {
        buf,
        pos: 0,
        format,
    }
}

fn truncated(format: &'static str, what: &str) -> Error {
    Error::parse(
        format,
        None,
        format!("the file is truncated or corrupt: {what}"),
    )
}

/// Reads a varint at `*pos` (at most ten bytes), advancing `*pos`.
pub fn varint(buf: &[u8], pos: &mut usize, format: &'static str) -> Result<u64, Error> {
    let mut value: u64 = 0;
    for shift in (0..70).step_by(7) {
        let byte = *buf
            .get(*pos)
            .ok_or_else(|| truncated(format, "a varint runs past the end"))?;
        *pos += 1;
        if shift == 63 && byte > 1 {
            return Err(truncated(format, "a varint overflows 64 bits"));
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err(truncated(format, "a varint is longer than ten bytes"))
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], Error> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(truncated(
                self.format,
                &format!(
                    "{what} of {n} bytes at offset {} but only {left} are left",
                    self.pos
                ),
            ));
        }
        let out = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(out)
    }

    fn field(&mut self) -> Result<(u32, Wire<'a>), Error> {
        let key = varint(self.buf, &mut self.pos, self.format)?;
        let number = key >> 3;
        if number == 0 || number > u64::from(u32::MAX >> 3) {
            return Err(truncated(self.format, &format!("field number {number}")));
        }
        let wire = match key & 7 {
            0 => Wire::Varint(varint(self.buf, &mut self.pos, self.format)?),
            1 => Wire::Fixed64(u64::from_le_bytes(
                self.take(8, "a fixed64")?.try_into().expect("8 bytes"),
            )),
            2 => {
                let n = varint(self.buf, &mut self.pos, self.format)?;
                Wire::Bytes(self.take(n, "a length-delimited field")?)
            }
            5 => Wire::Fixed32(u32::from_le_bytes(
                self.take(4, "a fixed32")?.try_into().expect("4 bytes"),
            )),
            w => {
                return Err(truncated(
                    self.format,
                    &format!("field {number} has wire type {w}, which is not supported"),
                ))
            }
        };
        Ok((number as u32, wire))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Wire<'a>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let item = self.field();
        if item.is_err() {
            self.pos = self.buf.len();
        }
        Some(item)
    }
}

/// Appends a repeated integer field, packed (bytes of varints) or not, keeping at
/// most `cap` values; returns false (and keeps none of the rest) past it.
pub fn push_ints(
    wire: Wire,
    out: &mut Vec<i64>,
    cap: usize,
    format: &'static str,
) -> Result<bool, Error> {
    match wire {
        Wire::Varint(v) if out.len() < cap => out.push(v as i64),
        Wire::Varint(_) => return Ok(false),
        Wire::Bytes(b) => {
            let mut pos = 0;
            while pos < b.len() {
                let v = varint(b, &mut pos, format)? as i64;
                if out.len() >= cap {
                    return Ok(false);
                }
                out.push(v);
            }
        }
        _ => return Err(truncated(format, "an integer list has the wrong wire type")),
    }
    Ok(true)
}

/// Appends a repeated float field, packed (bytes) or not.
pub fn push_floats(wire: Wire, out: &mut Vec<f32>, format: &'static str) -> Result<(), Error> {
    match wire {
        Wire::Fixed32(v) => out.push(f32::from_bits(v)),
        Wire::Bytes(b) if b.len() % 4 == 0 => out.extend(
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))),
        ),
        _ => return Err(truncated(format, "a float list has the wrong wire type")),
    }
    Ok(())
}

/// A length-delimited field as text (invalid UTF-8 replaced).
pub fn text(wire: Wire, format: &'static str) -> Result<String, Error> {
    match wire {
        Wire::Bytes(b) => Ok(String::from_utf8_lossy(b).into_owned()),
        _ => Err(truncated(format, "a string field has the wrong wire type")),
    }
}

/// A length-delimited field's bytes (a nested message).
pub fn bytes<'a>(wire: Wire<'a>, format: &'static str) -> Result<&'a [u8], Error> {
    match wire {
        Wire::Bytes(b) => Ok(b),
        _ => Err(truncated(format, "a message field has the wrong wire type")),
    }
}

/// A varint field's value.
pub fn int(wire: Wire, format: &'static str) -> Result<i64, Error> {
    match wire {
        Wire::Varint(v) => Ok(v as i64),
        _ => Err(truncated(
            format,
            "an integer field has the wrong wire type",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_wire_type() {
        // field 1 varint 300, field 2 bytes "hi", field 3 fixed32, field 4 packed [1, 150]
        let msg = [
            0x08, 0xac, 0x02, 0x12, 2, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x22, 3, 1, 0x96, 0x01,
        ];
        let got: Vec<_> = fields(&msg, "t").collect::<Result<_, _>>().unwrap();
        assert_eq!(got[0], (1, Wire::Varint(300)));
        assert_eq!(got[1], (2, Wire::Bytes(b"hi")));
        assert_eq!(got[2], (3, Wire::Fixed32(1)));
        let mut ints = Vec::new();
        assert!(push_ints(got[3].1, &mut ints, 9, "t").unwrap());
        assert_eq!(ints, vec![1, 150]);
        assert!(!push_ints(got[3].1, &mut ints, 3, "t").unwrap());
    }

    #[test]
    fn refuses_truncation_and_bad_wire_types() {
        assert!(fields(&[0x12, 5, b'a'], "t").any(|f| f.is_err()));
        assert!(fields(&[0x08, 0xff], "t").any(|f| f.is_err()));
        assert!(fields(&[0x0b], "t").any(|f| f.is_err()));
        assert!(fields(&[0x08; 1][..], "t").any(|f| f.is_err()));
        let long = [0xffu8; 11];
        assert!(varint(&long, &mut 0, "t").is_err());
    }
}
