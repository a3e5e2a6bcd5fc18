//! Translating an RE2 pattern into the `regex` crate's syntax (see the
//! module documentation of `stdlib::regex`), with the estimates the
//! compiled regex keeps: its automaton's size, whether its searches may
//! rescan, whether its lazy DFA may blow up, a mid-pattern anchor.

use super::MAX_REPEAT;

/// ASCII classes of RE2, as class *contents* (no brackets).
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = r"\t\n\x0C\r\x20";

/// The body of the ASCII class for a Perl class letter, if it is one.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    match c {
        'd' => Some((DIGIT, false)),
        'D' => Some((DIGIT, true)),
        'w' => Some((WORD, false)),
        'W' => Some((WORD, true)),
        's' => Some((SPACE, false)),
        'S' => Some((SPACE, true)),
        _ => None,
    }
}

/// Pushes one character as a literal the crate reads as itself.
fn push_literal(out: &mut String, c: char) {
    if ::regex::escape(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8() {
        out.push('\\');
    }
    out.push(c);
}

/// Reads an octal escape whose first digit is at `cs[i]` (RE2: `\0` takes up
/// to two more octal digits; `\1`..`\7` need at least one more, else they are
/// backreferences). Returns the character and the digits consumed.
fn octal(cs: &[char], i: usize) -> Result<(char, usize), String> {
    let first = cs.get(i).copied().unwrap_or('0');
    let is_octal = |c: Option<&char>| c.is_some_and(|c| ('0'..='7').contains(c));
    if first != '0' && !is_octal(cs.get(i + 1)) {
        return Err(format!("backreferences are not supported (\\{first})"));
    }
    let mut value = 0u32;
    let mut n = 0;
    while n < 3 && is_octal(cs.get(i + n)) {
        value = value * 8 + cs.get(i + n).and_then(|c| c.to_digit(8)).unwrap_or(0);
        n += 1;
    }
    // At most 0o777 = 511: always a valid scalar value.
    let c = char::from_u32(value).ok_or_else(|| "invalid octal escape".to_string())?;
    Ok((c, n))
}

/// Copies a braced escape tail `{...}` starting at `cs[i] == '{'`; returns
/// the characters consumed.
fn copy_braced(cs: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    let mut j = i;
    loop {
        match cs.get(j) {
            Some('}') => {
                out.push('}');
                return Ok(j + 1 - i);
            }
            Some(&c) => {
                out.push(c);
                j += 1;
            }
            None => return Err("unclosed '{' in escape".to_string()),
        }
    }
}

/// Translates an escape that is not special to classes, at `cs[i] == '\\'`,
/// into `out`. Returns the characters consumed. `in_class` selects the
/// class-content form of Perl classes.
fn translate_escape(
    cs: &[char],
    i: usize,
    out: &mut String,
    in_class: bool,
) -> Result<usize, String> {
    let Some(&c) = cs.get(i + 1) else {
        return Err("trailing backslash at end of pattern".to_string());
    };
    if let Some((body, negated)) = perl_class(c) {
        match (in_class, negated) {
            (true, false) => out.push_str(body),
            _ => {
                out.push_str(if negated { "[^" } else { "[" });
                out.push_str(body);
                out.push(']');
            }
        }
        return Ok(2);
    }
    match c {
        'b' | 'B' if !in_class => {
            out.push_str(if c == 'b' { r"(?-u:\b)" } else { r"(?-u:\B)" });
            Ok(2)
        }
        'p' | 'P' | 'x' => {
            out.push('\\');
            out.push(c);
            if cs.get(i + 2) == Some(&'{') {
                Ok(2 + copy_braced(cs, i + 2, out)?)
            } else if let (true, Some(&name)) = (c != 'x', cs.get(i + 2)) {
                // `\pL`: the one-letter class name belongs to the escape, so
                // that a repetition after it (`\pL{29}`) applies to the class.
                out.push(name);
                Ok(3)
            } else {
                Ok(2)
            }
        }
        '0'..='7' => {
            let (ch, n) = octal(cs, i + 1)?;
            push_literal(out, ch);
            Ok(1 + n)
        }
        '8' | '9' => Err(format!("invalid escape sequence \\{c}")),
        '<' | '>' => {
            out.push(c);
            Ok(2)
        }
        'Q' | 'E' if in_class => Err(format!(
            "invalid escape sequence \\{c} in a character class"
        )),
        _ => {
            out.push('\\');
            out.push(c);
            Ok(2)
        }
    }
}

/// Translates a character class starting at `cs[i] == '['`. Returns the
/// characters consumed.
fn translate_class(cs: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    out.push('[');
    let mut j = i + 1;
    if cs.get(j) == Some(&'^') {
        out.push('^');
        j += 1;
    }
    if cs.get(j) == Some(&']') {
        out.push_str(r"\]");
        j += 1;
    }
    loop {
        let Some(&c) = cs.get(j) else {
            return Err("missing closing ] of a character class".to_string());
        };
        let next = cs.get(j + 1).copied();
        match c {
            ']' => {
                out.push(']');
                return Ok(j + 1 - i);
            }
            '[' if next == Some(':') => {
                // A POSIX class `[:name:]` (or `[:^name:]`), else a literal `[`.
                let close = (j + 2..cs.len().saturating_sub(1))
                    .find(|&k| cs.get(k) == Some(&':') && cs.get(k + 1) == Some(&']'));
                match close {
                    Some(k) => {
                        cs.iter()
                            .skip(j)
                            .take(k + 2 - j)
                            .for_each(|&ch| out.push(ch));
                        j = k + 2;
                    }
                    None => {
                        out.push_str(r"\[");
                        j += 1;
                    }
                }
            }
            '[' => {
                out.push_str(r"\[");
                j += 1;
            }
            '\\' => j += translate_escape(cs, j, out, true)?,
            '&' | '~' | '-' if next == Some(c) => {
                return Err(format!("class set operator '{c}{c}' is not supported"));
            }
            _ => {
                out.push(c);
                j += 1;
            }
        }
    }
}

/// Parses `{n}`, `{n,}` or `{n,m}` at `cs[i] == '{'`: `(min, max, consumed)`,
/// or `None` when the text is not a repetition (then `{` is a literal).
fn parse_repeat(cs: &[char], i: usize) -> Option<(u64, Option<u64>, usize)> {
    let digits = |mut j: usize| -> (Option<u64>, usize) {
        let start = j;
        let mut v: u64 = 0;
        while let Some(d) = cs.get(j).and_then(|c| c.to_digit(10)) {
            v = v.saturating_mul(10).saturating_add(u64::from(d));
            j += 1;
        }
        ((j > start).then_some(v), j)
    };
    let (min, j) = digits(i + 1);
    let min = min?;
    match cs.get(j) {
        Some('}') => Some((min, Some(min), j + 1 - i)),
        Some(',') => {
            let (max, k) = digits(j + 1);
            (cs.get(k) == Some(&'}')).then_some((min, max, k + 1 - i))
        }
        _ => None,
    }
}

/// Estimated automaton states of one atom, for [`Translated::size`].
const LITERAL_SIZE: u64 = 1;
/// A class, or a negated ASCII class (which matches multi-byte characters).
const CLASS_SIZE: u64 = 4;
/// A negated class or `.`: any character, several UTF-8 states.
const ANY_SIZE: u64 = 8;
/// A Unicode property class such as `\pL`.
const UNICODE_CLASS_SIZE: u64 = 256;

/// A pattern translated for the `regex` crate, with a size estimate.
#[derive(Debug)]
pub(super) struct Translated {
    /// The pattern in the crate's syntax.
    pub(super) pattern: String,
    /// Estimated automaton states: atoms weighted by kind, counted
    /// repetitions expanded (`a{500}` is 500).
    pub(super) size: u64,
    /// Whether a search may read far past the match it returns: some
    /// unbounded loop followed by more pattern (which may fail late) sits in
    /// a construct with a lower-priority fallback: a branch before another
    /// (`\w*b|a`) or a group under a non-exact quantifier (`a(\w*b)?`).
    pub(super) rescans: bool,
    /// Characters matched by class-like atoms after other pattern, counted
    /// repetitions expanded: from [`EXPLOSIVE_COUNT`] on they may blow the
    /// lazy DFA up, leaving the search to an NFA simulation whose cost per
    /// byte grows with them.
    ///
    /// [`EXPLOSIVE_COUNT`]: super::EXPLOSIVE_COUNT
    pub(super) explodes: u64,
    /// A start anchor (`^`, `\A`) follows other pattern in its branch, or
    /// pattern follows an end anchor (`$`, `\z`).
    pub(super) mid_anchor: bool,
}

/// One open group (or the whole pattern) during translation.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// The largest product of counted repetitions inside it.
    product: u64,
    /// Estimated states inside it.
    size: u64,
    /// The current branch has an unbounded loop followed by more pattern.
    loop_then_more: bool,
    /// The current branch has an unbounded loop not yet followed by more.
    open_loop: bool,
    /// `loop_then_more` of an earlier branch.
    any_loop_then_more: bool,
    /// `open_loop` of an earlier branch.
    any_open_loop: bool,
    /// Atoms (and groups) in the current branch so far.
    branch_atoms: u32,
    /// An end anchor (`$`, `\z`) came earlier in the current branch.
    after_end: bool,
    /// A `|` was seen: the group is an alternation (`(?:a|b)` is class-like).
    alternation: bool,
}

