//! A `Program` is `Send + Sync` and runs from many threads at once.

use crate::common;
use std::sync::Arc;
use xpr_vm::{Program, Value, Vm};

#[test]
fn value_and_program_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Value>();
    assert_send_sync::<Program>();
    assert_send_sync::<xpr_vm::Error>();
    assert_send_sync::<Vm>();
}

#[test]
fn one_program_runs_from_four_threads_on_different_contexts() {
    let program = Arc::new(
        common::compile("let k = factor; items.filter(x => x.price > min).map(x => x.price * k).reduce((a, b) => a + b, 0)")
            .unwrap(),
    );
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let program = Arc::clone(&program);
            std::thread::spawn(move || {
                let mut vm = Vm::new();
                let mut results = Vec::new();
                for round in 0..200 {
                    let items: Vec<_> = (0..20)
                        .map(|i| serde_json::json!({"price": i + round}))
                        .collect();
                    let ctx = serde_json::json!({"items": items, "min": 10, "factor": t + 1});
                    let got = vm.run(&program, &ctx, &common::opts()).unwrap();
                    let expected: i64 = (0..20)
                        .map(|i| i + round)
                        .filter(|p| *p > 10)
                        .map(|p| p * (t + 1))
                        .sum();
                    results.push((got, expected));
                }
                results
            })
        })
        .collect();
    for t in threads {
        for (got, expected) in t.join().unwrap() {
            assert_eq!(got, Value::Number(expected as f64));
        }
    }
}
