//! Files amgcomm writes appear whole or not at all: content goes to a
//! temporary file beside the target, renamed over it only on success, so a
//! failed run never leaves a partial file or destroys an existing one.
//! Folders likewise ([`write_folder`]): built beside the target and
//! swapped in whole.

use std::io;
use std::path::{Path, PathBuf};

/// Call `write` with a temporary path (same folder, same extension, so
/// writers that pick a format by extension still work), then rename it to
/// `path`. On error the temporary file is removed and `path` is untouched.
pub fn write_atomically<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&Path) -> io::Result<()>,
{
    let tmp = temp_path(path);
    let result = write(&tmp).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Build the folder `target` whole: `fill` writes into a fresh temporary
/// folder beside it, which then replaces `target` (and all it held). On
/// error the temporary folder is removed and `target` is untouched;
/// `io_error` turns the folder operations' errors into `E`.
pub fn write_folder<E>(
    target: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
    io_error: impl Fn(io::Error) -> E,
) -> Result<(), E> {
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(&io_error)?;
    }
    let tmp = temp_path(target);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).map_err(&io_error)?;
    let swap = || -> io::Result<()> {
        if target.exists() {
            let old = tmp.with_extension("old");
            std::fs::rename(target, &old)?;
            if let Err(e) = std::fs::rename(&tmp, target) {
                let _ = std::fs::rename(&old, target);
                return Err(e);
            }
            std::fs::remove_dir_all(&old)
        } else {
            std::fs::rename(&tmp, target)
        }
    };
    let result = fill(&tmp).and_then(|()| swap().map_err(&io_error));
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

/// Why a folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FolderProblem {
    /// A file is where a folder must go.
    #[error("{0} is a file, not a folder")]
    File(String),
    /// The nearest existing folder refuses a file.
    #[error("cannot write there ({0})")]
    Denied(io::Error),
}

/// Whether the folder `dir` can be made and written, before any long step:
/// its nearest existing ancestor must be a writable folder. Nothing is
/// created, so a run that fails later leaves no empty folder.
pub fn check_folder(dir: &Path) -> Result<(), FolderProblem> {
    let mut existing = dir;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    if !existing.is_dir() {
        return Err(FolderProblem::File(existing.display().to_string()));
    }
    let probe = existing.join(format!(".amgcomm-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(FolderProblem::Denied)?;
    let _ = std::fs::remove_file(probe);
    Ok(())
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
