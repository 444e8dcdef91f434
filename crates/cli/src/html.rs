//! One self-contained HTML file of a memplan view: the built page (the `www/` files
//! `www/site.txt` lists), its wasm and one data file, all inlined, so the file opens
//! the view in any browser from a `file://` URL or inside a notebook's iframe with no
//! request outside it. [`standalone`] writes it from bytes (the Python package's
//! `memplan.html`); `memplan html FILE` ([`run`]) gives it a graph as memplan's JSON
//! without weights, an NPU case as contest JSON, or a PyTorch snapshot as it is.
//!
//! The layout of the file: `index.html` with its stylesheet in a `<style>`, the
//! favicon as a `data:` URL, and `www/standalone.js` (the bootstrap) in place of the
//! `www/main.js` script; before `</body>`, a JSON table of every other page file and
//! of the data file, each gzipped and in base64. The bootstrap inflates them into
//! `blob:` URLs, points each module's relative references at those URLs (leaves
//! first) and imports `main.js`, which opens the data file with its own name.

use crate::demo;
use crate::flags::PageArgs;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;
use std::path::{Component, Path};
use std::process::ExitCode;

/// The page's list of its files, relative to the page's folder.
const SITE_LIST: &str = "www/site.txt";
/// The bootstrap, inlined as the page's one script rather than in the table.
const BOOTSTRAP: &str = "www/standalone.js";
const STYLESHEET: &str = "www/style.css";
const STYLE_TAG: &str = r#"<link rel="stylesheet" href="www/style.css">"#;
const SCRIPT_TAG: &str = r#"<script type="module" src="www/main.js"></script>"#;
/// The id of the JSON table the bootstrap reads.
const TABLE_ID: &str = "memplan-standalone";

/// The HTML text of one self-contained file that opens `data` (named `file_name`:
/// a graph in any format memplan reads, an ONNX or TFLite model, an NPU case or a
/// PyTorch memory snapshot, pickled or gzipped) in the page built in folder `page`
/// (the repository's root, or a copy of the files `www/site.txt` lists), with the
/// first view's options `view` (such as `("strategy", "best-fit")`, as the page's
/// query string takes them). The error is a sentence for people.
pub fn standalone(
    page: &Page,
    file_name: &str,
    data: &[u8],
    view: &[(String, String)],
) -> Result<String, String> {
    let files = page_files(page)?;
    let mut index = read_text(page, "index.html")?;
    let css = read_text(page, STYLESHEET)?;
    let bootstrap = read_text(page, BOOTSTRAP)?;
    for (what, text, end) in [
        ("www/style.css", &css, "</style"),
        (BOOTSTRAP, &bootstrap, "</script"),
    ] {
        if text.to_ascii_lowercase().contains(end) || text.contains("<!--") {
            return Err(format!(
                "{what} holds `{end}` or `<!--`, which would end its inlined element"
            ));
        }
    }
    index = replace_once(&index, STYLE_TAG, &format!("<style>\n{css}</style>"))?;
    index = replace_once(
        &index,
        SCRIPT_TAG,
        &format!("<script type=\"module\">\n{bootstrap}</script>"),
    )?;
    index = inline_attributes(page, &index)?;

    let mut table = Vec::new();
    for path in files.iter().filter(|p| *p != STYLESHEET && *p != BOOTSTRAP) {
        let bytes = read_bytes(page, path)?;
        table.push(serde_json::json!({ "path": path, "type": mime(path), "gz": packed(&bytes) }));
    }
    let query: Vec<String> = view
        .iter()
        .map(|(k, v)| format!("{}={}", demo::encode(k), demo::encode(v)))
        .collect();
    let manifest = serde_json::json!({
        "files": table,
        "file": { "name": file_name, "gz": packed(data) },
        "view": query.join("&"),
    });
    // `<` only occurs inside the JSON's strings, where \u003c says the same: nothing
    // in the table can end its <script> element
    let json = manifest.to_string().replace('<', "\\u003c");
    let script = format!("<script type=\"application/json\" id=\"{TABLE_ID}\">{json}</script>\n");
    let at = index
        .rfind("</body>")
        .ok_or("index.html has no </body>: is the page folder a memplan page?")?;
    index.insert_str(at, &script);
    Ok(index)
}

