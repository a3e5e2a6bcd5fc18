//! Exact fuel per expression, pinned (wasmtime's `fuel.wast` idea): a change
//! in what an expression costs shows up in review.

use crate::common;
use xpr_vm::Vm;

const CASES: &[&str] = &[
    "1 + 2",
    "a + b",
    "(Origin == \"MOW\" || Country == \"RU\") && (Value >= 100 || Adults == 1)",
    "items.filter(x => x.price > 50).map(x => x.name)",
    "[1, 2, 3].map(x => x * 2)",
    "range(100).reduce((a, b) => a + b, 0)",
    "let f = x => x + 1; f(f(f(1)))",
    "[...items, ...items]",
    "{...o, \"z\": 1}",
    "let {a, ...rest} = o; rest",
    "`${a} and ${b}`",
    "\"hello world\".upper()",
    "items.sort((x, y) => y.price - x.price).map(x => x.price)",
    "a ?? b ?? 3",
    "o?.missing?.deep",
];

#[test]
fn fuel_per_expression() {
    let ctx = serde_json::json!({
        "a": 1, "b": 2, "Origin": "LED", "Country": "RU", "Value": 50, "Adults": 1,
        "items": (0..10).map(|i| serde_json::json!({"name": format!("n{i}"), "price": i * 11})).collect::<Vec<_>>(),
        "o": {"a": 1, "b": 2, "missing": null},
    });
    let mut out = String::new();
    for src in CASES {
        let program = common::compile(src).unwrap();
        let mut vm = Vm::new();
        vm.run(&program, &ctx, &common::opts())
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        out.push_str(&format!("{:>6}  {src}\n", vm.fuel_used()));
    }
    common::assert_golden("fuel__fuel_per_expression", &out);
}
