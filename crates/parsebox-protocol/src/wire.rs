//! The ops frame: how a batch of [`EngineOp`]s travels from the core to an engine instance.
//!
//! JSON (`[{"op":"line",…}]`) was what the first engines read; decoding that internally tagged
//! enum cost an engine ~5,500 instructions a line (serde buffers every object before it knows
//! the variant), more than converting the parser's return value. The frame is a sequence of
//! self-delimiting records, so any run of whole records is a frame too: a Worker's engine
//! performs a batch a record at a time ([`record_len`]), and the Worker posts the answers it
//! holds between records (`crates/parsebox-wasm/js/worker.js`).
//!
//! ```text
//! record   = tag:u8  len:u32le  body[len]
//! newRun   = 0xB1, body = run:u64le [stateless:u8]
//! line     = 0xB2, body = run:u64le seq:u64le replay:u8 tsLen:u32le ts[tsLen] line[rest]
//! reset    = 0xB3, body = run:u64le
//! dropRun  = 0xB4, body = run:u64le
//! ```
//!
//! Strings are UTF-8. Every tag is at least 0xB1, a byte no JSON text starts with, so an
//! engine that also reads JSON ops (tests, hand-made batches) tells the two apart by the first
//! byte ([`is_frame`]).

use crate::{EngineOp, LineOp, RunId, Seq};

const NEW_RUN: u8 = 0xB1;
const LINE: u8 = 0xB2;
const RESET: u8 = 0xB3;
const DROP_RUN: u8 = 0xB4;

/// Bytes before a record's body: its tag and length.
pub const RECORD_HEADER_BYTES: usize = 5;

/// A Worker's frame this large leaves at once, from inside the call that filled it, instead of
/// at the executor's next turn: a page that pushes a stored run's chunks in one synchronous
/// loop keeps the Worker parsing while it pushes the rest. 16 KiB is a few hundred short lines
/// (milliseconds of a Worker's time per message), or a handful of long ones.
pub const POST_NOW_BYTES: usize = 16 * 1024;

/// Whether a Worker's pending frame of `len` bytes should be posted now ([`POST_NOW_BYTES`]).
pub fn post_now(len: usize) -> bool {
    len >= POST_NOW_BYTES
}

/// The length of `frame`'s first record, its header included, when that record is whole: a
/// frame handed to an engine at once can be performed a record at a time.
pub fn record_len(frame: &[u8]) -> Option<usize> {
    let (_, _, rest) = next_record(frame).ok()?;
    Some(frame.len() - rest.len())
}

/// Whether `frame`'s first record makes the engine do realm work of its own before any line
/// (a new run's realm): a Worker posts the answers it holds before that record, so the core
/// times the work as the engine's, not as its next line's.
pub fn starts_realm_work(frame: &[u8]) -> bool {
    frame.first() == Some(&NEW_RUN)
}

/// Whether `bytes` is an ops frame (not JSON): its first byte is a record tag.
pub fn is_frame(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&(NEW_RUN..=DROP_RUN)))
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    // A line is capped far below 4 GiB (`maxLineBytes`); saturate rather than wrap.
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Appends `ops` to `out` as records.
pub fn encode_ops(ops: &[EngineOp], out: &mut Vec<u8>) {
    for op in ops {
        let tag = match op {
            EngineOp::NewRun { .. } => NEW_RUN,
            EngineOp::Reset { .. } => RESET,
            EngineOp::DropRun { .. } => DROP_RUN,
            EngineOp::Line(_) => LINE,
        };
        out.push(tag);
        put_u32(out, body_bytes(op));
        match op {
            EngineOp::NewRun { run, stateless } => {
                out.extend_from_slice(&run.0.to_le_bytes());
                if *stateless {
                    out.push(1);
                }
            }
            EngineOp::Reset { run } | EngineOp::DropRun { run } => {
                out.extend_from_slice(&run.0.to_le_bytes());
            }
            EngineOp::Line(l) => {
                out.extend_from_slice(&l.run.0.to_le_bytes());
                out.extend_from_slice(&l.seq.to_le_bytes());
                out.push(u8::from(l.replay));
                put_u32(out, l.ts.len());
                out.extend_from_slice(l.ts.as_bytes());
                out.extend_from_slice(l.line.as_bytes());
            }
        }
    }
}

