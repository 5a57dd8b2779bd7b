//! The README and the guide stay true:
//!
//! - every command of a ```` ```sh run ```` block runs (in a scratch folder
//!   holding the shipped inputs), so an example that breaks fails CI;
//! - `docs/reference.md` is the command line's own help, every command's
//!   (`AMGCOMM_WRITE_DOCS=1 cargo test --release --test docs` rewrites it);
//! - every relative link points at a file that exists, and at a heading
//!   that exists in it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_amgcomm");

/// README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir("docs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// The lines of every block fenced as ```` ```sh run ````, joined where a
/// line ends in `\`.
fn run_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    let mut line = String::new();
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            inside = l.trim_start() == "```sh run";
            continue;
        }
        if !inside {
            continue;
        }
        let l = l.trim();
        if let Some(head) = l.strip_suffix('\\') {
            line += head;
            line.push(' ');
            continue;
        }
        line += l;
        if !line.is_empty() && !line.starts_with('#') {
            out.push(std::mem::take(&mut line));
        }
        line.clear();
    }
    out
}

/// A command line's words, as a POSIX shell splits them (quotes, no
/// expansion).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut w = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => w.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !w.is_empty() {
                    out.push(std::mem::take(&mut w));
                }
                any = false;
            }
            (None, c) => w.push(c),
        }
    }
    if any || !w.is_empty() {
        out.push(w);
    }
    out
}

#[test]
fn every_run_block_runs() {
    let root = std::env::current_dir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    // As in a user's clone: nothing beside it.
    assert!(!scratch
        .path()
        .join("..")
        .join(["sh", "ared"].concat())
        .exists());
    for shipped in ["matrices", "machines", "partitioners", "tests", "tools"] {
        std::os::unix::fs::symlink(root.join(shipped), scratch.path().join(shipped)).unwrap();
    }
    let mut ran = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for line in run_blocks(&text) {
            let w = words(&line);
            let args = match w.first().map(String::as_str) {
                Some("amgcomm") => &w[1..],
                Some("cargo") if w[..4] == ["cargo", "run", "--release", "--"] => &w[4..],
                _ => panic!(
                    "{}: a run block holds '{line}', not an amgcomm command",
                    page.display()
                ),
            };
            let o = Command::new(BIN)
                .args(args)
                .current_dir(scratch.path())
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{}: '{line}' failed: {}",
                page.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} commands ran");
}

/// `amgcomm <path> --help`.
fn help(path: &[&str]) -> String {
    let o = Command::new(BIN)
        .args(path)
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(o.status.success(), "{path:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// The subcommands a help text lists under `Commands:`.
fn subcommands(help: &str) -> Vec<String> {
    let Some(rest) = help.split("\nCommands:\n").nth(1) else {
        return Vec::new();
    };
    rest.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help" && l_is_name(n))
        .map(String::from)
        .collect()
}

fn l_is_name(n: &str) -> bool {
    n.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// The reference: every command's help, depth first.
fn reference() -> String {
    let mut out = String::from(
        "# Reference\n\nEvery command and flag, as `amgcomm <command> --help` prints them. This page is generated from the command line itself and checked by `tests/docs.rs`; to rewrite it: `AMGCOMM_WRITE_DOCS=1 cargo test --release --test docs`.\n",
    );
    let mut stack: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        let title = std::iter::once("amgcomm")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        out += &format!("\n## `{title}`\n\n```text\n{}\n```\n", text.trim_end());
        let subs = subcommands(&text);
        for s in subs.into_iter().rev() {
            let mut p = path.clone();
            p.push(s);
            stack.push(p);
        }
    }
    out
}

#[test]
fn the_reference_is_the_command_lines_help() {
    let want = reference();
    let path = Path::new("docs/reference.md");
    if std::env::var_os("AMGCOMM_WRITE_DOCS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference.md differs from the command line's help: AMGCOMM_WRITE_DOCS=1 cargo test --release --test docs rewrites it"
    );
    for c in [
        "analyze",
        "compare",
        "scale",
        "hierarchy",
        "machine show",
        "models reproduce",
    ] {
        assert!(want.contains(&format!("## `amgcomm {c}`")), "{c}");
    }
}

/// GitHub's anchor of a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut fence = false;
    let mut out = BTreeSet::new();
    for l in text.lines() {
        if l.starts_with("```") {
            fence = !fence;
        } else if !fence && l.starts_with('#') {
            out.insert(slug(l.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_link_resolves() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut fence = false;
        for line in text.lines() {
            if line.starts_with("```") {
                fence = !fence;
            }
            if fence {
                continue;
            }
            for part in line.split("](").skip(1) {
                let Some(target) = part.split(')').next() else {
                    continue;
                };
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let file_path = if file.is_empty() {
                    page.clone()
                } else {
                    dir.join(file)
                };
                assert!(
                    file_path.exists(),
                    "{}: link to {target}: no such file",
                    page.display()
                );
                if !anchor.is_empty() {
                    let t = std::fs::read_to_string(&file_path).unwrap();
                    assert!(
                        anchors(&t).contains(anchor),
                        "{}: link to {target}: no such heading",
                        page.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked}");
}

/// A clone stands alone: no tracked file names the folder of reference data
/// that sat beside the repository while it was written (its figures live
/// in `tests/data/`, in the project's own tables naming their public
/// sources).
#[test]
fn no_tracked_file_points_outside_the_clone() {
    let needle = format!("../{}/", "shared");
    // The tracked files; outside a git clone (a source archive), every
    // file but the build's and hidden folders.
    let files: Vec<String> = match Command::new("git").args(["ls-files", "-z"]).output() {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout)
            .unwrap()
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect(),
        _ => {
            let mut out = Vec::new();
            let mut todo = vec![PathBuf::from(".")];
            while let Some(dir) = todo.pop() {
                for e in std::fs::read_dir(&dir).unwrap() {
                    let p = e.unwrap().path();
                    let name = p.file_name().unwrap().to_string_lossy().to_string();
                    if name.starts_with('.') || name == "target" {
                        continue;
                    }
                    if p.is_dir() {
                        todo.push(p);
                    } else {
                        out.push(p.display().to_string());
                    }
                }
            }
            out
        }
    };
    assert!(files.len() > 100, "{} tracked files", files.len());
    let hits: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read(f)
                .map(|b| String::from_utf8_lossy(&b).contains(&needle))
                .unwrap_or(false)
        })
        .cloned()
        .collect();
    assert!(hits.is_empty(), "{needle} named in {hits:?}");
}

#[test]
fn the_readme_is_short() {
    let n = std::fs::read_to_string("README.md")
        .unwrap()
        .lines()
        .count();
    assert!(
        n <= 300,
        "README.md has {n} lines; the guide (docs/) holds the rest"
    );
}
