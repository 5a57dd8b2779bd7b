"""Type stubs of amgcomm (written by python/generate_stubs.py from the
command line's definitions; do not edit)."""

import os
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import scipy.sparse

__version__: str

class Error(ValueError):
    """amgcomm's one-line message, in Python's words."""

class _Report:
    report: dict
    def save(self, folder: str | os.PathLike[str]) -> Path: ...

class Analysis(_Report):
    def to_pandas(self) -> Any: ...
    def _repr_html_(self) -> str: ...

class Compared(_Report):
    def to_pandas(self) -> Any: ...

class Scaled(_Report):
    def to_pandas(self) -> Any: ...

class Level:
    A: scipy.sparse.csr_matrix
    P: scipy.sparse.csr_matrix | None

class Hierarchy:
    levels: list[Level]
    setup_seconds: dict[str, Any]

def machines() -> list[dict]: ...
def machine(name: str) -> dict: ...

def analyze(
    source: Any,
    *,
    levels_from: str | os.PathLike[str] | None = None,
    permute: int | None = None,
    epsilon: float | None = None,
    angle: float | None = None,
    preset: Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None = 'hypre',
    theta: float | None = None,
    strength: Literal['abs', 'signed', 'symmetric', 'raptor'] | None = None,
    max_row_sum: float | None = None,
    num_functions: int | None = None,
    coarsening: Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None = None,
    interpolation: Literal['direct', 'classical', 'extended+i'] | None = None,
    p_max_elmts: int | None = None,
    trunc_factor: float | None = None,
    seed: int | None = None,
    max_coarse: int | None = None,
    max_levels: int | None = None,
    machine: str | None = None,
    nodes: int | Sequence[int] | None = None,
    ppn: int | None = None,
    ranks_per_gpu: int | None = None,
    placement: Literal['smp', 'round-robin', 'random'] | None = None,
    placement_seed: int | None = 0,
    allocation: Literal['contiguous', 'random'] | None = None,
    allocation_seed: int | None = 0,
    partition: str | None = None,
    metis_objective: Literal['cut', 'vol'] | None = 'cut',
    partition_seed: int | None = 0,
    serial_refinements: int | None = None,
    coarse_partition: Literal['inherit', 'rebalance'] | None = 'inherit',
    cycle: Literal['V', 'W'] | None = None,
    pre_sweeps: int | None = None,
    post_sweeps: int | None = None,
    smoother: Literal['jacobi', 'l1-jacobi', 'hybrid-gs'] | None = None,
    iterations: int | None = None,
    measured: str | os.PathLike[str] | None = None,
    strategy: Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split'] | None = None,
    ops: Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict'] | Sequence[Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict']] | None = None,
    model: str | None = 'nodeaware+queue+contention',
    advice: bool = False,
    timings: bool = False,
    json: str | os.PathLike[str] | None = None,
    dot: str | os.PathLike[str] | None = None,
    save_patterns: str | os.PathLike[str] | None = None,
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
) -> Analysis:
    """
    ``amgcomm analyze`` on ``source``: a PyAMG ``MultilevelSolver``
    (its levels' ``A`` and ``P`` are the hierarchy, ``splitting`` the coarse
    points), a SciPy sparse matrix (amgcomm builds the hierarchy with
    ``preset`` and the AMG options), a path, or ``"gen:KIND:N"``. Returns an
    ``Analysis``: ``report``, ``to_pandas()``, ``save(folder)``.

    Parameters
    ----------
    levels_from : str | os.PathLike[str] | None, default None
        Read the hierarchy from DIR instead of building one: A0.mtx, P0.mtx, [C0.txt], A1.mtx, ... (PyAMG, 'save_levels'), A0.petsc, P0.petsc, ... (PETSc), hypre rank files A0.00000, P0.00000, ... (tools/hypre_dump_levels.c; their ranks are every level's partition), or the one file PETSc's -pc_mg_dump_binary writes. The AMG flags and 'permute' do not apply to it
    permute : int | None, default None
        Apply a random symmetric node permutation with this seed first
    epsilon : float | None, default None
        gen:aniso2d's anisotropy epsilon (default 0.001, RAPtor's benchmark_matops)
    angle : float | None, default None
        gen:aniso2d's rotation of the anisotropy, in degrees (default 45)
    preset : Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None, default 'hypre'
        Settings chosen at once; the flags below override them
    theta : float | None, default None
        Strength threshold theta, in [0, 1] [hypre: 0.25, pyamg: 0.25, raptor-elasticity: 0.5, raptor-2018: 0.5, raptor-matops-2018: 0.25]
    strength : Literal['abs', 'signed', 'symmetric', 'raptor'] | None, default None
        Strength rule [hypre: signed, pyamg: abs, raptor-elasticity: signed, raptor-2018: raptor, raptor-matops-2018: raptor]
    max_row_sum : float | None, default None
        hypre's max_row_sum (signed rule); 1.0 switches it off [hypre: 0.9, pyamg: 1, raptor-elasticity: 1, raptor-2018: 1, raptor-matops-2018: 1]
    num_functions : int | None, default None
        Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows [hypre: 1, pyamg: 1, raptor-elasticity: 3, raptor-2018: 3, raptor-matops-2018: 1]
    coarsening : Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None, default None
        C/F splitting [hypre: hmis, pyamg: rs, raptor-elasticity: hmis, raptor-2018: hmis-raptor, raptor-matops-2018: cljp-raptor]
    interpolation : Literal['direct', 'classical', 'extended+i'] | None, default None
        Interpolation [hypre: extended+i, pyamg: classical, raptor-elasticity: extended+i, raptor-2018: extended+i, raptor-matops-2018: classical]
    p_max_elmts : int | None, default None
        At most this many entries per row of P (hypre's P_max_elmts; 0: no limit) [hypre: 4, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    trunc_factor : float | None, default None
        Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    seed : int | None, default None
        Seed of the random weights of pmis and cljp (hmis draws hypre_Rand, seeded 2747 + rank as hypre does) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    max_coarse : int | None, default None
        Stop when a level has at most this many rows [hypre: 9, pyamg: 10, raptor-elasticity: 50, raptor-2018: 50, raptor-matops-2018: 50]
    max_levels : int | None, default None
        At most this many levels [hypre: 25, pyamg: 30, raptor-elasticity: 25, raptor-2018: 25, raptor-matops-2018: 25]
    machine : str | None, default None
        Machine: a preset (bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter; amgcomm machine list) or a JSON file with name, nodes, ppn, sockets_per_node, nodes_per_router or network [, placement, allocation, params]. [default: bluewaters]
    nodes : int | Sequence[int] | None, default None
        Number of nodes (overrides the machine's; bluewaters: 512); amgcomm scale takes several, joined by ','
    ppn : int | None, default None
        Processes per node (overrides the machine's; bluewaters: 16)
    ranks_per_gpu : int | None, default None
        Put the data on the machine's GPUs, K CPU ranks serving each (as with MPS; ppn = GPUs per node x K): the rows are partitioned over the GPUs, the first rank of each owns them. Implied (K = 1) by a device strategy (gpu-aware, staged, staged-node-aware, split)
    placement : Literal['smp', 'round-robin', 'random'] | None, default None
        Rank placement (overrides the machine's; bluewaters: smp)
    placement_seed : int | None, default 0
        Seed of 'placement' random
    allocation : Literal['contiguous', 'random'] | None, default None
        Which of the machine's nodes the job gets, when its network names the whole machine (torus3d dims, dragonfly groups, fattree switches); default contiguous
    allocation_seed : int | None, default 0
        Seed of 'allocation' random
    partition : str | None, default None
        Partition of the fine rows: a method, or a partition file (one owner rank a line, as METIS writes them) - contiguous: Balanced blocks of consecutive rows (the default) - contiguous-nnz: Consecutive rows, blocks balanced by nonzeros - random: A seeded random balanced assignment - metis: METIS k-way on the graph of A + A^T - metis-nodes: METIS into the nodes, then each node into its ranks - mfem: MFEM's ParMesh partition of a mesh generator's elements (gen:beam, gen:elasticity3d): METIS k-way over the serially refined mesh, children on their parent's rank, a shared node to the lowest rank, rows renumbered rank by rank (see 'serial_refinements') [default: contiguous; for hypre IJ input (path/A with path/A.00000, ...) and hypre 'levels_from' folders, the ranks the files were written by]
    metis_objective : Literal['cut', 'vol'] | None, default 'cut'
        What METIS minimises
    partition_seed : int | None, default 0
        Seed of 'partition' random
    serial_refinements : int | None, default None
        'partition' mfem: refine the serial mesh this many times before METIS partitions its elements (default: the fewest that give every rank an element, as MFEM's users do)
    coarse_partition : Literal['inherit', 'rebalance'] | None, default 'inherit'
        Coarse levels
    cycle : Literal['V', 'W'] | None, default None
        Set the solve beside the setup: the communication of one cycle per level (smoothing, residual, restrict, interp), of 'iterations' cycles, and which phase dominates [default with any of the flags below: V]
    pre_sweeps : int | None, default None
        Smoothing sweeps before the coarse-grid correction [default: 1]
    post_sweeps : int | None, default None
        Smoothing sweeps after it [default: 1]
    smoother : Literal['jacobi', 'l1-jacobi', 'hybrid-gs'] | None, default None
        The smoother; each sweep is one halo exchange of A_l [default: hybrid-gs]
    iterations : int | None, default None
        Cycles of the solve: the solve's total and which of setup or solve dominates
    measured : str | os.PathLike[str] | None, default None
        Measured times to set beside the model: RAPtor's per-level benchmark output, amgcomm's measured JSON, a Caliper profile of hypre or PETSc's -log_view (docs/report.md)
    strategy : Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split'] | None, default None
        Communication of spmv, spgemm and aa (device strategies also ptap) [default: standard; gpu-aware with 'ranks_per_gpu']
    ops : Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict'] | Sequence[Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict']] | None, default None
        Operations to charge, joined by ',' [default: spmv,spgemm,ptap, and aa under 'preset' raptor-matops-2018]
    model : str | None, default 'nodeaware+queue+contention'
        Cost model: terms joined by '+', at most one rate term and one queue term postal alpha + s / R_b per message, network parameters for all (eq. 1) (rate term) maxrate alpha + a s / min(R_N, a R_b), network parameters for all (eq. 2) (rate term) nodeaware eq. 2 by locality: alpha + s / R_b on the node, alpha + a s / min(R_N, a R_b) on the network (rate term) loggp LogGP per sending rank: max(g, o_s + (s-1) G) per message, then L + o_r (machine file's params.loggp, else from alpha and R_b) (rate term) copytransfer copy-transfer throughputs, the cheaper of buffer packing and chained transfers (Stricker and Gross 1995) (rate term) queue gamma n^2, n the most messages a rank receives (eq. 3) (queue term) queue-measured gamma n^2 / 3 (eq. 3 as measured) (queue term) queue-lower gamma n (eq. 3's lower bound) (queue term) contention box3d: delta h^3 B / routers, B the network bytes, h their mean hops (eqs. 5, 7); other networks: delta x bytes on the busiest link logpc LoGPC's network contention on the router torus (Moritz and Frank 2001) routed delta x bytes on the busiest directed link under the network's routes pack gathering non-contiguous send buffers, log3P's l_mw (machine's pack_table, else pack_per_run and pack_rate) rowcopy copying the local matrix before packing rows: copy_per_nonzero x the most nonzeros a rank holds (RAPtor's communicate(A); added for aa) rowpack packing and unpacking rows as (value, index) pairs: per_element x the most elements a rank packs and unpacks (added for aa) recvserial blocking probe and receive, one source at a time: per_received x the most messages a rank receives (added for aa where per_received is measured) memcpy host-device copies of device data: alpha + s / R per GPU, the slowest GPU (HPEC 2021; added for device strategies) kernel pack and unpack kernels of device data, launch and synchronisation each (added for device strategies) devicempi a fixed cost per exchange of device buffers through a CUDA-aware MPI (added for device strategies) hostround a fixed cost per round of a device strategy's messages through the host (added for device strategies)
    advice : bool, default False
        Add "What would cut it": the alternatives (strategies, METIS partitions, placements, coarse partition) that lower the levels carrying 10% of the time, each a full analysis of this hierarchy (at paper scale about 5x the run, mostly METIS)
    timings : bool, default False
        Print the wall time of each stage on stderr and add it to the JSON
    json : str | os.PathLike[str] | None, default None
        Also write the report JSON to this file (outside the 'out' folder)
    dot : str | os.PathLike[str] | None, default None
        Write each level's process graph per operation as Graphviz DOT as the folder DIR (replaced whole)
    save_patterns : str | os.PathLike[str] | None, default None
        Write every level's spmv, spgemm and ptap messages with the rank layout as the folder DIR (replaced whole), one level{l}_{op}.amgpat file each (format in docs/report.md), for `amgcomm replay`
    progress : Callable[[str], Any] | None, default None
        Receives each stage as it starts.
    name : str | None, default None
        Names a matrix held in memory in the report.
    """

