//! The `memplan` binary: the command line of [`memplan_cli`], with the heap counted
//! for `bench-import` and a closed pipe ending the process as it ends Unix tools.

use std::process::ExitCode;

#[global_allocator]
static ALLOC: memplan_cli::Counting = memplan_cli::Counting;

/// A closed stdout (`memplan plan ... | head`) ends the process as it ends Unix
/// tools, by SIGPIPE, instead of a panic on the next print: Rust ignores the
/// signal by default, this restores it.
#[cfg(unix)]
fn die_on_closed_pipes() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: sets the disposition of one signal to the default, before any
    // thread starts; no handler of ours runs.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    die_on_closed_pipes();
    ExitCode::from(memplan_cli::run_args(std::env::args_os().skip(1)))
}
