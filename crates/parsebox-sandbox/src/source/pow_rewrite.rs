//! `a ** b` and `x **= b` rewritten into calls of the realm's exponentiation
//! (`crate::pow`), which gives V8's doubles: boa's own `Pow` instruction uses `powi` for
//! integer exponents (`2 ** -1074` is 0 there, `1.1 ** 37` is off in the last bits) and cannot
//! be replaced from outside the engine.
//!
//! boa's AST says where each operator's operands start; where they end its spans are not
//! exact (`a[i]` ends before the `]`), so the tokenizer finds the operator between the two and
//! extends the right operand until its brackets close. Every operand cut this way is parsed
//! again on its own and must print exactly as the AST node does; an operator whose operands do
//! not check out keeps boa's `**`, so a mistake here can only leave a last-bit difference,
//! never change what a parser computes otherwise.
//!
//! - `L ** R` → `__parsebox_pow(L, R)` (operands evaluated once, left first, as `**` does).
//! - `x **= R` → `x = __parsebox_pow(x, R)` for an identifier, and for a property reference
//!   whose parts are read without side effects (`this.n`, `o.p.q`, `o[i]`, `o["k"]`,
//!   `this.#n`, `super.n`), which may be read twice. Any other target keeps boa's `**=`.
//!
//! The script is then wrapped so that `__parsebox_pow` is a local bound to the realm's
//! function (`__parsebox.pow`); a source that already mentions the name is left alone.

use std::convert::Infallible;
use std::ops::ControlFlow;

use boa_engine::ast::expression::access::{PropertyAccess, PropertyAccessField};
use boa_engine::ast::expression::operator::assign::{AssignOp, AssignTarget};
use boa_engine::ast::expression::operator::binary::{ArithmeticOp, BinaryOp};
use boa_engine::ast::expression::operator::{Assign, Binary};
use boa_engine::ast::expression::Expression;
use boa_engine::ast::scope::Scope;
use boa_engine::ast::visitor::{VisitWith, Visitor};
use boa_engine::ast::{Position, Script, Spanned, Statement, StatementListItem};
use boa_engine::interner::{Interner, ToInternedString};
use boa_engine::parser::{Parser, Source};

use super::tokenizer::{tokenize, Kind, Token};

/// The local name the rewritten calls use.
const POW: &str = "__parsebox_pow";

/// Most operators rewritten in one source (each costs two small parses at load).
const MAX_SITES: usize = 10_000;

/// Most bytes of operand text parsed again and printed to check the operands, over a whole
/// source: eight times its length and 64 KiB. Operators nested in each other's operands check
/// the same text again, so a source built to make that quadratic keeps boa's operators past
/// this; real code checks each operand once.
fn max_checked_bytes(script: &str) -> usize {
    script.len().saturating_mul(8).saturating_add(64 << 10)
}

/// One `**` or `**=` found in the AST.
enum Site<'ast> {
    /// `lhs ** rhs`.
    Binary(&'ast Binary),
    /// `target **= rhs`, the target one that may be read twice.
    Assign(&'ast Assign),
}

/// Whether evaluating `e` (a property reference's object or key) twice is the same as once:
/// identifiers, `this`, literals, and plain property reads of those.
fn rereadable(e: &Expression) -> bool {
    match e {
        Expression::Identifier(_) | Expression::This(_) | Expression::Literal(_) => true,
        Expression::PropertyAccess(PropertyAccess::Simple(s)) => {
            rereadable(s.target())
                && match s.field() {
                    PropertyAccessField::Const(_) => true,
                    PropertyAccessField::Expr(k) => rereadable(k),
                }
        }
        _ => false,
    }
}

/// Whether an assignment target may be read once more to compute `target ** rhs`.
fn rereadable_target(t: &AssignTarget) -> bool {
    match t {
        AssignTarget::Identifier(_) => true,
        AssignTarget::Access(PropertyAccess::Simple(s)) => {
            rereadable(s.target())
                && match s.field() {
                    PropertyAccessField::Const(_) => true,
                    PropertyAccessField::Expr(k) => rereadable(k),
                }
        }
        AssignTarget::Access(PropertyAccess::Private(p)) => {
            matches!(p.target(), Expression::This(_))
        }
        AssignTarget::Access(PropertyAccess::Super(s)) => {
            matches!(s.field(), PropertyAccessField::Const(_))
        }
        AssignTarget::Pattern(_) => false,
    }
}

/// The earlier of two positions.
fn earlier(a: Position, b: Position) -> Position {
    if (b.line_number(), b.column_number()) < (a.line_number(), a.column_number()) {
        b
    } else {
        a
    }
}

/// Where `e` starts: boa's span for some nodes starts at a later part (a call's at its
/// arguments), so the leftmost operand's start is taken too. `new X(…)` is found later, by
/// the `new` token before its constructor ([`Finder::with_new`]).
fn start_of(e: &Expression) -> Position {
    let own = e.span().start();
    let left = match e {
        Expression::Call(c) => start_of(c.function()),
        Expression::PropertyAccess(PropertyAccess::Simple(s)) => start_of(s.target()),
        Expression::PropertyAccess(PropertyAccess::Private(p)) => start_of(p.target()),
        Expression::Optional(o) => start_of(o.target()),
        Expression::TaggedTemplate(t) => start_of(t.tag()),
        Expression::New(n) => start_of(n.call().function()),
        Expression::Binary(b) => start_of(b.lhs()),
        Expression::Conditional(c) => start_of(c.condition()),
        _ => own,
    };
    earlier(own, left)
}

/// Where an assignment target starts (see [`start_of`]).
fn target_start(t: &AssignTarget) -> Position {
    match t {
        AssignTarget::Access(PropertyAccess::Simple(s)) => {
            earlier(t.span().start(), start_of(s.target()))
        }
        AssignTarget::Access(PropertyAccess::Private(p)) => {
            earlier(t.span().start(), start_of(p.target()))
        }
        _ => t.span().start(),
    }
}

struct Collect<'ast> {
    sites: Vec<Site<'ast>>,
}

