//! Files amgcomm writes appear whole or not at all: content goes to a
//! temporary file beside the target, renamed over it only on success, so a
//! failed run never leaves a partial file or destroys an existing one.

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
