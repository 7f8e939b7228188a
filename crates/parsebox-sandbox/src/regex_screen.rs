//! Screening of regex patterns for catastrophic backtracking, before they can run.
//!
//! boa's regex engine (regress) has no step limit and cannot be interrupted, so the only
//! in-thread defence is to refuse patterns whose shape is known to backtrack exponentially: a
//! repeated group whose body can match in more than one way because it contains an unbounded
//! quantifier and nothing mandatory (`(a+)+`, `(\w+\s?)*`), and a repeated alternation whose
//! branches can start with the same character (`(a|a)*`, `(\w|\d)+`; `(\s|\S)+` and
//! `"(?:[^"\\]|\\.)*"` pass: each character can start one branch only). Polynomial blow-ups
//! (`.*.*.*x`, `\s+$` on long runs of spaces) pass the screen; see BENCHMARKS.md.

/// The characters a branch can start with, used to detect overlapping alternatives.
#[derive(Clone, Debug, PartialEq, Eq)]
enum First {
    /// Ranges of code points, inclusive, or (`negated`) everything outside them.
    Set {
        negated: bool,
        ranges: Vec<(u32, u32)>,
    },
    /// Not worked out (a back-reference, `\p{…}`, a class with a negated shorthand inside,
    /// case folding beyond ASCII): may overlap with anything.
    Any,
}

/// `\s` in JavaScript: WhiteSpace and LineTerminator.
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0d),
    (0x20, 0x20),
    (0xa0, 0xa0),
    (0x1680, 0x1680),
    (0x2000, 0x200a),
    (0x2028, 0x2029),
    (0x202f, 0x202f),
    (0x205f, 0x205f),
    (0x3000, 0x3000),
    (0xfeff, 0xfeff),
];
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5a), (0x5f, 0x5f), (0x61, 0x7a)];

impl First {
    /// One character, by its code point.
    fn char(code: u32) -> First {
        First::Set {
            negated: false,
            ranges: vec![(code, code)],
        }
    }

    /// `\d`, `\w`, `\s` and their negations.
    fn shorthand(e: char) -> Option<First> {
        let ranges = match e.to_ascii_lowercase() {
            'd' => DIGIT,
            'w' => WORD,
            's' => SPACE,
            _ => return None,
        };
        Some(First::Set {
            negated: e.is_ascii_uppercase(),
            ranges: ranges.to_vec(),
        })
    }

    /// Both sets together (what a branch can start with when its first atom is optional).
    fn union(self, other: First) -> First {
        match (self, other) {
            (
                First::Set {
                    negated: false,
                    mut ranges,
                },
                First::Set {
                    negated: false,
                    ranges: more,
                },
            ) => {
                ranges.extend(more);
                First::Set {
                    negated: false,
                    ranges,
                }
            }
            _ => First::Any,
        }
    }

    /// Under the `i` flag: ASCII letters match both cases; anything past ASCII is not
    /// worked out.
    fn case_folded(self) -> First {
        match self {
            First::Set {
                negated: false,
                ranges,
            } if ranges.iter().all(|&(_, hi)| hi < 0x80) => {
                let mut out = ranges.clone();
                for (lo, hi) in ranges {
                    for (a, z, shift) in [(0x41u32, 0x5au32, 0x20i64), (0x61, 0x7a, -0x20)] {
                        let (l, h) = (lo.max(a), hi.min(z));
                        if l <= h {
                            out.push(((l as i64 + shift) as u32, (h as i64 + shift) as u32));
                        }
                    }
                }
                First::Set {
                    negated: false,
                    ranges: out,
                }
            }
            _ => First::Any,
        }
    }

    /// Whether some character can be in both.
    fn overlaps(&self, other: &First) -> bool {
        let covered = |outer: &[(u32, u32)], (lo, hi): (u32, u32)| {
            outer.iter().any(|&(a, z)| a <= lo && hi <= z)
        };
        match (self, other) {
            (
                First::Set {
                    negated: false,
                    ranges: a,
                },
                First::Set {
                    negated: false,
                    ranges: b,
                },
            ) => a
                .iter()
                .any(|&(l1, h1)| b.iter().any(|&(l2, h2)| l1 <= h2 && l2 <= h1)),
            (
                First::Set {
                    negated: true,
                    ranges: out,
                },
                First::Set {
                    negated: false,
                    ranges: inside,
                },
            )
            | (
                First::Set {
                    negated: false,
                    ranges: inside,
                },
                First::Set {
                    negated: true,
                    ranges: out,
                },
            ) => !inside.iter().all(|&r| covered(out, r)),
            _ => true,
        }
    }
}

#[derive(Debug, Default)]
struct Alt {
    has_unbounded: bool,
    /// Some branch has no atom that occurs exactly once (nothing separates repetitions).
    some_branch_optional: bool,
    /// Some branch can match the empty string.
    nullable: bool,
    firsts: Vec<Option<First>>,
}