impl<'ast> Visitor<'ast> for Collect<'ast> {
    type BreakTy = Infallible;

    fn visit_binary(&mut self, node: &'ast Binary) -> ControlFlow<Infallible> {
        if node.op() == BinaryOp::Arithmetic(ArithmeticOp::Exp) && self.sites.len() < MAX_SITES {
            self.sites.push(Site::Binary(node));
        }
        node.visit_with(self)
    }

    fn visit_assign(&mut self, node: &'ast Assign) -> ControlFlow<Infallible> {
        if node.op() == AssignOp::Exp
            && rereadable_target(node.lhs())
            && self.sites.len() < MAX_SITES
        {
            self.sites.push(Site::Assign(node));
        }
        node.visit_with(self)
    }
}

/// Byte offsets of boa's positions (1-based lines and columns counted in characters; a line
/// ends at `\n`, `\r\n`, `\r`, U+2028 or U+2029, as boa's lexer counts them).
struct Lines<'s> {
    text: &'s str,
    starts: Vec<usize>,
    /// For each line that is not ASCII, the byte offset of each of its characters (made when
    /// first asked), so every position is found in constant time.
    chars: std::collections::HashMap<usize, Vec<usize>>,
}

impl<'s> Lines<'s> {
    fn new(text: &'s str) -> Self {
        let mut starts = vec![0];
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '\r' => {
                    if let Some(&(j, '\n')) = chars.peek() {
                        chars.next();
                        starts.push(j + 1);
                    } else {
                        starts.push(i + 1);
                    }
                }
                '\n' | '\u{2028}' | '\u{2029}' => starts.push(i + c.len_utf8()),
                _ => {}
            }
        }
        Lines {
            text,
            starts,
            chars: std::collections::HashMap::new(),
        }
    }

    fn offset(&mut self, p: Position) -> Option<usize> {
        let line = usize::try_from(p.line_number()).ok()?.checked_sub(1)?;
        let col = usize::try_from(p.column_number()).ok()?.checked_sub(1)?;
        let start = *self.starts.get(line)?;
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let rest = self.text.get(start..end)?;
        if rest.is_ascii() {
            return (col <= rest.len()).then_some(start + col);
        }
        let offsets = self
            .chars
            .entry(line)
            .or_insert_with(|| rest.char_indices().map(|(i, _)| i).collect());
        match offsets.get(col) {
            Some(i) => Some(start + i),
            None if offsets.len() == col => Some(start + rest.len()),
            None => None,
        }
    }
}

/// `text` parsed on its own as one expression, printed as boa prints AST nodes; `None` when
/// it is not exactly one expression.
fn reprint(text: &str) -> Option<String> {
    let wrapped = format!("(\n{text}\n);");
    let mut interner = Interner::default();
    let script = Parser::new(Source::from_bytes(wrapped.as_bytes()))
        .parse_script(&Scope::new_global(), &mut interner)
        .ok()?;
    match script.statements().statements() {
        [StatementListItem::Statement(s)] => match s.as_ref() {
            Statement::Expression(Expression::Parenthesized(p)) => {
                Some(p.expression().to_interned_string(&interner))
            }
            _ => None,
        },
        _ => None,
    }
}

/// One change to the script: `remove` bytes at `at` replaced by `text`.
struct Edit {
    at: usize,
    remove: usize,
    text: String,
}

struct Finder<'s> {
    text: &'s str,
    toks: Vec<Token>,
}

