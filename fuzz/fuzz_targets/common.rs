//! What the targets share: a scratch folder of this process, where
//! `tests/common/fuzz_entries.rs` lays out their input.

use std::path::PathBuf;

/// This process's scratch folder (in memory when /dev/shm exists), empty.
pub fn fresh() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!("amgcomm-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
