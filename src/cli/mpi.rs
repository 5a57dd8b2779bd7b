//! What every command run under `mpirun` shares (feature `mpi`): the
//! session, failures agreed on by all ranks and printed by rank 0 alone.

use super::Error;
use crate::measure::mpi::{Failure, Session};

/// Every rank learns the first failure of any rank (collective).
pub(crate) fn agree<T>(s: &Session, r: Result<T, Error>) -> Result<T, Error> {
    let (value, local) = match r {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some((e.to_string(), e.exit_status()))),
    };
    s.agree(local).map_err(|f| failed(s, f))?;
    Ok(value.expect("no failure"))
}

/// A failure all ranks agreed on, said now: rank 0 prints it, then
/// every rank waits for the others (collective) and stays silent from
/// then on. Otherwise a rank that exits first makes mpirun end the
/// rest, rank 0 perhaps before it has printed.
pub(crate) fn failed(s: &Session, f: Failure) -> Error {
    said(s, f, true)
}

/// [`failed`], the message prefixed with the failing rank when
/// `name_rank` and it is not rank 0 (a failure that names its file does
/// not need it).
pub(crate) fn said(s: &Session, f: Failure, name_rank: bool) -> Error {
    let e = Error::Agreed {
        message: if f.rank == 0 || !name_rank {
            f.message
        } else {
            format!("rank {}: {}", f.rank, f.message)
        },
        status: f.status,
    };
    if s.rank == 0 {
        super::say(format_args!("amgcomm: {e}"));
    }
    super::set_quiet(true);
    s.barrier();
    e
}

/// `MPI_Init`; every rank but 0 silent from now on.
pub(crate) fn open() -> Result<Session, Error> {
    let s = Session::open().ok_or_else(|| Error::Usage("MPI was initialised already".into()))?;
    super::set_quiet(s.rank != 0);
    Ok(s)
}
