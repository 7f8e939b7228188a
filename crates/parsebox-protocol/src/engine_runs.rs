//! What every engine does with the ops it is sent, whatever runs the parser: a sandboxed
//! `ui-parser.js` (`parsebox-engine`) or a trusted built-in (the binding). One loop, so both
//! create, reset and drop runs and reset after a failed line exactly where the core journals it.

use std::collections::HashMap;

use parsebox_transcript::{outcome_resets_parser, FailureCode, LineFailure, ReturnShape};

use crate::began::engine_work_follows;
use crate::{EngineOp, EngineReports, LineOp, LineStart, RunId, Seq};

/// One parser instance (one run's state).
pub trait ParserInstance {
    /// What a line's parser returned, as this engine hands it on: a
    /// [`Value`](serde_json::Value), or JSON text
    /// ([`ReturnJson`](parsebox_transcript::ReturnJson)) an engine instance sends as is.
    type Value: ReturnShape;
    /// Parses one line; the raw outcome, before the line rule.
    ///
    /// # Errors
    /// Why the parser gave no value (it threw, ran over budget, …).
    fn parse(&mut self, line: &str, ts: &str) -> Result<Self::Value, LineFailure>;
    /// Calls the parser's `reset()`.
    ///
    /// # Errors
    /// The failure, when `reset()` threw or ran over budget.
    fn reset(&mut self) -> Result<(), LineFailure>;
    /// Whether a failed line left realm work owed (the sandbox rebuilds a dirty realm and
    /// replays the run's earlier lines into it). An instance with no such work keeps the
    /// default, `false`.
    fn needs_recovery(&self) -> bool {
        false
    }
    /// Does that work now, before the next line's clock starts; a failure here shows again on
    /// the line. Called only when [`needs_recovery`](Self::needs_recovery) says so.
    fn recover(&mut self) {}
    /// How many times this instance lost its parser's state so far: it had to start over in a
    /// fresh realm without the earlier lines (their replay would not fit its budget). An
    /// instance that never rebuilds itself keeps the default, 0.
    fn state_lost(&self) -> u64 {
        0
    }
}

/// Makes parser instances: one per run.
pub trait InstanceFactory {
    /// The instance type.
    type Instance: ParserInstance;
    /// A fresh instance (fresh module state); `stateless`: one that calls the module's own
    /// `parseStdoutLine` when it has one (see [`EngineOp::NewRun`]).
    ///
    /// # Errors
    /// Why the instance could not be made; every line of the run then fails with it.
    fn new_instance(&mut self, stateless: bool) -> Result<Self::Instance, LineFailure>;
    /// A monotonic clock in milliseconds (any origin), the one the engine's budgets use: the
    /// engine's own realm work (a new run, a recovery) is timed on it and reported, so the
    /// core's clock does not blame it on a line. A factory without one keeps the default, 0,
    /// and reports no such work.
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// One line's outcome from the instances `F` makes.
pub type OutcomeOf<F> =
    Result<<<F as InstanceFactory>::Instance as ParserInstance>::Value, LineFailure>;

/// An engine's runs, driven by the core's ops.
pub struct EngineRuns<F: InstanceFactory> {
    factory: F,
    runs: HashMap<RunId, Slot<F::Instance>>,
    /// What the engine reports beside the answers of some lines, in line order, not taken yet.
    reports: Vec<(Seq, EngineReports)>,
    /// The next live line reports `began` (see [`engine_work_follows`](crate::engine_work_follows)).
    began_due: bool,
    /// Realm work (ms) since the last live line, reported with the next one.
    work_ms: f64,
}

/// A run, whether its parser owes a reset before the next line, and how many of its state
/// losses were reported.
struct Slot<I> {
    instance: Result<I, LineFailure>,
    reset_owed: bool,
    lost_reported: u64,
}

impl<F: InstanceFactory> EngineRuns<F> {
    /// No runs yet; `factory` makes their instances.
    pub fn new(factory: F) -> Self {
        Self {
            factory,
            runs: HashMap::new(),
            reports: Vec::new(),
            began_due: true,
            work_ms: 0.0,
        }
    }

    /// A batch of ops arrived from the host: its first live line reports `began`.
    pub fn batch_arrived(&mut self) {
        self.began_due = true;
    }

    /// The factory.
    pub fn factory(&self) -> &F {
        &self.factory
    }

