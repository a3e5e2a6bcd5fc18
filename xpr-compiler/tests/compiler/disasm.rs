//! Golden listings of what the compiler emits, in
//! `tests/snapshots/disasm__<case>.snap` (reviewed by eye; regenerate with
//! `XPR_BLESS=1 cargo test -p xpr-compiler --test compiler disasm`).

use crate::common;

const CASES: &[(&str, &str)] = &[
    ("literal_folded", "1 + 2 * 3"),
    ("folding_error_left_for_run_time", "1 / 0"),
    ("string_folded", "\"a\" + \"b\""),
    ("negative_literal", "-5 |> abs"),
    (
        "predicate",
        "(Origin == \"MOW\" || Country == \"RU\") && (Value >= 100 || Adults == 1)",
    ),
    ("nullish", "a ?? b ?? 0"),
    ("ternary", "age >= 18 ? \"adult\" : \"minor\""),
    ("not_and_neg", "!a && -b < 0"),
    ("member_and_index", "user.address.city + items[-1].name"),
    ("length_property", "items.length + name.length"),
    ("optional_chain", "user?.profile.name"),
    ("optional_chain_nested", "a?.b?.c ?? \"none\""),
    ("optional_chain_parenthesised", "(a?.b).c"),
    ("optional_call", "obj.fn?.(1)"),
    ("optional_method_call", "user?.name.upper()"),
    ("let_binding", "let x = 1; let y = x + 1; y"),
    ("let_shadowing", "let x = 1; let x = x + 1; x"),
    ("closure_capture", "let a = 10; let f = (x) => x + a; f(5)"),
    (
        "nested_closure_capture",
        "let k = 1; [1, 2].map(x => [3].map(y => x + y + k))",
    ),
    ("curried", "let add = a => b => a + b; add(1)(2)"),
    (
        "rest_parameter",
        "((first, ...rest) => rest.length)(1, 2, 3)",
    ),
    (
        "filter_map",
        "items.filter(x => x.price > 50).map(x => x.name)",
    ),
    (
        "reduce_with_init",
        "[1, 2, 3].reduce((acc, x) => acc + x, 0)",
    ),
    ("array_spread", "[0, ...items, 99]"),
    (
        "object_spread",
        "{...defaults, \"size\": \"large\", ...overrides}",
    ),
    ("call_spread", "max(1, ...args)"),
    ("method_spread", "[1].concat(...[[2, 3]])"),
    ("object_literal", "{\"a\": 1, \"b\": [true, null]}"),
    (
        "object_destructuring",
        "let {name, age: a = 0, ...rest} = user; [name, a, rest]",
    ),
    (
        "array_destructuring",
        "let [head, [x, y] = [0, 0], ...tail] = items; tail",
    ),
    ("param_destructuring", "users.map(({name, age}) => name)"),
    ("pipe_builtin", "1 + 2 |> string"),
    ("pipe_method", "\"  hi  \" |> trim |> upper"),
    (
        "pipe_method_with_args",
        "[3, 1, 2] |> sort((a, b) => a - b) |> reverse()",
    ),
    ("pipe_local_function", "let f = (x, y) => x - y; 10 |> f(3)"),
    ("pipe_into_arrow", "obj |> (({x, y}) => x + y)"),
    (
        "pipe_with_spread",
        "let g = (a, b, c) => a; 1 |> g(...rest)",
    ),
    ("pipe_non_callable", "5 |> 3"),
    ("template", "`Hello ${name}, you have ${count} items`"),
    ("regex_literal", "/\\d+/i.test(s)"),
    ("function_as_value", "[round, upper].length"),
    ("constants", "PI * r ** 2"),
];

#[test]
fn disassembly() {
    for (name, src) in CASES {
        let program = common::compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let listing = format!("{src}\n\n{program}");
        common::assert_golden(&format!("disasm__{name}"), &listing);
    }
}

#[test]
fn enough_cases() {
    assert!(CASES.len() >= 30);
}
