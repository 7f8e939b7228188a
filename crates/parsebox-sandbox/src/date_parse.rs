//! `Date.parse(text)` and `new Date(text)` as V8 reads date strings: every form it accepts, with
//! its value, and `NaN` for what it refuses.
//!
//! boa 0.22 reads little beyond the ISO format with at most three fractional digits:
//! `new Date("2025-09-04T12:34:56.789123Z")` (what Python's `isoformat` writes) was an Invalid
//! Date, and the `toISOString()` a parser called on it threw. V8 first reads the ECMAScript
//! date-time format (any number of fractional digits, the first three kept, `hhmm` offsets
//! allowed) and then, for whatever is left, its "legacy" reader: numbers and `:` make a time,
//! other numbers a day (month-day-year unless the first cannot be a day), month names, `AM` /
//! `PM`, `UTC` / `GMT` / `Z` and the US zone abbreviations, `+hhmm` offsets, parenthesised text
//! ignored; so `2025-09-04 12:34:56`, RFC 2822 (`Thu, 04 Sep 2025 12:34:56 +0000`),
//! `Date.prototype.toString()` and `toUTCString()` forms all read. This module follows that
//! reader's rules token for token (its tests and `tests/node_semantics.rs` compare with Node).
//! The realm's local time zone is UTC, so a time without an offset is read as UTC.

use boa_engine::{Context, JsResult, JsValue};

/// A number token keeps its first nine digits (V8's `kMaxSignificantDigits`).
const MAX_DIGITS: usize = 9;

/// Milliseconds of ±100,000,000 days: the range of a time value.
const MAX_TIME_MS: f64 = 8.64e15;

/// What V8's date tokenizer makes of the text, one token at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// Digits: the value of the first nine, and how many there were.
    Number { value: i64, digits: usize },
    /// One of `:`, `-`, `+`, `.`, `)`.
    Symbol(u16),
    /// A run of characters from `A` up (letters, and anything non-ASCII): what it names, and
    /// its length.
    Word { word: Word, len: usize },
    /// One ASCII white-space character.
    Space,
    /// Parenthesised text, or any other character.
    Other,
    /// The end of the text (or a NUL character).
    End,
}

/// What a word names (by its first three letters, case-insensitively; longer words only for
/// month names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// January is 1.
    Month(i64),
    /// `AM` (0) or `PM` (12): hours to add.
    AmPm(i64),
    /// `UT`, `UTC`, `Z`, `GMT` (0) or a US zone (`EST` -5, …): hours from UTC.
    Zone(i64),
    /// `T`, between an ISO date and its time.
    TimeSeparator,
    /// Anything else.
    Unknown,
}

impl Word {
    fn of(prefix: [u16; 3], len: usize) -> Word {
        const MONTHS: [&[u8; 3]; 12] = [
            b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
            b"dec",
        ];
        let is = |s: &[u8]| {
            prefix
                .iter()
                .zip(s.iter().chain(std::iter::repeat(&0u8)))
                .all(|(&p, &c)| p == u16::from(c))
        };
        for (m, name) in (1..).zip(MONTHS) {
            if is(name) {
                return Word::Month(m);
            }
        }
        if len > 3 {
            return Word::Unknown;
        }
        let table: [(&[u8], Word); 16] = [
            (b"am", Word::AmPm(0)),
            (b"pm", Word::AmPm(12)),
            (b"ut", Word::Zone(0)),
            (b"utc", Word::Zone(0)),
            (b"z", Word::Zone(0)),
            (b"gmt", Word::Zone(0)),
            (b"cdt", Word::Zone(-5)),
            (b"cst", Word::Zone(-6)),
            (b"edt", Word::Zone(-4)),
            (b"est", Word::Zone(-5)),
            (b"mdt", Word::Zone(-6)),
            (b"mst", Word::Zone(-7)),
            (b"pdt", Word::Zone(-7)),
            (b"pst", Word::Zone(-8)),
            (b"t", Word::TimeSeparator),
            (b"", Word::Unknown),
        ];
        table
            .iter()
            .find(|(name, _)| !name.is_empty() && is(name))
            .map_or(Word::Unknown, |(_, w)| *w)
    }
}

