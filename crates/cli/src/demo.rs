//! `memplan demo MODEL --out DIR`: a static demo of one model's memory plan. DIR
//! gets the built page (the files `www/site.txt` lists), the model's graph as
//! memplan's JSON without weights (an NPU case as it is) in `demo/`, and an
//! `index.html` whose `memplan-demo` meta names the view it opens first. Any static
//! host serves DIR as it is; the page's "Download demo" writes the same files.

use crate::common::load;
use crate::flags::{Common, PageArgs};
use memplan_formats as formats;
use std::path::{Component, Path};
use std::process::ExitCode;

/// The list of the page's files, relative to the page's folder.
const SITE_LIST: &str = "www/site.txt";
/// The placeholder in `index.html` that a bundle fills with its first view.
const DEMO_META: &str = r#"<meta name="memplan-demo" content="">"#;

pub(crate) fn run(args: PageArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let page = &args.page;
    let out = args.out.as_ref().ok_or("demo: missing --out DIR")?;
    let files = site_files(page)?;
    let (name, content) = demo_file(&args.file, &args.common)?;
    std::fs::create_dir_all(out.join("demo"))
        .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut copied = 0;
    for path in &files {
        copied += copy_page_file(page, out, path)? as usize;
    }
    write(&out.join("demo").join(name), content.as_bytes())?;
    let mut first = vec![("src".to_string(), format!("demo/{name}"))];
    first.extend(args.view);
    let index = read_page_file(page, "index.html")?;
    write(
        &out.join("index.html"),
        with_first_view(&index, &first)?.as_bytes(),
    )?;
    println!(
        "wrote {}: the page ({copied} files) opening demo/{name} first; serve it with any static server",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The demo's file: an NPU case as contest JSON, any other input as memplan's JSON.
pub(crate) fn demo_file(
    file: &Path,
    common: &Common,
) -> Result<(&'static str, String), Box<dyn std::error::Error>> {
    if let Some(case) = crate::case::case_at(file)? {
        return Ok(("case.json", formats::npu::write_json(&case)));
    }
    let graph = load(file, common.format, &common.read)?;
    Ok(("graph.json", formats::write_native(&graph)))
}

/// The page files `page/www/site.txt` lists: `(path, required)`.
fn site_files(page: &Path) -> Result<Vec<(String, bool)>, Box<dyn std::error::Error>> {
    let list = read_page_file(page, SITE_LIST)?;
    let mut files = Vec::new();
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (path, required) = match line.strip_prefix('?') {
            Some(p) => (p, false),
            None => (line, true),
        };
        let inside = Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(format!("{SITE_LIST}: `{path}` is not a path inside the page").into());
        }
        if path != "index.html" {
            files.push((path.to_string(), required));
        }
    }
    Ok(files)
}

/// Copies one page file into `out`; a missing optional one is skipped (false).
fn copy_page_file(
    page: &Path,
    out: &Path,
    (path, required): &(String, bool),
) -> Result<bool, Box<dyn std::error::Error>> {
    let from = page.join(path);
    if !from.exists() {
        if *required {
            let hint = if path.starts_with("www/pkg/") {
                " (the page is not built: run ./build.sh)"
            } else {
                ""
            };
            return Err(format!(
                "{}: missing{hint}; --page names the folder of a built page",
                from.display()
            )
            .into());
        }
        return Ok(false);
    }
    let to = out.join(path);
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::copy(&from, &to)
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    Ok(true)
}

fn read_page_file(page: &Path, path: &str) -> Result<String, Box<dyn std::error::Error>> {
    let file = page.join(path);
    std::fs::read_to_string(&file).map_err(|e| {
        format!(
            "{}: {e}; --page names the folder of a built page (default: .)",
            file.display()
        )
        .into()
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// `index` with its demo placeholder naming `view` (a query string, escaped for an
/// HTML attribute) as the view it opens first.
fn with_first_view(index: &str, view: &[(String, String)]) -> Result<String, String> {
    if !index.contains(DEMO_META) {
        return Err(format!(
            "index.html has no `{DEMO_META}` to fill: is --page a memplan page?"
        ));
    }
    let query: Vec<String> = view
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    let content = query.join("&").replace('&', "&amp;");
    Ok(index.replacen(
        DEMO_META,
        &format!(r#"<meta name="memplan-demo" content="{content}">"#),
        1,
    ))
}

/// Percent-encodes what a query string value may not carry as it is.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/:;,".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_view_is_escaped_for_the_attribute() {
        let index = format!("<head>{DEMO_META}</head>");
        let view = [
            ("src".into(), "demo/graph.json".into()),
            ("select".into(), "3\"<x>&".into()),
        ];
        let out = with_first_view(&index, &view).unwrap();
        assert_eq!(
            out,
            r#"<head><meta name="memplan-demo" content="src=demo/graph.json&amp;select=3%22%3Cx%3E%26"></head>"#
        );
        assert!(with_first_view("<head></head>", &view).is_err());
    }
}
