//! Tables found by their game in a directory, the way python-chess's
//! `open_tablebase(directory)` finds Syzygy files: the caller names a game
//! (`isolation:4x4`), not a file.
//!
//! The header's spec decides, never the file's name: a file named after one
//! game but holding another is not used for either name. The name `solve`
//! gives by default (`<stem>.rtb`, then `<stem>-nimbers.rtb`) is only looked
//! at first, so the usual directory costs one header read; any other
//! `*.rtb` of the directory is found by its header too.

use crate::error::{Error, Result};
use crate::format::TableKind;
use crate::games::AnyGame;
use crate::reader::raw::RawTable;
use crate::reader::Tablebase;

use std::path::{Path, PathBuf};

/// The directory the command line looks in when none is given.
pub const DEFAULT_DIR: &str = "tablebases";

/// The environment variable naming the directory, read by the command line
/// and the Python package when none is given.
pub const DIR_VARIABLE: &str = "RETROGRADE_TABLES";

/// The file in `dir` that holds the table of `spec`, found by the spec in
/// each file's header (see the module docs). A value table is preferred to a
/// nimber table of the same game; among tables of one kind, the file `solve`
/// names by default, then the others in name order.
///
/// Errors: the spec's own error if it is not a game with tables;
/// [`Error::NoTable`] (whose message is the `retrograde solve` command that
/// makes the table) when no usable file holds it; a file that holds the
/// game but cannot be used (another index scheme, say) gives that file's
/// error instead, which says what to do.
///
/// ```
/// use retrograde::{find_table, Error, Tablebase};
///
/// let dir = tempfile::tempdir()?;
/// let e = find_table(dir.path(), "isolation:3x3").unwrap_err();
/// assert!(matches!(e, Error::NoTable { .. }));
/// assert!(e.to_string().contains("retrograde solve isolation:3x3 -o "), "{e}");
///
/// let game = retrograde::AnyGame::parse("isolation:3x3")?;
/// let path = dir.path().join("any-name.rtb");
/// retrograde::with_game!(&game, g => retrograde::solve::solve_to_file(
///     g, &path, &Default::default(), &retrograde::solve::NoProgress))?;
/// assert_eq!(find_table(dir.path(), "isolation:3x3")?, path);
/// let tb = Tablebase::open_in(dir.path(), "isolation:3x3:a=1,b=7")?;
/// assert_eq!(tb.header().spec, "isolation:3x3:a=1,b=7");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_table(dir: &Path, spec: &str) -> Result<PathBuf> {
    let game = AnyGame::parse(spec)?;
    let want = game.spec();
    let stem = game.file_stem();
    let usual = [
        dir.join(format!("{stem}.rtb")),
        dir.join(format!("{stem}-nimbers.rtb")),
    ];
    let mut others: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rtb") && !usual.contains(p))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(Error::io(
                format!("cannot list {}", Error::quote_path(dir)),
                e,
            ))
        }
    };
    others.sort();
    let mut unusable = None;
    let mut nimbers = None;
    for path in usual.iter().chain(&others) {
        // Files that are not tables, or tables of other games, are passed
        // over: the directory may hold anything.
        let Ok(raw) = RawTable::open(path) else {
            continue;
        };
        if raw.header().spec != want {
            continue;
        }
        let kind = raw.header().kind();
        match Tablebase::from_raw(raw) {
            Ok(_) if kind == TableKind::Value => return Ok(path.clone()),
            Ok(_) => {
                nimbers.get_or_insert_with(|| path.clone());
            }
            Err(e) => {
                unusable.get_or_insert(Error::File {
                    path: path.clone(),
                    error: Box::new(e),
                });
            }
        }
    }
    if let Some(path) = nimbers {
        return Ok(path);
    }
    if let Some(e) = unusable {
        return Err(e);
    }
    Err(Error::NoTable {
        spec: want,
        dir: dir.to_path_buf(),
        command: format!(
            "retrograde solve {} -o {}",
            shell_word(spec),
            shell_word(&usual[0].to_string_lossy())
        ),
    })
}

/// `text` as one shell word: as is when it holds only characters no shell
/// reads specially, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":,.=/_+-".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

impl Tablebase {
    /// Opens the table of the game `spec` in `dir`, found by its header's
    /// spec ([`find_table`]).
    pub fn open_in(dir: impl AsRef<Path>, spec: &str) -> Result<Tablebase> {
        let path = find_table(dir.as_ref(), spec)?;
        Tablebase::open(&path).map_err(|e| match e {
            Error::Io { .. } => e,
            e => Error::File {
                path,
                error: Box::new(e),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("isolation:4x4"), "isolation:4x4");
        assert_eq!(
            shell_word("tablebases/isolation-4x4.rtb"),
            "tablebases/isolation-4x4.rtb"
        );
        assert_eq!(shell_word("my tables/x.rtb"), "'my tables/x.rtb'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
