//! The checks over one set of fed lines: "no throws, no budget overruns" and "every returned
//! entry valid".

use std::collections::BTreeMap;

use parsebox_transcript::{DroppedEntry, LineFailure};

use super::feed::{Answer, Line, Outcome};
use crate::native::lines::{preview, preview_of};
use crate::native::report::{plural, Check, Status};

/// "no throws, no budget overruns" over one set of lines.
pub(super) fn failures_check(
    id: &'static str,
    title: &'static str,
    lines: &[Line],
    answers: &[Answer],
    max: usize,
) -> Check {
    let entries: usize = answers
        .iter()
        .map(|a| {
            if let Outcome::Entries(e) = &a.outcome {
                e.len()
            } else {
                0
            }
        })
        .sum();
    let failed: Vec<(&Line, &LineFailure)> = lines
        .iter()
        .zip(answers)
        .filter_map(|(l, a)| {
            if let Outcome::Failed(f) = &a.outcome {
                Some((l, f))
            } else {
                None
            }
        })
        .collect();
    let n = lines.len();
    if failed.is_empty() {
        return Check::new(
            id,
            title,
            Status::Pass,
            format!(
                "{n} line{} → {entries} entr{}; no throws, no budget overruns",
                plural(n),
                if entries == 1 { "y" } else { "ies" }
            ),
        );
    }
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, f) in &failed {
        *by_code.entry(f.code.as_str()).or_default() += 1;
    }
    let codes: Vec<String> = by_code.iter().map(|(c, k)| format!("{c} ×{k}")).collect();
    let mut details: Vec<String> = failed
        .iter()
        .take(max)
        .map(|(l, f)| {
            format!(
                "{}: {}: {}\n{}",
                l.label,
                f.code,
                preview(&f.message, 200),
                preview(&l.text, 100)
            )
        })
        .collect();
    if failed.len() > max {
        details.push(format!("… and {} more", failed.len() - max));
    }
    details
        .push("each failing line falls back to the generic parser (shown as plain stdout)".into());
    Check::new(
        id,
        title,
        Status::Fail,
        format!(
            "{} of {n} line{} failed ({})",
            failed.len(),
            plural(n),
            codes.join(", ")
        ),
    )
    .with_details(details)
}

/// "every returned entry valid".
pub(super) fn entries_check(fed: &[(&Line, &Answer)], max: usize) -> Check {
    let valid: usize = fed
        .iter()
        .map(|(_, a)| {
            if let Outcome::Entries(e) = &a.outcome {
                e.len()
            } else {
                0
            }
        })
        .sum();
    let invalid: Vec<(&Line, &DroppedEntry)> = fed
        .iter()
        .flat_map(|(l, a)| a.invalid.iter().map(move |i| (*l, i)))
        .collect();
    let total = valid + invalid.len();
    if invalid.is_empty() {
        return Check::new(
            "entries",
            "entries",
            Status::Pass,
            format!(
                "all {total} returned entr{} valid",
                if total == 1 { "y is" } else { "ies are" }
            ),
        );
    }
    let mut details: Vec<String> = invalid
        .iter()
        .take(max)
        .map(|(l, d)| format!("{}: {}\n{}", l.label, d.message, dropped_preview(d)))
        .collect();
    if invalid.len() > max {
        details.push(format!("… and {} more", invalid.len() - max));
    }
    details.push("invalid entries are dropped: the UI never renders them".into());
    Check::new(
        "entries",
        "entries",
        Status::Fail,
        format!("{} of {total} returned entries are invalid", invalid.len()),
    )
    .with_details(details)
}

/// What a dropped entry was, as the report shows it: the start of its JSON text the core kept
/// ([`PREVIEW_CHARS`](super::feed::PREVIEW_CHARS) characters, so the preview is exact).
fn dropped_preview(d: &DroppedEntry) -> String {
    match (&d.entry, d.entry_chars) {
        (Some(json), Some(chars)) => preview_of(json, chars, super::feed::PREVIEW_CHARS),
        _ => "(not kept: a line's first entries dropped are shown)".into(),
    }
}
