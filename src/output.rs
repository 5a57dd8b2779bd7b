//! Files amgcomm writes appear whole or not at all, and never in place of
//! anything the user gave.
//!
//! - [`write_atomically`]: content goes to a temporary file beside the
//!   target, renamed over it only on success.
//! - [`write_folder`]: a folder is built beside the target and swapped in
//!   whole, so no file of an earlier run survives in it.
//! - [`clean_up`]: every temporary path not yet swapped in is registered;
//!   the command line calls this on Ctrl-C, so an interrupted run leaves
//!   the previous content and no temporary files.
//! - [`Plan`]: before any input is read, each output is checked against
//!   the inputs (never overwritten, never swept away with a folder) and
//!   against what a folder already holds (only files amgcomm writes).

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Temporary paths of this process not yet renamed into place.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered temporary file or folder; dropped (error, panic) it is
/// removed unless it was renamed into place.
struct Temp {
    path: PathBuf,
    kept: bool,
}

impl Temp {
    fn new(path: PathBuf) -> Temp {
        pending().push(path.clone());
        Temp { path, kept: false }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let mut list = pending();
        list.retain(|p| p != &self.path);
        if !self.kept {
            remove(&self.path);
        }
    }
}

fn remove(path: &Path) {
    if path.is_dir() {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes every temporary path of this process and blocks any later
/// swap, for a process about to exit on a signal: targets keep their
/// previous content (a swap in progress finishes first).
pub fn clean_up() {
    let list = pending();
    for p in list.iter() {
        remove(p);
    }
    // Held until the process exits: no swap starts after this.
    std::mem::forget(list);
}

/// Call `write` with a temporary path (same folder, same extension, so
/// writers that pick a format by extension still work), then rename it to
/// `path`. On error the temporary file is removed and `path` is untouched.
pub fn write_atomically<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&Path) -> io::Result<()>,
{
    let mut tmp = Temp::new(temp_path(path));
    write(&tmp.path)?;
    // Under the lock, as in write_folder: Ctrl-C waits for the rename.
    let list = pending();
    std::fs::rename(&tmp.path, path)?;
    tmp.kept = true;
    drop(list);
    Ok(())
}

/// Build the folder `target` whole: `fill` writes into a fresh temporary
/// folder beside it, which then replaces `target` (and all it held). On
/// error the temporary folder is removed and `target` is untouched;
/// `io_error` turns the folder operations' errors into `E`. Check
/// `target` first with [`Plan::folder`]: whatever it holds is replaced.
pub fn write_folder<E>(
    target: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
    io_error: impl Fn(io::Error) -> E,
) -> Result<(), E> {
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(&io_error)?;
    }
    let path = temp_path(target);
    remove(&path);
    let mut tmp = Temp::new(path);
    std::fs::create_dir(&tmp.path).map_err(&io_error)?;
    fill(&tmp.path)?;
    // The swap runs under the lock, so that Ctrl-C (clean_up) sees either
    // the old folder in place or the new one, never neither.
    let mut list = pending();
    let old = if target.exists() {
        let old = temp_path(&target.with_extension("old"));
        remove(&old);
        std::fs::rename(target, &old).map_err(&io_error)?;
        // Registered before the lock is released: Ctrl-C removes it.
        list.push(old.clone());
        let mut old = Temp {
            path: old,
            kept: false,
        };
        if let Err(e) = std::fs::rename(&tmp.path, target) {
            // Put the previous folder back; if another run's complete
            // folder took its place meanwhile, that one stays.
            old.kept = std::fs::rename(&old.path, target).is_ok();
            drop(list);
            return Err(io_error(e));
        }
        Some(old)
    } else {
        std::fs::rename(&tmp.path, target).map_err(&io_error)?;
        None
    };
    tmp.kept = true;
    drop(list);
    // Dropping the previous folder removes it.
    drop(old);
    Ok(())
}

/// Why an output cannot be written where it is asked for.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum OutputProblem {
    /// A file output names a folder.
    #[error("is a folder, not a file")]
    IsFolder,
    /// A folder output, or the folder of a file output, is a file.
    #[error("{0} is a file, not a folder")]
    IsFile(String),
    /// A file output's folder does not exist.
    #[error("the folder {0} does not exist")]
    NoFolder(String),
    /// The folder refuses new files.
    #[error("cannot write in {folder} ({reason})")]
    Denied {
        /// The nearest existing folder.
        folder: String,
        /// Why, in words.
        reason: String,
    },
    /// The output is an input of the run.
    #[error("that is the input {0}; amgcomm never overwrites an input")]
    IsInput(String),
    /// A folder output holds an input, which the swap would delete.
    #[error("it holds the input {0}, which replacing the folder would delete")]
    HoldsInput(String),
    /// The output lies inside an input folder.
    #[error("it is inside the input folder {0}")]
    InsideInput(String),
    /// A folder output holds something amgcomm does not write there.
    #[error("it holds {0}, which amgcomm did not write (a folder is replaced whole; name a new or empty one)")]
    Foreign(String),
    /// Two outputs of one run overlap.
    #[error("it overlaps {0}, another output of this run")]
    Overlaps(String),
}

