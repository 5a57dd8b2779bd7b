/*
 * hypre_dump_levels: BoomerAMG on a 3D Laplacian spread unevenly over the
 * ranks, then the matrix and every level of the hierarchy printed in
 * hypre's IJ format, for amgcomm:
 *
 *   OUTDIR/A.00000 ...    the matrix (HYPRE_IJMatrixPrint):   amgcomm analyze OUTDIR/A
 *   OUTDIR/A0.00000 ...   A_0, P_0, A_1, P_1, ... (hypre_ParCSRMatrixPrintIJ):
 *   OUTDIR/P0.00000 ...                                        amgcomm analyze --levels-from OUTDIR
 *
 * dump_levels() below is the part to copy into an application: call it
 * after HYPRE_BoomerAMGSetup. It reads the hierarchy with hypre's own
 * accessors (hypre_ParAMGData, _hypre_parcsr_ls.h, hypre 2.26 and later).
 *
 * Build (Debian: apt-get install libhypre-dev openmpi-bin libopenmpi-dev):
 *   mpicc tools/hypre_dump_levels.c -I/usr/include/hypre -lHYPRE -lm -o hypre_dump_levels
 * Run:
 *   mpirun -n 4 ./hypre_dump_levels OUTDIR [N [solve] [renumber=SEED]]
 * N: grid points per direction (default 12). Rank r owns a block of rows
 * proportional to r + 1, so the blocks are uneven.
 * With `renumber=SEED` the grid points are numbered in a random order
 * (a Fisher-Yates shuffle driven by splitmix64 from SEED), so that a
 * rank's rows are scattered over the grid and couple to most other
 * ranks' (every rank holds the permutation: 16 bytes a row).
 * With `solve`, BoomerAMG is set up once, as the preconditioner of hypre's
 * PCG (one V-cycle per application, tol 1e-8 on A x = 1), the levels are
 * dumped after that setup, and the solve runs: under Caliper
 * (scripts/caliper_hypre.sh) the profile and the dump are of one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h"

/* Print A_l and P_l of every level of a set-up BoomerAMG solver as
 * dir/A<l>.<rank> and dir/P<l>.<rank>. */
static void dump_levels(HYPRE_Solver solver, const char *dir)
{
   hypre_ParAMGData *amg = (hypre_ParAMGData *) solver;
   int levels = hypre_ParAMGDataNumLevels(amg);
   hypre_ParCSRMatrix **A = hypre_ParAMGDataAArray(amg);
   hypre_ParCSRMatrix **P = hypre_ParAMGDataPArray(amg);
   char name[4096];
   for (int l = 0; l < levels; l++)
   {
      snprintf(name, sizeof name, "%s/A%d", dir, l);
      hypre_ParCSRMatrixPrintIJ(A[l], 0, 0, name);
      if (l < levels - 1)
      {
         snprintf(name, sizeof name, "%s/P%d", dir, l);
         hypre_ParCSRMatrixPrintIJ(P[l], 0, 0, name);
      }
   }
}

/* splitmix64: the shuffle's random numbers, the same on every rank. */
static unsigned long long splitmix64(unsigned long long *state)
{
   unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return z ^ (z >> 31);
}

