//! A search's report in words: the text `retrograde search` prints, one
//! line per fact, a label of 12 columns then the fact. The JSON form is the
//! command line's (it names the same fields).

use super::engine::{Answer, Counted, Engine, SearchOptions};
use super::proofdb::Fact;
use super::run::{CheckOutcome, Loaded, SearchReport, Searched};
use super::{path_budget, Stop};
use crate::units::{human_bytes, thousands};
use crate::value::Outcome;
use std::fmt::{self, Display, Formatter};

impl SearchReport {
    /// The result as `retrograde search` prints it: the game, each position
    /// searched with its value (or nimber) and best move (one line per
    /// opening with `--openings`), why the search stopped, its counters and
    /// what was loaded. `options` are the ones the search ran with (the
    /// stop names its limit). The save's line comes later, once the save is
    /// done: [`SearchReport::saved_text`].
    pub fn text<'a>(&'a self, options: &'a SearchOptions) -> impl Display + 'a {
        Text(move |f: &mut Formatter<'_>| self.write_text(f, options))
    }

    /// The `saved` line, once a save succeeded.
    pub fn saved_text(&self) -> Option<String> {
        let Some(Ok(s)) = &self.saved else {
            return None;
        };
        Some(format!(
            "saved       {} {} to {} ({})",
            thousands(s.entries as u64),
            self.unit(),
            s.path.display(),
            human_bytes(s.bytes)
        ))
    }

    /// What an entry is: a proven position, or a nimber's component.
    fn unit(&self) -> &'static str {
        match self.stats.counted {
            Counted::Components => "components",
            _ => "proven positions",
        }
    }

    fn write_text(&self, f: &mut Formatter<'_>, options: &SearchOptions) -> fmt::Result {
        writeln!(f, "game        {}", self.game)?;
        if options.moves {
            self.write_moves(f)?;
        }
        if let (Some(plies), false) = (options.openings, options.moves) {
            // The value of each is for its own player to move: at an odd
            // depth, the opponent of the first position's.
            writeln!(
                f,
                "openings    {} positions {plies} {} on, each one's value for the player to move in it",
                thousands(self.results.len() as u64),
                if plies == 1 { "ply" } else { "plies" }
            )?;
        }
        // With --moves, the results are the position and its children,
        // written above as one list.
        for s in self.results.iter().filter(|_| !options.moves) {
            match (&s.answer, self.openings) {
                (Answer::Value { bounds, .. }, true) => writeln!(
                    f,
                    "{:<40} {:<10} {:>12} nodes {:>9.2} s",
                    s.position,
                    bounds.describe(),
                    thousands(s.nodes),
                    s.elapsed.as_secs_f64()
                )?,
                (Answer::Value { bounds, best_move }, false) => {
                    writeln!(f, "position    {}", s.position)?;
                    writeln!(f, "value       {}", bounds.describe())?;
                    if let Some(m) = best_move {
                        writeln!(f, "best move   {m}")?;
                    }
                }
                (Answer::Nimber(n), true) => {
                    let shown = match n {
                        Some(n) => format!("nimber {n} ({})", outcome(*n)),
                        None => "not proven".to_string(),
                    };
                    writeln!(
                        f,
                        "{:<40} {:<18} {:>12} components {:>9.2} s",
                        s.position,
                        shown,
                        thousands(s.nodes),
                        s.elapsed.as_secs_f64()
                    )?;
                }
                (Answer::Nimber(n), false) => {
                    writeln!(f, "position    {}", s.position)?;
                    match n {
                        Some(n) => writeln!(
                            f,
                            "nimber      {n} ({} for the player to move)",
                            outcome(*n)
                        )?,
                        None => writeln!(f, "nimber      not proven (stopped)")?,
                    }
                }
            }
        }
        if let Some(stop) = self.stopped {
            let note = stop_note(stop, options, self.memory, self.stats.deepest);
            writeln!(f, "stopped     {note}")?;
        }
        let seconds = self.elapsed.as_secs_f64();
        let stats = &self.stats;
        match stats.counted {
            Counted::ProofNumbers | Counted::AlphaBeta => {
                let rate = stats.nodes as f64 / self.node_seconds().max(1e-9);
                writeln!(
                    f,
                    "nodes       {} in {seconds:.2} s ({}/s)",
                    thousands(stats.nodes),
                    thousands(rate as u64)
                )?;
                // The value table, unless only the score table was used
                // (every move scored: the values come from the scores).
                let scores = stats.score_table.filter(|t| t.used > 0);
                if stats.tt_used > 0 || scores.is_none() {
                    writeln!(
                        f,
                        "table       {} of {} entries used ({}, may grow to {})",
                        thousands(stats.tt_used),
                        thousands(stats.tt_capacity),
                        human_bytes(stats.tt_bytes),
                        human_bytes(stats.tt_max_bytes)
                    )?;
                }
                if let Some(t) = scores {
                    writeln!(
                        f,
                        "scores      {} of {} entries of the score table used ({})",
                        thousands(t.used),
                        thousands(t.capacity),
                        human_bytes(t.bytes)
                    )?;
                }
                if stats.threads > 1 {
                    writeln!(f, "threads     {}", stats.threads)?;
                }
                // df-pn is the default everywhere but the gravity boards:
                // the other engine is named.
                if self.engine == Some(Engine::AlphaBeta) {
                    writeln!(f, "engine      alphabeta")?;
                }
                if self.engine == Some(Engine::Couples) {
                    writeln!(f, "engine      couples (nodes are couples region + *k)")?;
                }
                if !options.tablebases.is_empty() {
                    writeln!(
                        f,
                        "leaves      {} positions answered by tables",
                        thousands(stats.leaf_hits)
                    )?;
                }
            }
            Counted::Components if self.engine == Some(Engine::Sets) => writeln!(
                f,
                "regions     {} searched within sets, {} nimbers known, in {seconds:.2} s",
                thousands(stats.nodes),
                thousands(stats.tt_used),
            )?,
            Counted::Components if self.engine == Some(Engine::Couples) => writeln!(
                f,
                "couples     {} searched (region + *k), {} regions of known nimber, {} from tables, in {seconds:.2} s",
                thousands(stats.nodes),
                thousands(stats.tt_used),
                thousands(stats.leaf_hits),
            )?,
            Counted::Components => writeln!(
                f,
                "components  {} searched, {} in memo, {} from tables, in {seconds:.2} s",
                thousands(stats.nodes),
                thousands(stats.tt_used),
                thousands(stats.leaf_hits),
            )?,
        }
        if let Some(l) = &self.loaded {
            write_loaded(f, l, self.unit())?;
        }
        Ok(())
    }
}