def compare(
    source: Any,
    variants: list[dict],
    *,
    permute: int | None = None,
    epsilon: float | None = None,
    angle: float | None = None,
    machine: str | None = None,
    nodes: int | Sequence[int] | None = None,
    ppn: int | None = None,
    ranks_per_gpu: int | None = None,
    placement: Literal['smp', 'round-robin', 'random'] | None = None,
    placement_seed: int | None = 0,
    allocation: Literal['contiguous', 'random'] | None = None,
    allocation_seed: int | None = 0,
    preset: Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None = 'hypre',
    theta: float | None = None,
    strength: Literal['abs', 'signed', 'symmetric', 'raptor'] | None = None,
    max_row_sum: float | None = None,
    num_functions: int | None = None,
    coarsening: Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None = None,
    interpolation: Literal['direct', 'classical', 'extended+i'] | None = None,
    p_max_elmts: int | None = None,
    trunc_factor: float | None = None,
    seed: int | None = None,
    max_coarse: int | None = None,
    max_levels: int | None = None,
    model: str | None = 'nodeaware+queue+contention',
    metis_objective: Literal['cut', 'vol'] | None = 'cut',
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
) -> Compared:
    """
    ``amgcomm compare``: one hierarchy, several variants of the
    layout; ``variants`` is a list of dicts with keys ``partition``,
    ``strategy``, ``placement``, ``coarse_partition``. Returns ``Compared``.

    Parameters
    ----------
    permute : int | None, default None
        Apply a random symmetric node permutation with this seed first
    epsilon : float | None, default None
        gen:aniso2d's anisotropy epsilon (default 0.001, RAPtor's benchmark_matops)
    angle : float | None, default None
        gen:aniso2d's rotation of the anisotropy, in degrees (default 45)
    machine : str | None, default None
        Machine: a preset (bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter; amgcomm machine list) or a JSON file with name, nodes, ppn, sockets_per_node, nodes_per_router or network [, placement, allocation, params]. [default: bluewaters]
    nodes : int | Sequence[int] | None, default None
        Number of nodes (overrides the machine's; bluewaters: 512); amgcomm scale takes several, joined by ','
    ppn : int | None, default None
        Processes per node (overrides the machine's; bluewaters: 16)
    ranks_per_gpu : int | None, default None
        Put the data on the machine's GPUs, K CPU ranks serving each (as with MPS; ppn = GPUs per node x K): the rows are partitioned over the GPUs, the first rank of each owns them. Implied (K = 1) by a device strategy (gpu-aware, staged, staged-node-aware, split)
    placement : Literal['smp', 'round-robin', 'random'] | None, default None
        Rank placement (overrides the machine's; bluewaters: smp)
    placement_seed : int | None, default 0
        Seed of 'placement' random
    allocation : Literal['contiguous', 'random'] | None, default None
        Which of the machine's nodes the job gets, when its network names the whole machine (torus3d dims, dragonfly groups, fattree switches); default contiguous
    allocation_seed : int | None, default 0
        Seed of 'allocation' random
    preset : Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None, default 'hypre'
        Settings chosen at once; the flags below override them
    theta : float | None, default None
        Strength threshold theta, in [0, 1] [hypre: 0.25, pyamg: 0.25, raptor-elasticity: 0.5, raptor-2018: 0.5, raptor-matops-2018: 0.25]
    strength : Literal['abs', 'signed', 'symmetric', 'raptor'] | None, default None
        Strength rule [hypre: signed, pyamg: abs, raptor-elasticity: signed, raptor-2018: raptor, raptor-matops-2018: raptor]
    max_row_sum : float | None, default None
        hypre's max_row_sum (signed rule); 1.0 switches it off [hypre: 0.9, pyamg: 1, raptor-elasticity: 1, raptor-2018: 1, raptor-matops-2018: 1]
    num_functions : int | None, default None
        Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows [hypre: 1, pyamg: 1, raptor-elasticity: 3, raptor-2018: 3, raptor-matops-2018: 1]
    coarsening : Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None, default None
        C/F splitting [hypre: hmis, pyamg: rs, raptor-elasticity: hmis, raptor-2018: hmis-raptor, raptor-matops-2018: cljp-raptor]
    interpolation : Literal['direct', 'classical', 'extended+i'] | None, default None
        Interpolation [hypre: extended+i, pyamg: classical, raptor-elasticity: extended+i, raptor-2018: extended+i, raptor-matops-2018: classical]
    p_max_elmts : int | None, default None
        At most this many entries per row of P (hypre's P_max_elmts; 0: no limit) [hypre: 4, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    trunc_factor : float | None, default None
        Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    seed : int | None, default None
        Seed of the random weights of pmis and cljp (hmis draws hypre_Rand, seeded 2747 + rank as hypre does) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    max_coarse : int | None, default None
        Stop when a level has at most this many rows [hypre: 9, pyamg: 10, raptor-elasticity: 50, raptor-2018: 50, raptor-matops-2018: 50]
    max_levels : int | None, default None
        At most this many levels [hypre: 25, pyamg: 30, raptor-elasticity: 25, raptor-2018: 25, raptor-matops-2018: 25]
    model : str | None, default 'nodeaware+queue+contention'
        Cost model: terms joined by '+', at most one rate term and one queue term postal alpha + s / R_b per message, network parameters for all (eq. 1) (rate term) maxrate alpha + a s / min(R_N, a R_b), network parameters for all (eq. 2) (rate term) nodeaware eq. 2 by locality: alpha + s / R_b on the node, alpha + a s / min(R_N, a R_b) on the network (rate term) loggp LogGP per sending rank: max(g, o_s + (s-1) G) per message, then L + o_r (machine file's params.loggp, else from alpha and R_b) (rate term) copytransfer copy-transfer throughputs, the cheaper of buffer packing and chained transfers (Stricker and Gross 1995) (rate term) queue gamma n^2, n the most messages a rank receives (eq. 3) (queue term) queue-measured gamma n^2 / 3 (eq. 3 as measured) (queue term) queue-lower gamma n (eq. 3's lower bound) (queue term) contention box3d: delta h^3 B / routers, B the network bytes, h their mean hops (eqs. 5, 7); other networks: delta x bytes on the busiest link logpc LoGPC's network contention on the router torus (Moritz and Frank 2001) routed delta x bytes on the busiest directed link under the network's routes pack gathering non-contiguous send buffers, log3P's l_mw (machine's pack_table, else pack_per_run and pack_rate) rowcopy copying the local matrix before packing rows: copy_per_nonzero x the most nonzeros a rank holds (RAPtor's communicate(A); added for aa) rowpack packing and unpacking rows as (value, index) pairs: per_element x the most elements a rank packs and unpacks (added for aa) recvserial blocking probe and receive, one source at a time: per_received x the most messages a rank receives (added for aa where per_received is measured) memcpy host-device copies of device data: alpha + s / R per GPU, the slowest GPU (HPEC 2021; added for device strategies) kernel pack and unpack kernels of device data, launch and synchronisation each (added for device strategies) devicempi a fixed cost per exchange of device buffers through a CUDA-aware MPI (added for device strategies) hostround a fixed cost per round of a device strategy's messages through the host (added for device strategies)
    metis_objective : Literal['cut', 'vol'] | None, default 'cut'
        What METIS minimises
    progress : Callable[[str], Any] | None, default None
        Receives each stage as it starts.
    name : str | None, default None
        Names a matrix held in memory in the report.
    """

