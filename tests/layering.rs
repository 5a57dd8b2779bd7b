//! The house rules of `src/` (CONTRIBUTING.md, "Layout"), read from the
//! sources themselves:
//!
//! - a stage imports only the stages before it: `matrix` < `amg` <
//!   `machine` < `partition` < `comm` < `model` < `measure` < `measured`
//!   < `analysis` < `report` < `cli`; the ground floor (`output`,
//!   `memory`, `json_in` and the crate root's helpers) imports no stage;
//! - no two rooms of one folder import each other, directly or round a
//!   circle (a folder counts as one room of its parent);
//! - no file has more than 700 lines before its tests, no file under
//!   `tests/` more than 700 and no file of the command line more than 200
//!   in all.
//!
//! An import is any `crate::`, `super::` or `self::` path outside comments
//! and before the file's `#[cfg(test)]` (tests may set up with any stage).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const STAGES: [&str; 11] = [
    "matrix",
    "amg",
    "machine",
    "partition",
    "comm",
    "model",
    "measure",
    "measured",
    "analysis",
    "report",
    "cli",
];
const GROUND: [&str; 3] = ["output", "memory", "json_in"];
const MAX_LINES: usize = 700;

type ModPath = Vec<String>;

/// Every `.rs` file under `dir` with its module path (`a/b/mod.rs` and
/// `a/b.rs` are `a::b`; `lib.rs` the root).
fn modules(dir: &Path) -> BTreeMap<ModPath, PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    let mut out = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(dir).unwrap().with_extension("");
        let mut path: ModPath = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if path
            .last()
            .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
        {
            path.pop();
        }
        out.entry(path).or_insert(f);
    }
    out
}

/// The code of a file before its tests, without `//` comments.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

fn ident(s: &[u8], mut i: usize) -> (String, usize) {
    let start = i;
    while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || s[i] == b'*') {
        i += 1;
    }
    (String::from_utf8_lossy(&s[start..i]).into_owned(), i)
}

/// The paths a use-tree starting at `i` names (after `prefix`), and where
/// it ends: `a::b`, `a::{b, c::d}`, nested groups.
fn tree(s: &[u8], mut i: usize, prefix: ModPath, out: &mut Vec<ModPath>) -> usize {
    let mut path = prefix;
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if s.get(i) == Some(&b'{') {
            i += 1;
            loop {
                i = tree(s, i, path.clone(), out);
                while i < s.len() && (s[i].is_ascii_whitespace() || s[i] == b',') {
                    i += 1;
                }
                if i >= s.len() || s[i] == b'}' {
                    return i + 1;
                }
            }
        }
        let (name, j) = ident(s, i);
        if name.is_empty() {
            out.push(path);
            return i;
        }
        if name != "self" && name != "*" {
            path.push(name);
        }
        i = j;
        if s[i..].starts_with(b"::") {
            i += 2;
        } else {
            out.push(path);
            return i;
        }
    }
}

/// Every module path the code names from module `me` (`is_dir`: `me`'s
/// file is a folder's `mod.rs`).
fn imports(code: &str, me: &ModPath) -> Vec<ModPath> {
    let s = code.as_bytes();
    let mut out = Vec::new();
    for head in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(head) {
            if at > 0
                && (s[at - 1].is_ascii_alphanumeric() || s[at - 1] == b'_' || s[at - 1] == b':')
            {
                continue;
            }
            let mut base: ModPath = match head {
                "crate::" => Vec::new(),
                "super::" => me[..me.len().saturating_sub(1)].to_vec(),
                _ => me.clone(),
            };
            let mut i = at + head.len();
            // super::super::...
            while s[i..].starts_with(b"super::") {
                base.pop();
                i += "super::".len();
            }
            tree(s, i, base, &mut out);
        }
    }
    out
}

/// The longest prefix of `path` that is a module of the crate.
fn module_of(path: &[String], mods: &BTreeMap<ModPath, PathBuf>) -> ModPath {
    (0..=path.len())
        .rev()
        .map(|k| path[..k].to_vec())
        .find(|p| mods.contains_key(p))
        .unwrap_or_default()
}

/// The floor of a module: its stage's place, -1 for the ground floor.
fn floor(m: &ModPath) -> Option<i32> {
    let top = m.first().map(String::as_str).unwrap_or("");
    if let Some(k) = STAGES.iter().position(|s| *s == top) {
        Some(k as i32)
    } else if m.is_empty() || GROUND.contains(&top) {
        Some(-1)
    } else {
        None
    }
}

/// Every import, as (from, to) between modules of the crate.
fn edges(src: &Path) -> (BTreeMap<ModPath, PathBuf>, BTreeSet<(ModPath, ModPath)>) {
    let mods = modules(src);
    let mut out = BTreeSet::new();
    for (me, file) in &mods {
        let text = code(&std::fs::read_to_string(file).unwrap());
        // A file's own `self::` and a leaf file's `super::` are relative
        // to its module; `mod.rs`'s `super::` to its folder's parent.
        for path in imports(&text, me) {
            let to = module_of(&path, &mods);
            if &to != me {
                out.insert((me.clone(), to));
            }
        }
    }
    (mods, out)
}

