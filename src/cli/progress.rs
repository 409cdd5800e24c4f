//! The solve progress bar on stderr; indicatif hides it when stderr is not a
//! terminal, so logs and pipes stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use retrograde::solve::Progress;

pub struct Bar(ProgressBar);

impl Bar {
    pub fn new(total: u64) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {percent:>3}% tier {msg} {human_pos}/{human_len} {per_sec} ETA {eta}",
            )
            .expect("the template is a constant")
            .progress_chars("=> "),
        );
        Bar(bar)
    }

    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Progress for Bar {
    fn tier(&self, tier: u32, tiers: u32, _units: u64) {
        self.0.set_message(format!("{}/{}", tier + 1, tiers));
    }

    fn advance(&self, positions: u64) {
        self.0.inc(positions);
    }
}