/// An ASCII digit (V8 reads no other digits).
fn is_digit(c: u16) -> bool {
    (0x30..=0x39).contains(&c)
}

/// ECMAScript white space or a line terminator.
fn is_space(c: u16) -> bool {
    matches!(
        c,
        0x09..=0x0d | 0x20 | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f
            | 0x3000 | 0xfeff
    )
}

/// The tokenizer, with one token of look-ahead (V8's `DateStringTokenizer`).
struct Scanner<'a> {
    text: &'a [u16],
    at: usize,
    next: Token,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a [u16]) -> Self {
        let mut s = Scanner {
            text,
            at: 0,
            next: Token::End,
        };
        s.next = s.scan();
        s
    }

    fn ch(&self) -> u16 {
        self.text.get(self.at).copied().unwrap_or(0)
    }

    fn scan(&mut self) -> Token {
        let c = self.ch();
        if c == 0 {
            return Token::End;
        }
        if is_digit(c) {
            // The value of the first nine significant digits (leading zeros do not count: what
            // Node 20 gives for `.0252467640` is 252 ms), and how many digits there were.
            let mut value: i64 = 0;
            let mut significant = 0;
            let mut digits = 0;
            while is_digit(self.ch()) {
                let d = i64::from(self.ch() - u16::from(b'0'));
                if significant < MAX_DIGITS && (value > 0 || d > 0) {
                    value = value * 10 + d;
                    significant += 1;
                }
                digits += 1;
                self.at += 1;
            }
            return Token::Number { value, digits };
        }
        if [b':', b'-', b'+', b'.', b')'].contains(&u8::try_from(c).unwrap_or(0)) {
            self.at += 1;
            return Token::Symbol(c);
        }
        // White space first: Node 20 reads U+00A0 and the other Unicode spaces as such, though
        // they are above `A`, where words are.
        if is_space(c) {
            self.at += 1;
            return Token::Space;
        }
        if c >= u16::from(b'A') {
            let mut prefix = [0u16; 3];
            let mut len = 0;
            while self.ch() >= u16::from(b'A') && !is_space(self.ch()) {
                if let Some(p) = prefix.get_mut(len) {
                    *p = self.ch() | 0x20;
                }
                len += 1;
                self.at += 1;
            }
            return Token::Word {
                word: Word::of(prefix, len),
                len,
            };
        }
        if c == u16::from(b'(') {
            let mut balance = 0;
            loop {
                match self.ch() {
                    0x28 => balance += 1,
                    0x29 => balance -= 1,
                    _ => {}
                }
                self.at += 1;
                if balance <= 0 || self.ch() == 0 {
                    break;
                }
            }
            return Token::Other;
        }
        self.at += 1;
        Token::Other
    }

    fn peek(&self) -> Token {
        self.next
    }

    fn take(&mut self) -> Token {
        let t = self.next;
        self.next = self.scan();
        t
    }

    fn skip(&mut self, symbol: u8) -> bool {
        if self.next == Token::Symbol(u16::from(symbol)) {
            self.next = self.scan();
            true
        } else {
            false
        }
    }
}

impl Token {
    fn number(self) -> Option<i64> {
        match self {
            Token::Number { value, .. } => Some(value),
            _ => None,
        }
    }

    /// A number of exactly `digits` digits.
    fn fixed(self, digits: usize) -> Option<i64> {
        match self {
            Token::Number { value, digits: d } if d == digits => Some(value),
            _ => None,
        }
    }

    fn sign(self) -> Option<i64> {
        match self {
            Token::Symbol(0x2b) => Some(1),
            Token::Symbol(0x2d) => Some(-1),
            _ => None,
        }
    }

    fn is_z(self) -> bool {
        matches!(
            self,
            Token::Word {
                word: Word::Zone(0),
                len: 1
            }
        )
    }
}

