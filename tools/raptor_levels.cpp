// raptor_levels: print, per AMG level, what RAPtor (commit c00e9d6, 2018-06-07)
// builds for a PETSc binary matrix: the judge of the raptor-2018 presets
// (issue 51).
//
// build: RAPtor at c00e9d6, `cmake .. -DWITH_MPI=ON && make raptor` (the
// library alone: examples/benchmark_commpkg.cpp does not compile with Open
// MPI), then
//   mpicxx -O2 -std=c++11 -DUSING_MPI -I SRC/raptor -I SRC/external \
//       tools/raptor_levels.cpp -o raptor_levels SRC/build/lib/libraptor.a \
//       -llapack -lblas
//
// RAPtor orders a communication package's sends by message arrival
// (ParComm::init_par_comm), so its sums, and the entries its 1e-16 drop
// tolerance keeps, can differ in the last bits from run to run: on the
// 128-rank beam (n = 4, 3 variables) level 1 had 4,096,480 to 4,096,507
// nonzeros over five runs, rows and messages the same.
//
// usage: mpirun -n P ./raptor_levels MATRIX.pk [--vars K] [--theta T] [--matops]
//                                              [--blocks FILE] [--dump DIR]
//   default  : ParRugeStubenSolver(theta, HMIS, Extended, Classical, SOR), theta 0.5
//              (RAPtor's linear-elasticity setting: examples/benchmark_amg.cpp:116,
//              examples/benchmark_matops.cpp:204)
//   --matops : settings of examples/benchmark_matops.cpp for a matrix read from
//              file (system 3): theta 0.25, CLJP, ModClassical, Classical, SOR
//   --vars K : num_variables = K; RAPtor then sets variable[row] = global_row % K
//              (ParRugeStubenSolver::form_variable_list)
//   --theta T: strong threshold (overrides either preset)
//   --blocks FILE: P+1 whitespace-separated row starts (0 ... N); rank r owns rows
//              [start[r], start[r+1]); default: readParMatrix's own even split
//   --dump DIR: every rank also writes each level's A and P as DIR/A<l>.<rank>
//              and DIR/P<l>.<rank>, one "row col value" line per stored entry
//              (global indices; each row's on_proc entries, then its off_proc
//              ones, in stored order)
//
// Output (rank 0), one line per level:
//   level, global rows, global nnz, active ranks (local rows > 0),
//   A comm pkg: sum over ranks of messages sent, sum of doubles sent * 8 bytes,
//   P comm pkg: same (levels that have a P).
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/par_matrix.hpp"
#include "gallery/par_matrix_IO.hpp"
#include "ruge_stuben/par_ruge_stuben_solver.hpp"

using namespace raptor;