int main(int argc, char *argv[])
{
   MPI_Init(&argc, &argv);
   int rank, size;
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   if (argc < 2)
   {
      if (rank == 0) fprintf(stderr, "usage: hypre_dump_levels OUTDIR [N [solve] [renumber=SEED]]\n");
      MPI_Finalize();
      return 2;
   }
   const char *dir = argv[1];
   int n = argc > 2 ? atoi(argv[2]) : 12;
   if (n < 2)
   {
      if (rank == 0) fprintf(stderr, "hypre_dump_levels: N must be at least 2\n");
      MPI_Finalize();
      return 2;
   }
   int solve = 0, renumber = 0;
   unsigned long long seed = 0;
   for (int a = 3; a < argc; a++)
   {
      if (strcmp(argv[a], "solve") == 0)
      {
         solve = 1;
      }
      else if (strncmp(argv[a], "renumber=", 9) == 0 && argv[a][9] != '\0')
      {
         renumber = 1;
         seed = strtoull(argv[a] + 9, NULL, 10);
      }
      else
      {
         if (rank == 0) fprintf(stderr, "hypre_dump_levels: unknown option %s (solve, renumber=SEED)\n", argv[a]);
         MPI_Finalize();
         return 2;
      }
   }
   HYPRE_Init();

   /* Uneven blocks: rank r owns rows in proportion to r + 1. In 64-bit
    * arithmetic: HYPRE_BigInt is 32 bits unless hypre was configured
    * with --enable-bigint, and rows * before overflows it long before
    * the rows do. */
   long long rows = (long long) n * n * n;
   long long weights = (long long) size * (size + 1) / 2;
   long long before = (long long) rank * (rank + 1) / 2;
   if (rows > 2147483647LL && sizeof(HYPRE_BigInt) < 8)
   {
      if (rank == 0) fprintf(stderr, "hypre_dump_levels: %lld rows need hypre built with --enable-bigint\n", rows);
      MPI_Finalize();
      return 2;
   }
   HYPRE_BigInt ilower = (HYPRE_BigInt) (rows * before / weights);
   HYPRE_BigInt iupper = (HYPRE_BigInt) (rows * (before + rank + 1) / weights - 1);

   /* Row i is grid point point_of[i], grid point p is row row_of[p]. */
   long long *point_of = NULL, *row_of = NULL;
   if (renumber)
   {
      point_of = malloc(rows * sizeof *point_of);
      row_of = malloc(rows * sizeof *row_of);
      if (!point_of || !row_of)
      {
         fprintf(stderr, "hypre_dump_levels: no memory for the renumbering of %lld rows\n", rows);
         MPI_Abort(MPI_COMM_WORLD, 1);
      }
      for (long long i = 0; i < rows; i++) point_of[i] = i;
      unsigned long long state = seed;
      for (long long i = rows - 1; i > 0; i--)
      {
         long long j = (long long) (splitmix64(&state) % (unsigned long long) (i + 1));
         long long t = point_of[i];
         point_of[i] = point_of[j];
         point_of[j] = t;
      }
      for (long long i = 0; i < rows; i++) row_of[point_of[i]] = i;
   }

   HYPRE_IJMatrix ij;
   HYPRE_IJMatrixCreate(MPI_COMM_WORLD, ilower, iupper, ilower, iupper, &ij);
   HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
   HYPRE_IJMatrixInitialize(ij);
   for (HYPRE_BigInt i = ilower; i <= iupper; i++)
   {
      long long p = renumber ? point_of[i] : (long long) i;
      long long x = p % n, y = (p / n) % n, z = p / ((long long) n * n);
      long long pts[7];
      HYPRE_Real v[7];
      int m = 0;
      if (z > 0)     { pts[m] = p - (long long) n * n; v[m++] = -1.0; }
      if (y > 0)     { pts[m] = p - n;     v[m++] = -1.0; }
      if (x > 0)     { pts[m] = p - 1;     v[m++] = -1.0; }
      pts[m] = p; v[m++] = 6.0;
      if (x < n - 1) { pts[m] = p + 1;     v[m++] = -1.0; }
      if (y < n - 1) { pts[m] = p + n;     v[m++] = -1.0; }
      if (z < n - 1) { pts[m] = p + (long long) n * n; v[m++] = -1.0; }
      /* Increasing columns, as from a CSR matrix: hypre's setup breaks
       * ties by the order a row's entries came in (insertion sort of
       * the renumbered columns; in grid order they already increase). */
      HYPRE_BigInt cols[7];
      HYPRE_Real vals[7];
      HYPRE_Int k = 0;
      for (int a = 0; a < m; a++)
      {
         HYPRE_BigInt c = (HYPRE_BigInt) (renumber ? row_of[pts[a]] : pts[a]);
         int b = k++;
         while (b > 0 && cols[b - 1] > c)
         {
            cols[b] = cols[b - 1];
            vals[b] = vals[b - 1];
            b--;
         }
         cols[b] = c;
         vals[b] = v[a];
      }
      HYPRE_IJMatrixSetValues(ij, 1, &k, &i, cols, vals);
   }
   free(point_of);
   free(row_of);
   HYPRE_IJMatrixAssemble(ij);
   HYPRE_ParCSRMatrix A;
   HYPRE_IJMatrixGetObject(ij, (void **) &A);

   char name[4096];
   snprintf(name, sizeof name, "%s/A", dir);
   HYPRE_IJMatrixPrint(ij, name);

   HYPRE_IJVector bij, xij;
   HYPRE_IJVectorCreate(MPI_COMM_WORLD, ilower, iupper, &bij);
   HYPRE_IJVectorSetObjectType(bij, HYPRE_PARCSR);
   HYPRE_IJVectorInitialize(bij);
   HYPRE_IJVectorAssemble(bij);
   HYPRE_IJVectorCreate(MPI_COMM_WORLD, ilower, iupper, &xij);
   HYPRE_IJVectorSetObjectType(xij, HYPRE_PARCSR);
   HYPRE_IJVectorInitialize(xij);
   HYPRE_IJVectorAssemble(xij);
   HYPRE_ParVector b, x;
   HYPRE_IJVectorGetObject(bij, (void **) &b);
   HYPRE_IJVectorGetObject(xij, (void **) &x);

   HYPRE_Solver amg, pcg = NULL;
   HYPRE_BoomerAMGCreate(&amg);
   HYPRE_BoomerAMGSetPrintLevel(amg, 0);
   HYPRE_BoomerAMGSetMaxCoarseSize(amg, 9);
   if (solve)
   {
      /* b = 1 (x stays 0); BoomerAMG as a preconditioner: one V-cycle per
       * application, its only setup the one hypre_PCGSetup calls. */
      HYPRE_ParVectorSetConstantValues(b, 1.0);
      HYPRE_BoomerAMGSetTol(amg, 0.0);
      HYPRE_BoomerAMGSetMaxIter(amg, 1);
      HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
      HYPRE_PCGSetTol(pcg, 1e-8);
      HYPRE_PCGSetMaxIter(pcg, 100);
      HYPRE_PCGSetTwoNorm(pcg, 1);
      HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn) HYPRE_BoomerAMGSolve,
                          (HYPRE_PtrToSolverFcn) HYPRE_BoomerAMGSetup, amg);
      HYPRE_ParCSRPCGSetup(pcg, A, b, x);
   }
   else
   {
      HYPRE_BoomerAMGSetup(amg, A, b, x);
   }

   dump_levels(amg, dir);
   if (solve)
   {
      HYPRE_Int iters;
      HYPRE_Real relres;
      HYPRE_ParCSRPCGSolve(pcg, A, b, x);
      HYPRE_PCGGetNumIterations(pcg, &iters);
      HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &relres);
      if (rank == 0)
      {
         printf("hypre_dump_levels: PCG with BoomerAMG: %d iterations, relative residual %e\n",
                (int) iters, (double) relres);
      }
      HYPRE_ParCSRPCGDestroy(pcg);
   }
   if (rank == 0)
   {
      printf("hypre_dump_levels: %d levels of a %d^3 Laplacian on %d ranks in %s",
             hypre_ParAMGDataNumLevels((hypre_ParAMGData *) amg), n, size, dir);
      if (renumber) printf(" (grid points renumbered, seed %llu)", seed);
      printf("\n");
   }

   HYPRE_BoomerAMGDestroy(amg);
   HYPRE_IJVectorDestroy(bij);
   HYPRE_IJVectorDestroy(xij);
   HYPRE_IJMatrixDestroy(ij);
   HYPRE_Finalize();
   MPI_Finalize();
   return 0;
}