/// Milliseconds from a fraction's digits: the first three, as if written with three.
fn millis(t: Token) -> i64 {
    let Token::Number { value, digits } = t else {
        return 0;
    };
    match digits {
        1 => value * 100,
        2 => value * 10,
        3 => value,
        _ => {
            let kept = digits.min(MAX_DIGITS);
            let exp = u32::try_from(kept - 3).unwrap_or(0);
            value / 10_i64.pow(exp)
        }
    }
}

fn between(x: i64, lo: i64, hi: i64) -> bool {
    (lo..=hi).contains(&x)
}

/// Up to three numbers of a date, a month name, and whether they came in ISO order.
#[derive(Default)]
struct Day {
    parts: Vec<i64>,
    named_month: Option<i64>,
    iso: bool,
}

impl Day {
    fn add(&mut self, n: i64) -> bool {
        if self.parts.len() < 3 {
            self.parts.push(n);
            true
        } else {
            false
        }
    }

    /// Year, month (1–12) and day, by V8's rules for which number is which (missing numbers
    /// are 1, so a date without a year is in 2001).
    fn resolve(&self) -> Option<(i64, i64, i64)> {
        if self.parts.is_empty() {
            return None;
        }
        let part = |i: usize| self.parts.get(i).copied().unwrap_or(1);
        let is_day = |x: i64| between(x, 1, 31);
        let (mut year, month, day) = match self.named_month {
            None if self.iso || !is_day(part(0)) => (part(0), part(1), part(2)),
            None => (part(2), part(0), part(1)),
            Some(m) if !is_day(part(0)) => (part(0), m, part(1)),
            Some(m) => (part(1), m, part(0)),
        };
        if !self.iso {
            if between(year, 0, 49) {
                year += 2000;
            } else if between(year, 50, 99) {
                year += 1900;
            }
        }
        (between(month, 1, 12) && is_day(day)).then_some((year, month, day))
    }
}

/// Hours, minutes, seconds and milliseconds as they are read, and an AM/PM.
#[derive(Default)]
struct Time {
    parts: Vec<i64>,
    am_pm: Option<i64>,
}

impl Time {
    fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    fn add(&mut self, n: i64) -> bool {
        if self.parts.len() < 4 {
            self.parts.push(n);
            true
        } else {
            false
        }
    }

    /// Adds `n` and fills the remaining parts with zeros.
    fn add_final(&mut self, n: i64) -> bool {
        if !self.add(n) {
            return false;
        }
        self.parts.resize(4, 0);
        true
    }

    /// Whether `n` can be the next part after the hour.
    fn expects(&self, n: i64) -> bool {
        match self.parts.len() {
            1 | 2 => between(n, 0, 59),
            3 => between(n, 0, 999),
            _ => false,
        }
    }

    fn resolve(&self) -> Option<(i64, i64, i64, i64)> {
        let part = |i: usize| self.parts.get(i).copied().unwrap_or(0);
        let (mut h, m, s, ms) = (part(0), part(1), part(2), part(3));
        if let Some(offset) = self.am_pm {
            if !between(h, 0, 12) {
                return None;
            }
            h = h % 12 + offset;
        }
        let valid = between(h, 0, 23) && between(m, 0, 59) && between(s, 0, 59);
        if valid && between(ms, 0, 999) || (h == 24 && m == 0 && s == 0 && ms == 0) {
            Some((h, m, s, ms))
        } else {
            None
        }
    }
}

/// A UTC offset as it is read: its sign, hours and minutes.
#[derive(Default)]
struct Zone {
    sign: Option<i64>,
    hour: Option<i64>,
    minute: Option<i64>,
}

impl Zone {
    fn set_hours(&mut self, hours: i64) {
        self.sign = Some(if hours < 0 { -1 } else { 1 });
        self.hour = Some(hours.abs());
        self.minute = Some(0);
    }

    fn expects(&self, n: i64) -> bool {
        self.hour.is_some() && self.minute.is_none() && between(n, 0, 59)
    }

    fn is_utc(&self) -> bool {
        self.hour == Some(0) && self.minute == Some(0)
    }

