//! The strategy feedback loop on the facade: every `ASK` answer is recorded under an id, the
//! caller says whether it was right ([`Cairn::feedback`], the REPL's `.feedback`, `cairn eval
//! --feedback`), and the planner ranks later paths with what was learned (see
//! `cairn_agent::strategy`). Answers are counted in memory; what feedback changes is written to
//! the store's strategy record in one commit.

use crate::db::Cairn;
use crate::error::CairnError;
use cairn_agent::strategy::Strategies;
use cairn_agent::AskOutcome;
use std::sync::MutexGuard;

impl Cairn {
    /// Says whether the answer `answer_id` (from [`AskOutcome::answer_id`]) was correct; the
    /// planner's prior for its plan shape and phrase → relation choices moves accordingly, and
    /// the record is saved. An id of another process, or one older than the last
    /// [`cairn_agent::strategy::MAX_RECENT`] answers, is an error.
    pub fn feedback(&self, answer_id: u64, correct: bool) -> Result<(), CairnError> {
        self.graph().ensure_writable()?;
        self.lock_strategies()?.feedback(answer_id, correct)?;
        self.save_strategies()
    }

    /// Feeds gold correctness back for an answer without an id (an evaluation); call
    /// [`Cairn::save_strategies`] once at the end.
    pub fn learn(&self, outcome: &AskOutcome, correct: bool) -> Result<(), CairnError> {
        self.lock_strategies()?
            .learn(outcome.plan.decision(), correct);
        Ok(())
    }

    /// Feeds back the right answers of an answer without an id (an evaluation): besides its
    /// correctness (as [`Cairn::learn`]), where an adjective the reading did not use cuts the
    /// answer's nodes ("*major* cities": `City.population`, see `cairn_agent::qa::cut_example`).
    pub fn learn_answers(
        &self,
        outcome: &AskOutcome,
        correct: bool,
        gold: &[String],
        table: &dyn cairn_exec::NodeSource,
    ) -> Result<(), CairnError> {
        self.learn(outcome, correct)?;
        let example = cairn_agent::qa::cut_example(self.graph(), table, &outcome.plan, gold)?;
        if let Some(e) = example {
            self.lock_strategies()?
                .learn_cut(&e.word, &e.label, &e.members);
        }
        Ok(())
    }

    /// Writes the strategy record through the commit path.
    pub fn save_strategies(&self) -> Result<(), CairnError> {
        let bytes = self.lock_strategies()?.encode()?;
        let mut w = self.graph().writer()?;
        w.put_strategies(&bytes)?;
        w.commit()?;
        Ok(())
    }

    /// What `SHOW STRATEGIES` prints.
    pub fn strategies_text(&self) -> String {
        self.lock_strategies()
            .map(|s| s.render())
            .unwrap_or_else(|e| e.to_string())
    }

    /// An asker over this database that ranks paths with its strategy record.
    pub fn asker<'a>(
        &'a self,
        embedder: &'a dyn cairn_embed::Embedder,
        table: &'a dyn cairn_exec::NodeSource,
    ) -> cairn_agent::Asker<'a> {
        cairn_agent::Asker::new(self.graph(), embedder, table)
            .with_strategies(&self.strategies)
            .with_phrases(&self.phrases)
    }

    /// Counts an answer (accepted when the validator passed it) and returns its id.
    pub(crate) fn record_answer(&self, outcome: &AskOutcome) -> u64 {
        match self.lock_strategies() {
            Ok(mut s) => s.record(outcome.plan.decision(), !outcome.answer.uncertain),
            Err(_) => 0,
        }
    }

    pub(crate) fn lock_strategies(&self) -> Result<MutexGuard<'_, Strategies>, CairnError> {
        self.strategies
            .lock()
            .map_err(|_| CairnError::Unsupported("the strategy record's lock was poisoned".into()))
    }
}