impl Finder<'_> {
    /// The index of the first token starting at or after `at`.
    fn first_at(&self, at: usize) -> usize {
        self.toks.partition_point(|t| t.start < at)
    }

    /// Where the operator `op` (`**` or `**=`, made of one-character tokens written together)
    /// starts: its last occurrence between `from` and `to`.
    fn operator(&self, from: usize, to: usize, op: &[u8]) -> Option<usize> {
        let first = self.first_at(from);
        let last = self.first_at(to);
        let toks = self.toks.get(first..last)?;
        (0..toks.len()).rev().find_map(|k| {
            let run = toks.get(k..k + op.len())?;
            let start = run.first()?.start;
            let together = run.iter().zip(op).enumerate().all(|(n, (t, &c))| {
                t.kind == Kind::Punct(c) && t.start == start + n && t.end == t.start + 1
            });
            together.then_some(start)
        })
    }

    /// The end of the operand that starts at `start` and whose AST span ends at `span_end`:
    /// extended past closing brackets the span leaves out (`a[i]`'s `]`).
    fn operand_end(&self, start: usize, span_end: usize) -> usize {
        let mut open: i64 = 0;
        let mut end = span_end;
        for t in self.toks.iter().skip(self.first_at(start)) {
            if t.start >= end && open <= 0 {
                break;
            }
            match t.kind {
                Kind::Punct(b'(' | b'[' | b'{') => open += 1,
                Kind::Punct(b')' | b']' | b'}') => open -= 1,
                _ => {}
            }
            end = end.max(t.end);
        }
        end
    }

    /// `at`, or the start of the `new` keyword(s) right before it: an operand that is a `new`
    /// expression starts there, not at its constructor.
    fn with_new(&self, at: usize) -> usize {
        let mut k = self.first_at(at);
        let mut start = at;
        while let Some(t) = k.checked_sub(1).and_then(|j| self.toks.get(j)) {
            if t.kind == Kind::Ident && self.text.get(t.start..t.end) == Some("new") {
                start = t.start;
                k -= 1;
            } else {
                break;
            }
        }
        start
    }

    fn slice(&self, from: usize, to: usize) -> Option<&str> {
        self.text.get(from..to)
    }
}

/// What checking operands costs and may still cost.
struct Checker<'i> {
    interner: &'i Interner,
    /// Bytes of operand text that may still be checked ([`max_checked_bytes`]).
    left: usize,
}

impl Checker<'_> {
    /// Whether `text` parses on its own into what boa prints for `node` (within what is left
    /// of the checking budget).
    fn same(&mut self, text: &str, node: &impl ToInternedString) -> bool {
        if text.len() > self.left {
            self.left = 0;
            return false;
        }
        self.left -= text.len();
        reprint(text).is_some_and(|p| p == node.to_interned_string(self.interner))
    }
}

/// The edits for one site, or `None` when its operands do not check out.
fn edits_for(
    site: &Site<'_>,
    lines: &mut Lines<'_>,
    f: &Finder<'_>,
    check: &mut Checker<'_>,
) -> Option<Vec<Edit>> {
    match site {
        Site::Binary(node) => {
            let l = lines.offset(start_of(node.lhs()))?;
            let r = lines.offset(start_of(node.rhs()))?;
            // A `new` before either operand belongs to it; the check below tells.
            let (l, r) = (f.with_new(l), f.with_new(r));
            let op = f.operator(l, r, b"**")?;
            let end = f.operand_end(r, lines.offset(node.rhs().span().end())?);
            if !check.same(f.slice(l, op)?, node.lhs()) || !check.same(f.slice(r, end)?, node.rhs())
            {
                return None;
            }
            Some(vec![
                Edit {
                    at: l,
                    remove: 0,
                    text: format!("{POW}("),
                },
                Edit {
                    at: op,
                    remove: 2,
                    text: ", ".to_owned(),
                },
                Edit {
                    at: end,
                    remove: 0,
                    text: ")".to_owned(),
                },
            ])
        }
        Site::Assign(node) => {
            let t = lines.offset(target_start(node.lhs()))?;
            let r = f.with_new(lines.offset(start_of(node.rhs()))?);
            let op = f.operator(t, r, b"**=")?;
            let end = f.operand_end(r, lines.offset(node.rhs().span().end())?);
            let target_text = f.slice(t, op)?;
            if !check.same(target_text, node.lhs()) || !check.same(f.slice(r, end)?, node.rhs()) {
                return None;
            }
            Some(vec![
                Edit {
                    at: op,
                    remove: 3,
                    text: format!("= {POW}({}, ", target_text.trim_end()),
                },
                Edit {
                    at: end,
                    remove: 0,
                    text: ")".to_owned(),
                },
            ])
        }
    }
}

