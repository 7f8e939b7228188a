//! The messages between the command and an engine process, over the process's standard
//! streams: a tag byte, the payload's length (`u32`, little-endian) and the payload. The page
//! posts the same things to a Worker (`worker.js`); here they are bytes on a pipe.

use std::io::{self, Read, Write};

/// The command → engine: start the engine (JSON [`StartMessage`](super::process::StartMessage)).
pub const START: u8 = b'S';
/// The command → engine: an ops frame (`parsebox_protocol::wire`), as the core made it.
pub const OPS: u8 = b'O';
/// Engine → the command: the start's result, JSON of `Result<entryPoint, LoadError>`.
pub const STARTED: u8 = b's';
/// Engine → the command: a live line began (its `seq`, 8 bytes little-endian).
pub const BEGAN: u8 = b'b';
/// Engine → the command: the engine's count of work moved on during a line.
pub const PROGRESS: u8 = b'p';
/// Engine → the command: a batch of answers, JSON `[[seq, outcome, reports?], …]`.
pub const ANSWERS: u8 = b'a';
/// Engine → the command: a live line ran past its deadline with no work counted (one native
/// step): the process ends after this message.
pub const STOPPED: u8 = b'x';

/// The largest payload either side accepts: more than any ops frame the core posts at once or
/// any answer batch an engine holds (both bounded far below), so a longer one is a fault.
pub const MAX_PAYLOAD: usize = 256 << 20;

/// Writes one message.
///
/// # Errors
/// The pipe's, or a payload over [`MAX_PAYLOAD`].
pub fn write_message(out: &mut impl Write, tag: u8, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|&n| n as usize <= MAX_PAYLOAD)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "message too long"))?;
    out.write_all(&[tag])?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(payload)?;
    out.flush()
}

/// Reads one message: `None` at the end of the stream.
///
/// # Errors
/// The pipe's, a stream that ends inside a message, or a length over [`MAX_PAYLOAD`].
pub fn read_message(input: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match input.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    input.read_exact(&mut head[1..])?;
    let [tag, a, b, c, d] = head;
    let len = u32::from_le_bytes([a, b, c, d]) as usize;
    if len > MAX_PAYLOAD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a message of {len} bytes, over the {MAX_PAYLOAD} a message may hold"),
        ));
    }
    let mut payload = vec![0u8; len];
    input.read_exact(&mut payload)?;
    Ok(Some((tag, payload)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_back_as_written_and_a_cut_one_is_an_error() {
        let mut buf = Vec::new();
        write_message(&mut buf, OPS, b"frame").unwrap();
        write_message(&mut buf, PROGRESS, b"").unwrap();
        let mut r = buf.as_slice();
        assert_eq!(
            read_message(&mut r).unwrap(),
            Some((OPS, b"frame".to_vec()))
        );
        assert_eq!(read_message(&mut r).unwrap(), Some((PROGRESS, Vec::new())));
        assert_eq!(read_message(&mut r).unwrap(), None);
        let cut = buf.get(..7).unwrap();
        assert!(read_message(&mut &*cut).is_err());
        let mut huge = vec![OPS];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_message(&mut huge.as_slice()).is_err());
    }
}
