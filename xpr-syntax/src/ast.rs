//! The abstract syntax tree of XPR v0.5.
//!
//! Plain enums, one per syntactic category, every node carrying its [`Span`].
//! Spans are **character** offsets (Unicode scalar values, 0-indexed) into the
//! source, the unit the spec uses for error positions; nothing downstream of
//! the parser needs the source text to report a position.
//!
//! Parentheses leave no node: `(a + b) * c` is `Binary(Mul, Binary(Add, a, b), c)`.
//! The one place where grouping changes meaning, optional chaining, has an
//! explicit [`ExprKind::OptionalChain`] node marking how far a `?.`
//! short-circuits (spec: "Optional Chaining"; decision: as in JavaScript).

/// A half-open range `[start, end)` of character offsets into the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first character, 0-indexed, in characters.
    pub start: u32,
    /// Offset one past the last character, in characters.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (character offsets).
    pub const fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// An identifier with its position: a binding, a parameter, a property name.
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    /// The identifier text (`[a-zA-Z_][a-zA-Z0-9_]*`) or, for quoted object
    /// keys, the decoded string.
    pub name: String,
    /// Where it stands in the source.
    pub span: Span,
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// The source range of the whole expression.
    pub span: Span,
}

/// Prefix operators (spec precedence level 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `!x`: logical not of the operand's truthiness.
    Not,
    /// `-x`: numeric negation.
    Neg,
}

/// Strict binary operators: both operands are always evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`: number addition or string concatenation.
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`: error on division by zero.
    Div,
    /// `a % b`: JavaScript remainder (sign of the dividend); error on zero.
    Rem,
    /// `a ** b`: right-associative exponentiation.
    Pow,
    /// `a == b`: deep structural equality.
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

/// Short-circuit operators: the right operand is evaluated only when needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    /// `a && b`: `a` when falsy, else `b`.
    And,
    /// `a || b`: `a` when truthy, else `b`.
    Or,
    /// `a ?? b`: `a` unless it is null, else `b`.
    Nullish,
}

/// An element of an array literal or an argument list.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    /// `expr`
    Expr(Expr),
    /// `...expr`; the span covers the `...` too.
    Spread(Expr, Span),
}

/// An entry of an object literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    /// `key: value` or `"key": value`.
    KeyValue {
        /// The key, decoded; `key.span` covers the identifier or string token.
        key: Name,
        /// The value expression.
        value: Expr,
    },
    /// `...expr`; the span covers the `...` too.
    Spread(Expr, Span),
}

/// A template literal piece between holes: the raw-decoded text.
pub type Quasi = String;

/// An arrow function: `x => body`, `(a, {b}, [c], ...rest) => body`.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrow {
    /// Parameters in order, each an identifier or a destructuring pattern.
    pub params: Vec<Pattern>,
    /// The rest parameter `...name`, always last (spec v0.5).
    pub rest: Option<Name>,
    /// The body: a full Expression (extends over `|>`, `?:` and `let`).
    pub body: Expr,
}

/// Every kind of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// `42`, `3.14`, `1e10`: always finite (out-of-range literals are parse errors).
    Number(f64),
    /// `"text"` / `'text'`, escapes decoded.
    String(String),
    /// `` `a ${x} b` ``: `quasis.len() == exprs.len() + 1`, text decoded.
    Template {
        /// Literal text around the holes.
        quasis: Vec<Quasi>,
        /// The `${ }` holes in order.
        exprs: Vec<Expr>,
    },
    /// `/pattern/flags`, the pattern exactly as written between the slashes,
    /// flags a subset of `ims` in source order.
    Regex {
        /// Pattern text, undecoded (escapes are regex escapes).
        pattern: String,
        /// Flags, each of `i`, `m`, `s` at most once.
        flags: String,
    },
    /// `[a, ...b, c]`
    Array(Vec<Element>),
    /// `{a: 1, "b": 2, ...c}`
    Object(Vec<Property>),
    /// `name`: a local, a context field, a constant or a function.
    Ident(String),
    /// `object.property`, or `object?.property` when `optional`.
    Member {
        /// The expression before the dot.
        object: Box<Expr>,
        /// The property name after the dot.
        property: Name,
        /// `?.`: when `object` is null, the enclosing [`ExprKind::OptionalChain`] is null.
        optional: bool,
    },
    /// `object[index]`
    Index {
        /// The indexed expression.
        object: Box<Expr>,
        /// The index or key expression.
        index: Box<Expr>,
    },
    /// `callee(args)`, or `callee?.(args)` when `optional`.
    Call {
        /// The called expression; a `Member` callee makes a method call.
        callee: Box<Expr>,
        /// Arguments, possibly spread.
        args: Vec<Element>,
        /// `?.(`: when the callee is null, the enclosing chain is null.
        optional: bool,
    },
    /// The extent of an optional chain: the whole postfix chain that
    /// contains at least one `?.`. A `?.` inside short-circuits to a null
    /// result for this node. `a?.b.c` is `OptionalChain(Member(Member(a, b, optional), c))`;
    /// `(a?.b).c` is `Member(OptionalChain(Member(a, b, optional)), c)`.
    OptionalChain(Box<Expr>),
    /// `!x`, `-x`
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a + b`, `a == b`, ...
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `a && b`, `a || b`, `a ?? b`
    Logical {
        /// The operator.
        op: LogicalOp,
        /// Left operand, always evaluated.
        lhs: Box<Expr>,
        /// Right operand, evaluated only when needed.
        rhs: Box<Expr>,
    },
    /// `test ? then : otherwise` (right-associative).
    Conditional {
        /// The condition (truthiness).
        test: Box<Expr>,
        /// Value when truthy.
        then: Box<Expr>,
        /// Value when falsy.
        otherwise: Box<Expr>,
    },
    /// An arrow function.
    Arrow(Box<Arrow>),
    /// `lhs |> rhs` (F#-style: lhs becomes the first argument).
    Pipe {
        /// The piped value.
        lhs: Box<Expr>,
        /// The target: a name, a call whose argument list gets `lhs`
        /// prepended, or any expression yielding a function.
        rhs: Box<Expr>,
    },
    /// `let target = value; body`
    Let {
        /// The binding target.
        target: Pattern,
        /// The bound value.
        value: Box<Expr>,
        /// The expression in which the binding is visible.
        body: Box<Expr>,
    },
}

