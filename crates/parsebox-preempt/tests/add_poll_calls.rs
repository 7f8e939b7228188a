//! The build step on modules made here: every loop gets the count and the call, the module
//! stays valid, and what cannot be instrumented is refused with a reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use parsebox_preempt::{add_poll_calls, poll_function, PreemptError, LOOP_TURNS_PER_POLL};
use walrus::ir::{BinaryOp, Instr, Value};
use walrus::{FunctionBuilder, Module, ModuleConfig, ValType};

/// A module with `spin(n)`: two nested loops counting `n` down, and `flat()` with no loop.
fn module_with_loops() -> Vec<u8> {
    let mut module = Module::with_config(ModuleConfig::new());
    let mut spin = FunctionBuilder::new(&mut module.types, &[ValType::I32], &[]);
    let n = module.locals.add(ValType::I32);
    spin.func_body().loop_(None, |outer| {
        let outer_id = outer.id();
        outer.loop_(None, |inner| {
            inner
                .local_get(n)
                .i32_const(1)
                .binop(BinaryOp::I32Sub)
                .local_tee(n);
            let inner_id = inner.id();
            inner.br_if(inner_id);
        });
        outer.local_get(n).br_if(outer_id);
    });
    let spin = spin.finish(vec![n], &mut module.funcs);
    module.exports.add("spin", spin);
    let mut flat = FunctionBuilder::new(&mut module.types, &[], &[ValType::I32]);
    flat.func_body().i32_const(7);
    let flat = flat.finish(vec![], &mut module.funcs);
    module.exports.add("flat", flat);
    module.emit_wasm()
}

/// The exported function `name`'s body.
fn exported<'m>(module: &'m Module, name: &str) -> &'m walrus::LocalFunction {
    let item = module
        .exports
        .iter()
        .find(|e| e.name == name)
        .map(|e| e.item);
    let Some(walrus::ExportItem::Function(id)) = item else {
        panic!("{name} is not an exported function")
    };
    module.funcs.get(id).kind.unwrap_local()
}

/// Every instruction sequence of `func`, the body first: blocks, loop bodies, both arms of each
/// `if`.
fn sequences(func: &walrus::LocalFunction) -> Vec<&walrus::ir::InstrSeq> {
    let mut seen = Vec::new();
    let mut stack = vec![func.entry_block()];
    while let Some(id) = stack.pop() {
        let seq = func.block(id);
        for (instr, _) in &seq.instrs {
            match instr {
                Instr::Loop(l) => stack.push(l.seq),
                Instr::Block(b) => stack.push(b.seq),
                Instr::IfElse(i) => stack.extend([i.consequent, i.alternative]),
                _ => {}
            }
        }
        seen.push(seq);
    }
    seen
}

/// The first instructions of each loop body of the exported function `name`.
fn loop_heads(module: &Module, name: &str) -> Vec<Vec<Instr>> {
    let func = exported(module, name);
    let loop_bodies = sequences(func)
        .into_iter()
        .flat_map(|seq| &seq.instrs)
        .filter_map(|(instr, _)| match instr {
            Instr::Loop(l) => Some(l.seq),
            _ => None,
        });
    loop_bodies
        .map(|body| {
            func.block(body)
                .instrs
                .iter()
                .take(8)
                .map(|(i, _)| i.clone())
                .collect()
        })
        .collect()
}

#[test]
fn every_loop_counts_its_turns_and_calls_the_page() {
    let (wasm, done) = add_poll_calls(&module_with_loops()).expect("instrumented");
    assert_eq!((done.functions, done.loops), (1, 2));
    let module = Module::from_buffer(&wasm).expect("the written module is valid");
    let poll = poll_function(&module).expect("env.parsebox_poll is imported");
    let heads = loop_heads(&module, "spin");
    assert_eq!(heads.len(), 2);
    for head in heads {
        // turns += 1; if turns & (LOOP_TURNS_PER_POLL - 1) == 0 { call parsebox_poll }
        assert!(matches!(head[0], Instr::LocalGet(_)), "{head:?}");
        assert!(
            matches!(
                head[2],
                Instr::Binop(walrus::ir::Binop {
                    op: BinaryOp::I32Add
                })
            ),
            "{head:?}"
        );
        assert!(
            matches!(head[4], Instr::Const(walrus::ir::Const { value: Value::I32(m) }) if m == LOOP_TURNS_PER_POLL - 1),
            "{head:?}"
        );
        assert!(matches!(head[7], Instr::IfElse(_)), "{head:?}");
    }
    assert!(matches!(
        module.funcs.get(poll).kind,
        walrus::FunctionKind::Import(_)
    ));
    // A function without a loop is left as it was.
    assert!(loop_heads(&module, "flat").is_empty());
}

#[test]
fn the_call_sits_in_the_branch_that_runs_every_so_many_turns() {
    let (wasm, _) = add_poll_calls(&module_with_loops()).expect("instrumented");
    let module = Module::from_buffer(&wasm).expect("valid");
    let poll = poll_function(&module).expect("imported");
    let func = exported(&module, "spin");
    let calls: Vec<_> = sequences(func)
        .into_iter()
        .flat_map(|seq| &seq.instrs)
        .filter_map(|(instr, _)| match instr {
            Instr::Call(c) => Some(c.func),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        vec![poll, poll],
        "one call of the poll per loop, nothing else"
    );
}

#[test]
fn a_module_instrumented_before_is_refused() {
    let (wasm, _) = add_poll_calls(&module_with_loops()).expect("instrumented");
    assert!(matches!(
        add_poll_calls(&wasm),
        Err(PreemptError::AlreadyInstrumented)
    ));
}

#[test]
fn bytes_that_are_not_a_module_are_refused_with_the_reason() {
    let err = add_poll_calls(b"not wasm").expect_err("refused");
    assert!(matches!(err, PreemptError::Parse(_)));
    assert!(err.to_string().starts_with("not a wasm module"), "{err}");
}
