//! `GET /api/tables/{id}/analysis`: what `retrograde analyze --json` prints
//! of a served table, for the page's charts. The analysis walks every
//! position reachable from the start (31 s on isolation:4x5), so it is
//! made once per table, on a thread of its own started by the first
//! request, and kept: until it is done a request is answered 202 with
//! `{"pending": true}` and asks again.

use super::Reply;
use crate::cmd::analyze::analysis_json;
use retrograde::internal::analyze::analyze;
use retrograde::{with_game, Tablebase};
use serde_json::{json, Value as Json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

enum State {
    Idle,
    Running,
    Done(Arc<Json>),
    Failed(String),
}

/// One served table's analysis: its file (reopened by the analysing
/// thread, with the data CRC it was served with) and where it stands.
struct Job {
    path: PathBuf,
    data_crc: u32,
    state: Mutex<State>,
}

/// The analyses of the served tables, by table number (`None`: a searched
/// game, which has no table to analyse).
#[derive(Default)]
pub struct Analyses(Vec<Option<Arc<Job>>>);

impl Analyses {
    /// Registers the next served table: its file, or `None` for a game
    /// served by search.
    pub fn push(&mut self, table: Option<(PathBuf, u32)>) {
        self.0.push(table.map(|(path, data_crc)| {
            Arc::new(Job {
                path,
                data_crc,
                state: Mutex::new(State::Idle),
            })
        }));
    }

    /// The answer for table `t`: the analysis, or 202 while it is made
    /// (the first request starts it).
    pub fn get(&self, t: usize) -> Reply {
        let Some(Some(job)) = self.0.get(t) else {
            return Reply::error(404, "a game served by search has no table to analyse");
        };
        let mut state = job.state.lock().unwrap_or_else(|e| e.into_inner());
        match &*state {
            State::Done(j) => Reply::json(200, j),
            State::Failed(why) => Reply::error(500, why),
            State::Running => pending(),
            State::Idle => {
                *state = State::Running;
                let job = job.clone();
                let started = std::thread::Builder::new()
                    .name("analyze".into())
                    .spawn(move || {
                        let done = match run(&job) {
                            Ok(j) => State::Done(Arc::new(j)),
                            Err(why) => State::Failed(why),
                        };
                        *job.state.lock().unwrap_or_else(|e| e.into_inner()) = done;
                    });
                if let Err(e) = started {
                    *state = State::Idle;
                    return Reply::error(503, format!("cannot start the analysis: {e}"));
                }
                pending()
            }
        }
    }
}

fn pending() -> Reply {
    Reply::json(202, &json!({ "pending": true }))
}

/// The analysis of `job`'s file, refused if the file is no longer the one
/// served (another table renamed over it).
fn run(job: &Job) -> Result<Json, String> {
    let name = job.path.file_name().unwrap_or_default().to_string_lossy();
    let tb = Tablebase::open(&job.path).map_err(|e| format!("{name}: {e}"))?;
    if tb.header().data_crc != job.data_crc {
        return Err(format!(
            "{name}: the file changed since the server opened it; restart the server to analyse it"
        ));
    }
    let a = with_game!(tb.game(), g => analyze(g, &tb)).map_err(|e| format!("{name}: {e}"))?;
    Ok(analysis_json(&a, &tb.header().spec))
}
