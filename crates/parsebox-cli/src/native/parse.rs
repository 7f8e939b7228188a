//! `parsebox parse`: a log through a [`TranscriptBuilder`] whose line parser is a sandboxed
//! [`ParserRun`], printed as it is built. An entry is printed once it can no longer change
//! (a later entry exists, so no delta can merge into it), which keeps `tail -f` piping live.
//! `--format timeline` prints the [`Timeline`] of the whole transcript once the log has ended.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};
use std::time::{Duration, Instant};

use parsebox_timeline::{Origins, Timeline};
use parsebox_transcript::{
    read_stored_run, Chunk, FailureCode, LineFailure, LineParser, TranscriptBuilder,
    TranscriptEntry, TranscriptOptions,
};

use crate::cli::{Format, ParseArgs};
use crate::error::CliError;
use crate::native::check::{sandbox_options, thousands};
use crate::native::hosted::run::HostedRun as ParserRunner;
use crate::native::input::read_parser;
use crate::native::lines::{is_fed, line_ts, preview, read_line_bounded};
use crate::native::progress::Progress;
use crate::native::render::pretty;
use crate::native::runner::StartError;
use crate::native::style::{use_color, Painter};
use parsebox_transcript::lone_surrogates::{unmark_json, unmark_text};

/// The parser's run (on the live core with its engine in a process of its own, as the page runs
/// it: [`crate::native::hosted`]), which also remembers which lines fell back, for the summary.
struct Recording {
    run: ParserRunner,
    failures: Vec<(String, String, LineFailure)>,
    failure_count: u64,
    failure_codes: BTreeMap<FailureCode, u64>,
    /// The next line was cut to `--max-line-bytes` on reading: its whole length. It is not
    /// handed to the parser (a prefix of an event is not the event) but shows as the generic
    /// entry, as the UI shows a line over `maxLineBytes`.
    cut_next: Option<u64>,
    max_line_bytes: usize,
}

impl LineParser for Recording {
    fn parse_line(&mut self, line: &str, ts: &str) -> Result<Vec<TranscriptEntry>, LineFailure> {
        let out = match self.cut_next.take() {
            Some(len) => Err(LineFailure::new(
                FailureCode::LineTooLong,
                format!(
                    "line is {len} bytes, over --max-line-bytes {}: its first {} bytes show as the generic entry",
                    self.max_line_bytes,
                    line.len()
                ),
            )),
            None => LineParser::parse_line(&mut self.run, line, ts),
        };
        if let Err(f) = &out {
            self.failure_count += 1;
            *self.failure_codes.entry(f.code).or_default() += 1;
            if self.failures.len() < 5 {
                self.failures
                    .push((ts.to_owned(), preview(line, 80), f.clone()));
            }
        }
        out
    }

    fn reset(&mut self) {
        LineParser::reset(&mut self.run);
    }
}

/// Where the output goes and how it looks.
struct Output<W: Write> {
    out: W,
    format: Format,
    painter: Painter,
    written: usize,
    flush_each: bool,
}

