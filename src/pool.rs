//! Independent jobs on a few threads, their results in job order.
//!
//! A search made of independent parts (the NPU portfolio's orders, its
//! allocator-judged starts; `best-fit`'s two passes, through [`both`]) runs them
//! here; [`spare_core`] and [`beside`] give `search`'s minimiser a thread for
//! its decision at the bound, which talks to the caller's side through atomics. Each job is deterministic in its own
//! inputs and the results come back by job index, so the result is the same
//! whatever the number of threads. With one thread (the wasm build, and any caller
//! that does not ask for more) the jobs run in order on the calling thread, and
//! talk to the caller directly, as a plain loop would.
//!
//! With more, the calling thread does no job: it hands the caller each message the
//! jobs send (a better plan, to stream) and asks the caller's stop between them; once
//! that says yes, a flag the jobs read tells them to end, and the jobs not started
//! are skipped. Only std: scoped threads, a channel and an atomic flag.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// The caller of [`run`], on the calling thread: it sees the jobs' messages and
/// says when to stop.
pub trait Caller<M> {
    fn seen(&mut self, message: M);
    /// True once the caller wants the jobs to end (asked again until then).
    fn stopped(&mut self) -> bool;
}

/// What a job holds of its caller: [`Link::send`] a message, ask [`Link::stopped`].
pub struct Link<'a, M> {
    to: To<'a, M>,
}

enum To<'a, M> {
    /// The job runs on the calling thread.
    Here(&'a dyn Shared<M>),
    /// The job runs on a thread of its own.
    Thread(mpsc::Sender<M>, &'a AtomicBool),
}

impl<M> Link<'_, M> {
    pub fn send(&self, message: M) {
        match &self.to {
            To::Here(caller) => caller.seen(message),
            // the receiver outlives every job
            To::Thread(tx, _) => drop(tx.send(message)),
        }
    }

    pub fn stopped(&self) -> bool {
        match &self.to {
            To::Here(caller) => caller.stopped(),
            To::Thread(_, stop) => stop.load(Ordering::Relaxed),
        }
    }
}

/// The caller shared by the jobs that run on its thread, one at a time.
trait Shared<M> {
    fn seen(&self, message: M);
    fn stopped(&self) -> bool;
}

impl<M, C: Caller<M> + ?Sized> Shared<M> for RefCell<&mut C> {
    fn seen(&self, message: M) {
        self.borrow_mut().seen(message)
    }

    fn stopped(&self) -> bool {
        self.borrow_mut().stopped()
    }
}

/// How long the calling thread waits for a message before it asks the stop again.
/// Only when the caller learns of a stop depends on it, never a result.
const ASK_EVERY: Duration = Duration::from_millis(2);