/// `memplan html FILE [--out OUT.html]`: writes [`standalone`] of FILE. The page
/// searches as long as `memplan plan` does (its default budget) unless the view
/// says otherwise, so that it finds the plan `plan` reports.
pub(crate) fn run(args: PageArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let (name, data) = inlined_file(&args)?;
    let mut view = args.view.clone();
    if !view.iter().any(|(k, _)| k == "budget") {
        let budget = args.common.budget_ms.unwrap_or(crate::plan::PLAN_BUDGET_MS);
        view.push(("budget".into(), budget.to_string()));
    }
    let html = standalone(&Page::Folder(&args.page), &name, &data, &view)?;
    let out = match &args.out {
        Some(out) => out.clone(),
        None => default_out(&args.file).into(),
    };
    std::fs::write(&out, html.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!(
        "wrote {} ({} bytes): the page with {name} inlined; open it in any browser",
        out.display(),
        html.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The file `memplan html` inlines: a PyTorch snapshot as it is (the page reads
/// snapshots itself), else what `memplan demo` writes (a graph as memplan's JSON
/// without weights, an NPU case as contest JSON), named after FILE.
fn inlined_file(args: &PageArgs) -> Result<(String, Vec<u8>), Box<dyn std::error::Error>> {
    let file = &args.file;
    let snapshot = args
        .common
        .format
        .is_none_or(|f| f == memplan_formats::Format::Snapshot);
    let base = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "graph".into());
    if snapshot && crate::snapshot::is_snapshot_file(file) {
        let bytes =
            std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        return Ok((base, bytes));
    }
    let (_, text) = demo::demo_file(file, &args.common)?;
    Ok((format!("{}.json", stem(file)), text.into_bytes()))
}

/// FILE's name without its extension (and without `.gz` before that).
fn stem(file: &Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ if name.is_empty() => "memplan".to_string(),
        _ => name.to_string(),
    }
}

/// `OUT.html` beside the current folder: FILE's stem and `.html`.
fn default_out(file: &Path) -> String {
    format!("{}.html", stem(file))
}

/// The page files to inline: the required `www/` lines of `www/site.txt` (the
/// examples and the gallery's corpus copies are not part of a standalone view).
fn page_files(page: &Page) -> Result<Vec<String>, String> {
    if !page.has(SITE_LIST) {
        return Err(format!(
            "{}: no memplan page there (no {SITE_LIST}); the page is not built: run ./build.sh in the repository, or name the folder of a built page",
            page.name("")
        ));
    }
    let list = read_text(page, SITE_LIST)?;
    let mut files = Vec::new();
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with('?') {
            continue;
        }
        let inside = Path::new(line)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(format!(
                "{SITE_LIST}: `{line}` is not a path inside the page"
            ));
        }
        if line.starts_with("www/") {
            files.push(line.to_string());
        }
    }
    for path in &files {
        if !page.has(path) {
            let hint = if path.starts_with("www/pkg/") {
                " (the page is not built: run ./build.sh)"
            } else {
                ""
            };
            return Err(format!(
                "{}: missing{hint}; the page folder must hold every file {SITE_LIST} lists",
                page.name(path)
            ));
        }
    }
    Ok(files)
}

/// `index` with every other `src="www/..."` and `href="www/..."` (the favicon) as a
/// `data:` URL.
fn inline_attributes(page: &Page, index: &str) -> Result<String, String> {
    let mut out = String::with_capacity(index.len());
    let mut rest = index;
    loop {
        let next = ["src=\"www/", "href=\"www/"]
            .iter()
            .filter_map(|a| rest.find(a).map(|at| (at, a.len() - 4)))
            .min();
        let Some((at, name_len)) = next else { break };
        let path_at = at + name_len;
        let end = rest[path_at..]
            .find('"')
            .ok_or("index.html: an attribute is not closed")?;
        let path = &rest[path_at..path_at + end];
        let bytes = read_bytes(page, path)?;
        out.push_str(&rest[..path_at]);
        out.push_str(&format!("data:{};base64,{}", mime(path), base64(&bytes)));
        rest = &rest[path_at + end..];
    }
    out.push_str(rest);
    Ok(out)
}

fn replace_once(text: &str, from: &str, to: &str) -> Result<String, String> {
    if !text.contains(from) {
        return Err(format!(
            "index.html has no `{from}`: is the page folder a memplan page?"
        ));
    }
    Ok(text.replacen(from, to, 1))
}

fn read_bytes(page: &Page, path: &str) -> Result<Vec<u8>, String> {
    match page {
        Page::Folder(folder) => {
            let file = folder.join(path);
            std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))
        }
        Page::Files(files) => files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, bytes)| bytes.to_vec())
            .ok_or_else(|| format!("{path}: not among the page's files")),
    }
}

fn read_text(page: &Page, path: &str) -> Result<String, String> {
    let bytes = read_bytes(page, path)?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", page.name(path)))
}

/// Where the built page is: a folder (the repository's root, or a copy of the files
/// `www/site.txt` lists), or its files held in memory (the Python package embeds
/// them), by path.
pub enum Page<'a> {
    Folder(&'a Path),
    Files(&'a [(&'a str, &'a [u8])]),
}

impl Page<'_> {
    fn has(&self, path: &str) -> bool {
        match self {
            Page::Folder(folder) => folder.join(path).is_file(),
            Page::Files(files) => files.iter().any(|(p, _)| *p == path),
        }
    }

    /// How a message names `path` in the page.
    fn name(&self, path: &str) -> String {
        match self {
            Page::Folder(folder) => folder.join(path).display().to_string(),
            Page::Files(_) => format!("the embedded page's {path}"),
        }
    }
}

/// The media type a `blob:` or `data:` URL of `path` carries.
fn mime(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js" | "mjs") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("html") => "text/html",
        _ => "application/octet-stream",
    }
}

/// `bytes` gzipped, in base64.
fn packed(bytes: &[u8]) -> String {
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(bytes).expect("writing to memory");
    base64(&gz.finish().expect("writing to memory"))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_as_the_browser_reads_it() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn the_default_name_drops_the_extension_and_gz() {
        assert_eq!(
            default_out(Path::new("a/mlp_train.pickle")),
            "mlp_train.html"
        );
        assert_eq!(default_out(Path::new("snap.pickle.gz")), "snap.html");
        assert_eq!(default_out(Path::new("model")), "model.html");
        assert_eq!(default_out(Path::new(".json")), ".json.html");
    }
}
