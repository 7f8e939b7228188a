//! Screening of regex patterns for catastrophic backtracking, before they can run.
//!
//! boa's regex engine (regress) has no step limit and cannot be interrupted, so the only
//! in-thread defence is to refuse patterns whose shape is known to backtrack exponentially: a
//! repeated group whose body can match in more than one way because it contains an unbounded
//! quantifier and nothing mandatory (`(a+)+`, `(\w+\s?)*`), and a repeated alternation whose
//! branches can start with the same character (`(a|a)*`, `(\s|\S)+`). Polynomial blow-ups
//! (`.*.*.*x`, `\s+$` on long runs of spaces) pass the screen; see BENCHMARKS.md.

/// First atom of a branch, used to detect overlapping alternatives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum First {
    Char(char),
    /// A class, shorthand, `.` or a group: may overlap with anything.
    Any,
}

#[derive(Debug, Default)]
struct Alt {
    has_unbounded: bool,
    /// Some branch has no atom that occurs exactly once (nothing separates repetitions).
    some_branch_optional: bool,
    firsts: Vec<Option<First>>,
}

struct P<'a> {
    c: &'a [char],
    i: usize,
    unicode: bool,
}

impl P<'_> {
    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn alt(&mut self, depth: usize) -> Result<Alt, String> {
        if depth > 64 {
            return Err("groups nested more than 64 deep".to_owned());
        }
        let mut out = Alt::default();
        loop {
            let (unb, mandatory, first) = self.seq(depth)?;
            out.has_unbounded |= unb;
            out.some_branch_optional |= !mandatory;
            out.firsts.push(first);
            if self.peek() == Some('|') {
                self.i += 1;
                continue;
            }
            return Ok(out);
        }
    }

    /// Parses one branch: (contains an unbounded quantifier, has a mandatory atom, first atom).
    fn seq(&mut self, depth: usize) -> Result<(bool, bool, Option<First>), String> {
        let mut unb = false;
        let mut mandatory = false;
        let mut first: Option<First> = None;
        while let Some(ch) = self.peek() {
            let (atom_first, zero_width, inner): (Option<First>, bool, Option<Alt>) = match ch {
                '|' | ')' => break,
                '(' => {
                    self.i += 1;
                    let mut zero = false;
                    if self.peek() == Some('?') {
                        match (self.peek_at(1), self.peek_at(2)) {
                            (Some(':'), _) => self.i += 2,
                            (Some('=' | '!'), _) => {
                                self.i += 2;
                                zero = true;
                            }
                            (Some('<'), Some('=' | '!')) => {
                                self.i += 3;
                                zero = true;
                            }
                            (Some('<'), _) => {
                                while let Some(c) = self.peek() {
                                    self.i += 1;
                                    if c == '>' {
                                        break;
                                    }
                                }
                            }
                            _ => self.i += 1,
                        }
                    }
                    let inner = self.alt(depth + 1)?;
                    if self.peek() == Some(')') {
                        self.i += 1;
                    }
                    (Some(First::Any), zero, Some(inner))
                }
                '[' => {
                    self.i += 1;
                    let mut nest = 1usize;
                    while let Some(c) = self.peek() {
                        self.i += 1;
                        match c {
                            '\\' => self.i += 1,
                            '[' if self.unicode => nest += 1,
                            ']' => {
                                nest -= 1;
                                if nest == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    (Some(First::Any), false, None)
                }
                '\\' => {
                    self.i += 1;
                    let e = self.peek().unwrap_or('\\');
                    self.i += 1;
                    match e {
                        'b' | 'B' => (None, true, None),
                        'p' | 'P' | 'u' | 'k' if matches!(self.peek(), Some('{' | '<')) => {
                            while let Some(c) = self.peek() {
                                self.i += 1;
                                if c == '}' || c == '>' {
                                    break;
                                }
                            }
                            (Some(First::Any), false, None)
                        }
                        'd'
                        | 'D'
                        | 'w'
                        | 'W'
                        | 's'
                        | 'S'
                        | 'p'
                        | 'P'
                        | 'u'
                        | 'x'
                        | 'c'
                        | '1'..='9' => (Some(First::Any), false, None),
                        'n' => (Some(First::Char('\n')), false, None),
                        't' => (Some(First::Char('\t')), false, None),
                        'r' => (Some(First::Char('\r')), false, None),
                        other => (Some(First::Char(other)), false, None),
                    }
                }
                '^' | '$' => {
                    self.i += 1;
                    (None, true, None)
                }
                '.' => {
                    self.i += 1;
                    (Some(First::Any), false, None)
                }
                other => {
                    self.i += 1;
                    (Some(First::Char(other)), false, None)
                }
            };
            let (min, max) = self.quantifier();
            let repeating = max > 1;
            let unbounded = max == u32::MAX;
            if let Some(inner) = &inner {
                if repeating && inner.has_unbounded && inner.some_branch_optional {
                    return Err(
                        "a repeated group contains an unbounded quantifier and can match the same \
                         text in many ways (exponential backtracking, e.g. (a+)+)"
                            .to_owned(),
                    );
                }
                if repeating && overlapping(&inner.firsts) {
                    return Err(
                        "a repeated alternation has branches that can start with the same \
                         character (exponential backtracking, e.g. (a|a)*)"
                            .to_owned(),
                    );
                }
                unb |= inner.has_unbounded;
            }
            unb |= unbounded;
            // A "fixed" atom occurs exactly once per match of the branch: it separates the
            // repetitions of an enclosing quantifier (`(\d+,)*` is safe, `(\d+)*` is not).
            let atom_mandatory = !zero_width
                && min >= 1
                && max == 1
                && inner.as_ref().is_none_or(|a| !a.some_branch_optional);
            if first.is_none() && !zero_width {
                first = atom_first;
            }
            mandatory |= atom_mandatory;
        }
        Ok((unb, mandatory, first))
    }

    /// Parses an optional quantifier after an atom: (min, max) with `u32::MAX` for unbounded.
    fn quantifier(&mut self) -> (u32, u32) {
        let q = match self.peek() {
            Some('*') => {
                self.i += 1;
                (0, u32::MAX)
            }
            Some('+') => {
                self.i += 1;
                (1, u32::MAX)
            }
            Some('?') => {
                self.i += 1;
                (0, 1)
            }
            Some('{') => {
                let start = self.i;
                self.i += 1;
                let num = |p: &mut Self| {
                    let mut n: Option<u32> = None;
                    while let Some(d) = p.peek().and_then(|c| c.to_digit(10)) {
                        n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d));
                        p.i += 1;
                    }
                    n
                };
                let min = num(self);
                let (max, ok) = if self.peek() == Some(',') {
                    self.i += 1;
                    (num(self).unwrap_or(u32::MAX), true)
                } else {
                    (min.unwrap_or(1), true)
                };
                if ok && min.is_some() && self.peek() == Some('}') {
                    self.i += 1;
                    // A large bounded repeat backtracks like an unbounded one.
                    (min.unwrap_or(0), if max >= 16 { u32::MAX } else { max })
                } else {
                    self.i = start + 1; // a literal `{`
                    return (1, 1);
                }
            }
            _ => return (1, 1),
        };
        if self.peek() == Some('?') {
            self.i += 1;
        }
        q
    }
}