impl Frame {
    fn new() -> Self {
        Frame {
            product: 1,
            ..Frame::default()
        }
    }

    /// Something that must match comes next in the current branch.
    fn more(&mut self) {
        self.branch_atoms = self.branch_atoms.saturating_add(1);
        if self.open_loop {
            self.loop_then_more = true;
            self.open_loop = false;
        }
    }
}

/// The last complete atom (a repetition operator may follow).
#[derive(Clone, Copy)]
struct Atom {
    product: u64,
    size: u64,
    /// A group containing an unbounded loop followed by more pattern.
    loop_then_more: bool,
    /// Matches more than one character: a class, `.`, a Perl or Unicode
    /// class, or a group of at least a class's size.
    wide: bool,
}

const fn atom(size: u64) -> Option<Atom> {
    Some(Atom {
        product: 1,
        size,
        loop_then_more: false,
        wide: size >= CLASS_SIZE,
    })
}

/// Translates an RE2 pattern into the `regex` crate's syntax (see the module
/// documentation), or explains why RE2 rejects it.
pub(super) fn translate(pattern: &str) -> Result<Translated, String> {
    let cs: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut frames = vec![Frame::new()];
    let mut last_atom: Option<Atom> = None;
    let mut last_repeat = false;
    let mut rescans = false;
    let mut explodes = 0u64;
    let mut mid_anchor = false;
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        let mut new_atom = None;
        // A start anchor after something that consumes text (`[a-c]^`,
        // `\s\A`): the crate then scans at 5-12 ns per byte.
        if (c == '^' || (c == '\\' && next == Some('A')))
            && (frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms > 0))
        {
            mid_anchor = true;
        }
        match c {
            '\\' if next == Some('Q') => {
                i += 2;
                while let Some(&q) = cs.get(i) {
                    if q == '\\' && cs.get(i + 1) == Some(&'E') {
                        i += 2;
                        break;
                    }
                    push_literal(&mut out, q);
                    i += 1;
                    if let Some(f) = frames.last_mut() {
                        f.size = f.size.saturating_add(LITERAL_SIZE);
                        f.more();
                    }
                    last_atom = atom(LITERAL_SIZE);
                }
                last_repeat = false;
            }
            '\\' => {
                i += translate_escape(&cs, i, &mut out, false)?;
                new_atom = atom(match next {
                    Some('p' | 'P') => UNICODE_CLASS_SIZE,
                    Some('D' | 'W' | 'S') => ANY_SIZE,
                    _ => LITERAL_SIZE,
                })
                .map(|a| Atom {
                    wide: a.wide || matches!(next, Some('d' | 'w' | 's')),
                    ..a
                });
            }
            '[' => {
                let n = translate_class(&cs, i, &mut out)?;
                let body = cs.get(i..i + n).unwrap_or(&[]);
                let unicode = body
                    .windows(2)
                    .filter(|w| matches!(w, ['\\', 'p' | 'P']))
                    .count();
                let base = if next == Some('^') {
                    ANY_SIZE
                } else {
                    CLASS_SIZE
                };
                new_atom =
                    atom(base.saturating_add(UNICODE_CLASS_SIZE.saturating_mul(unicode as u64)));
                i += n;
            }
            '(' => {
                let (n, opens) = translate_group_open(&cs, i, &mut out)?;
                if opens {
                    if let Some(f) = frames.last_mut() {
                        f.more();
                    }
                    let after_end = frames.last().is_some_and(|f| f.after_end);
                    frames.push(Frame {
                        after_end,
                        ..Frame::new()
                    });
                }
                i += n;
                last_atom = None;
                last_repeat = false;
            }
            ')' => {
                if frames.len() < 2 {
                    return Err("unopened group: unmatched ')'".to_string());
                }
                let inner = frames.pop().unwrap_or_default();
                let inner_ltm = inner.any_loop_then_more || inner.loop_then_more;
                if let Some(top) = frames.last_mut() {
                    top.product = top.product.max(inner.product);
                    top.size = top.size.saturating_add(inner.size);
                    top.loop_then_more |= inner_ltm;
                    // A loop ending the group is followed by what follows it.
                    top.open_loop |= inner.any_open_loop || inner.open_loop;
                }
                last_atom = Some(Atom {
                    product: inner.product,
                    size: inner.size,
                    loop_then_more: inner_ltm,
                    wide: inner.size >= CLASS_SIZE || inner.alternation,
                });
                out.push(')');
                i += 1;
                last_repeat = false;
            }
            '|' => {
                if let Some(f) = frames.last_mut() {
                    // A branch with a lower-priority branch after it.
                    rescans |= f.loop_then_more;
                    f.any_loop_then_more |= f.loop_then_more;
                    f.any_open_loop |= f.open_loop;
                    f.loop_then_more = false;
                    f.open_loop = false;
                    f.branch_atoms = 0;
                    f.after_end = false;
                    f.alternation = true;
                }
                out.push('|');
                i += 1;
                last_atom = None;
                last_repeat = false;
            }
            '*' | '+' | '?' => {
                if last_repeat {
                    return Err(format!("bad repetition operator: stacked '{c}'"));
                }
                // Every operator here leaves a fallback (fewer iterations).
                rescans |= last_atom.is_some_and(|a| a.loop_then_more);
                if c != '?'
                    && let Some(f) = frames.last_mut()
                {
                    f.open_loop = true;
                }
                out.push(c);
                i += 1;
                if cs.get(i) == Some(&'?') {
                    out.push('?');
                    i += 1;
                }
                last_repeat = true;
            }
            '{' => match parse_repeat(&cs, i) {
                Some((min, max, n)) => {
                    if last_repeat {
                        return Err("bad repetition operator: stacked '{'".to_string());
                    }
                    let top = max.unwrap_or(min);
                    if min > u64::from(MAX_REPEAT)
                        || top > u64::from(MAX_REPEAT)
                        || max.is_some_and(|m| m < min)
                    {
                        return Err(format!(
                            "bad repetition operator: counts must satisfy min <= max <= {MAX_REPEAT}"
                        ));
                    }
                    let last = last_atom.unwrap_or(Atom {
                        product: 1,
                        size: 0,
                        loop_then_more: false,
                        wide: false,
                    });
                    let product = last.product.saturating_mul(top.max(1));
                    if product > u64::from(MAX_REPEAT) {
                        return Err(format!(
                            "bad repetition operator: nested repetition counts exceed {MAX_REPEAT}"
                        ));
                    }
                    rescans |= last.loop_then_more && max != Some(min);
                    // A long counted run of a class after something else
                    // (`a[ab]{25}c`, `a\w{30}c`): the lazy DFA must track
                    // every recent start, its cache overflows, and the
                    // search falls back to simulating the NFA, state by
                    // state (hundreds of ns per byte).
                    let preceded =
                        frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms >= 2);
                    if preceded && last.wide {
                        // The atom itself was counted once already.
                        explodes = explodes.saturating_add(product.saturating_sub(last.product));
                    }
                    if let Some(f) = frames.last_mut() {
                        f.product = f.product.max(product);
                        // The atom is already counted once; add the other copies.
                        f.size = f
                            .size
                            .saturating_add(last.size.saturating_mul(top.max(1) - 1));
                        if max.is_none() {
                            f.open_loop = true;
                        }
                    }
                    cs.iter().skip(i).take(n).for_each(|&ch| out.push(ch));
                    i += n;
                    if cs.get(i) == Some(&'?') {
                        out.push('?');
                        i += 1;
                    }
                    last_repeat = true;
                }
                None => {
                    out.push_str(r"\{");
                    i += 1;
                    new_atom = atom(LITERAL_SIZE);
                }
            },
            '}' => {
                out.push_str(r"\}");
                i += 1;
                new_atom = atom(LITERAL_SIZE);
            }
            '.' => {
                out.push('.');
                i += 1;
                new_atom = atom(ANY_SIZE);
            }
            _ => {
                out.push(c);
                i += 1;
                new_atom = atom(LITERAL_SIZE);
            }
        }
        if let Some(a) = new_atom {
            if let Some(f) = frames.last_mut() {
                f.size = f.size.saturating_add(a.size);
                f.more();
            }
            // Pattern after an end anchor (`\s?$a`) is scanned slowly too.
            let end_anchor = c == '$' || (c == '\\' && next == Some('z'));
            if let Some(f) = frames.last_mut() {
                if f.after_end && !end_anchor {
                    mid_anchor = true;
                }
                f.after_end |= end_anchor;
            }
            // Written-out runs count as counted ones (`a[ab][ab]...[ab]c`).
            let preceded = frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms >= 2);
            if preceded && a.wide {
                explodes = explodes.saturating_add(1);
            }
            last_atom = Some(a);
            last_repeat = false;
        }
    }
    let size = frames
        .iter()
        .fold(0u64, |acc, f| acc.saturating_add(f.size));
    Ok(Translated {
        pattern: out,
        size,
        rescans,
        explodes,
        mid_anchor,
    })
}