/// One escape (`\…`) decoded: a character, a set of them, or something zero-width.
enum Escape {
    Char(u32),
    Set(First),
    ZeroWidth,
}

struct P<'a> {
    c: &'a [char],
    i: usize,
    /// The `v` flag: classes nest.
    unicode_sets: bool,
    ignore_case: bool,
    dot_all: bool,
}

/// What [`P::seq`] learns of one branch of an alternation.
#[derive(Debug, Default)]
struct Branch {
    /// Contains an unbounded quantifier.
    unbounded: bool,
    /// Has an atom that occurs exactly once.
    mandatory: bool,
    /// Can match the empty string.
    nullable: bool,
    /// The characters it can start with (None: it has no atom).
    first: Option<First>,
}

impl P<'_> {
    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    /// A set as the flags make it match (`i` folds case).
    fn flagged(&self, f: First) -> First {
        if self.ignore_case {
            f.case_folded()
        } else {
            f
        }
    }

    fn alt(&mut self, depth: usize) -> Result<Alt, String> {
        if depth > 64 {
            return Err("groups nested more than 64 deep".to_owned());
        }
        let mut out = Alt::default();
        loop {
            let branch = self.seq(depth)?;
            out.has_unbounded |= branch.unbounded;
            out.some_branch_optional |= !branch.mandatory;
            out.nullable |= branch.nullable;
            out.firsts.push(branch.first);
            if self.peek() == Some('|') {
                self.i += 1;
                continue;
            }
            return Ok(out);
        }
    }

    /// `hex` hexadecimal digits, or `{…}` when `braces` allows it; None when malformed.
    fn hex(&mut self, digits: usize, braces: bool) -> Option<u32> {
        let read = |p: &mut Self, stop: Option<char>| {
            let mut v: u32 = 0;
            let mut n = 0;
            while let Some(d) = p.peek().and_then(|c| c.to_digit(16)) {
                if stop.is_none() && n == digits {
                    break;
                }
                v = v.saturating_mul(16).saturating_add(d);
                n += 1;
                p.i += 1;
            }
            (n > 0 && (stop.is_some() || n == digits)).then_some(v)
        };
        if braces && self.peek() == Some('{') {
            self.i += 1;
            let v = read(self, Some('}'));
            if self.peek() == Some('}') {
                self.i += 1;
            }
            return v;
        }
        read(self, None)
    }

    /// Decodes the escape after a `\` (already consumed); `in_class` where `\b` is a backspace.
    fn escape(&mut self, in_class: bool) -> Escape {
        let e = self.peek().unwrap_or('\\');
        self.i += 1;
        let any = Escape::Set(First::Any);
        match e {
            'b' if in_class => Escape::Char(8),
            'b' | 'B' => Escape::ZeroWidth,
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => First::shorthand(e).map_or(any, Escape::Set),
            'p' | 'P' | 'k' => {
                if matches!(self.peek(), Some('{' | '<')) {
                    while let Some(c) = self.peek() {
                        self.i += 1;
                        if c == '}' || c == '>' {
                            break;
                        }
                    }
                }
                any
            }
            'n' => Escape::Char(0x0a),
            't' => Escape::Char(0x09),
            'r' => Escape::Char(0x0d),
            'f' => Escape::Char(0x0c),
            'v' => Escape::Char(0x0b),
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => Escape::Char(0),
            'x' => self.hex(2, false).map_or(any, Escape::Char),
            'u' => self.hex(4, true).map_or(any, Escape::Char),
            // Back-references, legacy octal, control letters: not worked out.
            '0'..='9' | 'c' => any,
            other => Escape::Char(other as u32),
        }
    }

    /// A class after its `[`: the set it matches.
    fn class(&mut self) -> First {
        let negated = self.peek() == Some('^');
        if negated {
            self.i += 1;
        }
        let mut ranges = Vec::new();
        let mut any = false;
        // One class member: a character (which may start a range) or a set added in place.
        let member = |p: &mut Self, ranges: &mut Vec<(u32, u32)>, any: &mut bool| -> Option<u32> {
            let c = p.peek()?;
            p.i += 1;
            if c != '\\' {
                return Some(c as u32);
            }
            match p.escape(true) {
                Escape::Char(v) => Some(v),
                Escape::Set(First::Set {
                    negated: false,
                    ranges: more,
                }) => {
                    ranges.extend(more);
                    None
                }
                Escape::Set(_) | Escape::ZeroWidth => {
                    *any = true;
                    None
                }
            }
        };
        while let Some(c) = self.peek() {
            if c == ']' {
                self.i += 1;
                break;
            }
            if c == '[' && self.unicode_sets {
                // A nested class (`v` flag): not worked out.
                any = true;
                let mut nest = 0usize;
                while let Some(c) = self.peek() {
                    self.i += 1;
                    match c {
                        '\\' => self.i += 1,
                        '[' => nest += 1,
                        ']' => {
                            nest -= 1;
                            if nest == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                continue;
            }
            let Some(lo) = member(self, &mut ranges, &mut any) else {
                continue;
            };
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.i += 1;
                match member(self, &mut ranges, &mut any) {
                    Some(hi) => ranges.push((lo.min(hi), hi.max(lo))),
                    None => ranges.extend([(lo, lo), (0x2d, 0x2d)]),
                }
            } else {
                ranges.push((lo, lo));
            }
        }
        if any {
            return First::Any;
        }
        self.flagged(First::Set { negated, ranges })
    }

    /// Parses one branch.
    fn seq(&mut self, depth: usize) -> Result<Branch, String> {
        let mut b = Branch {
            nullable: true,
            ..Branch::default()
        };
        // Whether an atom that must match has been met: the branch's first characters are
        // those of the atoms up to and including it.
        let mut first_done = false;
        while let Some(ch) = self.peek() {
            let (atom_first, zero_width, inner): (First, bool, Option<Alt>) = match ch {
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
                    let first = inner
                        .firsts
                        .iter()
                        .map(|f| f.clone().unwrap_or(First::Any))
                        .reduce(First::union)
                        .unwrap_or(First::Any);
                    (first, zero, Some(inner))
                }
                '[' => {
                    self.i += 1;
                    (self.class(), false, None)
                }
                '\\' => {
                    self.i += 1;
                    match self.escape(false) {
                        Escape::Char(v) => (self.flagged(First::char(v)), false, None),
                        Escape::Set(f) => (self.flagged(f), false, None),
                        Escape::ZeroWidth => (First::Any, true, None),
                    }
                }
                '^' | '$' => {
                    self.i += 1;
                    (First::Any, true, None)
                }
                '.' => {
                    self.i += 1;
                    let dot = if self.dot_all {
                        First::Any
                    } else {
                        First::Set {
                            negated: true,
                            ranges: vec![(0x0a, 0x0a), (0x0d, 0x0d), (0x2028, 0x2029)],
                        }
                    };
                    (dot, false, None)
                }
                other => {
                    self.i += 1;
                    (self.flagged(First::char(other as u32)), false, None)
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
                b.unbounded |= inner.has_unbounded;
            }
            b.unbounded |= unbounded;
            // A "fixed" atom occurs exactly once per match of the branch: it separates the
            // repetitions of an enclosing quantifier (`(\d+,)*` is safe, `(\d+)*` is not).
            let atom_mandatory = !zero_width
                && min >= 1
                && max == 1
                && inner.as_ref().is_none_or(|a| !a.some_branch_optional);
            b.mandatory |= atom_mandatory;
            let atom_nullable =
                zero_width || min == 0 || inner.as_ref().is_some_and(|a| a.nullable);
            b.nullable &= atom_nullable;
            if !zero_width && !first_done {
                b.first = Some(match b.first.take() {
                    Some(f) => f.union(atom_first),
                    None => atom_first,
                });
                first_done = !atom_nullable;
            }
        }
        Ok(b)
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
    firsts.iter().enumerate().any(|(a, fa)| {
        firsts.iter().skip(a + 1).any(|fb| match (fa, fb) {
            (Some(x), Some(y)) => x.overlaps(y),
            _ => false,
        })
    })
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
        unicode_sets: flags.contains('v'),
        ignore_case: flags.contains('i'),
        dot_all: flags.contains('s'),
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
            "(\\S|\\w)+$",
            "^(?:\\w|\\d)+$",
            "^(?:[a-z]|[k-p])+$",
            "^(?:x?y|y)+$",
            "^(?:[^\"]|a)*$",
        ] {
            assert!(screen_pattern(bad, "", 2048, true).is_err(), "{bad} passed");
        }
        // Case folding joins what looked apart.
        assert!(screen_pattern("^(?:a|A)+$", "i", 2048, true).is_err());
        assert!(screen_pattern("^(?:[a-c]|B)+$", "i", 2048, true).is_err());
        assert!(screen_pattern("^(?:.|\\n)*$", "s", 2048, true).is_err());
    }

    #[test]
    fn repeated_alternations_of_disjoint_branches_pass() {
        // The fuzzer's findings: the usual quoted-string pattern and a class beside a letter.
        for good in [
            r#""(?:[^"\\]|\\.)*""#,
            r"(?:\d|x)+",
            r"^(?:[a-z]|\d|_)+$",
            r"^(?:\s|,)+$",
            r"(?:\\[nt]|[^\\])*",
            r"^(?:a|b|\x63|\u{64})+$",
            r"^(?:.|\n)*$",
        ] {
            assert!(
                screen_pattern(good, "u", 2048, true).is_ok(),
                "{good} refused"
            );
        }
        assert!(screen_pattern(r"^(?:[a-c]|D)+$", "i", 2048, true).is_ok());
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