    /// The offset in seconds, `None` when none was given; `Err` when out of range.
    fn resolve(&self) -> Result<Option<i64>, ()> {
        let Some(sign) = self.sign else {
            return Ok(None);
        };
        // In unsigned 32-bit arithmetic, as V8 computes it (a huge hour wraps).
        let part = |v: Option<i64>| u32::try_from(v.unwrap_or(0)).unwrap_or(u32::MAX);
        let seconds = part(self.hour)
            .wrapping_mul(3600)
            .wrapping_add(part(self.minute).wrapping_mul(60));
        let seconds = i64::from(seconds);
        if seconds > i64::from(i32::MAX) {
            return Err(());
        }
        Ok(Some(sign * seconds))
    }
}

/// What the ES date-time format reader leaves for the legacy reader.
enum Iso {
    /// The whole text was read.
    Done,
    /// The text is not a date V8 accepts.
    Invalid,
    /// Continue with the legacy reader from this token.
    Continue(Token),
}

/// Reads as much as possible as the ECMAScript date-time string format (V8's
/// `ParseES5DateTime`).
fn read_iso(s: &mut Scanner<'_>, day: &mut Day, time: &mut Time, zone: &mut Zone) -> Iso {
    if let Some(sign) = s.peek().sign() {
        let sign_token = s.take();
        let Some(year) = s.peek().fixed(6) else {
            return Iso::Continue(sign_token);
        };
        if sign < 0 && year == 0 {
            return Iso::Continue(sign_token);
        }
        s.take();
        day.add(sign * year);
    } else if let Some(year) = s.peek().fixed(4) {
        s.take();
        day.add(year);
    } else {
        return Iso::Continue(s.take());
    }
    if s.skip(b'-') {
        match s.peek().fixed(2) {
            Some(m) if between(m, 1, 12) => {
                s.take();
                day.add(m);
            }
            _ => return Iso::Continue(s.take()),
        }
        if s.skip(b'-') {
            match s.peek().fixed(2) {
                Some(d) if between(d, 1, 31) => {
                    s.take();
                    day.add(d);
                }
                _ => return Iso::Continue(s.take()),
            }
        }
    }
    let is_t = matches!(
        s.peek(),
        Token::Word {
            word: Word::TimeSeparator,
            ..
        }
    );
    if !is_t {
        if s.peek() != Token::End {
            return Iso::Continue(s.take());
        }
    } else {
        s.take();
        let Some(hour) = s.peek().fixed(2).filter(|&h| between(h, 0, 24)) else {
            return Iso::Invalid;
        };
        let hour_24 = hour == 24;
        s.take();
        time.add(hour);
        if !s.skip(b':') {
            return Iso::Invalid;
        }
        let Some(minute) = s
            .peek()
            .fixed(2)
            .filter(|&m| between(m, 0, 59) && !(hour_24 && m > 0))
        else {
            return Iso::Invalid;
        };
        s.take();
        time.add(minute);
        if s.skip(b':') {
            let Some(second) = s
                .peek()
                .fixed(2)
                .filter(|&x| between(x, 0, 59) && !(hour_24 && x > 0))
            else {
                return Iso::Invalid;
            };
            s.take();
            time.add(second);
            if s.skip(b'.') {
                match s.peek().number() {
                    Some(n) if !(hour_24 && n > 0) => {
                        let t = s.take();
                        time.add(millis(t));
                    }
                    _ => return Iso::Invalid,
                }
            }
        }
        if s.peek().is_z() {
            s.take();
            zone.set_hours(0);
        } else if let Some(sign) = s.peek().sign() {
            s.take();
            zone.sign = Some(sign);
            if let Some(hhmm) = s.peek().fixed(4) {
                s.take();
                let (h, m) = (hhmm / 100, hhmm % 100);
                if !between(h, 0, 23) || !between(m, 0, 59) {
                    return Iso::Invalid;
                }
                zone.hour = Some(h);
                zone.minute = Some(m);
            } else {
                let Some(h) = s.peek().fixed(2).filter(|&h| between(h, 0, 23)) else {
                    return Iso::Invalid;
                };
                s.take();
                zone.hour = Some(h);
                if !s.skip(b':') {
                    return Iso::Invalid;
                }
                let Some(m) = s.peek().fixed(2).filter(|&m| between(m, 0, 59)) else {
                    return Iso::Invalid;
                };
                s.take();
                zone.minute = Some(m);
            }
        }
        if s.peek() != Token::End {
            return Iso::Invalid;
        }
    }
    // A date-only form without an offset is UTC (a date-time one local time: UTC here too).
    if zone.hour.is_none() && time.is_empty() {
        zone.set_hours(0);
    }
    day.iso = true;
    Iso::Done
}

