//! A build step of the engine module (`crates/parsebox-engine-wasm/build.sh`): every loop of
//! every function gets a counter, and every [`LOOP_TURNS_PER_POLL`] turns of its loops the
//! module calls an imported function, `env.parsebox_poll` (the page's reads the clock and
//! nothing more).
//!
//! Why: a page ends a Worker whose line ran past the hard deadline with `worker.terminate()`.
//! JavaScriptCore (WebKit, Safari) stops a terminated Worker only where its code calls into the
//! browser (a JS function that did nothing was not enough; one that reads the clock is). A wasm
//! loop that never calls out (a catastrophic regex inside the engine) runs on after
//! `terminate()`, and its thread keeps a core busy until the page closes. Measured in WebKitGTK
//! 2.50.6: each such attack left a thread spinning, and a sweep of the attack suite ended with
//! both cores taken. With a call out every few thousand turns, the engine reaches the browser
//! often enough to be stopped within half a second. Chromium and Firefox stop wasm anyway;
//! there the poll costs a call per [`LOOP_TURNS_PER_POLL`] turns and an add, a mask and a
//! branch per turn.
//!
//! The count is a local of each function (a register; one global for the instance cost 8–14 %
//! at p50 per line in Node, BENCHMARKS.md), shared by all the loops of that function. A loop
//! that never ends turns forever, so it reaches the call; a loop whose turns call a function
//! with a short loop inside counts only its own turns, and calls out after at most that many
//! times more work.

use walrus::ir::{BinaryOp, Instr, InstrLocId, InstrSeqId, Loop, UnaryOp, Value, Visitor};
use walrus::{FunctionId, LocalId, Module, ValType};

/// The import every instrumented module has: `(import "env" "parsebox_poll" (func))`. The page
/// gives a function that reads the clock (`engine.js` says why).
pub const POLL_IMPORT: (&str, &str) = ("env", "parsebox_poll");

/// How many loop turns, over all loops of a function's call, between two calls of the import
/// (a power of two: the count is masked).
pub const LOOP_TURNS_PER_POLL: i32 = 1 << 14;

/// Why a module could not be instrumented.
#[derive(Debug)]
pub enum PreemptError {
    /// The bytes are not a module walrus can read.
    Parse(String),
    /// The module already imports `env.parsebox_poll`: it was instrumented before.
    AlreadyInstrumented,
}

impl std::fmt::Display for PreemptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Parse(why) => write!(f, "not a wasm module this tool can read: {why}"),
            Self::AlreadyInstrumented => write!(
                f,
                "the module already imports {}.{}: it was instrumented before",
                POLL_IMPORT.0, POLL_IMPORT.1
            ),
        }
    }
}

impl std::error::Error for PreemptError {}

/// What [`add_poll_calls`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instrumented {
    /// Functions with at least one loop.
    pub functions: usize,
    /// Loops that now count their turns.
    pub loops: usize,
}

/// Returns `wasm` with every loop counting its turns and calling `env.parsebox_poll` every
/// [`LOOP_TURNS_PER_POLL`] turns (the crate's doc says why), and what was changed.
pub fn add_poll_calls(wasm: &[u8]) -> Result<(Vec<u8>, Instrumented), PreemptError> {
    let mut module = Module::from_buffer(wasm).map_err(|e| PreemptError::Parse(e.to_string()))?;
    if module.imports.find(POLL_IMPORT.0, POLL_IMPORT.1).is_some() {
        return Err(PreemptError::AlreadyInstrumented);
    }
    let poll_type = module.types.add(&[], &[]);
    let (poll, _) = module.add_import_func(POLL_IMPORT.0, POLL_IMPORT.1, poll_type);
    let mut done = Instrumented {
        functions: 0,
        loops: 0,
    };
    for (_, func) in module.funcs.iter_local_mut() {
        let mut loops = LoopBodies(Vec::new());
        walrus::ir::dfs_in_order(&mut loops, func, func.entry_block());
        if loops.0.is_empty() {
            continue;
        }
        done.functions += 1;
        done.loops += loops.0.len();
        // Locals start at zero: the first call comes after LOOP_TURNS_PER_POLL turns.
        let turns = module.locals.add(ValType::I32);
        for body in loops.0 {
            let mut then = func.builder_mut().dangling_instr_seq(None);
            then.call(poll);
            let consequent = then.id();
            let alternative = func.builder_mut().dangling_instr_seq(None).id();
            let head = count_turn(turns, consequent, alternative);
            func.block_mut(body)
                .instrs
                .splice(0..0, head.into_iter().map(|i| (i, InstrLocId::default())));
        }
    }
    Ok((module.emit_wasm(), done))
}

/// The instructions at the top of a loop body:
/// `turns += 1; if turns & (LOOP_TURNS_PER_POLL - 1) == 0 { consequent }`. They leave the
/// operand stack as they found it, so a loop with parameters stays valid.
fn count_turn(turns: LocalId, consequent: InstrSeqId, alternative: InstrSeqId) -> Vec<Instr> {
    vec![
        Instr::LocalGet(walrus::ir::LocalGet { local: turns }),
        Instr::Const(walrus::ir::Const {
            value: Value::I32(1),
        }),
        Instr::Binop(walrus::ir::Binop {
            op: BinaryOp::I32Add,
        }),
        Instr::LocalTee(walrus::ir::LocalTee { local: turns }),
        Instr::Const(walrus::ir::Const {
            value: Value::I32(LOOP_TURNS_PER_POLL - 1),
        }),
        Instr::Binop(walrus::ir::Binop {
            op: BinaryOp::I32And,
        }),
        Instr::Unop(walrus::ir::Unop {
            op: UnaryOp::I32Eqz,
        }),
        Instr::IfElse(walrus::ir::IfElse {
            consequent,
            alternative,
        }),
    ]
}

/// The body of every loop of a function, outer loops first.
struct LoopBodies(Vec<InstrSeqId>);

impl<'instr> Visitor<'instr> for LoopBodies {
    fn visit_loop(&mut self, instr: &Loop) {
        self.0.push(instr.seq);
    }
}

/// The poll import's function id in an instrumented module, for tests and checks.
pub fn poll_function(module: &Module) -> Option<FunctionId> {
    let import = module.imports.find(POLL_IMPORT.0, POLL_IMPORT.1)?;
    match module.imports.get(import).kind {
        walrus::ImportKind::Function(f) => Some(f),
        _ => None,
    }
}
