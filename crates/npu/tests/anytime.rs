//! Anytime NPU solving: a valid plan before any search, strictly better ones after
//! it, the returned plan last, a stop that keeps the best so far, and a watched
//! solve that gives the plan an unwatched one gives.

use memplan_formats::npu::read_json;
use memplan_npu::case::default_levels;
use memplan_npu::check::check_npu;
use memplan_npu::checked::solve_checked_watched;
use memplan_npu::export::contest_files;
use memplan_npu::problem::Problem;
use memplan_npu::solve::{solve, solve_watched, Method, Solution};
use memplan_npu::watch::Watch;
use memplan_npu::Case;

const PROBLEMS: [Problem; 3] = [Problem::Residency, Problem::Movement, Problem::Makespan];

fn read_case(path: &std::path::Path) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    read_json(&std::fs::read(path).unwrap(), &name, default_levels()).unwrap()
}

/// The corpus's five public cases; `None` when the corpus is absent (the test
/// skips, see `memplan_testkit::corpus_dir`).
fn public_cases() -> Option<Vec<Case>> {
    let files = memplan_testkit::corpus_files("npu", "json", 5)?;
    Some(files.iter().map(|p| read_case(p)).collect())
}

/// One public case by name (the corpus must hold all five).
fn public_case(name: &str) -> Option<Case> {
    let path = memplan_testkit::corpus_files("npu", "json", 5)?
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == name))
        .unwrap_or_else(|| panic!("{name}.json in the corpus"));
    Some(read_case(&path))
}

fn tiny() -> Case {
    read_case(&memplan_testkit::root().join("examples/npu_tiny_matmul.json"))
}

/// What the watch saw, in order.
#[derive(Debug, PartialEq)]
enum Seen {
    Better,
    Asked,
}

/// The figure a problem minimises first, then the second.
fn key(s: &Solution) -> (u64, u64) {
    match s.problem {
        Problem::Residency => (s.p1_peak, 0),
        Problem::Movement => (s.extra_movement(), s.makespan().unwrap()),
        Problem::Makespan => (s.makespan().unwrap(), s.extra_movement()),
    }
}

/// The plans shown and the events seen, solving with a stop that says yes from
/// the `stop_at`-th ask on.
fn watched(case: &Case, problem: Problem, stop_at: usize) -> (Solution, Vec<Solution>, Vec<Seen>) {
    let mut shown: Vec<Solution> = Vec::new();
    let mut seen: Vec<Seen> = Vec::new();
    let seen_cell = std::cell::RefCell::new(&mut seen);
    let mut asks = 0usize;
    let mut better = |s: &Solution| {
        shown.push(s.clone());
        seen_cell.borrow_mut().push(Seen::Better);
    };
    let mut stop = || {
        seen_cell.borrow_mut().push(Seen::Asked);
        asks += 1;
        asks >= stop_at
    };
    let checked = solve_checked_watched(
        case,
        problem,
        Method::Best,
        &mut Watch::new(&mut better, &mut stop),
    )
    .unwrap();
    assert!(
        checked.agrees(problem),
        "{} p{problem}: the checker rejects the plan returned after a stop: {:?}",
        case.name,
        &checked.report.violations[..checked.report.violations.len().min(3)]
    );
    (checked.solution, shown, seen)
}

/// Every plan shown passes the independent checker with the figures it claims.
fn assert_valid(case: &Case, s: &Solution) {
    let report = check_npu(case, s.problem, &contest_files(case, s));
    assert!(
        report.valid,
        "{} p{}: a shown plan is invalid: {:?}",
        case.name,
        s.problem,
        &report.violations[..report.violations.len().min(3)]
    );
    assert_eq!(report.p1_peak, s.p1_peak, "{}", case.name);
    if s.problem.places() {
        assert_eq!(report.extra_movement, s.extra_movement(), "{}", case.name);
        assert_eq!(report.makespan, s.makespan(), "{}", case.name);
    }
}

/// On every public case and problem the first plan comes before the first ask
/// (no search step runs before it); stopped at that ask, the solve returns a
/// checked plan, the last one shown.
#[test]
fn a_valid_plan_comes_before_any_search_and_a_stop_keeps_it() {
    let Some(cases) = public_cases() else {
        return;
    };
    for case in cases {
        for problem in PROBLEMS {
            let (result, shown, seen) = watched(&case, problem, 1);
            assert_eq!(
                seen.first(),
                Some(&Seen::Better),
                "{} p{problem}: asked to stop before the first plan",
                case.name
            );
            let first = shown.first().unwrap();
            assert_valid(&case, first);
            assert_eq!(
                shown.last().unwrap().plan,
                result.plan,
                "{} p{problem}: the returned plan was not shown last",
                case.name
            );
            if problem != Problem::Makespan {
                // nothing but the first plans before the first ask
                assert!(key(&result) <= key(first), "{} p{problem}", case.name);
            }
        }
    }
}

