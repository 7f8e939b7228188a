//! Paperclip's stored run logs: NDJSON pages with one `{ts, stream, chunk, seq?}` object per
//! line. Replaying them through a [`TranscriptBuilder`](crate::TranscriptBuilder) gives the same
//! transcript as the live stream did.

use crate::builder::Chunk;

/// The chunks of a stored run log, and how many rows could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredRun {
    /// Chunks in file order.
    pub chunks: Vec<Chunk>,
    /// Non-empty rows that were not a valid chunk object (bad JSON, unknown stream, missing
    /// field). They are skipped, and counted so a viewer can say so.
    pub skipped_rows: usize,
}

/// Reads a stored NDJSON run log. Blank rows are ignored; malformed rows are skipped and
/// counted, never fatal: one torn row must not hide the rest of a run.
pub fn read_stored_run(text: &str) -> StoredRun {
    let mut run = StoredRun::default();
    for row in text.split('\n') {
        let row = row.trim();
        if row.is_empty() {
            continue;
        }
        match serde_json::from_str::<Chunk>(row) {
            Ok(chunk) => run.chunks.push(chunk),
            Err(_) => run.skipped_rows += 1,
        }
    }
    run
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::Stream;

    #[test]
    fn malformed_rows_are_skipped_and_counted() {
        let text = concat!(
            r#"{"ts":"t1","stream":"stdout","chunk":"a\n","seq":1}"#,
            "\n",
            "not json\n",
            r#"{"ts":"t2","stream":"video","chunk":"x"}"#,
            "\n",
            r#"{"ts":"t3","stream":"stderr"}"#,
            "\n",
            "\n",
            r#"{"ts":"t4","stream":"stderr","chunk":"oops"}"#,
            "\n",
        );
        let run = read_stored_run(text);
        assert_eq!(run.skipped_rows, 3);
        assert_eq!(run.chunks.len(), 2);
        assert_eq!(run.chunks[0].seq, Some(1));
        assert_eq!(run.chunks[1].stream, Stream::Stderr);
    }
}
