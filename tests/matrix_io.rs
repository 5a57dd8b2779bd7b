//! Matrix Market reading against the shared references and against sprs's
//! reader (an independent parser), and write/read round trips.

use std::io::Read;
use std::path::{Path, PathBuf};

use amgcomm::matrix::gen::{Kind, Problem};
use amgcomm::matrix::{csr, io, Csr, Symmetry};

const REFERENCE: &str = "tests/data/reference";

fn files_in(dir: &str, ext: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| ext.iter().any(|x| p.to_str().unwrap().ends_with(x)))
        .collect();
    v.sort();
    v
}

#[test]
fn every_reference_matrix_has_the_pyamg_counts() {
    let refs = files_in(REFERENCE, &[".pyamg.json"]);
    assert!(refs.len() >= 3, "reference files missing");
    for r in refs {
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&r).unwrap()).unwrap();
        let path = Path::new(REFERENCE).join(j["matrix"].as_str().unwrap());
        let m = io::read(&path).unwrap_or_else(|e| panic!("{e}"));
        let info = m.info();
        assert_eq!(
            info.rows as u64,
            j["rows"].as_u64().unwrap(),
            "{}",
            path.display()
        );
        assert_eq!(
            info.nnz as u64,
            j["nnz"].as_u64().unwrap(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn info_json_of_beam_is_exactly_the_five_fields() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(["info", "tests/data/reference/beam_tet_2k.mtx.gz", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"rows": 5742, "cols": 5742, "nnz": 272520, "field": "real", "symmetry": "symmetric"})
    );
}

/// Decompress a .gz to a temporary plain file (sprs reads plain files only).
fn plain_copy(path: &Path, dir: &Path) -> PathBuf {
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_end(&mut text)
            .unwrap();
        let out = dir.join(path.file_stem().unwrap());
        std::fs::write(&out, text).unwrap();
        out
    } else {
        path.to_path_buf()
    }
}

fn assert_same(ours: &Csr, theirs: &sprs::CsMat<f64>, what: &str) {
    assert_eq!(ours.shape(), theirs.shape(), "{what}");
    assert_eq!(ours.nnz(), theirs.nnz(), "{what}");
    for (v, (i, j)) in ours.iter() {
        assert_eq!(
            theirs.get(i as usize, j as usize),
            Some(v),
            "{what} ({i}, {j})"
        );
    }
}

#[test]
fn values_agree_with_sprs_reader_on_shipped_and_reference_files() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = files_in(REFERENCE, &[".mtx", ".mtx.gz"]);
    files.extend(files_in("matrices", &[".mtx", ".mtx.gz"]));
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let ours = io::read(&f).unwrap_or_else(|e| panic!("{e}"));
        let plain = plain_copy(&f, tmp.path());
        let tri = sprs::io::read_matrix_market::<f64, usize, _>(&plain).unwrap();
        assert_same(&ours.csr, &tri.to_csr(), &f.display().to_string());
    }
}

#[test]
fn generated_poisson3d_equals_the_reference_file() {
    let reference = io::read(&Path::new(REFERENCE).join("poisson3d_20.mtx")).unwrap();
    let ours = Problem::new(Kind::Poisson3d, 20).generate().unwrap();
    assert_eq!(reference.csr, ours.csr);
}

#[test]
fn write_then_read_is_bit_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let mut e = Problem::new(Kind::Elasticity3d, 5);
    e.young = 210e9;
    e.poisson_ratio = 0.29;
    for (m, name) in [
        (e.generate().unwrap().csr, "e.mtx"),
        (
            Problem::new(Kind::Poisson3d27, 6).generate().unwrap().csr,
            "p.mtx.gz",
        ),
    ] {
        let path = tmp.path().join(name);
        let sym = if csr::is_symmetric(&m) {
            Symmetry::Symmetric
        } else {
            Symmetry::General
        };
        assert_eq!(sym, Symmetry::Symmetric);
        io::write(&path, &m, sym, "test").unwrap();
        let back = io::read(&path).unwrap();
        assert_eq!(back.symmetry, Symmetry::Symmetric);
        assert_eq!(back.csr, m, "{name}");
        // Also as general: every entry written.
        let path = tmp.path().join(format!("g-{name}"));
        io::write(&path, &m, Symmetry::General, "").unwrap();
        assert_eq!(io::read(&path).unwrap().csr, m);
    }
    // Awkward values survive: subnormal, huge, negative zero, 0.1 + 0.2.
    let odd = [5e-324, 1.7976931348623157e308, -0.0, 0.1 + 0.2, -1.0 / 3.0];
    let chunk = amgcomm::matrix::csr::Triplets {
        rows: (0..5).collect(),
        cols: (0..5).rev().collect(),
        vals: odd.to_vec(),
    };
    let m = csr::from_triplets(5, 5, &[chunk], Symmetry::General);
    let path = tmp.path().join("odd.mtx");
    io::write(&path, &m, Symmetry::General, "").unwrap();
    let back = io::read(&path).unwrap().csr;
    for (a, b) in m.data().iter().zip(back.data()) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
}

#[test]
fn cli_generate_writes_symmetric_file_that_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("e.mtx");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args([
            "generate",
            "elasticity3d",
            "--n",
            "3",
            "--permute",
            "4",
            "-o",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("%%MatrixMarket matrix coordinate real symmetric\n"));
    let m = io::read(&path).unwrap();
    let expected = amgcomm::matrix::source::Source::parse("gen:elasticity3d:3")
        .unwrap()
        .load(Some(4))
        .unwrap();
    assert_eq!(m.csr, expected.csr);
    // Stored entries = lower triangle only.
    let stored: usize = text
        .lines()
        .nth(2)
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(stored, (m.csr.nnz() + m.csr.rows()) / 2);
    let leftovers = std::fs::read_dir(tmp.path()).unwrap().count();
    assert_eq!(leftovers, 1);
}
