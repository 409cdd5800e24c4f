//! `retrograde completions`: a shell completion script.

use anyhow::Result;
use std::process::ExitCode;

/// Print a shell completion script.
#[derive(clap::Args)]
pub struct Args {
    /// Shell: bash, zsh, fish, elvish or powershell.
    shell: clap_complete::Shell,
}

/// Writes the script for `command`, the whole command line's parser (which
/// main owns).
pub fn run(args: Args, command: &mut clap::Command) -> Result<ExitCode> {
    clap_complete::generate(args.shell, command, "retrograde", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