/// The imports that point up the stages, in words.
fn upward(edges: &BTreeSet<(ModPath, ModPath)>) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, to) in edges {
        if let (Some(a), Some(b)) = (floor(from), floor(to)) {
            if b > a {
                bad.push(format!("{} imports {}", from.join("::"), to.join("::")));
            }
        }
    }
    bad
}

/// The circles among the rooms of each folder (a module below a room is
/// that room), in words.
fn circles(edges: &BTreeSet<(ModPath, ModPath)>) -> Vec<String> {
    let mut rooms: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to) in edges {
        let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if k < from.len() && k < to.len() {
            (rooms.entry(from[..k].to_vec()).or_default())
                .entry(from[k].clone())
                .or_default()
                .insert(to[k].clone());
        }
    }
    let mut bad = Vec::new();
    for (folder, graph) in &rooms {
        // A room is in a circle when it reaches itself.
        let mut seen_circles = BTreeSet::new();
        for start in graph.keys() {
            let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
            let mut visited = BTreeSet::new();
            while let Some((at, trail)) = stack.pop() {
                for next in graph.get(&at).into_iter().flatten() {
                    if next == start {
                        let mut members = trail.clone();
                        members.sort();
                        if seen_circles.insert(members) {
                            bad.push(format!(
                                "in src/{}: {} -> {start}",
                                folder.join("/"),
                                trail.join(" -> ")
                            ));
                        }
                    } else if visited.insert(next.clone()) {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        stack.push((next.clone(), t));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn a_stage_imports_only_the_stages_before_it() {
    let (_, e) = edges(Path::new("src"));
    assert!(
        e.len() > 300,
        "the reading found too few imports: {}",
        e.len()
    );
    let bad = upward(&e);
    assert!(bad.is_empty(), "imports up the stages:\n{}", bad.join("\n"));
}

#[test]
fn no_two_rooms_of_a_folder_import_each_other() {
    let (_, e) = edges(Path::new("src"));
    let bad = circles(&e);
    assert!(bad.is_empty(), "circles:\n{}", bad.join("\n"));
}

#[test]
fn no_file_passes_700_lines_before_its_tests() {
    let (mods, _) = edges(Path::new("src"));
    let long: Vec<String> = (mods.values())
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let n = text
                .lines()
                .take_while(|l| !l.starts_with("#[cfg(test)]"))
                .count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split by concept:\n{}", long.join("\n"));
}

/// The tests are split by concept too: no file under `tests/` passes 700
/// lines (each is tests throughout).
#[test]
fn no_test_file_passes_700_lines() {
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from("tests")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 30, "{} files", files.len());
    let long: Vec<String> = (files.iter())
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split by concept:\n{}", long.join("\n"));
}

/// The faces stay thin: no file of the command line passes 200 lines
/// (CONTRIBUTING.md); a feature lands in the library first.
#[test]
fn no_file_of_the_command_line_passes_200_lines() {
    let (mods, _) = edges(Path::new("src"));
    let long: Vec<String> = (mods.iter())
        .filter(|(m, _)| m.first().is_some_and(|s| s == "cli"))
        .filter_map(|(_, f)| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 200).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "move the work into the library:\n{}",
        long.join("\n")
    );
}

/// The checks themselves, on a small crate written here: an upward import,
/// a circle of three rooms, a grouped import, and nothing from a comment
/// or a test module.
#[test]
fn the_checks_find_what_they_look_for() {
    let dir = tempfile::tempdir().unwrap();
    let put = |p: &str, text: &str| {
        let f = dir.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    };
    put("lib.rs", "pub mod matrix;\npub mod amg;\npub mod output;\n");
    put(
        "matrix/mod.rs",
        "mod a;\nmod b;\nmod c;\n// crate::amg::X in a comment\n",
    );
    put("matrix/a.rs", "use super::b::X;\n");
    put("matrix/b.rs", "use crate::matrix::{c::Y, self};\n");
    put(
        "matrix/c.rs",
        "fn f() { super::a::g() }\n#[cfg(test)]\nmod t { use crate::amg::Z; }\n",
    );
    put("amg/mod.rs", "use crate::{matrix, output::W};\n");
    put("output.rs", "use crate::amg::Q;\n");
    let (_, e) = edges(dir.path());
    let up = upward(&e);
    assert_eq!(up, ["output imports amg"]);
    // The three rooms of matrix/, and amg with the ground floor's output
    // (a circle as well as an upward import).
    let c = circles(&e);
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(
        c.iter()
            .any(|x| x.starts_with("in src/matrix: ") && x.matches(" -> ").count() == 3),
        "{c:?}"
    );
    assert!(
        c.iter()
            .any(|x| x.starts_with("in src/: ") && x.contains("output")),
        "{c:?}"
    );
    assert!(e.contains(&(vec!["amg".into()], vec!["matrix".into()])));
}
