fn main() {
    return_freed_memory();
    std::process::exit(amgcomm::cli::run());
}

/// glibc raises its mmap threshold each time a large block is freed, so
/// the setup's later large temporaries come from the heap, and the heap
/// keeps them after they are freed. A fixed threshold (glibc's initial
/// 128 KiB) gives them back. `analyze gen:elasticity3d:65 --preset pyamg`
/// (512 x 16): peak 2.37 -> 1.97 GB, wall 15.9 -> 16.7-18.2 s (fresh
/// pages are zeroed again); n=40: 609 -> 454 MB, 3.5 -> 4.0 s.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called before
    // any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
