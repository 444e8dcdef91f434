//! Embeds the built page (`index.html`, `www/site.txt` and the `www/` files it
//! lists: what `memplan_cli::api::standalone` inlines) so that `memplan.html` writes a self-contained view from the
//! wheel alone. Without a built page (`./build.sh` not run) the module builds
//! without it and `memplan.html` says what to run.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..");
    let list = root.join("www/site.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    match std::fs::read_to_string(&list) {
        Ok(text) => {
            let listed = text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("www/"));
            for line in ["index.html", "www/site.txt"].into_iter().chain(listed) {
                let file = root.join(line);
                println!("cargo:rerun-if-changed={}", file.display());
                if file.is_file() {
                    found.push((line.to_string(), absolute(&file)));
                } else {
                    missing.push(line.to_string());
                }
            }
        }
        Err(_) => missing.push("www/site.txt".to_string()),
    }
    if !missing.is_empty() {
        found.clear();
    }
    let mut out = String::from("/// The page's files, by path (none when it was not built).\n");
    out += "pub static PAGE: &[(&str, &[u8])] = &[\n";
    for (path, file) in &found {
        let _ = writeln!(
            out,
            "    ({path:?}, include_bytes!({:?})),",
            file.display().to_string()
        );
    }
    out += "];\n/// The page's files that were missing when this module was built.\n";
    let _ = writeln!(out, "pub static PAGE_MISSING: &[&str] = &{missing:?};");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("page.rs");
    std::fs::write(dest, out).unwrap();
}

fn absolute(file: &Path) -> PathBuf {
    file.canonicalize().unwrap_or_else(|_| file.to_path_buf())
}
