//! Options validation: a value the host cannot work with is an error at construction, never a
//! panic or a deadline that never fires later.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use parsebox_host::{Host, HostOptions, MAX_DROPPED_PREVIEW_CHARS, MAX_DURATION_MS};

type Edit = fn(&mut HostOptions);

#[test]
fn options_are_validated() {
    // (what, edit, the option named in the error — `None`: accepted)
    let rows: Vec<(&str, Edit, Option<&str>)> = vec![
        ("defaults", |_| {}, None),
        (
            "one hour is the longest",
            |o| o.replay_deadline_ms = MAX_DURATION_MS,
            None,
        ),
        (
            "1e308 ms",
            |o| o.line_budget_ms = 1e308,
            Some("lineBudgetMs"),
        ),
        (
            "NaN",
            |o| o.hard_deadline_ms = f64::NAN,
            Some("hardDeadlineMs"),
        ),
        (
            "infinity",
            |o| o.init_budget_ms = f64::INFINITY,
            Some("initBudgetMs"),
        ),
        (
            "zero",
            |o| o.start_deadline_ms = 0.0,
            Some("startDeadlineMs"),
        ),
        (
            "negative",
            |o| o.replay_deadline_ms = -1.0,
            Some("replayDeadlineMs"),
        ),
        (
            "just over an hour",
            |o| o.replay_deadline_ms = MAX_DURATION_MS + 1.0,
            Some("replayDeadlineMs"),
        ),
        (
            "previews of dropped entries, at most 10,000 characters",
            |o| o.dropped_preview_chars = MAX_DROPPED_PREVIEW_CHARS,
            None,
        ),
        (
            "previews past 10,000 characters",
            |o| o.dropped_preview_chars = MAX_DROPPED_PREVIEW_CHARS + 1,
            Some("droppedPreviewChars"),
        ),
        (
            "a rebuild slice of 8 ms",
            |o| o.rebuild_slice_ms = Some(8.0),
            None,
        ),
        (
            "a rebuild slice of 0 ms",
            |o| o.rebuild_slice_ms = Some(0.0),
            Some("rebuildSliceMs"),
        ),
        (
            "deadline below the budget",
            |o| {
                o.line_budget_ms = 200.0;
                o.hard_deadline_ms = 100.0;
            },
            Some("hardDeadlineMs"),
        ),
        (
            "empty journal",
            |o| o.max_journal_bytes = 0,
            Some("maxJournalBytes"),
        ),
        (
            "absurd journal",
            |o| o.max_journal_bytes = usize::MAX,
            Some("maxJournalBytes"),
        ),
        (
            "no respawns",
            |o| o.max_respawns_without_progress = 0,
            Some("maxRespawnsWithoutProgress"),
        ),
        (
            "zero entries per line",
            |o| o.entry_limits.max_entries_per_line = 0,
            Some("maxEntriesPerLine"),
        ),
        (
            "absurd string size",
            |o| o.entry_limits.max_string_bytes = usize::MAX,
            Some("maxStringBytes"),
        ),
        ("no Workers", |o| o.max_workers = 0, Some("maxWorkers")),
        ("65 Workers", |o| o.max_workers = 65, Some("maxWorkers")),
        ("64 Workers", |o| o.max_workers = 64, None),
        (
            "raised limits are fine",
            |o| {
                o.entry_limits.max_string_bytes = 4 << 20;
                o.entry_limits.max_entries_per_line = 5_000;
            },
            None,
        ),
    ];
    for (what, edit, bad) in rows {
        let mut o = HostOptions::default();
        edit(&mut o);
        let got = o.validate().err().map(|e| e.option);
        assert_eq!(got, bad, "{what}");
        assert_eq!(
            Host::new(o.clone()).is_err(),
            bad.is_some(),
            "{what}: Host::new"
        );
        if let Err(e) = o.validate() {
            assert!(e
                .to_string()
                .starts_with(&format!("option \"{}\"", e.option)));
        }
    }
}

/// The value an error names is written as JS writes it, so the page's author recognises it.
#[test]
fn a_refused_number_is_shown_as_js_writes_it() {
    let rows: &[(f64, &str)] = &[
        (1e308, "got 1e308"),
        (f64::NAN, "got NaN"),
        (f64::NEG_INFINITY, "got -Infinity"),
        (-1.0, "got -1"),
        (0.0, "got 0"),
    ];
    for &(v, want) in rows {
        let o = HostOptions {
            line_budget_ms: v,
            ..HostOptions::default()
        };
        let message = o.validate().unwrap_err().to_string();
        assert!(
            message.contains(want),
            "{message:?} should contain {want:?}"
        );
    }
}

/// `maxWorkers` by default: one Worker per core, at most four; one where the cores are not known.
#[test]
fn the_default_workers_follow_the_cores() {
    let rows = [
        (None, 1),
        (Some(0), 1),
        (Some(1), 1),
        (Some(2), 2),
        (Some(4), 4),
        (Some(64), parsebox_host::DEFAULT_MAX_WORKERS_CAP),
    ];
    for (cores, want) in rows {
        assert_eq!(HostOptions::default_max_workers(cores), want, "{cores:?}");
    }
}
