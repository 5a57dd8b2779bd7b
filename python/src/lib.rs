//! `amgcomm._amgcomm`: the Rust side of the Python package. It turns
//! SciPy's arrays into held inputs, runs the command line's own pipeline
//! (`amgcomm::cli::embedded`) on a thread of its own with the GIL
//! released, hands progress to a callback, turns Ctrl-C into
//! `KeyboardInterrupt` within 0.1 s, and every failure, a panic included,
//! into `amgcomm.Error`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use amgcomm::amg::levels_io::Given;
use amgcomm::analysis::Held;
use amgcomm::cli::embedded::{self, Failure};
use amgcomm::matrix::Csr;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(_amgcomm, Error, PyValueError, "amgcomm's one-line message.");

/// A SciPy CSR matrix's parts: `(shape, indptr, indices, data)`.
type Parts<'py> = (
    (usize, usize),
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
);

/// An index array of SciPy (int32 or int64) as `usize`s.
fn indices(a: &Bound<PyAny>, what: &str) -> PyResult<Vec<usize>> {
    fn each<T: numpy::Element + Copy + std::fmt::Display>(
        v: PyReadonlyArray1<T>,
        what: &str,
    ) -> PyResult<Vec<usize>>
    where
        usize: TryFrom<T>,
    {
        (v.as_array().iter())
            .map(|&x| {
                usize::try_from(x)
                    .map_err(|_| Error::new_err(format!("{what}: negative index {x}")))
            })
            .collect()
    }
    if let Ok(v) = a.extract::<PyReadonlyArray1<i32>>() {
        return each(v, what);
    }
    if let Ok(v) = a.extract::<PyReadonlyArray1<i64>>() {
        return each(v, what);
    }
    Err(Error::new_err(format!(
        "{what}: indices must be int32 or int64"
    )))
}

/// The matrix `name` from its parts, checked as a file is read.
fn csr(name: &str, (shape, indptr, idx, data): Parts) -> PyResult<Csr> {
    let indptr = indices(&indptr, name)?;
    let idx: Vec<u32> = indices(&idx, name)?
        .into_iter()
        .map(|j| {
            u32::try_from(j).map_err(|_| Error::new_err(format!("{name}: column {j} beyond 2^32")))
        })
        .collect::<PyResult<_>>()?;
    let data: Vec<f64> = data
        .extract::<PyReadonlyArray1<f64>>()
        .map_err(|_| Error::new_err(format!("{name}: values must be float64")))?
        .as_array()
        .to_vec();
    amgcomm::matrix::csr_from_parts(name, shape, indptr, idx, data).map_err(Error::new_err)
}

/// What the worker thread says.
enum Said<T> {
    Progress(String),
    Done(Result<T, Failure>),
}

/// Workers running now (`_workers()`, for the tests of Ctrl-C).
static WORKERS: AtomicUsize = AtomicUsize::new(0);

/// The unwinding that stops a cancelled worker at its next step (through
/// `resume_unwind`: no panic hook, nothing printed).
struct Cancelled;

/// `work` on its own thread, the GIL released while waiting; its
/// progress lines to `progress`; Ctrl-C (any pending signal) raised
/// within 0.1 s, and the worker stopped at its next step (every level's
/// setup and every stage is one).
fn detached<T: Send + 'static>(
    py: Python,
    progress: Option<PyObject>,
    work: impl FnOnce(&(dyn Fn(String) + Sync)) -> Result<T, Failure> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel::<Said<T>>();
    let said = tx.clone();
    let cancel = Arc::new(AtomicBool::new(false));
    let cancelled = cancel.clone();
    WORKERS.fetch_add(1, Ordering::SeqCst);
    std::thread::spawn(move || {
        let say = move |s: String| {
            if cancelled.load(Ordering::SeqCst) {
                std::panic::resume_unwind(Box::new(Cancelled));
            }
            let _ = said.send(Said::Progress(s));
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&say)))
            .unwrap_or_else(|p| {
                let why = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Failure {
                    message: format!("internal error (please report it): {why}"),
                    usage: false,
                })
            });
        WORKERS.fetch_sub(1, Ordering::SeqCst);
        let _ = tx.send(Said::Done(r));
    });
    let mut rx = rx;
    loop {
        let (got, back) =
            py.allow_threads(move || (rx.recv_timeout(Duration::from_millis(100)), rx));
        rx = back;
        match got {
            Ok(Said::Progress(s)) => {
                if let Some(cb) = &progress {
                    cb.call1(py, (s,))?;
                }
            }
            Ok(Said::Done(r)) => return r.map_err(|f| Error::new_err(f.message)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::new_err(
                    "internal error: the run ended without a result",
                ))
            }
        }
        if let Err(e) = py.check_signals() {
            cancel.store(true, Ordering::SeqCst);
            return Err(e);
        }
    }
}

/// Workers still running (a cancelled one ends at its next step).
#[pyfunction]
fn _workers() -> usize {
    WORKERS.load(Ordering::SeqCst)
}

