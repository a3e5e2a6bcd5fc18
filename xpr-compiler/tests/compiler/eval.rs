//! Semantics of the compiler and VM, one expression per line.

use crate::common;
use common::*;
use serde_json::json;
use xpr_vm::ErrorKind;

#[test]
fn arithmetic_and_comparison() {
    yields("1 + 2", json!(3));
    yields("2 + 3 * 4", json!(14));
    yields("2 ** 3 ** 2", json!(512));
    yields("[-7 % 3, 7 % -3]", json!([-1, 1]));
    yields("10 / 2 / 5", json!(1));
    yields("\"a\" + \"b\"", json!("ab"));
    yields("\"B\" < \"a\"", json!(true));
    yields("[1, [2]] == [1, [2]]", json!(true));
    yields("{\"a\": 1, \"b\": 2} == {\"b\": 2, \"a\": 1}", json!(true));
    yields("null == 0", json!(false));
    let e = fails("1 / 0", "Division by zero");
    assert_eq!(e.position(), Some(0));
    fails("5 % 0", "by zero");
    fails("2 ** 2000", "**");
    fails("(-8) ** 0.5", "**");
    fails("\"hello\" + 1", "Type error: cannot add string and number");
    fails("true * 2", "Type error");
    fails("null + 1", "Type error");
    fails("1 < \"a\"", "cannot compare");
    fails("x + 1", "Unknown identifier 'x'");
}

#[test]
fn error_positions_point_at_the_operation() {
    let e = fails("1 + (2 / 0)", "Division by zero");
    assert_eq!(e.position(), Some(4));
    let e = fails("let x = 1; x.a.b", "null");
    assert_eq!(e.kind(), ErrorKind::Type);
}

#[test]
fn logic_short_circuits() {
    yields("true && 1", json!(1));
    yields("0 && nope", json!(0));
    yields("1 || nope", json!(1));
    yields("null ?? 5", json!(5));
    yields("0 ?? 5", json!(0));
    yields("\"\" ?? 5", json!(""));
    yields("true ? 1 : nope", json!(1));
    yields("false ? nope : 2", json!(2));
    yields("!0", json!(true));
}

#[test]
fn access_and_indexing() {
    let ctx = json!({"user": {"name": "Alice", "tags": ["a", "b"]}, "items": [10, 20, 30], "key": "__proto__"});
    yields_in("user.name", ctx.clone(), json!("Alice"));
    yields_in("user[\"name\"]", ctx.clone(), json!("Alice"));
    yields_in("user.email", ctx.clone(), json!(null));
    yields_in("items[-1]", ctx.clone(), json!(30));
    yields_in("items[-1.7]", ctx.clone(), json!(30));
    yields_in("items[99]", ctx.clone(), json!(null));
    yields_in("items[-4]", ctx.clone(), json!(null));
    yields_in("items.length", ctx.clone(), json!(3));
    yields_in("user.tags.length", ctx.clone(), json!(2));
    yields("\"h😀llo\".length", json!(5));
    yields("\"hello\"[1]", json!("e"));
    yields("{\"length\": 7}.length", json!(7));
    yields("{\"keys\": 1}.keys", json!(1));
    fails_in("user.foo.bar", ctx.clone(), "null");
    fails("\"hello\"[-1]", "Cannot");
    fails("42[-1]", "Cannot");
    fails_in("obj.__proto__", json!({"obj": {}}), "restricted");
    fails_in("obj?.constructor", json!({"obj": {}}), "restricted");
    fails_in("{}[key]", ctx.clone(), "restricted");
    fails_in("{}[\"proto\" + \"type\"]", ctx, "restricted");
    fails("[1][\"__proto__\"]", "restricted");
    fails("{\"__proto__\": 1}", "restricted");
    fails("let {constructor} = {}; 1", "restricted");
    yields_in(
        "data.keys",
        json!({"data": {"__proto__": 1, "keys": 2}}),
        json!(2),
    );
}

#[test]
fn optional_chains() {
    yields_in("user?.profile.name", json!({"user": null}), json!(null));
    yields_in(
        "user?.address?.city",
        json!({"user": {"name": "A"}}),
        json!(null),
    );
    yields_in(
        "(user?.profile).name ?? 1",
        json!({"user": {"profile": {"name": 2}}}),
        json!(2),
    );
    fails_in("(user?.profile).name", json!({"user": null}), "null");
    yields_in("user?.name.upper()", json!({"user": null}), json!(null));
    yields("let o = {\"f\": x => x + 1}; o.f?.(1)", json!(2));
    yields("let o = {}; o.f?.(1)", json!(null));
    yields("let obj = null; obj?.name ?? \"none\"", json!("none"));
}

