#![allow(dead_code)]
//! What the targets share: a scratch folder of this process, where the
//! multi-file and path-taking readers get their input laid out.

use std::path::PathBuf;

/// This process's scratch folder (in memory when /dev/shm exists).
pub fn scratch() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!("amgcomm-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `data` as one file `name` in a fresh scratch folder: its path.
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let d = fresh();
    let p = d.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

/// The scratch folder, emptied.
pub fn fresh() -> PathBuf {
    let d = scratch();
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `data` cut into pieces at each 0xFF byte (the targets' file separator).
pub fn pieces(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == 0xFF).collect()
}
