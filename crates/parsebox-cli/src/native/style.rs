//! Terminal styling: a handful of ANSI SGR codes (no crate needed for six colours), the
//! `--color` / `NO_COLOR` decision, and escaping of control characters so that text from a log
//! or an untrusted parser cannot drive the user's terminal.

use std::io::IsTerminal;

use crate::cli::ColorChoice;

/// Decides whether stdout gets colour: `--color always|never`, else a terminal without
/// `NO_COLOR` (any non-empty value, <https://no-color.org>).
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// A text style. `Plain` writes the text unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// No styling.
    Plain,
    /// Bold.
    Bold,
    /// Dim grey (`thinking`, tool input, details).
    Gray,
    /// Red (errors, stderr, failed checks).
    Red,
    /// Green (assistant text, passed checks).
    Green,
    /// Yellow (tool calls, system, warnings).
    Yellow,
    /// Blue (init, token counts).
    Blue,
    /// Magenta (user messages).
    Magenta,
    /// Cyan (tool results, diff hunks).
    Cyan,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Self::Plain => "",
            Self::Bold => "\x1b[1m",
            Self::Gray => "\x1b[90m",
            Self::Red => "\x1b[31m",
            Self::Green => "\x1b[32m",
            Self::Yellow => "\x1b[33m",
            Self::Blue => "\x1b[34m",
            Self::Magenta => "\x1b[35m",
            Self::Cyan => "\x1b[36m",
        }
    }
}

/// Paints text in a style when colour is on.
#[derive(Clone, Copy, Debug)]
pub struct Painter {
    /// Whether to emit escape codes.
    pub color: bool,
}

impl Painter {
    /// `text` in `style`, with its control characters escaped (see [`escape_controls`]).
    /// Multi-line text is styled line by line, so a pager that cuts lines keeps the colour.
    pub fn paint(&self, style: Style, text: &str) -> String {
        let text = escape_controls(text);
        if !self.color || style == Style::Plain {
            return text;
        }
        text.split('\n')
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{}{l}\x1b[0m", style.code())
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Makes control characters visible instead of letting them act on the terminal: ESC becomes
/// `\e`, other C0/C1 controls and DEL become `\u{…}`. Newlines and tabs are kept; a CR is shown
/// as `\r` (a bare CR would let a line overwrite itself).
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c != '\n' && c != '\t' && (c.is_control() || c == '\u{2028}' || c == '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_text_is_kept() {
        assert_eq!(escape_controls("a\tb\nc"), "a\tb\nc");
        assert_eq!(escape_controls("\x1b[31mred\x1b[0m"), "\\e[31mred\\e[0m");
        assert_eq!(escape_controls("x\ry\u{7}\u{85}"), "x\\ry\\u{7}\\u{85}");
        assert_eq!(escape_controls("日本 🚀"), "日本 🚀");
    }

    #[test]
    fn painting_is_per_line_and_off_without_colour() {
        let on = Painter { color: true };
        assert_eq!(
            on.paint(Style::Red, "a\n\nb"),
            "\x1b[31ma\x1b[0m\n\n\x1b[31mb\x1b[0m"
        );
        let off = Painter { color: false };
        assert_eq!(off.paint(Style::Red, "a\nb"), "a\nb");
    }
}