/// Translates a group opener at `cs[i] == '('`.
/// Returns the characters consumed and whether a group opens (not for a
/// flags-only `(?i)`).
fn translate_group_open(cs: &[char], i: usize, out: &mut String) -> Result<(usize, bool), String> {
    if cs.get(i + 1) != Some(&'?') {
        out.push('(');
        return Ok((1, true));
    }
    let copy_name = |start: usize, out: &mut String| -> Result<usize, String> {
        // Copies from `start` through the closing '>'.
        let end = (start..cs.len())
            .find(|&k| cs.get(k) == Some(&'>'))
            .ok_or_else(|| "unclosed group name".to_string())?;
        cs.iter()
            .skip(start)
            .take(end + 1 - start)
            .for_each(|&ch| out.push(ch));
        Ok(end + 1 - i)
    };
    match cs.get(i + 2) {
        Some('=') | Some('!') => Err("lookahead is not supported".to_string()),
        Some('>') => Err("atomic groups are not supported".to_string()),
        Some('<') if matches!(cs.get(i + 3), Some('=') | Some('!')) => {
            Err("lookbehind is not supported".to_string())
        }
        Some('<') => Ok((copy_name(i, out)?, true)),
        Some('P') if cs.get(i + 3) == Some(&'<') => Ok((copy_name(i, out)?, true)),
        Some('P') => Err("invalid or unsupported Perl syntax (?P".to_string()),
        _ => {
            // Flags: `(?flags)` or `(?flags:`.
            let mut j = i + 2;
            loop {
                match cs.get(j) {
                    Some('i' | 'm' | 's' | 'U' | '-') => j += 1,
                    Some(')') => {
                        cs.iter()
                            .skip(i)
                            .take(j + 1 - i)
                            .for_each(|&ch| out.push(ch));
                        return Ok((j + 1 - i, false));
                    }
                    Some(':') => {
                        cs.iter()
                            .skip(i)
                            .take(j + 1 - i)
                            .for_each(|&ch| out.push(ch));
                        return Ok((j + 1 - i, true));
                    }
                    Some(&other) => {
                        return Err(format!("invalid or unsupported Perl flag '{other}'"));
                    }
                    None => return Err("missing closing ) of a group".to_string()),
                }
            }
        }
    }
}