    /// Performs `ops` in order and returns the outcome of every line, in order. `began` is
    /// called as each live (not replayed) line starts, after any realm work before it; its
    /// [`LineStart::report`] says when the host needs the start to arm the line's deadline
    /// ([`engine_work_follows`](crate::engine_work_follows)): the first live line since
    /// [`batch_arrived`](Self::batch_arrived), and one after realm work (a `NewRun`, or a
    /// failed line, whose realm is recovered first). After a line whose outcome
    /// [`outcome_resets_parser`], the run is reset before its next line.
    pub fn run_ops(
        &mut self,
        ops: Vec<EngineOp>,
        mut began: impl FnMut(LineStart),
    ) -> Vec<(Seq, OutcomeOf<F>)> {
        let mut answers = Vec::new();
        for op in ops {
            match op {
                EngineOp::NewRun { run, stateless } => {
                    self.began_due = true;
                    let started = self.factory.now_ms();
                    let instance = self.factory.new_instance(stateless);
                    self.add_work_since(started);
                    self.runs.insert(
                        run,
                        Slot {
                            instance,
                            reset_owed: false,
                            lost_reported: 0,
                        },
                    );
                }
                EngineOp::Line(LineOp {
                    seq,
                    run,
                    line,
                    ts,
                    replay,
                }) => {
                    let report = !replay && std::mem::take(&mut self.began_due);
                    if report {
                        // Timed only when there is work: most calls (an inline line) have none,
                        // and their answers then carry no report.
                        if let Some(Slot {
                            instance: Ok(i), ..
                        }) = self.runs.get_mut(&run)
                        {
                            if i.needs_recovery() {
                                let started = self.factory.now_ms();
                                i.recover();
                                self.add_work_since(started);
                            }
                        }
                    }
                    if !replay {
                        began(LineStart { seq, report });
                    }
                    if !replay && self.work_ms > 0.0 {
                        let ms = std::mem::take(&mut self.work_ms);
                        self.report(seq, |r| r.work_ms = ms);
                    }
                    let outcome = self.line(run, seq, &line, &ts);
                    self.began_due |= engine_work_follows(&outcome);
                    answers.push((seq, outcome));
                }
                EngineOp::Reset { run } => {
                    if let Some(Slot {
                        instance: Ok(i),
                        reset_owed,
                        ..
                    }) = self.runs.get_mut(&run)
                    {
                        *reset_owed = false;
                        // A reset that fails shows on the run's next line.
                        let _ = i.reset();
                    }
                }
                EngineOp::DropRun { run } => {
                    self.runs.remove(&run);
                }
            }
        }
        answers
    }

    fn line(&mut self, run: RunId, seq: Seq, line: &str, ts: &str) -> OutcomeOf<F> {
        let Some(slot) = self.runs.get_mut(&run) else {
            return Err(LineFailure::new(
                FailureCode::RealmUnavailable,
                format!("the engine has no run {}", run.0),
            ));
        };
        let instance = slot.instance.as_mut().map_err(|e| e.clone())?;
        if std::mem::take(&mut slot.reset_owed) {
            let _ = instance.reset();
        }
        let outcome = instance.parse(line, ts);
        slot.reset_owed = outcome_resets_parser(&outcome);
        // A loss in this line's rebuild, or in a reset before it: reported with this line.
        let lost = instance.state_lost();
        if lost > slot.lost_reported {
            slot.lost_reported = lost;
            self.report(seq, |r| r.state_lost = true);
        }
        outcome
    }

    /// Adds the time since `started` on the factory's clock to the realm work owed a report.
    fn add_work_since(&mut self, started: f64) {
        self.work_ms += (self.factory.now_ms() - started).max(0.0);
    }

    /// Adds to the report of line `seq`, the line being run now (lines are reported in
    /// order, so its report, if it has one yet, is the last).
    fn report(&mut self, seq: Seq, add: impl FnOnce(&mut EngineReports)) {
        match self.reports.last_mut() {
            Some((s, r)) if *s == seq => add(r),
            _ => {
                let mut r = EngineReports::default();
                add(&mut r);
                self.reports.push((seq, r));
            }
        }
    }

