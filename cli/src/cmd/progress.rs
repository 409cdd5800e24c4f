//! The solve progress bar on stderr; indicatif hides it when stderr is not a
//! terminal, so logs and pipes stay clean.
//!
//! The rate and the time left are this module's, not indicatif's: its rate
//! is a float printed with four decimals, and its ETA extrapolates from a
//! short recent window, which in a tiered solve (cheap game-over tiers
//! first, a few entries per second at the very start) said "42m" for a
//! 13-second solve. Here both come from the entries labelled since the first
//! tier started (restored tiers of a resumed solve are not work done), and
//! the time left is shown only once enough of the solve has run to say it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use retrograde::solve::Progress;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

pub struct Bar {
    bar: ProgressBar,
    start: Arc<Start>,
    /// What a pass over a table is doing (`Bar::task`); `None` for a solve.
    what: Option<String>,
}

/// Where the work of this run started: the bar's position and elapsed time
/// when the first tier began.
#[derive(Default)]
struct Start {
    set: AtomicBool,
    pos: AtomicU64,
    millis: AtomicU64,
}

impl Start {
    /// Entries labelled and seconds spent since the first tier began.
    fn since(&self, state: &ProgressState) -> Option<(u64, f64)> {
        if !self.set.load(Relaxed) {
            return None;
        }
        let done = state.pos().saturating_sub(self.pos.load(Relaxed));
        let secs = state.elapsed().as_secs_f64() - self.millis.load(Relaxed) as f64 / 1e3;
        Some((done, secs))
    }
}