/// An output refused, with the flag that named it.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {path}: {problem}")]
pub struct Refused {
    /// The flag, e.g. `--json`.
    pub flag: String,
    /// The path as given.
    pub path: String,
    /// Why.
    pub problem: OutputProblem,
}

/// A run's inputs and outputs, checked before any input is read: every
/// output can be written, none is or holds an input, none overlaps
/// another, and a folder output holds only files amgcomm writes there.
#[derive(Default, Debug)]
pub struct Plan {
    inputs: Vec<(String, PathBuf)>,
    outputs: Vec<(String, PathBuf)>,
}

impl Plan {
    /// No inputs or outputs yet.
    pub fn new() -> Plan {
        Plan::default()
    }

    /// An input file or folder (one that does not exist is left to its
    /// reader to report).
    pub fn input(&mut self, path: &Path) {
        if let Ok(c) = path.canonicalize() {
            self.inputs.push((path.display().to_string(), c));
        }
    }

    /// A file output: its folder exists and takes files, it is not a
    /// folder, not an input and not inside an input folder.
    pub fn file(&mut self, flag: &str, path: &Path) -> Result<(), Refused> {
        let refuse = |problem| Refused {
            flag: flag.to_string(),
            path: path.display().to_string(),
            problem,
        };
        if path.is_dir() {
            return Err(refuse(OutputProblem::IsFolder));
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.exists() {
            return Err(refuse(OutputProblem::NoFolder(
                folder.display().to_string(),
            )));
        }
        // Inputs first: not even a probe goes into an input folder.
        let resolved = resolve(path);
        self.against_inputs(&resolved, false).map_err(refuse)?;
        writable(folder).map_err(refuse)?;
        self.record(flag, resolved).map_err(refuse)
    }

    /// A folder output, replaced whole ([`write_folder`]): it does not
    /// exist, or is a folder of files `ours` accepts by name; it can be
    /// made; it neither is, holds nor lies inside an input.
    pub fn folder(
        &mut self,
        flag: &str,
        dir: &Path,
        ours: fn(&str) -> bool,
    ) -> Result<(), Refused> {
        let refuse = |problem| Refused {
            flag: flag.to_string(),
            path: dir.display().to_string(),
            problem,
        };
        let resolved = resolve(dir);
        self.against_inputs(&resolved, true).map_err(refuse)?;
        check_folder(dir, ours).map_err(refuse)?;
        self.record(flag, resolved).map_err(refuse)
    }

    fn against_inputs(&self, out: &Path, folder: bool) -> Result<(), OutputProblem> {
        for (given, input) in &self.inputs {
            if out == input {
                return Err(OutputProblem::IsInput(given.clone()));
            }
            if out.starts_with(input) {
                return Err(OutputProblem::InsideInput(given.clone()));
            }
            if folder && input.starts_with(out) {
                return Err(OutputProblem::HoldsInput(given.clone()));
            }
            #[cfg(unix)]
            if same_file(out, input) {
                return Err(OutputProblem::IsInput(given.clone()));
            }
        }
        Ok(())
    }

    fn record(&mut self, flag: &str, out: PathBuf) -> Result<(), OutputProblem> {
        for (other, p) in &self.outputs {
            if out.starts_with(p) || p.starts_with(&out) {
                return Err(OutputProblem::Overlaps(other.clone()));
            }
        }
        self.outputs.push((flag.to_string(), out));
        Ok(())
    }
}

/// Whether `dir` may be replaced by a folder amgcomm writes: it can be
/// made (its nearest existing ancestor is a writable folder), and if it
/// exists it holds only files `ours` accepts by name, no folders. Nothing
/// is created.
pub fn check_folder(dir: &Path, ours: fn(&str) -> bool) -> Result<(), OutputProblem> {
    let mut existing = dir;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    if !existing.is_dir() {
        return Err(OutputProblem::IsFile(existing.display().to_string()));
    }
    writable(existing)?;
    if existing != dir {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| OutputProblem::Denied {
        folder: dir.display().to_string(),
        reason: reason(&e),
    })?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let kind = e.file_type().ok();
        let ok = match kind {
            Some(t) if t.is_file() => ours(&name),
            // A folder amgcomm wrote inside (scale's nodes_<n>): ours by
            // name, and holding report files only.
            Some(t) if t.is_dir() => ours(&name) && holds_only_reports(&e.path()),
            _ => false,
        };
        if !ok {
            return Err(OutputProblem::Foreign(name));
        }
    }
    Ok(())
}