/// `script` (parsed as `ast`) with its `**` and `**=` rewritten, or as it was when there are
/// none or the rewrite cannot be made safely.
pub(super) fn rewrite(script: String, ast: &Script, interner: &Interner) -> String {
    if !script.contains("**") || script.contains(POW) {
        return script;
    }
    let mut collect = Collect { sites: Vec::new() };
    let _ = ast.visit_with(&mut collect);
    if collect.sites.is_empty() {
        return script;
    }
    let mut lines = Lines::new(&script);
    let finder = Finder {
        text: &script,
        toks: tokenize(&script),
    };
    let mut check = Checker {
        interner,
        left: max_checked_bytes(&script),
    };
    let mut edits: Vec<Edit> = collect
        .sites
        .iter()
        .filter_map(|s| edits_for(s, &mut lines, &finder, &mut check))
        .flatten()
        .collect();
    if edits.is_empty() {
        return script;
    }
    // At one offset, a closing `)` (an operand that ends there) goes before an opening call
    // (an operand that starts there): sort by offset, then insertions of `)` first.
    edits.sort_by_key(|e| (e.at, e.text != ")", e.remove));
    let mut out = String::with_capacity(script.len() + edits.len() * 8 + 64);
    out.push_str("(function (");
    out.push_str(POW);
    out.push_str(") { return ");
    let mut last = 0;
    for e in &edits {
        let (Some(kept), true) = (script.get(last..e.at), e.at >= last) else {
            // Overlapping edits: something was misread; keep boa's operators.
            return script;
        };
        out.push_str(kept);
        out.push_str(&e.text);
        last = e.at + e.remove;
    }
    let Some(rest) = script.get(last..) else {
        return script;
    };
    out.push_str(rest);
    out.push_str("\n})(__parsebox.pow)");
    out
}

#[cfg(test)]
mod tests {
    use crate::source::prepare;

    fn script(src: &str) -> String {
        prepare(src, 1000, true).unwrap().script
    }

    #[test]
    fn operators_become_calls_with_the_same_operands() {
        let s = script(
            "export function parseStdoutLine(l) {\n\
             let a = [2, 3], i = 1, o = { p: 2 };\n\
             let x = a[i] ** 2 + (a[0] + 1) ** -(a[1] ** 2) / f(l)[0] ** o.p + new Date(0).getTime() ** new Number(2);\n\
             x **= 2; o.p **= a[i] ** 3; a[i] **= 0.5;\n\
             return `${x ** 2}` + /* ** */ 2 ** 3; }",
        );
        for want in [
            "__parsebox_pow(a[i] ,  2)",
            "__parsebox_pow((a[0] + 1) ,  -(__parsebox_pow(a[1] ,  2)))",
            "__parsebox_pow(f(l)[0] ,  o.p)",
            "__parsebox_pow(new Date(0).getTime() ,  new Number(2))",
            "x = __parsebox_pow(x,  2)",
            "o.p = __parsebox_pow(o.p,  __parsebox_pow(a[i] ,  3))",
            "a[i] = __parsebox_pow(a[i],  0.5)",
            "`${__parsebox_pow(x ,  2)}`",
            "/* ** */ __parsebox_pow(2 ,  3)",
        ] {
            assert!(s.contains(want), "{want} not in {s}");
        }
        assert!(s.ends_with("\n})(__parsebox.pow)"), "{s}");
    }

    #[test]
    fn targets_that_must_be_read_once_keep_boas_operator() {
        let s =
            script("export function parseStdoutLine(l) { f().p **= 2; l[g()] **= 2; return []; }");
        assert!(
            s.contains("f().p **= 2") && s.contains("l[g()] **= 2"),
            "{s}"
        );
    }

    /// Nested operators check their operands' text again at each level: past a budget of
    /// eight times the source (and 64 KiB), the remaining ones keep boa's operator, so a
    /// source cannot make its load quadratic. What it computes is the same either way.
    #[test]
    fn checking_nested_operands_stops_at_its_budget() {
        let chain = vec!["1"; 600].join(" ** ");
        let src = format!("export function parseStdoutLine(l) {{ return [2 ** {chain}]; }}");
        let s = script(&src);
        let rewritten = s.matches("__parsebox_pow(").count();
        assert!(
            rewritten > 10,
            "the outer operators are rewritten: {rewritten}"
        );
        assert!(s.contains("1 ** 1"), "the innermost keep boa's operator");
    }

    #[test]
    fn a_source_without_the_operator_is_left_as_it_was() {
        let s = script("/** doc */ export function parseStdoutLine(l) { return [l * 2]; }");
        assert!(!s.contains("__parsebox_pow"), "{s}");
    }
}