impl Bar {
    /// The solve's bar (tiers, entries labelled, rate and time left), or
    /// none at all when `shown` is false (`-q`).
    pub fn drawn(total: u64, shown: bool) -> Bar {
        let start = Arc::new(Start::default());
        let bar = ProgressBar::with_draw_target(Some(total), target(shown));
        let (s1, s2) = (start.clone(), start.clone());
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {percent:>3}% tier {msg} {human_pos}/{human_len}{rate}{left}",
            )
            .expect("the template is a constant")
            .with_key("rate", move |state: &ProgressState, w: &mut dyn Write| {
                if let Some((done, secs)) = s1.since(state) {
                    if secs > 0.0 {
                        let _ = write!(w, " {}", rate_text(done as f64 / secs));
                    }
                }
            })
            .with_key("left", move |state: &ProgressState, w: &mut dyn Write| {
                let total = state.len().unwrap_or(0);
                let left = s2.since(state).and_then(|(done, secs)| {
                    time_left(done, total.saturating_sub(state.pos()), secs)
                });
                if let Some(left) = left {
                    let _ = write!(w, " about {} left", duration_text(left));
                }
            })
            .progress_chars("=> "),
        );
        bar.set_message("-");
        Bar {
            bar,
            start,
            what: None,
        }
    }

    /// The bar of a pass over a table (`verify`'s re-derivation,
    /// `analyze`'s walk): the same bar, named by `what`, with the time
    /// left; its length comes from the library ([`Progress::length`]), in
    /// units of its own, so no count or rate is shown. None when `shown` is
    /// false (`-q`).
    pub fn task(what: &str, shown: bool) -> Bar {
        let start = Arc::new(Start::default());
        let bar = ProgressBar::with_draw_target(Some(0), target(shown));
        let s = start.clone();
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent:>3}% {msg}{left}")
                .expect("the template is a constant")
                .with_key("left", move |state: &ProgressState, w: &mut dyn Write| {
                    let total = state.len().unwrap_or(0);
                    let left = s.since(state).and_then(|(done, secs)| {
                        time_left(done, total.saturating_sub(state.pos()), secs)
                    });
                    if let Some(left) = left {
                        let _ = write!(w, " about {} left", duration_text(left));
                    }
                })
                .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        // All of the pass is work: the time left counts from its start.
        start.set.store(true, Relaxed);
        Bar {
            bar,
            start,
            what: Some(what.to_string()),
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Standard error (indicatif draws nothing there unless it is a terminal),
/// or nowhere.
fn target(shown: bool) -> ProgressDrawTarget {
    if shown {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

impl Progress for Bar {
    fn length(&self, work: u64) {
        self.bar.set_length(work);
    }

    fn tier(&self, tier: u32, tiers: u32, _units: u64) {
        if !self.start.set.load(Relaxed) {
            self.start.pos.store(self.bar.position(), Relaxed);
            self.start
                .millis
                .store(self.bar.elapsed().as_millis() as u64, Relaxed);
            self.start.set.store(true, Relaxed);
        }
        self.bar.set_message(match &self.what {
            None => format!("{}/{}", tier + 1, tiers),
            Some(what) => format!("{what}, tier {}/{}", tier + 1, tiers),
        });
    }

    fn advance(&self, positions: u64) {
        self.bar.inc(positions);
    }

    fn notice(&self, message: &str) {
        self.bar.suspend(|| eprintln!("{message}"));
    }
}

/// Entries per second, to three significant figures at most: `950/s`,
/// `12.3 K/s`, `11.9 M/s`.
pub fn rate_text(per_sec: f64) -> String {
    let (x, unit) = match per_sec {
        r if r >= 1e9 => (r / 1e9, " G"),
        r if r >= 1e6 => (r / 1e6, " M"),
        r if r >= 1e3 => (r / 1e3, " K"),
        r => (r.max(0.0), ""),
    };
    if unit.is_empty() || x >= 100.0 {
        format!("{x:.0}{unit}/s")
    } else {
        format!("{x:.1}{unit}/s")
    }
}

/// Below this much of the solve done, or this soon, the time left is not
/// shown: the first tiers are game-over positions, labelled far faster than
/// the rest, and a guess from them is wrong by orders of magnitude.
const MIN_FRACTION: f64 = 0.05;
const MIN_SECONDS: f64 = 3.0;

/// The time left for `remaining` entries at the average rate of the `done`
/// entries labelled in `secs` seconds, once that average means something.
pub fn time_left(done: u64, remaining: u64, secs: f64) -> Option<Duration> {
    let total = done + remaining;
    if secs < MIN_SECONDS || total == 0 || (done as f64) < MIN_FRACTION * total as f64 {
        return None;
    }
    Some(Duration::from_secs_f64(
        secs * remaining as f64 / done as f64,
    ))
}

/// `<1s`, `42s`, `3m 05s`, `2h 07m`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0 => "<1s".to_string(),
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {:02}s", s / 60, s % 60),
        s => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_short_numbers_with_a_unit() {
        assert_eq!(rate_text(11_889_633.699_1), "11.9 M/s");
        assert_eq!(rate_text(145_369.014_2), "145 K/s");
        assert_eq!(rate_text(2_500.0), "2.5 K/s");
        assert_eq!(rate_text(950.4), "950/s");
        assert_eq!(rate_text(3.2e9), "3.2 G/s");
        assert_eq!(rate_text(0.0), "0/s");
    }

    #[test]
    fn the_time_left_waits_for_enough_work_and_averages_over_all_of_it() {
        // 190 entries of 99.6 million in a fraction of a second: the start
        // of an isolation:4x5 solve, where indicatif said "11m".
        assert_eq!(time_left(190, 99_614_530, 0.001), None);
        // 4% done after 10 s: still too early.
        assert_eq!(time_left(4, 96, 10.0), None);
        // Half done in 2 s: too soon.
        assert_eq!(time_left(50, 50, 2.0), None);
        // A quarter done in 4 s: 12 s left.
        assert_eq!(time_left(25, 75, 4.0), Some(Duration::from_secs(12)));
        assert_eq!(time_left(10, 0, 5.0), Some(Duration::ZERO));
        assert_eq!(time_left(0, 0, 5.0), None);
    }

    #[test]
    fn durations_read_as_a_clock() {
        assert_eq!(duration_text(Duration::from_secs_f64(41.6)), "42s");
        assert_eq!(duration_text(Duration::from_millis(400)), "<1s");
        assert_eq!(duration_text(Duration::from_secs(185)), "3m 05s");
        assert_eq!(duration_text(Duration::from_secs(7620)), "2h 07m");
    }
}