/// The held input of `matrix` (`(name, parts)`) or `levels` (`(name,
/// [(A parts, P parts or None, splitting or None)])`).
#[allow(clippy::type_complexity)]
fn held(
    matrix: Option<(String, Parts)>,
    levels: Option<(String, Vec<(Parts, Option<Parts>, Option<Bound<PyAny>>)>)>,
) -> PyResult<Option<Arc<Held>>> {
    if let Some((name, parts)) = matrix {
        return Ok(Some(Arc::new(Held::matrix(&name, csr(&name, parts)?))));
    }
    let Some((name, given)) = levels else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(given.len());
    for (l, (a, p, split)) in given.into_iter().enumerate() {
        let a = csr(&format!("{name} A{l}"), a)?;
        let p = p.map(|p| csr(&format!("{name} P{l}"), p)).transpose()?;
        // PyAMG's splitting: 1 for a coarse point, in fine order.
        let coarse_points = match split {
            Some(s) => Some(
                indices(&s, &format!("{name} splitting{l}"))?
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c == 1)
                    .map(|(i, _)| i as u32)
                    .collect(),
            ),
            None => None,
        };
        out.push(Given {
            a,
            p,
            coarse_points,
        });
    }
    Ok(Some(Arc::new(Held::levels(&name, out))))
}

/// Runs `analyze`, `compare` or `scale` with the flags `argv` on the
/// held input, if any; returns the report folder.
#[pyfunction]
#[pyo3(signature = (argv, matrix=None, levels=None, progress=None))]
#[allow(clippy::type_complexity)]
fn run(
    py: Python,
    argv: Vec<String>,
    matrix: Option<(String, Parts)>,
    levels: Option<(String, Vec<(Parts, Option<Parts>, Option<Bound<PyAny>>)>)>,
    progress: Option<PyObject>,
) -> PyResult<String> {
    let held = held(matrix, levels)?;
    let dir = detached(py, progress, move |say| embedded::run(&argv, held, say))?;
    Ok(dir.display().to_string())
}

/// A CSR matrix as `(shape, indptr, indices, data)` NumPy arrays.
fn parts(py: Python, m: &Csr) -> PyResult<PyObject> {
    let indptr: Vec<i64> = m.indptr().raw_storage().iter().map(|&x| x as i64).collect();
    let idx: Vec<i32> = m.indices().iter().map(|&x| x as i32).collect();
    let t = (
        (m.rows(), m.cols()),
        indptr.into_pyarray(py),
        idx.into_pyarray(py),
        m.data().to_vec().into_pyarray(py),
    );
    Ok(t.into_pyobject(py)?.into_any().unbind())
}

/// Per level, `(A parts, P parts or None)`.
type LevelParts = Vec<(PyObject, Option<PyObject>)>;

/// The hierarchy `argv` (`hierarchy`'s flags) builds from the held input
/// or the one named: per level `(A parts, P parts or None)`, and the
/// setup's wall seconds as `hierarchy --timings` writes them (JSON).
#[pyfunction]
#[pyo3(signature = (argv, matrix=None, progress=None))]
fn hierarchy(
    py: Python,
    argv: Vec<String>,
    matrix: Option<(String, Parts)>,
    progress: Option<PyObject>,
) -> PyResult<(LevelParts, String)> {
    let held = held(matrix, None)?;
    let h = detached(py, progress, move |say| {
        embedded::hierarchy(&argv, held, say)
    })?;
    let levels = (h.levels.iter())
        .map(|l| {
            Ok((
                parts(py, &l.a)?,
                l.p.as_ref().map(|p| parts(py, p)).transpose()?,
            ))
        })
        .collect::<PyResult<_>>()?;
    let seconds =
        serde_json::to_string(&h.setup_times).map_err(|e| Error::new_err(e.to_string()))?;
    Ok((levels, seconds))
}

/// Every preset's one line of `amgcomm machine list`, as JSON.
#[pyfunction]
fn machines() -> PyResult<String> {
    serde_json::to_string(&amgcomm::machine::presets::listing())
        .map_err(|e| Error::new_err(e.to_string()))
}

/// A preset or machine file as `amgcomm machine show NAME --json`
/// prints it (every parameter's provenance included).
#[pyfunction]
fn machine(name: &str) -> PyResult<String> {
    let m = amgcomm::machine::Machine::named_or_file(name)
        .map_err(|e| Error::new_err(e.to_string()))?;
    let mut m = m;
    m.provenance = m.provenance_or_default();
    serde_json::to_string(&m).map_err(|e| Error::new_err(e.to_string()))
}

/// Every option of `command` (`analyze`, `compare`, `scale`,
/// `hierarchy`) as the command line defines it, as JSON: the package's
/// signatures, docstrings and stubs come from it.
#[pyfunction]
fn options(command: &str) -> PyResult<String> {
    let v = amgcomm::cli::options::options(command).map_err(|f| Error::new_err(f.message))?;
    serde_json::to_string(&v).map_err(|e| Error::new_err(e.to_string()))
}

/// The library's version (Cargo's).
#[pyfunction]
fn version() -> &'static str {
    amgcomm::VERSION
}

#[pymodule]
fn _amgcomm(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(hierarchy, m)?)?;
    m.add_function(wrap_pyfunction!(machines, m)?)?;
    m.add_function(wrap_pyfunction!(machine, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_workers, m)?)?;
    Ok(())
}
