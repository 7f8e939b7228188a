//! The one rule for a duration option (a budget or a deadline, in milliseconds) that every entry
//! point shares: the registry's options, the sandbox's, the CLI's flags. And a number as JS
//! writes it, for the messages that quote what was given.

/// The longest duration any option accepts: one hour. Longer is a mistake (a frozen page or a
/// deadline that never fires), and `1e308` would overflow timer arithmetic.
pub const MAX_DURATION_MS: f64 = 3_600_000.0;

/// Checks a duration option: a finite number of milliseconds above 0 and at most
/// [`MAX_DURATION_MS`].
///
/// # Errors
/// What the value must be and what it was, to follow the option's name: "must be …, got 0".
pub fn check_duration_ms(value: f64) -> Result<(), String> {
    if value.is_finite() && value > 0.0 && value <= MAX_DURATION_MS {
        Ok(())
    } else {
        Err(format!(
            "must be a number of milliseconds above 0 and at most {MAX_DURATION_MS} (one hour), got {}",
            shown_number(value)
        ))
    }
}

/// A number as JS writes it, near enough for a message: `NaN`, `Infinity`, `-1`, `0.5`,
/// `1e308` (not 309 digits).
pub fn shown_number(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if v.abs() < 1e21 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_is_finite_above_zero_and_at_most_an_hour() {
        for ok in [0.001, 50.0, MAX_DURATION_MS] {
            assert_eq!(check_duration_ms(ok), Ok(()), "{ok}");
        }
        let rows = [
            (0.0, "got 0"),
            (-1.0, "got -1"),
            (f64::NAN, "got NaN"),
            (f64::INFINITY, "got Infinity"),
            (MAX_DURATION_MS + 1.0, "got 3600001"),
            (1e308, "got 1e308"),
        ];
        for (bad, tail) in rows {
            let message = check_duration_ms(bad).unwrap_err();
            assert!(
                message.starts_with("must be a number of milliseconds above 0"),
                "{message}"
            );
            assert!(message.ends_with(tail), "{message}");
        }
    }
}