#[test]
fn let_closures_and_calls() {
    yields("let x = 1; let y = x + 1; y", json!(2));
    yields("let x = 1; let x = 2; x", json!(2));
    yields("let a = 10; let f = (x) => x + a; f(5)", json!(15));
    yields("let x = 1; let y = (let a = x + 1; a * 2); y", json!(4));
    yields("let add = a => b => c => a + b + c; add(1)(2)(3)", json!(6));
    yields("((...args) => args.length)(1, 2, 3)", json!(3));
    yields("((first, ...rest) => rest)(1, 2, 3)", json!([2, 3]));
    yields("((a, b) => b)(1)", json!(null));
    yields("((a) => a)(1, 2)", json!(1));
    yields("let o = {\"double\": x => x * 2}; o.double(4)", json!(8));
    yields("type(PI)", json!("number"));
    yields_in("PI", json!({"PI": 3}), json!(3));
    fails("foo(1)", "Unknown function 'foo'");
    fails(
        "let f = 5; f(1)",
        "Type error: Cannot call non-function: number is not callable",
    );
    fails("42.upper()", "upper");
    fails("null.upper()", "null");
    fails("42.map(x => x)", "map");
}

#[test]
fn misspelt_names_get_a_hint() {
    // Methods: the nearest method of the receiver's own type.
    fails(
        "[1, 2].filtr(x => x > 1)",
        "cannot call method 'filtr' on array (did you mean 'filter'?)",
    );
    fails("\"a\".uppr()", "on string (did you mean 'upper'?)");
    // `keys` is a method of objects, not of arrays: no hint for an array.
    fails_without_hint("[1].keyz()", "cannot call method 'keyz' on array");
    // Functions, and methods after a pipe.
    fails(
        "dateadd(1, 2, \"days\")",
        "Unknown function 'dateadd' (did you mean 'dateAdd'?)",
    );
    fails(
        "[1] |> fitler(x => x)",
        "Unknown function 'fitler' (did you mean 'filter'?)",
    );
    // A method called as a function: how to write it.
    fails("upper(\"a\")", "'upper' is a method: write x.upper(...)");
    // Nothing near: no hint; a very long name: no hint and no slowness.
    fails_without_hint("foo(1)", "Unknown function 'foo'");
    fails_without_hint(&format!("{}(1)", "q".repeat(5000)), "Unknown function");
}

/// Asserts `src` fails with `needle` in its message and no "did you mean".
#[track_caller]
fn fails_without_hint(src: &str, needle: &str) {
    let e = fails(src, needle);
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn pipes() {
    yields("\"hello\" |> upper", json!("HELLO"));
    yields("\"  hello  \" |> trim |> upper", json!("HELLO"));
    yields("1 + 2 |> string", json!("3"));
    yields("-5 |> abs", json!(5));
    yields("let f = (x, y) => x - y; 10 |> f(3)", json!(7));
    fails(
        "let f = (x, y) => x - y; 10 |> f",
        "operator '-' requires numbers, got number and null",
    );
    fails("5 |> 3", "Cannot call non-function: number is not callable");
    yields("{\"x\": 3, \"y\": 4} |> (({x, y}) => x + y)", json!(7));
    yields(
        "[1, 2] |> ((a, b, c) => [a, b, c])(...[3, 4])",
        json!([[1, 2], 3, 4]),
    );
    yields(
        "let g = (a, b, c) => a + b + c; 1 |> g(...[2, 3])",
        json!(6),
    );
}

#[test]
fn spread() {
    yields("[...[1, 2], 3, ...[4]]", json!([1, 2, 3, 4]));
    yields("[...[]]", json!([]));
    yields(
        "{...{\"a\": 1, \"b\": 2}, ...{\"b\": 3, \"c\": 4}}",
        json!({"a": 1, "b": 3, "c": 4}),
    );
    yields(
        "{\"x\": 0, ...{\"a\": 1}, \"y\": 2}",
        json!({"x": 0, "a": 1, "y": 2}),
    );
    yields("let f = (a, b, c) => a - b - c; f(...[10, 3, 2])", json!(5));
    fails("[...null]", "Cannot spread null");
    fails("[...\"hello\"]", "Cannot spread string into array");
    fails("[...42]", "Cannot spread non-array into array");
    fails("{...null}", "Cannot spread null");
    fails("{...[1, 2]}", "Cannot spread array into object");
    fails("{...42}", "Cannot spread non-object");
    fails("let f = x => x; f(...null)", "Cannot spread null");
    fails(
        "let f = x => x; f(...\"hello\")",
        "Cannot spread string into arguments",
    );
    fails("let f = x => x; f(...42)", "Cannot spread non-array");
    yields_in(
        "{...o}",
        json!({"o": {"__proto__": 1}}),
        json!({"__proto__": 1}),
    );
}

#[test]
fn destructuring() {
    let user = json!({"user": {"name": "Alice", "age": 30, "address": {"city": "NYC"}}});
    yields_in("let {name, age} = user; name", user.clone(), json!("Alice"));
    yields_in("let {name: n, age: a} = user; a", user.clone(), json!(30));
    yields_in(
        "let {address: {city}} = user; city",
        user.clone(),
        json!("NYC"),
    );
    yields_in(
        "let {name, ...rest} = user; rest",
        user.clone(),
        json!({"age": 30, "address": {"city": "NYC"}}),
    );
    yields("let {x = 1 + 2} = {}; x", json!(3));
    yields("let {name} = [1, 2]; name", json!(null));
    yields("let [a, b = 5, c] = [1]; [a, b, c]", json!([1, 5, null]));
    yields("let [head, ...tail] = [1, 2, 3]; tail", json!([2, 3]));
    yields("let [a, ...rest] = []; [a, rest]", json!([null, []]));
    yields("let [[a, b], [c, d]] = [[1, 2], [3, 4]]; c", json!(3));
    yields(
        "let f = ({name = \"Unknown\"}) => name; f({})",
        json!("Unknown"),
    );
    yields("let f = (x, [a, b]) => x + a + b; f(1, [2, 3])", json!(6));
    yields("let {} = {}; 1", json!(1));
    fails("let {name} = null; name", "cannot destructure null");
    fails(
        "let [a] = {\"a\": 1}; a",
        "cannot destructure non-array as array",
    );
    fails(
        "let [a] = \"hello\"; a",
        "cannot destructure string as array",
    );
    fails("let {a, a} = {}; a", "duplicate");
}

#[test]
fn templates_and_regex_constants() {
    yields(
        "let name = \"world\"; `hello ${name}`",
        json!("hello world"),
    );
    yields("`${1 + 2}`", json!("3"));
    yields("`plain`", json!("plain"));
    yields("`a${\"b\"}c${1}`", json!("abc1"));
    yields("type(/\\d+/)", json!("regex"));
    yields("/abc/ == /abc/", json!(true));
    let e = compile("/(a/").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Regex);
}