/// The legacy reader, from `first` on; `None` when V8 refuses the text.
fn read_legacy(
    s: &mut Scanner<'_>,
    first: Token,
    day: &mut Day,
    time: &mut Time,
    zone: &mut Zone,
) -> Option<()> {
    let mut has_number = !day.parts.is_empty();
    let mut token = first;
    while token != Token::End {
        match token {
            Token::Number { value: n, .. } => {
                has_number = true;
                if s.skip(b':') {
                    if s.skip(b':') {
                        if !time.is_empty() {
                            return None;
                        }
                        time.add(n);
                        time.add(0);
                    } else {
                        if !time.add(n) {
                            return None;
                        }
                        if s.peek() == Token::Symbol(u16::from(b'.')) {
                            s.take();
                        }
                    }
                } else if s.skip(b'.') && time.expects(n) {
                    // (A `.` is taken even when the number is not a time: V8 does the same.)
                    time.add(n);
                    s.peek().number()?;
                    let t = s.take();
                    time.add_final(millis(t));
                } else if zone.expects(n) {
                    zone.minute = Some(n);
                } else if time.expects(n) {
                    time.add_final(n);
                    let next = s.peek();
                    if !(next == Token::End
                        || next == Token::Space
                        || next.is_z()
                        || next.sign().is_some())
                    {
                        return None;
                    }
                } else {
                    if !day.add(n) {
                        return None;
                    }
                    s.skip(b'-');
                }
            }
            Token::Word { word, .. } => match word {
                Word::AmPm(offset) if !time.is_empty() => time.am_pm = Some(offset),
                Word::Month(m) => {
                    day.named_month = Some(m);
                    s.skip(b'-');
                }
                Word::Zone(hours) if has_number => zone.set_hours(hours),
                _ => {
                    if has_number || s.peek().number().is_some() {
                        return None;
                    }
                }
            },
            Token::Symbol(_) if token.sign().is_some() && (zone.is_utc() || !time.is_empty()) => {
                zone.sign = token.sign();
                let (n, digits) = match s.peek() {
                    Token::Number { value, digits } => {
                        s.take();
                        (value, digits)
                    }
                    _ => (0, 0),
                };
                has_number = true;
                if s.peek() == Token::Symbol(u16::from(b':')) {
                    zone.hour = Some(n);
                    zone.minute = None;
                } else if digits == 1 || digits == 2 {
                    zone.hour = Some(n);
                    zone.minute = Some(0);
                } else if digits == 3 || digits == 4 {
                    zone.hour = Some(n / 100);
                    zone.minute = Some(n % 100);
                } else {
                    return None;
                }
            }
            Token::Symbol(0x29) | Token::Symbol(0x2b) | Token::Symbol(0x2d) if has_number => {
                return None;
            }
            _ => {}
        }
        token = s.take();
    }
    Some(())
}