impl<W: Write> Output<W> {
    /// Writes `entries[self.written..upto]` (nothing for the timeline: see [`Self::finish`]).
    fn emit(&mut self, entries: &[TranscriptEntry], upto: usize) -> Result<(), CliError> {
        if self.format == Format::Timeline {
            return Ok(());
        }
        let Some(new) = entries.get(self.written..upto) else {
            return Ok(());
        };
        if new.is_empty() {
            return Ok(());
        }
        for e in new {
            match self.format {
                Format::Jsonl => {
                    let json = serde_json::to_string(e)
                        .map_err(|e| CliError::write(&io::Error::from(e)))?;
                    // A parser's lone surrogates, as JavaScript writes them.
                    self.out.write_all(unmark_json(&json).as_bytes())?;
                    self.out.write_all(b"\n")?;
                }
                Format::Pretty => {
                    let shown = pretty(e, &self.painter);
                    self.out.write_all(unmark_text(&shown).as_bytes())?;
                    self.out.write_all(b"\n")?;
                }
                Format::Timeline => {}
            }
        }
        self.written = upto;
        if self.flush_each {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Writes what is left once the run has ended: the last entries, or the whole timeline
    /// (an item can change until the end: a result may still come for any call).
    /// `origins`: where each entry came from, which names the timeline's items.
    fn finish(
        &mut self,
        entries: &[TranscriptEntry],
        origins: Origins<'_>,
    ) -> Result<(), CliError> {
        if self.format != Format::Timeline {
            return self.emit(entries, entries.len());
        }
        for item in Timeline::from_window(entries, 0, true, origins).items() {
            let json =
                serde_json::to_string(item).map_err(|e| CliError::write(&io::Error::from(e)))?;
            self.out.write_all(unmark_json(&json).as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Runs `parsebox parse`.
///
/// # Errors
/// [`CliError::Input`] for an unreadable parser or log, [`CliError::Parser`] when the parser
/// does not load, [`CliError::BrokenPipe`] / [`CliError::Output`] when stdout fails.
pub fn run_parse(args: &ParseArgs) -> Result<u8, CliError> {
    let options = sandbox_options(&args.shared.sandbox)?;
    let source_bytes = read_parser(&args.parser, options.max_source_bytes, "a parser")?;
    let source = String::from_utf8_lossy(&source_bytes);
    let max_line_bytes = options.max_line_bytes;

    // The output first: a line given up flushes what came before it.
    let stdout = io::stdout();
    let stdout_tty = stdout.is_terminal();
    let shared = SharedOut::new(stdout);
    let quiet = args.quiet;
    let hung_out = shared.clone();
    let give_up = Duration::from_millis(args.shared.hang_timeout_ms);
    let run = ParserRunner::start(
        &source,
        &options,
        give_up,
        Box::new(move |after| {
            // The entries before the stuck line are final: let a reader of the file see them.
            hung_out.flush_now();
            if !quiet {
                eprintln!(
                    "parsebox: warning: gave up a line after {} ms: the parser was still in one native \
                     operation the sandbox cannot interrupt; the line shows the generic entry and the \
                     lines after it are parsed",
                    after.as_millis()
                );
            }
        }),
    )
    .map_err(|e| match e {
        StartError::Thread(e) => CliError::Parser(format!("could not start the parser: {e}")),
        refused => CliError::Parser(format!(
            "{} did not load: {} (run `parsebox check` for the full report)",
            args.parser.display(),
            refused.describe()
        )),
    })?;

    let stdin_input = args.log.as_ref().is_none_or(|p| p.as_os_str() == "-");
    let (reader, total): (Box<dyn Read>, Option<u64>) = if stdin_input {
        if io::stdin().is_terminal() && !args.quiet {
            eprintln!("parsebox: reading the log from standard input (end it with Ctrl-D)");
        }
        (Box::new(io::stdin().lock()), None)
    } else {
        let path = args
            .log
            .as_deref()
            .unwrap_or_else(|| std::path::Path::new("-"));
        let file = File::open(path).map_err(|e| CliError::read(path, &e))?;
        let meta = file.metadata().map_err(|e| CliError::read(path, &e))?;
        if meta.is_dir() {
            return Err(CliError::Input(format!(
                "cannot read {}: is a directory, not a file",
                path.display()
            )));
        }
        (Box::new(file), Some(meta.len()))
    };
    let input_name = if stdin_input {
        "standard input".to_owned()
    } else {
        args.log
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    };

    let mut output = Output {
        out: shared.clone(),
        format: args.format,
        painter: Painter {
            color: args.format == Format::Pretty && use_color(args.shared.color.color),
        },
        written: 0,
        flush_each: stdin_input || stdout_tty,
    };
    // The bar shares the terminal with nothing: only when the output goes to a file or pipe.
    let mut progress = Progress::new(
        !args.quiet && io::stderr().is_terminal() && !stdout_tty,
        total,
    );

    let recording = Recording {
        run,
        failures: Vec::new(),
        failure_count: 0,
        failure_codes: BTreeMap::new(),
        cut_next: None,
        max_line_bytes,
    };
    let topts = TranscriptOptions {
        redact_home_paths: args.redact_home_paths,
        // The timeline names items by the line that made them, as the library's does.
        track_lines: args.format == Format::Timeline,
        ..TranscriptOptions::default()
    };
    let mut builder = TranscriptBuilder::new(recording, topts);

    let started = Instant::now();
    let mut reader = BufReader::with_capacity(256 * 1024, reader);
    let mut buf = Vec::new();
    let mut bytes_read: u64 = 0;
    let mut fed: u64 = 0;
    let mut skipped_rows = 0usize;
    let mut cut_rows = 0usize;
    loop {
        let read = read_line_bounded(&mut reader, &mut buf, max_line_bytes)
            .map_err(|e| CliError::Input(format!("cannot read {input_name}: {e}")))?;
        if read.consumed == 0 {
            break;
        }
        bytes_read += read.consumed;
        let text = String::from_utf8_lossy(&buf);
        if args.ndjson {
            if read.cut_from.is_some() {
                // A row cut short is not JSON: said, not silently skipped.
                cut_rows += 1;
            } else {
                let stored = read_stored_run(&text);
                skipped_rows += stored.skipped_rows;
                for chunk in &stored.chunks {
                    builder.push(chunk);
                }
            }
        } else {
            let raw = text.strip_suffix('\n').unwrap_or(&text);
            let ts = line_ts(fed);
            if is_fed(raw) {
                fed += 1;
                builder.parser_mut().cut_next = read.cut_from;
            } else if read.cut_from.is_some() {
                // Blank in the part kept: nothing to show, but said.
                cut_rows += 1;
            }
            if read.cut_from.is_some() {
                builder.push(&Chunk::stdout(&ts, &format!("{raw}\n")));
            } else {
                builder.push(&Chunk::stdout(&ts, &text));
            }
        }
        // What no later chunk can change is written now (a streamed delta may still grow).
        let upto = builder.final_len();
        output.emit(builder.entries(), upto)?;
        progress.update(bytes_read, builder.lines_parsed());
    }
    builder.finish();
    let entries = builder.entries();
    output.finish(entries, &|i| builder.entry_origin(i))?;
    output.out.flush()?;
    progress.clear();

    if !args.quiet {
        let elapsed = started.elapsed().as_secs_f64();
        let lines = builder.lines_parsed();
        let mut summary = format!(
            "parsebox: {} line{} → {} entr{} in {:.2} s",
            thousands(usize::try_from(lines).unwrap_or(usize::MAX)),
            if lines == 1 { "" } else { "s" },
            thousands(entries.len()),
            if entries.len() == 1 { "y" } else { "ies" },
            elapsed
        );
        if elapsed > 0.0 {
            #[allow(clippy::cast_precision_loss)]
            let (lps, mbps) = (lines as f64 / elapsed, bytes_read as f64 / elapsed / 1e6);
            summary.push_str(&format!(
                " ({} lines/s, {mbps:.1} MB/s)",
                thousands(lps as usize)
            ));
        }
        eprintln!("{summary}");
        let rec = builder.parser();
        if rec.failure_count > 0 {
            eprintln!(
                "parsebox: {} line{} fell back to the generic parser ({})",
                rec.failure_count,
                if rec.failure_count == 1 { "" } else { "s" },
                counts(&rec.failure_codes)
            );
            for (ts, line, f) in &rec.failures {
                eprintln!("  {ts} {f}: {line}");
            }
        }
        let dropped_by = rec.run.dropped();
        let dropped: u64 = dropped_by.values().sum();
        if dropped > 0 {
            eprintln!(
                "parsebox: {dropped} invalid entr{} dropped ({}); `parsebox check` shows them",
                if dropped == 1 { "y" } else { "ies" },
                counts(&dropped_by)
            );
        }
        if cut_rows > 0 {
            eprintln!(
                "parsebox: {cut_rows} input line{} over --max-line-bytes ({max_line_bytes}) skipped (an NDJSON row cut short is not JSON; a line blank in the part kept shows nothing); raise it to read {}",
                if cut_rows == 1 { "" } else { "s" },
                if cut_rows == 1 { "it" } else { "them" }
            );
        }
        if skipped_rows > 0 {
            eprintln!(
                "parsebox: {skipped_rows} malformed NDJSON row{} skipped",
                if skipped_rows == 1 { "" } else { "s" }
            );
        }
    }
    Ok(crate::error::EXIT_OK)
}

fn counts<K: std::fmt::Display>(map: &BTreeMap<K, u64>) -> String {
    map.iter()
        .map(|(k, v)| format!("{k} ×{v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Buffered stdout that a given-up line flushes (from the thread that gives it up): when the parser was stuck in a call the
/// sandbox cannot interrupt, the entries already final reach a file or pipe at once.
#[derive(Clone)]
struct SharedOut(std::sync::Arc<std::sync::Mutex<io::BufWriter<io::Stdout>>>);

impl SharedOut {
    fn new(stdout: io::Stdout) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(
            io::BufWriter::with_capacity(64 * 1024, stdout),
        )))
    }

    /// Flushes from any thread; a write error shows on the main thread's next write.
    fn flush_now(&self) {
        if let Ok(mut out) = self.0.lock() {
            let _ = out.flush();
        }
    }
}

impl Write for SharedOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.lock() {
            Ok(mut out) => out.write(buf),
            Err(_) => Err(io::Error::other("the output lock was poisoned")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0.lock() {
            Ok(mut out) => out.flush(),
            Err(_) => Err(io::Error::other("the output lock was poisoned")),
        }
    }
}