impl SearchReport {
    /// The seconds the counted nodes took: the search's, and the loading's
    /// when `--load` re-proved entries (its nodes are counted too), so
    /// that a rate never divides a load's nodes by the search's time alone.
    pub fn node_seconds(&self) -> f64 {
        self.elapsed.as_secs_f64()
            + self
                .loaded
                .as_ref()
                .map_or(0.0, |l| l.elapsed.as_secs_f64())
    }

    /// `--moves`: the position, then one line per legal move, best first,
    /// each with its value for the player who makes it (as the tables'
    /// `probe --moves`: "win in 3" wins with the game ending 3 plies after
    /// the move), and where known its score (Connect-Four, Pons') or the
    /// nimber of the position it leads to.
    fn write_moves(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Some((root, moves)) = self.moves() else {
            return Ok(());
        };
        writeln!(f, "position    {}", root.position)?;
        match &root.answer {
            Answer::Nimber(Some(n)) => writeln!(
                f,
                "nimber      {n} ({} for the player to move)",
                outcome(*n)
            )?,
            _ => writeln!(f, "value       {}", for_player(root))?,
        }
        let who = match root.to_move {
            Some(p) => format!("the player to move, player {p}"),
            None => "the player to move".to_string(),
        };
        writeln!(
            f,
            "moves       {}, each one's value for {who}",
            thousands(moves.len() as u64)
        )?;
        if moves.is_empty() {
            return Ok(());
        }
        let named = |m: &Searched| m.mv.clone().unwrap_or_default();
        let w = moves
            .iter()
            .map(|m| named(m).len())
            .max()
            .unwrap_or(0)
            .max(4);
        // Sprouts' moves are the positions they lead to: no second column.
        let positions = moves.iter().any(|m| m.mv.as_deref() != Some(&m.position));
        let pw = match positions {
            true => moves
                .iter()
                .map(|m| m.position.len())
                .max()
                .unwrap_or(0)
                .max(8),
            false => 0,
        };
        let values: Vec<String> = moves.iter().map(mover_text).collect();
        let vw = values.iter().map(String::len).max().unwrap_or(0).max(13);
        let extra = match (&root.answer, moves.iter().any(|m| m.score.is_some())) {
            (Answer::Nimber(_), _) => "nimber",
            (_, true) => "score",
            _ => "",
        };
        let mut head = format!("  {:<w$}  ", "move");
        if positions {
            head += &format!("{:<pw$}  ", "position");
        }
        head += &format!("{:<vw$}  {extra}", "for the mover");
        writeln!(f, "{}", head.trim_end())?;
        let top = moves[0].rank();
        let best_known = moves[0].value().is_some();
        for (m, value) in moves.iter().zip(&values) {
            let mut line = format!("  {:<w$}  ", named(m));
            if positions {
                line += &format!("{:<pw$}  ", m.position);
            }
            let more = match (&m.answer, m.mover_score()) {
                (Answer::Nimber(Some(n)), _) => n.to_string(),
                (_, Some(0)) => "0".to_string(),
                (_, Some(s)) => format!("{s:+}"),
                _ => String::new(),
            };
            line += &format!("{value:<vw$}");
            if !extra.is_empty() {
                line += &format!("  {more:>w2$}", w2 = extra.len());
            }
            if best_known && m.rank() == top {
                line += "  best";
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

/// A position's value in words for its player to move, with its
/// remoteness where known ("win in 13").
fn for_player(s: &Searched) -> String {
    match (s.value(), &s.answer) {
        (Some(v), Answer::Value { .. }) => Outcome {
            value: v,
            remoteness: s.remoteness,
        }
        .to_string(),
        (_, a) => shown(a),
    }
}

/// A listed move's value in words for the player who makes it.
fn mover_text(m: &Searched) -> String {
    match (m.for_mover(), &m.answer) {
        (Some(o), _) => o.to_string(),
        (None, Answer::Value { bounds, .. }) => bounds.flip().describe(),
        (None, Answer::Nimber(_)) => "unproven".to_string(),
    }
}

/// A result in words: the value, or the nimber and its value.
fn shown(a: &Answer) -> String {
    match a {
        Answer::Value { bounds, .. } => bounds.describe(),
        Answer::Nimber(Some(n)) => format!("nimber {n} ({})", outcome(*n)),
        Answer::Nimber(None) => "not proven".to_string(),
    }
}

impl CheckOutcome {
    /// The verdict as `retrograde search --check` prints it: the game, the
    /// entries re-proven, what the database holds for the position, the
    /// time. A check that was stopped has no verdict: the text is then the
    /// one line that says how far it got. `options` are the ones the check
    /// ran with.
    pub fn text<'a>(&'a self, options: &'a SearchOptions) -> impl Display + 'a {
        Text(move |f: &mut Formatter<'_>| self.write_text(f, options))
    }

    /// What the database says of the position, in words.
    pub fn entry_text(&self) -> String {
        match self.entry {
            Some(Fact::Value(b)) => b.describe(),
            Some(Fact::Nimber(n)) => format!("nimber {n}"),
            None => "not in the database".to_string(),
        }
    }

    fn write_text(&self, f: &mut Formatter<'_>, options: &SearchOptions) -> fmt::Result {
        if let Some(stop) = self.stopped {
            return write!(
                f,
                "the check was stopped {} before it finished ({} of {} entries re-proven)",
                stop_note(stop, options, self.memory, self.deepest),
                thousands(self.report.checked),
                thousands(self.entries)
            );
        }
        writeln!(f, "game        {}", self.game)?;
        writeln!(
            f,
            "checked     {} entries re-proven from their moves ({} children searched)",
            thousands(self.report.checked),
            thousands(self.report.searched)
        )?;
        writeln!(f, "position    {}: {}", self.position, self.entry_text())?;
        writeln!(f, "time        {:.2} s", self.elapsed.as_secs_f64())
    }
}

/// A [`Display`] made of a closure: the reports' text without a named type
/// for each.
struct Text<F>(F);

impl<F: Fn(&mut Formatter<'_>) -> fmt::Result> Display for Text<F> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}

/// The `loaded` line, and the note on entries a stop left unchecked.
fn write_loaded(f: &mut Formatter<'_>, l: &Loaded, what: &str) -> fmt::Result {
    let seconds = l.elapsed.as_secs_f64();
    if l.report.trusted > 0 {
        return writeln!(
            f,
            "loaded      {} {what}, not re-proven (--trust-load, {seconds:.2} s)",
            thousands(l.report.trusted),
        );
    }
    writeln!(
        f,
        "loaded      {} {what}, each re-proven from its moves ({} children searched, {seconds:.2} s)",
        thousands(l.report.checked),
        thousands(l.report.searched),
    )?;
    if l.report.unchecked > 0 {
        writeln!(
            f,
            "            {} more not re-proven before the stop: not used",
            thousands(l.report.unchecked)
        )?;
    }
    Ok(())
}

/// What stopped a search, in words: the limit as the command line names
/// it, or how deep the line that filled the path's memory went.
fn stop_note(stop: Stop, options: &SearchOptions, memory: u64, deepest: u64) -> String {
    match stop {
        Stop::Nodes => format!(
            "by --nodes {} (every one expanded)",
            thousands(options.node_limit.unwrap_or(0))
        ),
        Stop::Time => format!(
            "by --time {} s",
            options.time_limit.map_or(0.0, |t| t.as_secs_f64())
        ),
        Stop::Requested => "by a signal (Ctrl-C)".to_string(),
        Stop::Depth => format!(
            "a line {} plies deep filled the {} its path may hold (half of --memory, at least 64 MiB); give more --memory",
            thousands(deepest),
            human_bytes(path_budget(memory))
        ),
        Stop::Memory => format!(
            "what the search had to hold at once would have passed --memory {}; give more --memory",
            human_bytes(memory)
        ),
    }
}

/// A nimber's outcome for the player to move.
fn outcome(n: u32) -> &'static str {
    if n == 0 {
        "lose"
    } else {
        "win"
    }
}