/// Runs `jobs` on up to `threads` threads: the result of each by its index, `None`
/// for a job skipped because the caller had stopped before it began.
pub fn run<M, T, J>(threads: usize, jobs: Vec<J>, caller: &mut dyn Caller<M>) -> Vec<Option<T>>
where
    M: Send,
    T: Send,
    J: FnOnce(&Link<M>) -> T + Send,
{
    let threads = threads.min(jobs.len());
    // (the wasm build has one thread: its threaded code is left out)
    if threads <= 1 || cfg!(target_arch = "wasm32") {
        let caller = RefCell::new(caller);
        let link = Link {
            to: To::Here(&caller),
        };
        return jobs
            .into_iter()
            .map(|job| (!link.stopped()).then(|| job(&link)))
            .collect();
    }
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let count = jobs.len();
    let jobs: Vec<Mutex<Option<J>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (stop, next, jobs, results) = (&stop, &next, &jobs, &results);
            scope.spawn(move || {
                let link = Link {
                    to: To::Thread(tx, stop),
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let job = lock(&jobs[i]).take().expect("each job is taken once");
                    let result = job(&link);
                    *lock(&results[i]) = Some(result);
                }
            });
        }
        // the channel closes when the last job thread ends
        drop(tx);
        loop {
            match rx.recv_timeout(ASK_EVERY) {
                Ok(message) => caller.seen(message),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if !stop.load(Ordering::Relaxed) && caller.stopped() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// `(a(), b())`, the two side by side where the machine has a core to give (never
/// in the wasm build, which has no threads): for two independent parts of one
/// result, which is then the same either way. A `both` inside another (each pass of
/// `best-fit` split in two halves) gets a thread only while another core is free.
pub fn both<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    match spare_core() {
        Some(core) => beside(core, a, b),
        None => {
            let first = a();
            (first, b())
        }
    }
}

/// A core lent to a second thread; given back when dropped.
pub struct Core(());

impl Drop for Core {
    fn drop(&mut self) {
        LENT.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Threads lent besides their callers ([`Core`]s not given back).
static LENT: AtomicUsize = AtomicUsize::new(0);

/// A core for a second thread, when the machine has one that no other [`Core`]
/// holds; never in the wasm build, which has no threads.
pub fn spare_core() -> Option<Core> {
    // asked once: the answer reads the process's CPU quota from files on Linux
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if cfg!(target_arch = "wasm32") || cores < 2 {
        return None;
    }
    let lent = LENT.fetch_add(1, Ordering::Relaxed);
    if lent + 1 < cores {
        return Some(Core(()));
    }
    LENT.fetch_sub(1, Ordering::Relaxed);
    None
}

/// A core lent whatever the machine has, for tests of the code that runs beside.
#[cfg(test)]
pub(crate) fn core_for_tests() -> Core {
    LENT.fetch_add(1, Ordering::Relaxed);
    Core(())
}

/// `(a(), b())` with `b` on a thread of its own, on `core` (given back however the
/// two end, a panic included).
pub fn beside<A, B, RA, RB>(core: Core, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let _core = core;
    std::thread::scope(|scope| {
        let other = scope.spawn(b);
        let first = a();
        let second = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}

/// A lock that a panicked job (which ends the whole run anyway) does not poison.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects messages; stops after `stop_after` asks.
    struct Collect {
        seen: Vec<u64>,
        asks: usize,
        stop_after: usize,
    }

    impl Caller<u64> for Collect {
        fn seen(&mut self, m: u64) {
            self.seen.push(m);
        }
        fn stopped(&mut self) -> bool {
            self.asks += 1;
            self.asks > self.stop_after
        }
    }

    fn jobs(n: u64) -> Vec<impl FnOnce(&Link<u64>) -> u64 + Send> {
        (0..n)
            .map(|i| {
                move |link: &Link<u64>| {
                    // some work, and a message per job
                    let mut x = i;
                    for k in 0..10_000u64 {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(k);
                    }
                    link.send(i);
                    x
                }
            })
            .collect()
    }

    #[test]
    fn both_gives_each_part_its_own_result() {
        let data: Vec<u64> = (1..=1000).collect();
        let (sum, max) = both(|| data.iter().sum::<u64>(), || data.iter().max().copied());
        assert_eq!((sum, max), (500_500, Some(1000)));
    }

    #[test]
    fn results_come_in_job_order_whatever_the_threads() {
        let mut one = Collect {
            seen: Vec::new(),
            asks: 0,
            stop_after: usize::MAX,
        };
        let expected = run(1, jobs(9), &mut one);
        assert!(expected.iter().all(Option::is_some));
        assert_eq!(one.seen, (0..9).collect::<Vec<_>>());
        for threads in [2, 3, 8] {
            let mut many = Collect {
                seen: Vec::new(),
                asks: 0,
                stop_after: usize::MAX,
            };
            assert_eq!(run(threads, jobs(9), &mut many), expected);
            many.seen.sort_unstable();
            assert_eq!(
                many.seen,
                (0..9).collect::<Vec<_>>(),
                "every message arrives"
            );
        }
    }

    #[test]
    fn a_stop_skips_the_jobs_not_begun() {
        // on one thread the stop is asked before each job: three run
        let mut caller = Collect {
            seen: Vec::new(),
            asks: 0,
            stop_after: 3,
        };
        let done = run(1, jobs(9), &mut caller);
        assert_eq!(done.iter().filter(|r| r.is_some()).count(), 3);
        assert!(done[..3].iter().all(Option::is_some));
        // on several, a stop at once leaves at most the jobs already taken
        let mut caller = Collect {
            seen: Vec::new(),
            asks: 0,
            stop_after: 0,
        };
        let slow: Vec<_> = (0..64u64)
            .map(|i| {
                move |link: &Link<u64>| {
                    while !link.stopped() {
                        std::thread::yield_now();
                    }
                    i
                }
            })
            .collect();
        let done = run(2, slow, &mut caller);
        assert!(done.iter().filter(|r| r.is_some()).count() <= 2);
    }
}