/// Days from 1970-01-01 to the first of `month` (1–12) of `year`, proleptic Gregorian.
fn days_to_month(year: i64, month: i64) -> i64 {
    // Count from March, so that the leap day ends a year.
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * m + 2) / 5;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The time value of `text` as V8's `Date.parse` gives it (local time being UTC), or NaN.
pub(crate) fn parse_units(text: &[u16]) -> f64 {
    let mut s = Scanner::new(text);
    let (mut day, mut time, mut zone) = (Day::default(), Time::default(), Zone::default());
    match read_iso(&mut s, &mut day, &mut time, &mut zone) {
        Iso::Invalid => return f64::NAN,
        Iso::Done => {}
        Iso::Continue(first) => {
            if read_legacy(&mut s, first, &mut day, &mut time, &mut zone).is_none() {
                return f64::NAN;
            }
        }
    }
    let (Some((year, month, date)), Some((h, m, sec, ms)), Ok(offset)) =
        (day.resolve(), time.resolve(), zone.resolve())
    else {
        return f64::NAN;
    };
    if !between(year, -1_000_000, 1_000_000) {
        return f64::NAN;
    }
    #[allow(clippy::cast_precision_loss)]
    let local = (days_to_month(year, month) + date - 1) as f64 * 86_400_000.0
        + (h * 3_600_000 + m * 60_000 + sec * 1000 + ms) as f64;
    let utc = match offset {
        // Local time: UTC in the realm, within V8's ten days of slack for zone offsets.
        None if local.abs() <= MAX_TIME_MS + 864_000_000.0 => local,
        None => return f64::NAN,
        #[allow(clippy::cast_precision_loss)]
        Some(seconds) => local - seconds as f64 * 1000.0,
    };
    if utc.abs() > MAX_TIME_MS {
        return f64::NAN;
    }
    utc + 0.0
}

/// [`parse_units`] of Rust text.
pub(crate) fn parse(text: &str) -> f64 {
    if let Some(time) = plain_utc(text) {
        return time;
    }
    let units: Vec<u16> = text.encode_utf16().collect();
    parse_units(&units)
}

/// The time value of `YYYY-MM-DDTHH:MM:SS.sssZ` or `YYYY-MM-DDTHH:MM:SSZ` with every field
/// in the range every month has (day 1 to 28), read directly; `None` for anything else, which
/// [`parse_units`] reads. Every line's timestamp is read once (the realm's clock), nearly always
/// in this form, and the general reader spent a tenth of a plain line's work on it.
fn plain_utc(text: &str) -> Option<f64> {
    let digit = |b: u8| b.is_ascii_digit().then(|| i64::from(b - b'0'));
    let two = |a: u8, b: u8| Some(digit(a)? * 10 + digit(b)?);
    let [y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b'T', h0, h1, b':', mi0, mi1, b':', s0, s1, rest @ ..] =
        text.as_bytes()
    else {
        return None;
    };
    let ms = match rest {
        [b'Z'] => 0,
        [b'.', a, b, c, b'Z'] => digit(*a)? * 100 + digit(*b)? * 10 + digit(*c)?,
        _ => return None,
    };
    let year = two(*y0, *y1)? * 100 + two(*y2, *y3)?;
    let (month, day) = (two(*mo0, *mo1)?, two(*d0, *d1)?);
    let (hour, minute, second) = (two(*h0, *h1)?, two(*mi0, *mi1)?, two(*s0, *s1)?);
    if !(1..=12).contains(&month)
        || !(1..=28).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let time = (days_to_month(year, month) + day - 1) as f64 * 86_400_000.0
        + (hour * 3_600_000 + minute * 60_000 + second * 1000 + ms) as f64;
    Some(time)
}

/// `Date.parse(text)`: the time value of a string (ToString'd first), or NaN
/// (`date_constructor.rs` puts it on `Date`, and reads `new Date(text)` with [`parse_units`]).
pub(crate) fn js_parse(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let text = args.first().cloned().unwrap_or_default().to_string(ctx)?;
    let units: Vec<u16> = text.iter().collect();
    Ok(JsValue::new(parse_units(&units)))
}

#[cfg(test)]
mod tests {
    use super::{parse, parse_units, plain_utc};

