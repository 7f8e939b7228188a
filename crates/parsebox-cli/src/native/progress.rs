//! A one-line progress bar on stderr, redrawn in place with `\r`. Hand-written: it is twenty
//! lines, and `indicatif` would bring a terminal-handling stack for one bar.

use std::io::Write;
use std::time::{Duration, Instant};

/// Progress of reading a log: shown only when enabled, and only once the work has taken long
/// enough to be worth watching (small files never flash a bar).
pub struct Progress {
    enabled: bool,
    total: Option<u64>,
    started: Instant,
    last_draw: Option<Instant>,
    drawn: bool,
}

const FIRST_DRAW_AFTER: Duration = Duration::from_millis(300);
const REDRAW_EVERY: Duration = Duration::from_millis(100);
const WIDTH: usize = 30;

impl Progress {
    /// A bar for `total` bytes (unknown for stdin); `enabled` false makes every call a no-op.
    pub fn new(enabled: bool, total: Option<u64>) -> Self {
        Self {
            enabled,
            total,
            started: Instant::now(),
            last_draw: None,
            drawn: false,
        }
    }

    /// Redraws when due.
    pub fn update(&mut self, bytes: u64, lines: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.started);
        if elapsed < FIRST_DRAW_AFTER
            || self
                .last_draw
                .is_some_and(|t| now.duration_since(t) < REDRAW_EVERY)
        {
            return;
        }
        self.last_draw = Some(now);
        self.drawn = true;
        #[allow(clippy::cast_precision_loss)]
        let mbps = bytes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6;
        #[allow(clippy::cast_precision_loss)]
        let mb = bytes as f64 / 1e6;
        let line = match self.total {
            Some(total) if total > 0 => {
                let done = usize::try_from(bytes.min(total).saturating_mul(WIDTH as u64) / total)
                    .unwrap_or(WIDTH);
                let pct = bytes.min(total).saturating_mul(100) / total;
                #[allow(clippy::cast_precision_loss)]
                let total_mb = total as f64 / 1e6;
                format!(
                    "[{}{}] {pct:>3}%  {mb:.1}/{total_mb:.1} MB  {lines} lines  {mbps:.1} MB/s",
                    "#".repeat(done),
                    "-".repeat(WIDTH - done)
                )
            }
            _ => format!("{mb:.1} MB  {lines} lines  {mbps:.1} MB/s"),
        };
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not stop the parse.
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }

    /// Removes the bar.
    pub fn clear(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.drawn = false;
        }
    }
}