def scale(
    source: Any,
    nodes: Sequence[int],
    *,
    levels_from: str | os.PathLike[str] | None = None,
    permute: int | None = None,
    epsilon: float | None = None,
    angle: float | None = None,
    preset: Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None = 'hypre',
    theta: float | None = None,
    strength: Literal['abs', 'signed', 'symmetric', 'raptor'] | None = None,
    max_row_sum: float | None = None,
    num_functions: int | None = None,
    coarsening: Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None = None,
    interpolation: Literal['direct', 'classical', 'extended+i'] | None = None,
    p_max_elmts: int | None = None,
    trunc_factor: float | None = None,
    seed: int | None = None,
    max_coarse: int | None = None,
    max_levels: int | None = None,
    machine: str | None = None,
    ppn: int | None = None,
    ranks_per_gpu: int | None = None,
    placement: Literal['smp', 'round-robin', 'random'] | None = None,
    placement_seed: int | None = 0,
    allocation: Literal['contiguous', 'random'] | None = None,
    allocation_seed: int | None = 0,
    partition: str | None = None,
    metis_objective: Literal['cut', 'vol'] | None = 'cut',
    partition_seed: int | None = 0,
    serial_refinements: int | None = None,
    coarse_partition: Literal['inherit', 'rebalance'] | None = 'inherit',
    weak: bool = False,
    strategies: Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split'] | Sequence[Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split']] | None = None,
    measured: str | os.PathLike[str] | None = None,
    ops: Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict'] | Sequence[Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict']] | None = None,
    model: str | None = 'nodeaware+queue+contention',
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
) -> Scaled:
    """
    ``amgcomm scale`` over the node counts ``nodes`` (a list of
    positive integers). Returns ``Scaled``.

    Parameters
    ----------
    levels_from : str | os.PathLike[str] | None, default None
        Read the hierarchy from DIR instead of building one: A0.mtx, P0.mtx, [C0.txt], A1.mtx, ... (PyAMG, 'save_levels'), A0.petsc, P0.petsc, ... (PETSc), hypre rank files A0.00000, P0.00000, ... (tools/hypre_dump_levels.c; their ranks are every level's partition), or the one file PETSc's -pc_mg_dump_binary writes. The AMG flags and 'permute' do not apply to it
    permute : int | None, default None
        Apply a random symmetric node permutation with this seed first
    epsilon : float | None, default None
        gen:aniso2d's anisotropy epsilon (default 0.001, RAPtor's benchmark_matops)
    angle : float | None, default None
        gen:aniso2d's rotation of the anisotropy, in degrees (default 45)
    preset : Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None, default 'hypre'
        Settings chosen at once; the flags below override them
    theta : float | None, default None
        Strength threshold theta, in [0, 1] [hypre: 0.25, pyamg: 0.25, raptor-elasticity: 0.5, raptor-2018: 0.5, raptor-matops-2018: 0.25]
    strength : Literal['abs', 'signed', 'symmetric', 'raptor'] | None, default None
        Strength rule [hypre: signed, pyamg: abs, raptor-elasticity: signed, raptor-2018: raptor, raptor-matops-2018: raptor]
    max_row_sum : float | None, default None
        hypre's max_row_sum (signed rule); 1.0 switches it off [hypre: 0.9, pyamg: 1, raptor-elasticity: 1, raptor-2018: 1, raptor-matops-2018: 1]
    num_functions : int | None, default None
        Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows [hypre: 1, pyamg: 1, raptor-elasticity: 3, raptor-2018: 3, raptor-matops-2018: 1]
    coarsening : Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None, default None
        C/F splitting [hypre: hmis, pyamg: rs, raptor-elasticity: hmis, raptor-2018: hmis-raptor, raptor-matops-2018: cljp-raptor]
    interpolation : Literal['direct', 'classical', 'extended+i'] | None, default None
        Interpolation [hypre: extended+i, pyamg: classical, raptor-elasticity: extended+i, raptor-2018: extended+i, raptor-matops-2018: classical]
    p_max_elmts : int | None, default None
        At most this many entries per row of P (hypre's P_max_elmts; 0: no limit) [hypre: 4, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    trunc_factor : float | None, default None
        Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    seed : int | None, default None
        Seed of the random weights of pmis and cljp (hmis draws hypre_Rand, seeded 2747 + rank as hypre does) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    max_coarse : int | None, default None
        Stop when a level has at most this many rows [hypre: 9, pyamg: 10, raptor-elasticity: 50, raptor-2018: 50, raptor-matops-2018: 50]
    max_levels : int | None, default None
        At most this many levels [hypre: 25, pyamg: 30, raptor-elasticity: 25, raptor-2018: 25, raptor-matops-2018: 25]
    machine : str | None, default None
        Machine: a preset (bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter; amgcomm machine list) or a JSON file with name, nodes, ppn, sockets_per_node, nodes_per_router or network [, placement, allocation, params]. [default: bluewaters]
    ppn : int | None, default None
        Processes per node (overrides the machine's; bluewaters: 16)
    ranks_per_gpu : int | None, default None
        Put the data on the machine's GPUs, K CPU ranks serving each (as with MPS; ppn = GPUs per node x K): the rows are partitioned over the GPUs, the first rank of each owns them. Implied (K = 1) by a device strategy (gpu-aware, staged, staged-node-aware, split)
    placement : Literal['smp', 'round-robin', 'random'] | None, default None
        Rank placement (overrides the machine's; bluewaters: smp)
    placement_seed : int | None, default 0
        Seed of 'placement' random
    allocation : Literal['contiguous', 'random'] | None, default None
        Which of the machine's nodes the job gets, when its network names the whole machine (torus3d dims, dragonfly groups, fattree switches); default contiguous
    allocation_seed : int | None, default 0
        Seed of 'allocation' random
    partition : str | None, default None
        Partition of the fine rows: a method, or a partition file (one owner rank a line, as METIS writes them) - contiguous: Balanced blocks of consecutive rows (the default) - contiguous-nnz: Consecutive rows, blocks balanced by nonzeros - random: A seeded random balanced assignment - metis: METIS k-way on the graph of A + A^T - metis-nodes: METIS into the nodes, then each node into its ranks - mfem: MFEM's ParMesh partition of a mesh generator's elements (gen:beam, gen:elasticity3d): METIS k-way over the serially refined mesh, children on their parent's rank, a shared node to the lowest rank, rows renumbered rank by rank (see 'serial_refinements') [default: contiguous; for hypre IJ input (path/A with path/A.00000, ...) and hypre 'levels_from' folders, the ranks the files were written by]
    metis_objective : Literal['cut', 'vol'] | None, default 'cut'
        What METIS minimises
    partition_seed : int | None, default 0
        Seed of 'partition' random
    serial_refinements : int | None, default None
        'partition' mfem: refine the serial mesh this many times before METIS partitions its elements (default: the fewest that give every rank an element, as MFEM's users do)
    coarse_partition : Literal['inherit', 'rebalance'] | None, default 'inherit'
        Coarse levels
    weak : bool, default False
        Grow the generator's N with the ranks (weak scaling); default: the same problem at every node count (strong scaling)
    strategies : Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split'] | Sequence[Literal['standard', 'node-aware-2', 'node-aware-3', 'gpu-aware', 'staged', 'staged-node-aware', 'split']] | None, default None
        Strategies charged at every node count, the reference first [default: standard,node-aware-3; with 'ranks_per_gpu' the four device strategies]
    measured : str | os.PathLike[str] | None, default None
        Measured runs: a folder of RAPtor logs or amgcomm measured JSON, each named with its process count (aniso_128.out)
    ops : Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict'] | Sequence[Literal['spmv', 'spgemm', 'ptap', 'aa', 'interp', 'restrict']] | None, default None
        Operations to charge [default: spmv,spgemm,ptap, and aa under 'preset' raptor-matops-2018]
    model : str | None, default 'nodeaware+queue+contention'
        Cost model: terms joined by '+', at most one rate term and one queue term postal alpha + s / R_b per message, network parameters for all (eq. 1) (rate term) maxrate alpha + a s / min(R_N, a R_b), network parameters for all (eq. 2) (rate term) nodeaware eq. 2 by locality: alpha + s / R_b on the node, alpha + a s / min(R_N, a R_b) on the network (rate term) loggp LogGP per sending rank: max(g, o_s + (s-1) G) per message, then L + o_r (machine file's params.loggp, else from alpha and R_b) (rate term) copytransfer copy-transfer throughputs, the cheaper of buffer packing and chained transfers (Stricker and Gross 1995) (rate term) queue gamma n^2, n the most messages a rank receives (eq. 3) (queue term) queue-measured gamma n^2 / 3 (eq. 3 as measured) (queue term) queue-lower gamma n (eq. 3's lower bound) (queue term) contention box3d: delta h^3 B / routers, B the network bytes, h their mean hops (eqs. 5, 7); other networks: delta x bytes on the busiest link logpc LoGPC's network contention on the router torus (Moritz and Frank 2001) routed delta x bytes on the busiest directed link under the network's routes pack gathering non-contiguous send buffers, log3P's l_mw (machine's pack_table, else pack_per_run and pack_rate) rowcopy copying the local matrix before packing rows: copy_per_nonzero x the most nonzeros a rank holds (RAPtor's communicate(A); added for aa) rowpack packing and unpacking rows as (value, index) pairs: per_element x the most elements a rank packs and unpacks (added for aa) recvserial blocking probe and receive, one source at a time: per_received x the most messages a rank receives (added for aa where per_received is measured) memcpy host-device copies of device data: alpha + s / R per GPU, the slowest GPU (HPEC 2021; added for device strategies) kernel pack and unpack kernels of device data, launch and synchronisation each (added for device strategies) devicempi a fixed cost per exchange of device buffers through a CUDA-aware MPI (added for device strategies) hostround a fixed cost per round of a device strategy's messages through the host (added for device strategies)
    progress : Callable[[str], Any] | None, default None
        Receives each stage as it starts.
    name : str | None, default None
        Names a matrix held in memory in the report.
    """

