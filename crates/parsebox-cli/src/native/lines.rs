//! Turning a plain log into the lines a parser sees, with the corpus's deterministic timestamps
//! (tests/corpus/README.md): split on `\r?\n`, trim with JavaScript's `trim`, skip empty lines,
//! and give fed line *i* the time 2026-01-01T00:00:00.000Z + *i* seconds.

use parsebox_transcript::jsstr::js_trim;

/// Milliseconds since the epoch of 2026-01-01T00:00:00Z.
const BASE_MS: i64 = 1_767_225_600_000;

/// The ISO timestamp of fed line `i` (0-based).
pub fn line_ts(i: u64) -> String {
    let ms = BASE_MS.saturating_add(
        i64::try_from(i)
            .unwrap_or(i64::MAX / 2_000)
            .saturating_mul(1000),
    );
    iso(ms)
}

/// `new Date(ms).toISOString()` for non-negative `ms`.
pub fn iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// One line as the parser receives it, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FedLine {
    /// 1-based line number in the log file.
    pub number: usize,
    /// The trimmed, non-empty line.
    pub text: String,
    /// Its timestamp.
    pub ts: String,
}

/// The lines of a plain log that a parser is fed, in order. Invalid UTF-8 becomes U+FFFD, as the
/// server's decoder makes it.
pub fn fed_lines(bytes: &[u8]) -> Vec<FedLine> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for (k, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = js_trim(raw);
        if line.is_empty() {
            continue;
        }
        let i = out.len() as u64;
        out.push(FedLine {
            number: k + 1,
            text: line.to_owned(),
            ts: line_ts(i),
        });
    }
    out
}

/// One input line read by [`read_line_bounded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLine {
    /// Bytes the line took in the input, its `\n` included; 0 at the end of the input.
    pub consumed: u64,
    /// The line's length without its `\n`, when that was over the bound: only a prefix was kept.
    pub cut_from: Option<u64>,
}

/// Reads one line through its `\n` into `buf` (cleared first), keeping at most `max` bytes of
/// its text: the rest of a longer line is read and dropped, so an endless line costs no more
/// memory than `max`. A kept prefix ends at a UTF-8 character boundary and has no `\n`.
///
/// # Errors
/// What reading the input gave.
pub fn read_line_bounded<R: std::io::BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<ReadLine> {
    buf.clear();
    let mut consumed: u64 = 0;
    let mut ended = false;
    while !ended {
        let avail = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        let used = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => {
                ended = true;
                i + 1
            }
            None => avail.len(),
        };
        // Room for the text and its newline; one byte more tells a cut line from a full one.
        let room = (max + 2).saturating_sub(buf.len()).min(used);
        buf.extend_from_slice(avail.get(..room).unwrap_or_default());
        reader.consume(used);
        consumed += used as u64;
    }
    let text_len = consumed - u64::from(ended);
    if text_len <= max as u64 {
        return Ok(ReadLine {
            consumed,
            cut_from: None,
        });
    }
    let mut keep = max;
    while keep > 0 && buf.get(keep).is_some_and(|b| b & 0xC0 == 0x80) {
        keep -= 1;
    }
    buf.truncate(keep);
    Ok(ReadLine {
        consumed,
        cut_from: Some(text_len),
    })
}

/// Whether a raw line (without its `\n`) will be fed to the parser.
pub fn is_fed(raw: &str) -> bool {
    !js_trim(raw.strip_suffix('\r').unwrap_or(raw)).is_empty()
}

/// A one-line preview of `text` for reports: at most `max` characters, controls escaped.
pub fn preview(text: &str, max: usize) -> String {
    preview_of(text, text.chars().count(), max)
}

/// [`preview`] of a text of `chars` characters of which `head` is the start (at least its first
/// `max`, or all of it): the same preview the whole text gets.
pub fn preview_of(head: &str, chars: usize, max: usize) -> String {
    let escaped = crate::native::style::escape_controls(head)
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    let count = escaped.chars().count();
    if count <= max && chars == head.chars().count() {
        escaped
    } else {
        let cut: String = escaped.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}… ({chars} chars)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_from_the_start_of_a_text_is_the_whole_text_s() {
        let texts = [
            String::new(),
            "short".into(),
            "x".repeat(160),
            "x".repeat(161),
            "é".repeat(400),
            "a\u{1b}[31mred\u{7f}\ttab\nline".repeat(20),
            "\u{9b}".repeat(100),
        ];
        for text in texts {
            let head: String = text.chars().take(160).collect();
            assert_eq!(
                preview_of(&head, text.chars().count(), 160),
                preview(&text, 160),
                "{text:?}"
            );
        }
    }

    #[test]
    fn timestamps_follow_the_corpus_rule() {
        assert_eq!(line_ts(0), "2026-01-01T00:00:00.000Z");
        assert_eq!(line_ts(61), "2026-01-01T00:01:01.000Z");
        assert_eq!(line_ts(86_400 * 59), "2026-03-01T00:00:00.000Z");
        assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn lines_are_split_trimmed_and_numbered() {
        let lines = fed_lines(b"a\r\n\n  \n\xEF\xBB\xBF b \r\nc\rd\n\xFF");
        let got: Vec<(usize, &str, &str)> = lines
            .iter()
            .map(|l| (l.number, l.text.as_str(), l.ts.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "a", "2026-01-01T00:00:00.000Z"),
                (4, "b", "2026-01-01T00:00:01.000Z"),
                (5, "c\rd", "2026-01-01T00:00:02.000Z"),
                (6, "\u{FFFD}", "2026-01-01T00:00:03.000Z"),
            ]
        );
    }

    #[test]
    fn a_line_over_the_bound_keeps_a_prefix_at_a_character_boundary() {
        let input = "ab\nxyzé longer\nlast".as_bytes();
        let mut reader = std::io::BufReader::with_capacity(3, input);
        let mut buf = Vec::new();
        let mut read = || {
            let r = read_line_bounded(&mut reader, &mut buf, 4).unwrap();
            (
                String::from_utf8(buf.clone()).unwrap(),
                r.consumed,
                r.cut_from,
            )
        };
        assert_eq!(read(), ("ab\n".to_owned(), 3, None));
        // "xyzé" is 5 bytes: the cut may not split "é".
        assert_eq!(read(), ("xyz".to_owned(), 13, Some(12)));
        assert_eq!(read(), ("last".to_owned(), 4, None));
        assert_eq!(read(), (String::new(), 0, None));
    }

    #[test]
    fn previews_are_short_and_safe() {
        assert_eq!(preview("ab\x1bc\nd", 20), "ab\\ec\\nd");
        assert_eq!(preview(&"x".repeat(50), 10), "xxxxxxxxx… (50 chars)");
    }
}