/// A binding target: in `let`, arrow parameters and nested patterns.
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// `name`
    Ident(Name),
    /// `{a, b: c, d = 1, "e f": g, ...rest}`
    Object(ObjectPattern),
    /// `[a, [b, c], d = 1, ...rest]`
    Array(ArrayPattern),
}

/// An object destructuring pattern (spec "Destructuring").
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectPattern {
    /// The entries other than the rest, in source order.
    pub entries: Vec<ObjectPatternEntry>,
    /// `...rest`: the remaining keys, last.
    pub rest: Option<Name>,
    /// From `{` to `}`.
    pub span: Span,
}

/// One entry of an object pattern: `key`, `key = d`, `key: target`, `key: target = d`.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectPatternEntry {
    /// The source key (identifier or decoded string).
    pub key: Name,
    /// Where the value goes; for the shorthand `{key}` an `Ident` with the key's name.
    pub target: Pattern,
    /// Used when the extracted value is null.
    pub default: Option<Expr>,
    /// `true` for `{key}` / `{key = d}`.
    pub shorthand: bool,
}

/// An array destructuring pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPattern {
    /// Elements other than the rest, in order.
    pub elements: Vec<ArrayPatternElement>,
    /// `...rest`: the remaining elements, last.
    pub rest: Option<Name>,
    /// From `[` to `]`.
    pub span: Span,
}

/// One element of an array pattern: `target` or `target = default`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPatternElement {
    /// Where the element goes.
    pub target: Pattern,
    /// Used when the element is null or missing.
    pub default: Option<Expr>,
}

impl Pattern {
    /// The source range of the pattern.
    pub fn span(&self) -> Span {
        match self {
            Pattern::Ident(n) => n.span,
            Pattern::Object(p) => p.span,
            Pattern::Array(p) => p.span,
        }
    }
}
