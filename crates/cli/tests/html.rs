//! `memplan html` and `memplan_cli::api::standalone`: one self-contained HTML file
//! from a page folder and a data file. (The browser test
//! `tests/browser/standalone.test.mjs` opens real ones from file:// and in a srcdoc.)

memplan_testkit::cli!();

use flate2::read::GzDecoder;
use memplan_cli::api::{standalone, Page};
use std::io::Read;
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The required lines of `www/site.txt`.
fn site_files() -> Vec<String> {
    let list = std::fs::read_to_string(memplan_testkit::root().join("www/site.txt")).unwrap();
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('?'))
        .map(String::from)
        .collect()
}

/// A page folder: the real index.html, list, stylesheet, favicon and bootstrap, and
/// a stand-in for every other file the list names (a built page is not needed).
fn fake_page(test: &str) -> PathBuf {
    let page = fresh_dir(&format!("{test}-page"));
    let real = [
        "index.html",
        "www/site.txt",
        "www/style.css",
        "www/favicon.svg",
        "www/standalone.js",
    ];
    for path in site_files()
        .iter()
        .map(String::as_str)
        .chain(["www/site.txt"])
    {
        let to = page.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if real.contains(&path) {
            std::fs::copy(memplan_testkit::root().join(path), &to).unwrap();
        } else {
            std::fs::write(&to, stand_in(path)).unwrap();
        }
    }
    page
}

fn stand_in(path: &str) -> Vec<u8> {
    let mut bytes = format!("stand-in for {path} </script> <!-- & \"").into_bytes();
    if path.ends_with(".wasm") {
        bytes.extend((0..=255u8).cycle().take(5000));
    }
    bytes
}

/// The JSON table the bootstrap reads.
fn table(html: &str) -> serde_json::Value {
    let open = r#"<script type="application/json" id="memplan-standalone">"#;
    let start = html.find(open).expect("the table") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// The bytes of a gzipped, base64 entry.
fn unpacked(gz: &serde_json::Value) -> Vec<u8> {
    let text = gz.as_str().unwrap().trim_end_matches('=');
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut bits = 0u32;
    let mut count = 0;
    let mut packed = Vec::new();
    for c in text.bytes() {
        bits = bits << 6 | value(c) as u32;
        count += 6;
        if count >= 8 {
            count -= 8;
            packed.push((bits >> count) as u8);
        }
    }
    let mut out = Vec::new();
    GzDecoder::new(&packed[..]).read_to_end(&mut out).unwrap();
    out
}

#[test]
fn every_page_file_is_inlined_and_none_is_referred_to() {
    let page = fake_page("all");
    let data = b"{\"name\": \"<tiny>\"}";
    let view = [("strategy".to_string(), "best-fit".to_string())];
    let html = standalone(&Page::Folder(&page), "tiny<&>.json", data, &view).unwrap();
    for attr in ["src=\"www/", "href=\"www/"] {
        assert!(!html.contains(attr), "{attr} is left");
    }
    let style = std::fs::read_to_string(page.join("www/style.css")).unwrap();
    assert!(html.contains(&format!("<style>\n{style}</style>")));
    let bootstrap = std::fs::read_to_string(page.join("www/standalone.js")).unwrap();
    assert!(html.contains(&format!("<script type=\"module\">\n{bootstrap}</script>")));
    assert!(
        html.contains("href=\"data:image/svg+xml;base64,"),
        "the favicon"
    );
    // one script ends each script element: the table's strings escape `<`
    assert_eq!(html.matches("</script>").count(), 2);

    let table = table(&html);
    let files = table["files"].as_array().unwrap();
    for path in site_files() {
        if !path.starts_with("www/")
            || ["www/style.css", "www/favicon.svg", "www/standalone.js"].contains(&path.as_str())
        {
            continue;
        }
        let entry = files
            .iter()
            .find(|f| f["path"] == path.as_str())
            .unwrap_or_else(|| panic!("{path} is not in the file"));
        assert_eq!(unpacked(&entry["gz"]), stand_in(&path), "{path}");
        let wasm = path.ends_with(".wasm");
        assert_eq!(
            entry["type"],
            if wasm {
                "application/wasm"
            } else {
                "text/javascript"
            },
            "{path}"
        );
    }
    assert!(files.len() >= 25, "{} files", files.len());
    assert_eq!(table["file"]["name"], "tiny<&>.json");
    assert_eq!(unpacked(&table["file"]["gz"]), data);
    assert_eq!(table["view"], "strategy=best-fit");
    let _ = std::fs::remove_dir_all(&page);
}

#[test]
fn a_page_that_is_not_there_or_not_built_says_so() {
    let nowhere = Path::new("/nonexistent/memplan-page");
    let e = standalone(&Page::Folder(nowhere), "g.json", b"{}", &[]).unwrap_err();
    assert!(e.contains("the page is not built: run ./build.sh"), "{e}");

    let page = fake_page("unbuilt");
    std::fs::remove_file(page.join("www/pkg/memplan_snapshot_bg.wasm")).unwrap();
    let e = standalone(&Page::Folder(&page), "g.json", b"{}", &[]).unwrap_err();
    assert!(
        e.contains("memplan_snapshot_bg.wasm: missing (the page is not built: run ./build.sh)"),
        "{e}"
    );

    let (code, _, err) = memplan(&[
        "html",
        memplan_testkit::root()
            .join("examples/transformer_layer.json")
            .to_str()
            .unwrap(),
        "--page",
        "/nonexistent/memplan-page",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the page is not built: run ./build.sh"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&page);
}

#[test]
fn the_command_inlines_a_graph_without_weights_and_a_snapshot_as_it_is() {
    let page = fake_page("command");
    let out = fresh_dir("command-out");
    let root = memplan_testkit::root();
    let page_arg = page.to_str().unwrap();

    let html = out.join("t.html");
    let graph = root.join("examples/transformer_layer.json");
    let (code, stdout, err) = memplan(&[
        "html",
        graph.to_str().unwrap(),
        "--page",
        page_arg,
        "--out",
        html.to_str().unwrap(),
        "--strategy",
        "best-fit",
        "--view",
        "compare=naive",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("transformer_layer.json inlined"),
        "{stdout}"
    );
    let table = table(&std::fs::read_to_string(&html).unwrap());
    assert_eq!(table["file"]["name"], "transformer_layer.json");
    // plan's search budget unless the view names one
    assert_eq!(table["view"], "strategy=best-fit&compare=naive&budget=1000");
    let native: serde_json::Value =
        serde_json::from_slice(&unpacked(&table["file"]["gz"])).unwrap();
    assert_eq!(native["name"], "transformer_layer");

    let snapshot = root.join("tests/data/mlp_train.pickle");
    let (code, _, err) = memplan(&[
        "html",
        snapshot.to_str().unwrap(),
        "--page",
        page_arg,
        "--out",
        html.to_str().unwrap(),
        "--budget",
        "200",
    ]);
    assert_eq!(code, 0, "{err}");
    let table = self::table(&std::fs::read_to_string(&html).unwrap());
    assert_eq!(table["file"]["name"], "mlp_train.pickle");
    assert_eq!(table["view"], "budget=200");
    assert_eq!(
        unpacked(&table["file"]["gz"]),
        std::fs::read(&snapshot).unwrap()
    );
    let _ = std::fs::remove_dir_all(&page);
    let _ = std::fs::remove_dir_all(&out);
}