/// Run to its end, a watched solve shows strictly better plans (by the problem's
/// own figures; Problem 3 within its movement band), every one valid, the
/// returned plan last, and returns what an unwatched solve returns.
#[test]
fn improvements_are_strictly_better_and_end_with_the_unwatched_result() {
    let Some(flash) = public_case("FlashAttention_Case0") else {
        return;
    };
    let runs = [
        (tiny(), Problem::Residency),
        (tiny(), Problem::Movement),
        (tiny(), Problem::Makespan),
        (flash, Problem::Movement),
    ];
    for (case, problem) in runs {
        let (result, shown, _) = watched(&case, problem, usize::MAX);
        assert!(!shown.is_empty());
        for s in &shown {
            assert_valid(&case, s);
        }
        if problem != Problem::Makespan {
            for w in shown.windows(2) {
                assert!(
                    key(&w[1]) < key(&w[0]),
                    "{} p{problem}: {:?} shown after {:?}",
                    case.name,
                    key(&w[1]),
                    key(&w[0])
                );
            }
        }
        assert_eq!(shown.last().unwrap().plan, result.plan, "{}", case.name);
        let plain = solve(&case, problem, Method::Best).unwrap();
        assert_eq!(plain.plan, result.plan, "{} p{problem}", case.name);
        assert_eq!(plain.recipe, result.recipe, "{} p{problem}", case.name);
        let quiet = solve_watched(&case, problem, Method::Best, &mut Watch::none()).unwrap();
        assert_eq!(quiet.plan, result.plan, "{} p{problem}", case.name);
    }
}

/// On Problem 2 the search shows several plans on a public case: the user sees it
/// improve, not only the first and the last.
#[test]
fn problem_2_shows_more_than_the_first_and_last_plan() {
    let Some(case) = public_case("Conv_Case0") else {
        return;
    };
    // stop after a few thousand asks: the portfolio's first orders and a search
    let (_, shown, _) = watched(&case, Problem::Movement, 3_000);
    assert!(shown.len() >= 3, "only {} plans shown", shown.len());
}

/// A solve at a fixed share of the default work on `threads` threads, checked,
/// and the plans it showed.
fn on_threads(case: &Case, problem: Problem, threads: usize) -> (Solution, usize) {
    let mut shown = 0usize;
    let mut better = |_: &Solution| shown += 1;
    let mut watch = Watch::improvements(&mut better)
        .with_effort(0.05)
        .with_threads(threads);
    let checked = solve_checked_watched(case, problem, Method::Best, &mut watch).unwrap();
    assert!(checked.agrees(problem), "{} p{problem}", case.name);
    (checked.solution, shown)
}

/// The portfolio's independent parts run side by side, and the plan is the same
/// on one thread as on two or three (only the order better plans are seen in may
/// change).
#[test]
fn the_thread_count_does_not_change_the_plan() {
    for (name, problem) in [
        ("Conv_Case0", Problem::Residency),
        ("FlashAttention_Case0", Problem::Movement),
        ("FlashAttention_Case0", Problem::Makespan),
        ("Matmul_Case0", Problem::Movement),
    ] {
        let Some(case) = public_case(name) else {
            return;
        };
        let (one, shown) = on_threads(&case, problem, 1);
        assert!(shown >= 2, "{name} p{problem}: {shown} plan(s) shown");
        for threads in [2, 3] {
            let (many, shown) = on_threads(&case, problem, threads);
            assert!(shown >= 2, "{name} p{problem}: {shown} plan(s) shown");
            assert_eq!(
                many.plan, one.plan,
                "{name} p{problem}: {threads} threads found another plan"
            );
            assert_eq!(many.recipe, one.recipe);
        }
    }
}

/// On several threads a stop still ends the solve with a valid plan, the last
/// one shown.
#[test]
fn a_stop_on_several_threads_keeps_the_best_plan_so_far() {
    let Some(case) = public_case("Conv_Case0") else {
        return;
    };
    let mut shown: Vec<Solution> = Vec::new();
    let mut better = |s: &Solution| shown.push(s.clone());
    let mut asks = 0usize;
    let mut stop = || {
        asks += 1;
        asks > 200
    };
    let mut watch = Watch::new(&mut better, &mut stop).with_threads(2);
    let checked =
        solve_checked_watched(&case, Problem::Movement, Method::Best, &mut watch).unwrap();
    assert!(checked.agrees(Problem::Movement));
    let last = shown.last().expect("plans were shown");
    assert_eq!(last.plan, checked.solution.plan);
}

/// `Watch::with_seed` (the CLI's `--seed`) draws every search's choices from other
/// seeds: each seed gives a valid plan, the same on one thread as on two, and some
/// seed another plan than the default one (so the seed reaches the searches).
#[test]
fn a_seed_gives_other_valid_plans_of_the_same_searches() {
    let Some(case) = public_case("FlashAttention_Case0") else {
        return;
    };
    let seeded = |seed: u64, threads: usize| {
        let mut watch = Watch::none()
            .with_effort(0.05)
            .with_threads(threads)
            .with_seed(seed);
        let checked =
            solve_checked_watched(&case, Problem::Makespan, Method::Best, &mut watch).unwrap();
        assert!(
            checked.report.valid && checked.agrees(Problem::Makespan),
            "seed {seed}"
        );
        checked.solution.plan
    };
    let default = seeded(0, 1);
    let mut other = 0;
    for seed in 1..=3 {
        let plan = seeded(seed, 1);
        assert_eq!(
            plan,
            seeded(seed, 2),
            "seed {seed}: two threads found another plan"
        );
        other += usize::from(plan != default);
    }
    assert!(other > 0, "every seed gave the default plan");
}