    /// The direct reading of plain UTC timestamps gives what the general reader gives, and
    /// leaves it everything else, over every field's edges and generated values.
    #[test]
    fn plain_utc_timestamps_read_as_the_general_reader_reads_them() {
        let general = |t: &str| parse_units(&t.encode_utf16().collect::<Vec<u16>>());
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        let mut read_directly = 0;
        for i in 0..20_000 {
            // Each field from its edges (0, 1, the largest, one past) or at random.
            let mut field = |edges: &[u64], random: u64| {
                if i % 3 == 0 {
                    rng.pick(edges)
                } else {
                    rng.below(random)
                }
            };
            let (y, mo, d) = (
                field(&[0, 1, 1970, 2000, 2026, 9999], 10_000),
                field(&[0, 1, 2, 12, 13], 14),
                field(&[0, 1, 28, 29, 31, 32], 33),
            );
            let (h, mi, s, ms) = (
                field(&[0, 23, 24], 25),
                field(&[0, 59, 60], 61),
                field(&[0, 59, 60], 61),
                field(&[0, 999], 1000),
            );
            for text in [
                format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z"),
                format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"),
                format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}"),
                format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}Z"),
            ] {
                let want = general(&text);
                if let Some(direct) = plain_utc(&text) {
                    read_directly += 1;
                    assert_eq!(direct.to_bits(), want.to_bits(), "{text}");
                }
                assert_eq!(parse(&text).to_bits(), want.to_bits(), "{text}");
            }
        }
        assert!(
            read_directly > 10_000,
            "the direct reading took {read_directly}"
        );
        for text in [
            "2026-01-01T00:00:00.000z",
            "2026-01-01T00:00:00,000Z",
            "+2026-01-01T00:00:00Z",
            "2026-1-01T00:00:00Z",
            "2026-01-01T00:00:00.0000Z",
            "２026-01-01T00:00:00Z",
        ] {
            assert_eq!(plain_utc(text), None, "{text}");
            assert_eq!(parse(text).to_bits(), general(text).to_bits(), "{text}");
        }
    }

    /// One row per form, with the value Node 20 gives under `TZ=UTC`.
    #[test]
    fn reads_what_v8_reads() {
        let rows: [(&str, f64); 18] = [
            ("2025-09-04T12:34:56.789123Z", 1_756_989_296_789.0),
            ("2025-09-04T12:34:56.7Z", 1_756_989_296_700.0),
            (
                "2025-09-04T12:34:56.123456789123+02:00",
                1_756_982_096_123.0,
            ),
            ("2025-09-04T12:34:56", 1_756_989_296_000.0),
            ("2025-09-04", 1_756_944_000_000.0),
            ("2025-09", 1_756_684_800_000.0),
            ("2025-09-04 12:34:56", 1_756_989_296_000.0),
            ("2025-09-04 12:34:56.5+0530", 1_756_969_496_500.0),
            ("Thu, 04 Sep 2025 12:34:56 GMT", 1_756_989_296_000.0),
            ("Thu, 04 Sep 2025 12:34:56 -0700", 1_757_014_496_000.0),
            (
                "Thu Sep 04 2025 12:34:56 GMT+0000 (Coordinated Universal Time)",
                1_756_989_296_000.0,
            ),
            ("Sep 4, 2025 1:02 PM", 1_756_990_920_000.0),
            ("9/4/2025", 1_756_944_000_000.0),
            ("+275760-09-13T00:00:00Z", 8.64e15),
            ("2025-09-04T24:00:00Z", 1_757_030_400_000.0),
            ("1970-01-01T00:00:00.000+00:00", 0.0),
            // Leading zeros of a fraction are not among its nine digits; U+00A0 is a space.
            ("2004-03-18T08:04:16.017022786404Z", 1_079_597_056_170.0),
            ("10\u{a0} 8", 1_002_499_200_000.0),
        ];
        for (text, want) in rows {
            assert_eq!(parse(text), want, "{text}");
        }
        for refused in [
            "",
            "2025-09-04T12:34:56.Z",
            "2025-13-01T00:00:00Z",
            "+275760-09-13T00:00:00.001Z",
            "2025-09-04T25:00:00Z",
            "hello",
            "2025-09-04T12:34:56Zjunk",
        ] {
            assert!(parse(refused).is_nan(), "{refused}");
        }
    }
}
