//! The local work of an exchange of matrix rows (`aa`, `spgemm`), as
//! RAPtor's 2018 `CommPkg::communicate(A)` does it (`raptor/core/
//! comm_pkg.cpp`; the machine's [`crate::machine::RowWork`]):
//! - `rowcopy`: the whole local matrix copied into (row pointer, global
//!   column, value) arrays before any row is packed, once per call:
//!   `copy_per_nonzero x` the most nonzeros a rank holds;
//! - `rowpack`: every row sent packed element by element as (value,
//!   index) pairs, one per nonzero and one for the row's length, and
//!   unpacked the same way into a new CSR matrix: `per_element x` the
//!   most elements a rank packs plus unpacks, per step;
//! - `recvserial`: receives posted one source at a time (`MPI_Probe` +
//!   `MPI_Recv` in a fixed order, so every message arrives unexpected):
//!   `per_received x` the most messages a rank receives, per step.
//!
//! Each is the slowest rank's, as the default model's terms are. A message of
//! rows carries `4 + 12 nnz` bytes a row in the report's count, so its
//! elements are taken as `bytes / 12` (a row's length counts as a third
//! of an element: at most 7% fewer on 9-point rows). Exchanges of
//! vectors (spmv, interp, restrict) and ptap's partial rows
//! (`communicate_T`) charge nothing.

use super::{Charge, Slot, Term};
use crate::comm::Op;
use crate::model::Exchange;

/// The copy of the local matrix.
pub static COPY: Term = Term {
    name: "rowcopy",
    aliases: &[],
    about: "copying the local matrix before packing rows: copy_per_nonzero x the most \
            nonzeros a rank holds (RAPtor's communicate(A); added for aa)",
    slot: Slot::Extra,
    column: "rowcopy",
    header: "rowcopy",
    legend: "local matrix copy",
    details: &[],
    charge: copy,
};

/// Packing and unpacking rows element by element.
pub static PACK: Term = Term {
    name: "rowpack",
    aliases: &[],
    about: "packing and unpacking rows as (value, index) pairs: per_element x the most \
            elements a rank packs and unpacks (added for aa)",
    slot: Slot::Extra,
    column: "rowpack",
    header: "rowpack",
    legend: "row packing",
    details: &[],
    charge: pack,
};

/// Receiving one source at a time.
pub static SERIAL: Term = Term {
    name: "recvserial",
    aliases: &[],
    about: "blocking probe and receive, one source at a time: per_received x the most \
            messages a rank receives (added for aa where per_received is measured)",
    slot: Slot::Extra,
    column: "recvserial",
    header: "recvserial",
    legend: "serial receives",
    details: &[],
    charge: serial,
};

/// Whether `op` moves matrix rows through RAPtor's `communicate(A)`.
pub fn moves_rows(op: Op) -> bool {
    matches!(op, Op::Aa | Op::Spgemm)
}

fn copy(x: &Exchange) -> Charge {
    let most = match (moves_rows(x.pattern.op), x.local_nonzeros) {
        (true, Some(nnz)) => nnz.iter().copied().max().unwrap_or(0),
        _ => 0,
    };
    Charge::seconds(x.machine.params.row_work.copy_per_nonzero * most as f64)
}

/// Elements of `bytes` of rows (12 bytes each).
fn elements(bytes: u64) -> f64 {
    bytes as f64 / 12.0
}

fn pack(x: &Exchange) -> Charge {
    if !moves_rows(x.pattern.op) || x.pattern.messages.is_empty() {
        return Charge::seconds(0.0);
    }
    let mut bytes = vec![0u64; x.machine.ranks()];
    for m in &x.pattern.messages {
        bytes[m.from as usize] += m.bytes;
        bytes[m.to as usize] += m.bytes;
    }
    let most = bytes.into_iter().max().unwrap_or(0);
    Charge::seconds(x.machine.params.row_work.per_element * elements(most))
}

fn serial(x: &Exchange) -> Charge {
    if !moves_rows(x.pattern.op) {
        return Charge::seconds(0.0);
    }
    let n = x.summary.messages.max_recv as f64;
    Charge::seconds(x.machine.params.row_work.per_received * n)
}

#[cfg(test)]
mod tests {
    use crate::comm::{Message, Op, Pattern};
    use crate::machine::RowWork;
    use crate::model::test_util::close;
    use crate::model::{cost, Exchange, Model};

    #[test]
    fn row_work_by_hand() {
        let mut m = crate::machine::test_machine(2, 2);
        m.params.row_work = RowWork {
            copy_per_nonzero: 2e-9,
            per_element: 50e-9,
            per_received: 3e-6,
            error: 1.0,
        };
        let msg = |from, to, bytes| Message {
            from,
            to,
            bytes,
            runs: 1,
        };
        // Rank 1 sends 1200 B and receives 600 + 240: 2040 B, 170 elements;
        // rank 0 receives twice (from 1 and 2).
        let pattern = Pattern {
            op: Op::Aa,
            messages: vec![
                msg(0, 1, 600),
                msg(1, 0, 1200),
                msg(2, 0, 120),
                msg(3, 1, 240),
            ],
        };
        let summary = crate::comm::summarize(&pattern, &m);
        let places = m.places();
        let nnz = [10u64, 400, 30, 7];
        let x = Exchange {
            pattern: &pattern,
            summary: &summary,
            machine: &m,
            places: &places,
            copies: None,
            local_nonzeros: Some(&nnz),
            device: false,
        };
        let c = cost(&x, &Model::parse("rowcopy+rowpack+recvserial").unwrap());
        assert!(close(c.seconds("rowcopy"), 400.0 * 2e-9));
        assert!(close(c.seconds("rowpack"), 2040.0 / 12.0 * 50e-9));
        assert!(close(c.seconds("recvserial"), 2.0 * 3e-6));
        // A vector exchange charges nothing.
        let spmv = Pattern {
            op: Op::Spmv,
            ..pattern.clone()
        };
        let x = Exchange {
            pattern: &spmv,
            ..x
        };
        let c = cost(&x, &Model::parse("rowcopy+rowpack+recvserial").unwrap());
        assert_eq!(c.total, 0.0);
    }
}
