//! `parsebox-preempt IN OUT`: writes IN with a poll call in every loop (the library's doc says
//! why) to OUT, and says how many loops it changed.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: parsebox-preempt IN.wasm OUT.wasm");
        return ExitCode::from(2);
    };
    let result = std::fs::read(input)
        .map_err(|e| format!("cannot read {input}: {e}"))
        .and_then(|wasm| {
            parsebox_preempt::add_poll_calls(&wasm).map_err(|e| format!("{input}: {e}"))
        })
        .and_then(|(wasm, done)| {
            std::fs::write(output, wasm).map_err(|e| format!("cannot write {output}: {e}"))?;
            Ok(done)
        });
    match result {
        Ok(done) => {
            println!(
                "parsebox-preempt: {} loops in {} functions call {}.{} every {} turns",
                done.loops,
                done.functions,
                parsebox_preempt::POLL_IMPORT.0,
                parsebox_preempt::POLL_IMPORT.1,
                parsebox_preempt::LOOP_TURNS_PER_POLL
            );
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("parsebox-preempt: {why}");
            ExitCode::FAILURE
        }
    }
}