def hierarchy(
    A: Any,
    *,
    permute: int | None = None,
    epsilon: float | None = None,
    angle: float | None = None,
    preset: Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None = 'hypre',
    theta: float | None = None,
    strength: Literal['abs', 'signed', 'symmetric', 'raptor'] | None = None,
    max_row_sum: float | None = None,
    num_functions: int | None = None,
    coarsening: Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None = None,
    interpolation: Literal['direct', 'classical', 'extended+i'] | None = None,
    p_max_elmts: int | None = None,
    trunc_factor: float | None = None,
    seed: int | None = None,
    max_coarse: int | None = None,
    max_levels: int | None = None,
    ranks: int | None = None,
    machine: str | None = None,
    nodes: int | Sequence[int] | None = None,
    ppn: int | None = None,
    ranks_per_gpu: int | None = None,
    placement: Literal['smp', 'round-robin', 'random'] | None = None,
    placement_seed: int | None = 0,
    allocation: Literal['contiguous', 'random'] | None = None,
    allocation_seed: int | None = 0,
    partition: str | None = None,
    metis_objective: Literal['cut', 'vol'] | None = 'cut',
    partition_seed: int | None = 0,
    serial_refinements: int | None = None,
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
) -> Hierarchy:
    """
    The hierarchy amgcomm builds from ``A`` (a SciPy matrix, a
    path or ``"gen:KIND:N"``), as SciPy CSR matrices: ``preset`` and the AMG
    options, on ``ranks`` (or the machine given) when the setup depends on
    them.

    Parameters
    ----------
    permute : int | None, default None
        Apply a random symmetric node permutation with this seed first
    epsilon : float | None, default None
        gen:aniso2d's anisotropy epsilon (default 0.001, RAPtor's benchmark_matops)
    angle : float | None, default None
        gen:aniso2d's rotation of the anisotropy, in degrees (default 45)
    preset : Literal['hypre', 'pyamg', 'raptor-elasticity', 'raptor-2018', 'raptor-matops-2018'] | None, default 'hypre'
        Settings chosen at once; the flags below override them
    theta : float | None, default None
        Strength threshold theta, in [0, 1] [hypre: 0.25, pyamg: 0.25, raptor-elasticity: 0.5, raptor-2018: 0.5, raptor-matops-2018: 0.25]
    strength : Literal['abs', 'signed', 'symmetric', 'raptor'] | None, default None
        Strength rule [hypre: signed, pyamg: abs, raptor-elasticity: signed, raptor-2018: raptor, raptor-matops-2018: raptor]
    max_row_sum : float | None, default None
        hypre's max_row_sum (signed rule); 1.0 switches it off [hypre: 0.9, pyamg: 1, raptor-elasticity: 1, raptor-2018: 1, raptor-matops-2018: 1]
    num_functions : int | None, default None
        Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows [hypre: 1, pyamg: 1, raptor-elasticity: 3, raptor-2018: 3, raptor-matops-2018: 1]
    coarsening : Literal['rs', 'rs2', 'pmis', 'hmis', 'hmis-raptor', 'cljp', 'cljp-raptor'] | None, default None
        C/F splitting [hypre: hmis, pyamg: rs, raptor-elasticity: hmis, raptor-2018: hmis-raptor, raptor-matops-2018: cljp-raptor]
    interpolation : Literal['direct', 'classical', 'extended+i'] | None, default None
        Interpolation [hypre: extended+i, pyamg: classical, raptor-elasticity: extended+i, raptor-2018: extended+i, raptor-matops-2018: classical]
    p_max_elmts : int | None, default None
        At most this many entries per row of P (hypre's P_max_elmts; 0: no limit) [hypre: 4, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    trunc_factor : float | None, default None
        Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    seed : int | None, default None
        Seed of the random weights of pmis and cljp (hmis draws hypre_Rand, seeded 2747 + rank as hypre does) [hypre: 0, pyamg: 0, raptor-elasticity: 0, raptor-2018: 0, raptor-matops-2018: 0]
    max_coarse : int | None, default None
        Stop when a level has at most this many rows [hypre: 9, pyamg: 10, raptor-elasticity: 50, raptor-2018: 50, raptor-matops-2018: 50]
    max_levels : int | None, default None
        At most this many levels [hypre: 25, pyamg: 30, raptor-elasticity: 25, raptor-2018: 25, raptor-matops-2018: 25]
    ranks : int | None, default None
        Build it on P ranks (hypre's and RAPtor's setups depend on them), each a contiguous block of rows unless 'partition' says otherwise; or give the machine as analyze takes it ('nodes', 'ppn', ...) [default: 1]
    machine : str | None, default None
        Machine: a preset (bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter; amgcomm machine list) or a JSON file with name, nodes, ppn, sockets_per_node, nodes_per_router or network [, placement, allocation, params]. [default: bluewaters]
    nodes : int | Sequence[int] | None, default None
        Number of nodes (overrides the machine's; bluewaters: 512); amgcomm scale takes several, joined by ','
    ppn : int | None, default None
        Processes per node (overrides the machine's; bluewaters: 16)
    ranks_per_gpu : int | None, default None
        Put the data on the machine's GPUs, K CPU ranks serving each (as with MPS; ppn = GPUs per node x K): the rows are partitioned over the GPUs, the first rank of each owns them. Implied (K = 1) by a device strategy (gpu-aware, staged, staged-node-aware, split)
    placement : Literal['smp', 'round-robin', 'random'] | None, default None
        Rank placement (overrides the machine's; bluewaters: smp)
    placement_seed : int | None, default 0
        Seed of 'placement' random
    allocation : Literal['contiguous', 'random'] | None, default None
        Which of the machine's nodes the job gets, when its network names the whole machine (torus3d dims, dragonfly groups, fattree switches); default contiguous
    allocation_seed : int | None, default 0
        Seed of 'allocation' random
    partition : str | None, default None
        Partition of the fine rows: a method, or a partition file (one owner rank a line, as METIS writes them) - contiguous: Balanced blocks of consecutive rows (the default) - contiguous-nnz: Consecutive rows, blocks balanced by nonzeros - random: A seeded random balanced assignment - metis: METIS k-way on the graph of A + A^T - metis-nodes: METIS into the nodes, then each node into its ranks - mfem: MFEM's ParMesh partition of a mesh generator's elements (gen:beam, gen:elasticity3d): METIS k-way over the serially refined mesh, children on their parent's rank, a shared node to the lowest rank, rows renumbered rank by rank (see 'serial_refinements') [default: contiguous; for hypre IJ input (path/A with path/A.00000, ...) and hypre 'levels_from' folders, the ranks the files were written by]
    metis_objective : Literal['cut', 'vol'] | None, default 'cut'
        What METIS minimises
    partition_seed : int | None, default 0
        Seed of 'partition' random
    serial_refinements : int | None, default None
        'partition' mfem: refine the serial mesh this many times before METIS partitions its elements (default: the fewest that give every rank an element, as MFEM's users do)
    progress : Callable[[str], Any] | None, default None
        Receives each stage as it starts.
    name : str | None, default None
        Names a matrix held in memory in the report.
    """