// Global sum of one long value onto rank 0.
static long sum0(long v)
{
    long s = 0;
    MPI_Reduce(&v, &s, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return s;
}

// Totals over all ranks of a matrix's communication package (sends only;
// every send has a matching receive, so these equal the receive totals).
static void comm_totals(ParCSRMatrix* M, long& msgs, long& bytes)
{
    long n = 0, sz = 0;
    if (M && M->comm)
    {
        n = M->comm->send_data->num_msgs;
        sz = M->comm->send_data->size_msgs;
    }
    msgs = sum0(n);
    bytes = sum0(sz) * (long) sizeof(double);
}

// One rank's rows of M, in stored order, as "row col value" lines.
static void dump(ParCSRMatrix* M, const char* dir, const char* name, int level, int rank)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s%d.%d", dir, name, level, rank);
    FILE* f = fopen(path, "w");
    if (!f)
    {
        fprintf(stderr, "cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < M->local_num_rows; i++)
    {
        int row = M->local_row_map[i];
        for (int k = M->on_proc->idx1[i]; k < M->on_proc->idx1[i + 1]; k++)
            fprintf(f, "%d %d %.17g\n", row, M->on_proc_column_map[M->on_proc->idx2[k]],
                    M->on_proc->vals[k]);
        for (int k = M->off_proc->idx1[i]; k < M->off_proc->idx1[i + 1]; k++)
            fprintf(f, "%d %d %.17g\n", row, M->off_proc_column_map[M->off_proc->idx2[k]],
                    M->off_proc->vals[k]);
    }
    fclose(f);
}

int main(int argc, char* argv[])
{
    MPI_Init(&argc, &argv);
    int rank, num_procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &num_procs);

    if (argc < 2)
    {
        if (rank == 0) fprintf(stderr, "usage: %s MATRIX.pk [--vars K] [--theta T] "
                "[--matops] [--blocks FILE]\n", argv[0]);
        MPI_Finalize();
        return 1;
    }

    // ---- options -------------------------------------------------------
    const char* matrix = argv[1];
    const char* blocks = NULL;
    const char* dump_dir = NULL;
    int num_vars = 1;
    double theta = 0.5;
    bool theta_set = false, matops = false;
    for (int i = 2; i < argc; i++)
    {
        if (!strcmp(argv[i], "--vars") && i + 1 < argc) num_vars = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--theta") && i + 1 < argc)
        { theta = atof(argv[++i]); theta_set = true; }
        else if (!strcmp(argv[i], "--matops")) matops = true;
        else if (!strcmp(argv[i], "--blocks") && i + 1 < argc) blocks = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump_dir = argv[++i];
        else
        {
            if (rank == 0) fprintf(stderr, "unknown option %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    coarsen_t coarsen = HMIS;
    interp_t interp = Extended;
    if (matops)   // examples/benchmark_matops.cpp:124-127
    {
        coarsen = CLJP;
        interp = ModClassical;
        if (!theta_set) theta = 0.25;
    }

    // ---- read the matrix -------------------------------------------------
    ParCSRMatrix* A;
    if (blocks)
    {
        // Every rank reads the P+1 row starts; square matrix, so the column
        // block equals the row block.
        std::vector<long> start;
        FILE* f = fopen(blocks, "r");
        long v;
        while (f && fscanf(f, "%ld", &v) == 1) start.push_back(v);
        if (f) fclose(f);
        if ((int) start.size() != num_procs + 1)
        {
            if (rank == 0) fprintf(stderr, "%s: need %d row starts, found %zu\n",
                    blocks, num_procs + 1, start.size());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int first = start[rank], n = start[rank + 1] - start[rank];
        A = readParMatrix(matrix, n, n, first, first);
    }
    else
    {
        A = readParMatrix(matrix);   // Partition's even split of rows and columns
    }

    // ---- AMG setup --------------------------------------------------------
    ParRugeStubenSolver* ml = new ParRugeStubenSolver(theta, coarsen, interp,
            Classical, SOR);
    ml->num_variables = num_vars;    // setup() builds variables[i] = row % K
    ml->setup(A);

    if (rank == 0)
    {
        printf("# RAPtor c00e9d6: %s, %d ranks, theta %g, %s, %s, Classical strength, SOR, "
                "num_variables %d, %s blocks, max_coarse %d, max_levels %d\n",
                matrix, num_procs, theta, matops ? "CLJP" : "HMIS",
                matops ? "ModClassical" : "Extended", num_vars,
                blocks ? blocks : "even", ml->max_coarse, ml->max_levels);
        printf("%5s %10s %12s %6s %10s %14s %10s %14s\n", "level", "rows", "nnz",
                "active", "A_msgs", "A_bytes", "P_msgs", "P_bytes");
    }

    // ---- per-level statistics --------------------------------------------
    for (int l = 0; l < ml->num_levels; l++)
    {
        ParCSRMatrix* Al = ml->levels[l]->A;
        ParCSRMatrix* Pl = ml->levels[l]->P;   // NULL on the coarsest level
        long nnz = sum0(Al->on_proc->nnz + Al->off_proc->nnz);
        long active = sum0(Al->local_num_rows > 0 ? 1 : 0);
        long a_msgs, a_bytes, p_msgs = 0, p_bytes = 0;
        comm_totals(Al, a_msgs, a_bytes);
        if (Pl) comm_totals(Pl, p_msgs, p_bytes);
        if (dump_dir)
        {
            dump(Al, dump_dir, "A", l, rank);
            if (Pl) dump(Pl, dump_dir, "P", l, rank);
        }
        if (rank == 0)
        {
            if (Pl)
                printf("%5d %10d %12ld %6ld %10ld %14ld %10ld %14ld\n", l,
                        Al->global_num_rows, nnz, active, a_msgs, a_bytes,
                        p_msgs, p_bytes);
            else
                printf("%5d %10d %12ld %6ld %10ld %14ld %10s %14s\n", l,
                        Al->global_num_rows, nnz, active, a_msgs, a_bytes, "-", "-");
        }
    }

    delete ml;
    delete A;
    MPI_Finalize();
    return 0;
}