#[test]
fn callbacks_through_builtins() {
    yields("[1, 2, 3].map(x => x * 2)", json!([2, 4, 6]));
    yields_in(
        "items.filter(x => x > threshold)",
        json!({"items": [1, 5, 10], "threshold": 4}),
        json!([5, 10]),
    );
    yields("[3, 1, 2].sort((a, b) => a - b)", json!([1, 2, 3]));
    yields("[1, 2, 3].reduce((a, b) => a + b, 0)", json!(6));
    yields(
        "let k = 10; [1, 2].map(x => [1].map(y => x + y + k))",
        json!([[12], [13]]),
    );
    let e = fails("[1, 2].map(x => x / 0)", "Division by zero");
    assert_eq!(e.position(), Some(16));
}

#[test]
fn constant_folding_leaves_errors_for_run_time() {
    let p = compile("1 + 2 * 3").unwrap();
    assert!(p.to_string().contains("Int                 7"), "{p}");
    let p = compile("false && 1 / 0").unwrap();
    let text = p.to_string();
    assert!(text.contains("Div"), "{text}");
    yields("false && 1 / 0", json!(false));
    assert!(compile("[1] + 1").is_ok());
}

#[test]
fn introspection() {
    let p = compile("let f = x => x; a.b + round(c) + f(1) + type(d) + upper").unwrap();
    let free: Vec<&str> = p.free_variables().iter().map(|k| &**k).collect();
    assert_eq!(free, ["a", "c", "d", "upper"]);
    assert_eq!(p.functions(), ["round", "type"]);
}

#[test]
fn tens_of_thousands_of_names_in_one_scope_resolve() {
    // A host may lift the length limit: 20,000 parameters, each read once
    // (names are found by hash, not by a search of the scope), captured by
    // an inner arrow, and destructured; shadowing still picks the innermost.
    let n = 20_000;
    let params: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let list = params.join(", ");
    let src = format!(
        "(({list}) => () => [{list}].reduce((s, x) => s + x, 0))({})() + (let [{list}] = [5]; let a0 = 6; a0 + (a1 ?? 0))",
        (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
    );
    let opts = xpr_syntax::ParseOptions {
        max_length: None,
        ..xpr_syntax::ParseOptions::default()
    };
    let ast = xpr_syntax::parse_with(&src, &opts).expect("parses");
    let program =
        xpr_compiler::compile(&ast, &xpr_compiler::CompileEnv::default()).expect("compiles");
    let sum = (n - 1) * n / 2;
    let got = xpr_vm::Vm::new()
        .run(&program, &(), &common::opts())
        .expect("runs");
    assert_eq!(got, xpr_vm::Value::Number((sum + 6) as f64));
    // A duplicate among them is still found (by the parser first).
    let dup = format!("(({list}, a19999) => 1)");
    let e = xpr_syntax::parse_with(&dup, &opts).unwrap_err();
    assert!(e.message.contains("duplicate binding 'a19999'"), "{e:?}");
}
