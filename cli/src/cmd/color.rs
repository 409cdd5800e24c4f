//! `--color` and `NO_COLOR`: values coloured as the explorer's page colours
//! them (the GamesmanUni traffic light: win green, lose red, tie and draw
//! yellow), in the text of `probe`, `line`, `play` and `search`; never in
//! JSON.

use retrograde::Value;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// When to colour, as cargo and ripgrep ask it.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Colour when standard output is a terminal, `NO_COLOR` is unset or
    /// empty, and `TERM` is not `dumb`.
    Auto,
    /// Always colour, even into a pipe or a file (and despite `NO_COLOR`).
    Always,
    /// Never colour.
    Never,
}

static ON: AtomicBool = AtomicBool::new(false);

/// Decides once, at start, whether this run colours.
pub fn init(when: When) {
    ON.store(decide(when, std::io::stdout().is_terminal()), Relaxed);
}

fn decide(when: When, terminal: bool) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    match when {
        When::Always => true,
        When::Never => false,
        // https://no-color.org: any non-empty NO_COLOR turns colour off.
        When::Auto => {
            terminal && !set("NO_COLOR") && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// The ANSI colour of a value: green, red, yellow.
fn code(v: Value) -> &'static str {
    match v {
        Value::Win => "32",
        Value::Lose => "31",
        Value::Tie | Value::Draw => "33",
    }
}

/// `text` in the colour of `v`, when this run colours.
pub fn paint(v: Value, text: &str) -> String {
    painted(ON.load(Relaxed), v, text)
}

fn painted(on: bool, v: Value, text: &str) -> String {
    if on {
        format!("\x1b[{}m{text}\x1b[0m", code(v))
    } else {
        text.to_string()
    }
}

/// `text` padded to `width` characters, then coloured: the padding is
/// counted without the escape codes, so columns stay aligned.
pub fn paint_padded(v: Value, text: &str, width: usize) -> String {
    padded(ON.load(Relaxed), v, text, width)
}

fn padded(on: bool, v: Value, text: &str, width: usize) -> String {
    let pad = width.saturating_sub(text.chars().count());
    format!("{}{}", painted(on, v, text), " ".repeat(pad))
}

/// The value word that starts `text` (`win in 5`, `lose`, `tie`, `draw`,
/// `wins in 3`), if any.
fn leading_value(text: &str) -> Option<Value> {
    let word = text.split([' ', ',', '(', ')']).next()?;
    match word {
        "win" | "wins" => Some(Value::Win),
        "lose" | "loses" => Some(Value::Lose),
        "tie" | "ties" => Some(Value::Tie),
        "draw" | "draws" => Some(Value::Draw),
        _ => None,
    }
}

/// A search report with the value of its `value` line coloured.
pub fn search_text(text: &str) -> String {
    if !ON.load(Relaxed) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("value       ") {
            Some(rest) => {
                let body = rest.trim_end_matches('\n');
                match leading_value(body) {
                    Some(v) => {
                        out.push_str("value       ");
                        out.push_str(&paint(v, body));
                        out.push_str(&rest[body.len()..]);
                    }
                    None => out.push_str(line),
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_follows_the_flag_then_the_terminal() {
        assert!(decide(When::Always, false));
        assert!(!decide(When::Never, true));
        assert!(!decide(When::Auto, false));
    }

    #[test]
    fn values_are_found_at_the_start_of_their_text() {
        assert_eq!(leading_value("win in 5"), Some(Value::Win));
        assert_eq!(leading_value("loses in 3"), Some(Value::Lose));
        assert_eq!(leading_value("draw"), Some(Value::Draw));
        assert_eq!(leading_value("tie, by this move"), Some(Value::Tie));
        assert_eq!(leading_value("unknown (at least tie)"), None);
    }

    #[test]
    fn padding_is_counted_without_the_escape_codes() {
        assert_eq!(
            padded(true, Value::Win, "win in 1", 10),
            "\x1b[32mwin in 1\x1b[0m  "
        );
        assert_eq!(padded(false, Value::Lose, "lose", 6), "lose  ");
    }
}