/// The length of `op`'s record body, as its header says: a run id (and a flag byte for a
/// stateless new run); for a line, also its seq, the replay flag, the ts' length, ts and line.
fn body_bytes(op: &EngineOp) -> usize {
    match op {
        EngineOp::NewRun { stateless, .. } => 8 + usize::from(*stateless),
        EngineOp::Reset { .. } | EngineOp::DropRun { .. } => 8,
        EngineOp::Line(l) => 8 + 8 + 1 + 4 + l.ts.len() + l.line.len(),
    }
}

/// The bytes [`encode_ops`] writes for `ops`: each record's tag, length and body.
fn frame_bytes(ops: &[EngineOp]) -> usize {
    ops.iter().map(|op| 1 + 4 + body_bytes(op)).sum()
}

/// `ops` as a new frame.
pub fn ops_frame(ops: &[EngineOp]) -> Vec<u8> {
    // Sized once: growing it by doubling copied each line of a page's `parseLine` three times.
    let mut out = Vec::with_capacity(frame_bytes(ops));
    encode_ops(ops, &mut out);
    out
}

/// One record: its tag and body, and the bytes after it.
fn next_record(frame: &[u8]) -> Result<(u8, &[u8], &[u8]), String> {
    let (&tag, rest) = frame
        .split_first()
        .ok_or_else(|| "the frame ends inside a record header".to_owned())?;
    let (len, rest) = take_u32(rest)?;
    if rest.len() < len {
        return Err(format!(
            "a record says {len} bytes but {} remain",
            rest.len()
        ));
    }
    let (body, rest) = rest.split_at(len);
    Ok((tag, body, rest))
}

fn take_u32(bytes: &[u8]) -> Result<(usize, &[u8]), String> {
    match bytes.split_first_chunk::<4>() {
        Some((n, rest)) => Ok((u32::from_le_bytes(*n) as usize, rest)),
        None => Err("the frame ends inside a length".to_owned()),
    }
}

fn take_u64(bytes: &[u8]) -> Result<(u64, &[u8]), String> {
    match bytes.split_first_chunk::<8>() {
        Some((n, rest)) => Ok((u64::from_le_bytes(*n), rest)),
        None => Err("a record ends inside a number".to_owned()),
    }
}

fn text(bytes: &[u8], what: &str) -> Result<String, String> {
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|e| format!("the {what} is not UTF-8: {e}"))
}

fn decode_record(tag: u8, body: &[u8]) -> Result<EngineOp, String> {
    let (run, rest) = take_u64(body)?;
    let run = RunId(run);
    match tag {
        NEW_RUN => Ok(EngineOp::NewRun {
            run,
            stateless: rest.first().is_some_and(|&f| f != 0),
        }),
        RESET => Ok(EngineOp::Reset { run }),
        DROP_RUN => Ok(EngineOp::DropRun { run }),
        LINE => {
            let (seq, rest) = take_u64(rest)?;
            let (&replay, rest) = rest
                .split_first()
                .ok_or_else(|| "a line record ends before its replay flag".to_owned())?;
            let (ts_len, rest) = take_u32(rest)?;
            if rest.len() < ts_len {
                return Err("a line record ends inside its ts".to_owned());
            }
            let (ts, line) = rest.split_at(ts_len);
            Ok(EngineOp::Line(LineOp {
                seq,
                run,
                line: text(line, "line")?,
                ts: text(ts, "ts")?,
                replay: replay != 0,
            }))
        }
        other => Err(format!("unknown record tag {other:#04x}")),
    }
}