    /// What the engine reports beside the answers of some lines since the last call, in line
    /// order: their run's parser lost its state before answering them
    /// ([`ParserInstance::state_lost`]), so the host counts the loss
    /// (the core's `Host::handle_state_lost`); or the engine did realm
    /// work of its own before them (a new run's realm, a recovery after a failed line), timed
    /// on the factory's clock ([`InstanceFactory::now_ms`]), so the core's clock counts only
    /// the lines' own time (the core's `Host::handle_inline_answers`).
    pub fn take_reports(&mut self) -> Vec<(Seq, EngineReports)> {
        std::mem::take(&mut self.reports)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use super::*;

    type Log = Rc<RefCell<Vec<String>>>;

    /// Fails the line "fail"; logs every call. A recovery takes 7 ms on the shared clock.
    struct Logged(Log, Rc<Cell<f64>>);

    impl ParserInstance for Logged {
        type Value = serde_json::Value;
        fn parse(&mut self, line: &str, _ts: &str) -> Result<serde_json::Value, LineFailure> {
            self.0.borrow_mut().push(format!("parse {line}"));
            if line == "fail" {
                return Err(LineFailure::new(FailureCode::BudgetExceeded, "over"));
            }
            Ok(serde_json::json!([]))
        }
        fn reset(&mut self) -> Result<(), LineFailure> {
            self.0.borrow_mut().push("reset".to_owned());
            Ok(())
        }
        fn needs_recovery(&self) -> bool {
            true
        }
        fn recover(&mut self) {
            self.0.borrow_mut().push("recover".to_owned());
            self.1.set(self.1.get() + 7.0);
        }
    }

    /// A new run takes 5 ms on the clock.
    struct Factory(Log, Rc<Cell<f64>>);

    impl InstanceFactory for Factory {
        type Instance = Logged;
        fn new_instance(&mut self, _stateless: bool) -> Result<Logged, LineFailure> {
            self.0.borrow_mut().push("new run".to_owned());
            self.1.set(self.1.get() + 5.0);
            Ok(Logged(self.0.clone(), self.1.clone()))
        }
        fn now_ms(&self) -> f64 {
            self.1.get()
        }
    }

    fn line(seq: Seq, text: &str, replay: bool) -> EngineOp {
        EngineOp::Line(LineOp {
            seq,
            run: RunId(1),
            line: text.to_owned(),
            ts: "t".to_owned(),
            replay,
        })
    }

    /// `began` comes as every live line starts, after realm work; it is reported where the
    /// core waits for it (`crate::began`): the first live line of a batch, and after realm
    /// work (a new run, or a failed line's recovery, done before it), so the engine's own work
    /// never counts against a line's deadline. Replayed lines get none.
    fn began(start: LineStart) -> String {
        if start.report {
            format!("began {}", start.seq)
        } else {
            format!("starts {}", start.seq)
        }
    }

    #[test]
    fn began_is_reported_after_the_engines_own_work_and_for_a_batchs_first_line() {
        let log: Log = Rc::default();
        let mut runs = EngineRuns::new(Factory(log.clone(), Rc::default()));
        let ops = vec![
            EngineOp::NewRun {
                run: RunId(1),
                stateless: false,
            },
            line(1, "old", true),
            line(2, "a", false),
            line(3, "b", false),
            line(4, "fail", false),
            line(5, "c", false),
            line(6, "d", false),
        ];
        let sink = log.clone();
        let answers = runs.run_ops(ops, |start| sink.borrow_mut().push(began(start)));
        assert_eq!(answers.len(), 6);
        // Its time is reported with the live line it came before: the new run and a recovery
        // before line 2, a recovery before line 5.
        let work = |ms| EngineReports {
            state_lost: false,
            work_ms: ms,
        };
        assert_eq!(runs.take_reports(), [(2, work(12.0)), (5, work(7.0))]);
        assert_eq!(runs.take_reports(), []);
        assert_eq!(
            *log.borrow(),
            [
                "new run",
                "parse old",
                "recover",
                "began 2",
                "parse a",
                "starts 3",
                "parse b",
                "starts 4",
                "parse fail",
                "recover",
                "began 5",
                "reset",
                "parse c",
                "starts 6",
                "parse d",
            ]
        );

        // A later call of the same batch reports nothing; a new batch's first live line does.
        log.borrow_mut().clear();
        let sink = log.clone();
        runs.run_ops(vec![line(7, "e", false)], |start| {
            sink.borrow_mut().push(began(start));
        });
        runs.batch_arrived();
        let sink = log.clone();
        runs.run_ops(vec![line(8, "f", true), line(9, "g", false)], |start| {
            sink.borrow_mut().push(began(start));
        });
        assert_eq!(
            *log.borrow(),
            ["starts 7", "parse e", "parse f", "recover", "began 9", "parse g"]
        );
    }
}
