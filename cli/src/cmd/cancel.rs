//! The search a signal stops: once a search has started, Ctrl-C (or
//! SIGTERM) cancels it — it returns and saves what it proved — instead of
//! ending the process; a second signal ends it at once (`main`'s handler).

use retrograde::search::Cancel;
use std::sync::Mutex;

/// The token of the search this process runs once it has started.
static RUNNING: Mutex<Option<Cancel>> = Mutex::new(None);

/// The search holding `cancel` has started: a signal now cancels it.
pub fn started(cancel: &Cancel) {
    if let Ok(mut r) = RUNNING.lock() {
        *r = Some(cancel.clone());
    }
}

/// For the signal handler: cancels the running search, if one has started;
/// returns whether one had (else the handler ends the process at once).
pub fn request_stop() -> bool {
    let running = match RUNNING.lock() {
        Ok(r) => r.clone(),
        Err(p) => p.into_inner().clone(),
    };
    running.is_some_and(|c| {
        c.cancel();
        true
    })
}

/// Takes the running search's token off [`RUNNING`] when the command ends.
pub struct Listening;

impl Drop for Listening {
    fn drop(&mut self) {
        if let Ok(mut r) = RUNNING.lock() {
            *r = None;
        }
    }
}
