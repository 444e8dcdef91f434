//! `memplan demo`: a static demo folder from a page folder and a graph, and the list
//! of the page's files it copies (`www/site.txt`) kept true to the page.
//! (The browser test `tests/browser/demo.test.mjs` serves real bundles.)

memplan_testkit::cli!();

use memplan_npu::case::default_levels;
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-demo-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A page folder holding every file `www/site.txt` lists (the real index.html and
/// list, stand-ins for the rest), without the optional ones. `test` names the folder:
/// tests run at once, and two sharing one folder would remove it under each other.
fn fake_page(test: &str, without: Option<&str>) -> PathBuf {
    let page = fresh_dir(&format!(
        "{test}-page-{}",
        without.unwrap_or("all").replace('/', "_")
    ));
    let list = std::fs::read_to_string(memplan_testkit::root().join("www/site.txt")).unwrap();
    for path in site_entries(&list)
        .into_iter()
        .filter(|(_, required)| *required)
    {
        let to = page.join(&path.0);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        match path.0.as_str() {
            "index.html" => std::fs::copy(memplan_testkit::root().join("index.html"), &to)
                .map(|_| ())
                .unwrap(),
            p if Some(p) == without => {}
            p => std::fs::write(&to, format!("stand-in for {p}")).unwrap(),
        }
    }
    std::fs::create_dir_all(page.join("www")).unwrap();
    std::fs::copy(
        memplan_testkit::root().join("www/site.txt"),
        page.join("www/site.txt"),
    )
    .unwrap();
    page
}

/// `(path, required)` of each line of the list.
fn site_entries(list: &str) -> Vec<(String, bool)> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.strip_prefix('?') {
            Some(p) => (p.to_string(), false),
            None => (l.to_string(), true),
        })
        .collect()
}

fn meta_content(index: &str) -> String {
    let start = index
        .find(r#"<meta name="memplan-demo" content=""#)
        .expect("the demo meta")
        + 35;
    let end = start + index[start..].find('"').unwrap();
    index[start..end].to_string()
}

#[test]
fn demo_writes_the_page_the_graph_and_the_first_view() {
    let page = fake_page("demo", None);
    let out = fresh_dir("out");
    let (code, stdout, stderr) = memplan(&[
        "demo",
        "examples/teach/residual.json",
        "--out",
        out.to_str().unwrap(),
        "--page",
        page.to_str().unwrap(),
        "--strategy",
        "best-fit",
        "--view",
        "select=2&colour=op",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("opening demo/graph.json first"), "{stdout}");
    for (path, required) in site_entries(
        &std::fs::read_to_string(memplan_testkit::root().join("www/site.txt")).unwrap(),
    ) {
        assert_eq!(out.join(&path).exists(), required, "{path}");
    }
    let main = std::fs::read_to_string(out.join("www/main.js")).unwrap();
    assert_eq!(main, "stand-in for www/main.js");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        meta_content(&index),
        "src=demo/graph.json&amp;strategy=best-fit&amp;select=2&amp;colour=op"
    );
    assert_eq!(
        index.matches("memplan-demo").count(),
        std::fs::read_to_string(memplan_testkit::root().join("index.html"))
            .unwrap()
            .matches("memplan-demo")
            .count()
    );

    // the bundled graph plans as the file does
    let graph = out.join("demo/graph.json");
    let (_, from_demo, _) = memplan(&["plan", graph.to_str().unwrap(), "--strategy", "best-fit"]);
    let (_, from_file, _) = memplan(&[
        "plan",
        "examples/teach/residual.json",
        "--strategy",
        "best-fit",
    ]);
    let peak = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("peak"))
            .map(str::to_string)
    };
    assert!(peak(&from_demo).is_some());
    assert_eq!(peak(&from_demo), peak(&from_file));
    assert!(from_demo.contains("check        valid"), "{from_demo}");
}

#[test]
fn an_npu_case_is_bundled_as_contest_json() {
    let page = fake_page("npu", None);
    let out = fresh_dir("npu");
    let case = "examples/npu_tiny_matmul.json";
    let (code, _, stderr) = memplan(&[
        "demo",
        case,
        "--out",
        out.to_str().unwrap(),
        "--page",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let read = |path: &Path| {
        let data = std::fs::read(path).unwrap();
        memplan_formats::npu::read_json(&data, "c", default_levels()).unwrap()
    };
    assert_eq!(
        read(&out.join("demo/case.json")),
        read(&memplan_testkit::root().join(case))
    );
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(meta_content(&index), "src=demo/case.json");
}

#[test]
fn demo_errors_say_what_is_missing() {
    let out = fresh_dir("errors");
    let unbuilt = fake_page("errors", Some("www/pkg/memplan_worker_bg.wasm"));
    let run = |args: &[&str]| {
        memplan(
            &[
                &[
                    "demo",
                    "examples/teach/chain.json",
                    "--out",
                    out.to_str().unwrap(),
                ],
                args,
            ]
            .concat(),
        )
    };
    let (code, _, err) = run(&["--page", unbuilt.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        err.contains("memplan_worker_bg.wasm: missing (the page is not built: run ./build.sh)"),
        "{err}"
    );
    let (code, _, err) = run(&["--page", out.join("nowhere").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        err.contains("www/site.txt") && err.contains("--page names the folder of a built page"),
        "{err}"
    );
    let (code, _, err) = run(&["--view", "src=https://elsewhere.example/x.json"]);
    assert_ne!(code, 0);
    assert!(err.contains("`src` is set by the bundle"), "{err}");
    let (code, _, err) = run(&["--strategy", "fastest"]);
    assert_ne!(code, 0);
    assert!(err.contains("fastest"), "{err}");
}

/// Every module and asset of the page is in the list (else a demo would miss it),
/// and every listed source file exists.
#[test]
fn the_site_list_is_the_page() {
    let list = site_entries(
        &std::fs::read_to_string(memplan_testkit::root().join("www/site.txt")).unwrap(),
    );
    let listed: Vec<&str> = list.iter().map(|(p, _)| p.as_str()).collect();
    for entry in std::fs::read_dir(memplan_testkit::root().join("www")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let page_file = [".js", ".css", ".svg"]
            .iter()
            .any(|ext| name.ends_with(ext));
        if page_file {
            assert!(
                listed.contains(&format!("www/{name}").as_str()),
                "www/site.txt misses www/{name}"
            );
        }
    }
    for (path, required) in &list {
        let built = path.starts_with("www/pkg/") || !required;
        assert!(
            built || memplan_testkit::root().join(path).is_file(),
            "www/site.txt lists {path}, which is not there"
        );
    }
    // every example the gallery and the exercises open is listed
    for file in ["www/gallery.js", "www/teach-exercises.js"] {
        let js = std::fs::read_to_string(memplan_testkit::root().join(file)).unwrap();
        for url in js
            .split("url: '")
            .skip(1)
            .map(|s| &s[..s.find('\'').unwrap()])
        {
            assert!(
                listed.contains(&url),
                "www/site.txt misses {url}, which {file} opens"
            );
        }
    }
}