/// Decodes a whole frame.
///
/// # Errors
/// A message saying what is malformed: a cut record, an unknown tag, text that is not UTF-8.
pub fn decode_ops(mut frame: &[u8]) -> Result<Vec<EngineOp>, String> {
    let mut ops = Vec::new();
    while !frame.is_empty() {
        let (tag, body, rest) = next_record(frame)?;
        ops.push(decode_record(tag, body)?);
        frame = rest;
    }
    Ok(ops)
}

/// The seqs of the line records of a frame that does not decode as a whole, read leniently
/// (a cut last record still gives its seq): each line op is still answered, as an engine fault.
pub fn frame_line_seqs(mut frame: &[u8]) -> Vec<Seq> {
    let mut seqs = Vec::new();
    while let Some((&tag, rest)) = frame.split_first() {
        let Ok((len, rest)) = take_u32(rest) else {
            break;
        };
        let (body, rest) = rest.split_at(len.min(rest.len()));
        if tag == LINE {
            if let Some(Ok((seq, _))) = body.get(8..16).map(take_u64) {
                seqs.push(seq);
            }
        }
        frame = rest;
    }
    seqs
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn line(seq: Seq, line: &str, ts: &str, replay: bool) -> EngineOp {
        EngineOp::Line(LineOp {
            seq,
            run: RunId(7),
            line: line.to_owned(),
            ts: ts.to_owned(),
            replay,
        })
    }

    #[test]
    fn every_op_survives_the_round_trip() {
        let ops = vec![
            EngineOp::NewRun {
                run: RunId(7),
                stateless: false,
            },
            EngineOp::NewRun {
                run: RunId(8),
                stateless: true,
            },
            line(1, "plain", "2026-01-01T00:00:00Z", false),
            line(u64::MAX, "ünïcødé 💬 and \"quotes\"\n", "", true),
            line(3, "", "t", false),
            EngineOp::Reset { run: RunId(7) },
            EngineOp::DropRun {
                run: RunId(u64::MAX),
            },
        ];
        let frame = ops_frame(&ops);
        assert!(is_frame(&frame));
        // Sized exactly: the frame never grew while it was written.
        assert_eq!(frame.capacity(), frame.len());
        assert_eq!(frame_bytes(&ops), frame.len());
        assert_eq!(decode_ops(&frame).unwrap(), ops);
        assert_eq!(frame_line_seqs(&frame), vec![1, u64::MAX, 3]);
    }

    #[test]
    fn any_run_of_whole_records_is_a_frame() {
        let ops = vec![line(1, "a", "t", false), line(2, "b", "t", false)];
        let frame = ops_frame(&ops);
        let (_, first, _) = next_record(&frame).unwrap();
        let cut = RECORD_HEADER_BYTES + first.len();
        assert_eq!(decode_ops(&frame[..cut]).unwrap(), ops[..1]);
        assert_eq!(decode_ops(&frame[cut..]).unwrap(), ops[1..]);
    }

    #[test]
    fn json_is_not_a_frame_and_malformed_frames_are_errors() {
        assert!(!is_frame(br#"[{"op":"newRun","run":1}]"#));
        assert!(!is_frame(b" []"));
        assert!(!is_frame(b""));
        let frame = ops_frame(&[line(5, "line", "ts", false)]);
        for cut in 1..frame.len() {
            assert!(decode_ops(&frame[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad_tag = frame.clone();
        bad_tag[0] = 0xB9;
        assert!(decode_ops(&bad_tag).unwrap_err().contains("tag"));
        let mut bad_text = frame.clone();
        let last = bad_text.len() - 1;
        bad_text[last] = 0xFF;
        assert!(decode_ops(&bad_text).unwrap_err().contains("UTF-8"));
        // The seq is still readable: the line is answered as a fault, not lost.
        assert_eq!(frame_line_seqs(&bad_text), vec![5]);
    }
}