/// Whether `dir` holds nothing but files a report folder may hold.
fn holds_only_reports(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().all(|e| {
            e.file_type().is_ok_and(|t| t.is_file())
                && is_report_file(&e.file_name().to_string_lossy())
        })
    })
}

/// Hard links: two names, one file.
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Whether `folder` takes a new file: a probe is made and removed.
fn writable(folder: &Path) -> Result<(), OutputProblem> {
    let probe = folder.join(format!(".amgcomm-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| OutputProblem::Denied {
        folder: folder.display().to_string(),
        reason: reason(&e),
    })?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// `path` made absolute with symbolic links resolved as far as it exists,
/// the rest appended with `.` and `..` applied.
fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    let base = loop {
        if let Ok(c) = existing.canonicalize() {
            break c;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            _ => break std::env::current_dir().unwrap_or_default().join(&existing),
        }
    };
    let mut out = base;
    for part in rest.iter().rev() {
        match Path::new(part).components().next() {
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::CurDir) | None => {}
            _ => out.push(part),
        }
    }
    out
}

/// An I/O error in words, without the `(os error N)` of its display.
pub fn reason(e: &io::Error) -> String {
    use io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file or folder".into(),
        K::PermissionDenied => "permission denied".into(),
        K::IsADirectory => "is a folder".into(),
        K::NotADirectory => "a part of the path is a file, not a folder".into(),
        K::ReadOnlyFilesystem => "read-only file system".into(),
        K::StorageFull => "no space left on the device".into(),
        K::AlreadyExists => "already exists".into(),
        K::InvalidData => "not valid text".into(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(k) => text[..k].to_string(),
                None => text,
            }
        }
    }
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.amgcomm-{}{ext}", std::process::id()))
}
/// The files of a report folder besides the charts.
const REPORT_FILES: [&str; 5] = [
    "report.json",
    "levels.csv",
    "compare.json",
    "profile.json",
    "report.html",
];
/// The charts of a report folder, each as PNG and SVG.
const CHARTS: [&str; 10] = [
    "spmv",
    "spgemm",
    "ptap",
    "aa",
    "interp",
    "restrict",
    "messages",
    "compare",
    "cycle",
    "measured_levels",
];

/// Whether a report folder (`analyze --out`, `compare --out`) may hold a
/// file of that name: the files amgcomm writes there. A folder holding
/// anything else is not replaced ([`check_folder`]).
pub fn is_report_file(name: &str) -> bool {
    if REPORT_FILES.contains(&name) {
        return true;
    }
    // compare's profiles, one per variant: profile_1.json, ...
    let profile = (name.strip_prefix("profile_"))
        .and_then(|n| n.strip_suffix(".json"))
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
    if profile {
        return true;
    }
    let chart = name
        .strip_suffix(".png")
        .or_else(|| name.strip_suffix(".svg"));
    chart.is_some_and(|c| CHARTS.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_swapped_in_whole() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("out");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("stale"), "old").unwrap();
        write_folder(&target, |tmp| std::fs::write(tmp.join("new"), "x"), |e| e).unwrap();
        let names: Vec<_> = std::fs::read_dir(&target)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["new"]);
        // A failure keeps the previous folder and leaves nothing beside it.
        let r = write_folder(
            &target,
            |tmp| {
                std::fs::write(tmp.join("half"), "x")?;
                Err(io::Error::other("disk full"))
            },
            |e| e,
        );
        assert!(r.is_err());
        assert!(target.join("new").exists() && !target.join("half").exists());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn temp_keeps_folder_and_extension() {
        let t = temp_path(Path::new("out/a.spy.png"));
        assert_eq!(t.parent(), Some(Path::new("out")));
        assert_eq!(t.extension().unwrap(), "png");
    }

    #[test]
    fn failure_keeps_the_old_file_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("x.txt");
        std::fs::write(&target, "old").unwrap();
        let r = write_atomically(&target, |tmp| {
            std::fs::write(tmp, "half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        write_atomically(&target, |tmp| std::fs::write(tmp, "new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    }
}