fn overlapping(firsts: &[Option<First>]) -> bool {
    if firsts.len() < 2 {
        return false;
    }
    for (a, fa) in firsts.iter().enumerate() {
        for fb in firsts.iter().skip(a + 1) {
            match (fa, fb) {
                (Some(First::Char(x)), Some(First::Char(y))) if x == y => return true,
                (Some(First::Any), Some(_)) | (Some(_), Some(First::Any)) => return true,
                _ => {}
            }
        }
    }
    false
}

/// Checks a pattern (the text between the slashes, or the `RegExp` constructor's string) and its
/// flags: its length always, its shape when `shapes` (off where a deadline can stop the engine,
/// see [`SandboxOptions::screen_regexes`](crate::SandboxOptions::screen_regexes)).
///
/// # Errors
/// A human-readable reason when the pattern is longer than `max_len` UTF-16 units or (with
/// `shapes`) has a shape known to backtrack catastrophically.
pub fn screen_pattern(
    pattern: &str,
    flags: &str,
    max_len: usize,
    shapes: bool,
) -> Result<(), String> {
    let len = pattern.encode_utf16().count();
    if len > max_len {
        return Err(format!(
            "pattern is {len} characters long; the sandbox allows {max_len}"
        ));
    }
    if !shapes {
        return Ok(());
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = P {
        c: &chars,
        i: 0,
        unicode: flags.contains('v'),
    };
    while p.i < chars.len() {
        p.alt(0)?;
        // An unbalanced `)` (a syntax error the engine reports): skip it.
        p.i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::screen_pattern;

    #[test]
    fn catastrophic_shapes_are_refused() {
        for bad in [
            "^(a+)+$",
            "^(a*)*$",
            "(\\w+\\s?)+$",
            "^(a|a)*$",
            "^(?:a|ab)+c",
            "(x+x+)+y",
            "^([a-z]+)*$",
            "^(\\d{1,100})+$",
        ] {
            assert!(screen_pattern(bad, "", 2048, true).is_err(), "{bad} passed");
        }
    }

    #[test]
    fn real_parser_patterns_pass() {
        for good in [
            r"^\[done\]\s+(\S+)(?:\s+(.*?))?\s+—\s+(.*?)\s+([\d.]+)s$",
            r"^\$\s+(.+)$",
            r"^(read|write|edit|grep|glob)\s+(.+)$",
            r"Session (resumed|started): (\S+)",
            r"error|ENOENT|failed",
            r"^[\d.]+s$",
            r"^(\d+\.)+\d+$",
            r"\p{Emoji_Presentation}|\p{Extended_Pictographic}",
            r"^(?:foo|bar)+$",
            r"(?<name>\w+)=(?<value>[^&]*)",
            r"\{[^}]*\}",
            r"^\s*$",
            r"x{2,3}",
        ] {
            assert!(
                screen_pattern(good, "u", 2048, true).is_ok(),
                "{good} refused"
            );
        }
        assert!(screen_pattern(&"a".repeat(3000), "", 2048, true).is_err());
    }

    #[test]
    fn without_the_shape_screen_only_the_length_is_checked() {
        assert!(screen_pattern("^(a+)+$", "", 2048, false).is_ok());
        assert!(screen_pattern(&"a".repeat(3000), "", 2048, false).is_err());
    }
}
