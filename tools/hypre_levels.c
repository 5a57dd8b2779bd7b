/*
 * hypre_levels: HYPRE_BoomerAMGSetup with hypre's defaults, then the rows
 * and nonzeros of every level, for holding amgcomm's `--preset hypre`
 * against real hypre (tests/hypre_preset.rs, scripts/bench_hypre.sh).
 *
 * Build (Debian: apt-get install libhypre-dev openmpi-bin libopenmpi-dev):
 *   mpicc -O2 tools/hypre_levels.c -I/usr/include/hypre -lHYPRE -lm -o hypre_levels
 * Run:
 *   mpirun -n R ./hypre_levels MATRIX [NUM_FUNCTIONS [PARTITION]]
 * MATRIX: a Matrix Market file (coordinate, real or integer, general or
 * symmetric; `amgcomm generate` writes them) or lap:N, the 7-point
 * Laplacian of an N^3 grid built in place.
 * PARTITION: the owner rank of every row, one a line (METIS's format,
 * lines starting with % skipped); the rows are renumbered rank by rank,
 * each rank's in their order, as an application hands hypre its own
 * rows. Without it rank r owns n / R contiguous rows, the first n % R
 * ranks one more (hypre_GeneratePartitioning's blocks, and amgcomm's
 * `contiguous`).
 *
 * Prints, on rank 0:
 *   level rows nnz      one line per level, 0 the finest
 *   setup_seconds S     HYPRE_BoomerAMGSetup alone (input excluded), the
 *                       slowest rank
 * Everything BoomerAMG is given is its default (hypre 2.26: HMIS,
 * extended+i, P_max_elmts 4, strong threshold 0.25, max_row_sum 0.9,
 * max_levels 25, max_coarse_size 9) except NUM_FUNCTIONS, and the coarsen
 * type when the environment sets HYPRE_LEVELS_COARSEN_TYPE (0: CLJP, the
 * one hypre's setup switches to after a level that kept 3/4 of its rows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h"

/* One rank's rows as coordinate triples, global indices. */
struct triples
{
   long long n;
   long long len, cap;
   long long *i, *j;
   double *v;
};

static void push(struct triples *t, long long i, long long j, double v)
{
   if (t->len == t->cap)
   {
      t->cap = t->cap ? 2 * t->cap : 1024;
      t->i = realloc(t->i, t->cap * sizeof *t->i);
      t->j = realloc(t->j, t->cap * sizeof *t->j);
      t->v = realloc(t->v, t->cap * sizeof *t->v);
      if (!t->i || !t->j || !t->v)
      {
         fprintf(stderr, "hypre_levels: out of memory\n");
         MPI_Abort(MPI_COMM_WORLD, 1);
      }
   }
   t->i[t->len] = i;
   t->j[t->len] = j;
   t->v[t->len] = v;
   t->len++;
}

static void laplacian(struct triples *t, long long n, long long lo, long long hi)
{
   long long nn = n * n;
   t->n = nn * n;
   for (long long i = lo; i < hi; i++)
   {
      long long x = i % n, y = (i / n) % n, z = i / nn;
      if (z > 0) push(t, i, i - nn, -1.0);
      if (y > 0) push(t, i, i - n, -1.0);
      if (x > 0) push(t, i, i - 1, -1.0);
      push(t, i, i, 6.0);
      if (x < n - 1) push(t, i, i + 1, -1.0);
      if (y < n - 1) push(t, i, i + n, -1.0);
      if (z < n - 1) push(t, i, i + nn, -1.0);
   }
}

/* Sorts the triples by row, then column: each row reaches hypre in
 * increasing column order, as from a CSR matrix. */
static struct triples *sort_key;
static int by_row_col(const void *x, const void *y)
{
   long long a = *(const long long *) x, b = *(const long long *) y;
   long long ra = sort_key->i[a], rb = sort_key->i[b];
   if (ra != rb) return ra < rb ? -1 : 1;
   long long ca = sort_key->j[a], cb = sort_key->j[b];
   return ca < cb ? -1 : ca > cb;
}

/* The size line of a Matrix Market file; returns 0 on success. */
static int mm_header(FILE *f, long long *rows, long long *entries, int *symmetric)
{
   char line[4096];
   if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket", 14) != 0) return 1;
   if (!strstr(line, "coordinate")) return 1;
   *symmetric = strstr(line, "symmetric") != NULL;
   while (fgets(line, sizeof line, f))
   {
      if (line[0] == '%') continue;
      long long r, c;
      if (sscanf(line, "%lld %lld %lld", &r, &c, entries) != 3 || r != c) return 1;
      *rows = r;
      return 0;
   }
   return 1;
}

/* Rank r's first row of n rows in even blocks, the first n % size ranks
 * one row more. */
static long long first_row(long long n, int r, int size)
{
   long long q = n / size, rem = n % size;
   return q * r + (r < rem ? r : rem);
}

/* The new number of every row (rank by rank, each rank's rows in their
 * order) and this rank's first and last new rows. Without a file the
 * numbering is the identity over even blocks. Returns NULL on a bad
 * file. */
static long long *renumber(const char *path, long long n, int rank, int size,
                           long long *lo, long long *hi)
{
   long long *new_of_old = malloc((n + 1) * sizeof *new_of_old);
   if (!new_of_old) return NULL;
   if (!path)
   {
      for (long long i = 0; i < n; i++) new_of_old[i] = i;
      *lo = first_row(n, rank, size);
      *hi = first_row(n, rank + 1, size);
      return new_of_old;
   }
   FILE *f = fopen(path, "r");
   if (!f) return free(new_of_old), NULL;
   int *owner = malloc((n + 1) * sizeof *owner);
   long long *count = calloc(size + 1, sizeof *count);
   char line[256];
   long long i = 0;
   while (owner && count && fgets(line, sizeof line, f))
   {
      if (line[0] == '%' || line[0] == '\n') continue;
      int o;
      if (i == n || sscanf(line, "%d", &o) != 1 || o < 0 || o >= size) { i = -1; break; }
      owner[i++] = o;
      count[o + 1]++;
   }
   fclose(f);
   if (i != n || !owner || !count) return free(owner), free(count), free(new_of_old), NULL;
   for (int r = 0; r < size; r++) count[r + 1] += count[r];
   *lo = count[rank];
   *hi = count[rank + 1];
   for (long long k = 0; k < n; k++) new_of_old[k] = count[owner[k]]++;
   free(owner), free(count);
   return new_of_old;
}

int main(int argc, char *argv[])
{
   MPI_Init(&argc, &argv);
   int rank, size;
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   if (argc < 2)
   {
      if (rank == 0) fprintf(stderr, "usage: hypre_levels MATRIX|lap:N [NUM_FUNCTIONS [PARTITION]]\n");
      MPI_Finalize();
      return 2;
   }
   int nf = argc > 2 ? atoi(argv[2]) : 1;
   if (nf < 1)
   {
      if (rank == 0) fprintf(stderr, "hypre_levels: NUM_FUNCTIONS must be at least 1\n");
      MPI_Finalize();
      return 2;
   }
   HYPRE_Init();

   struct triples t = {0};
   long long lo, hi, rows;
   const char *part = argc > 3 ? argv[3] : NULL;
   FILE *f = NULL;
   long long entries = 0, n = 0;
   int symmetric = 0;
   if (strncmp(argv[1], "lap:", 4) == 0)
   {
      n = atoll(argv[1] + 4);
      rows = n * n * n;
   }
   else
   {
      f = fopen(argv[1], "r");
      if (!f || mm_header(f, &rows, &entries, &symmetric))
      {
         if (rank == 0) fprintf(stderr, "hypre_levels: %s is not a coordinate Matrix Market file\n", argv[1]);
         MPI_Finalize();
         return 1;
      }
   }
   long long *new_of_old = renumber(part, rows, rank, size, &lo, &hi);
   if (!new_of_old)
   {
      if (rank == 0) fprintf(stderr, "hypre_levels: %s: not one owner in [0, %d) a line for each of %lld rows\n", part, size, rows);
      MPI_Finalize();
      return 1;
   }
   t.n = rows;
   if (!f)
   {
      struct triples all = {0};
      laplacian(&all, n, 0, rows);
      for (long long k = 0; k < all.len; k++)
      {
         long long r = new_of_old[all.i[k]];
         if (r >= lo && r < hi) push(&t, r, new_of_old[all.j[k]], all.v[k]);
      }
      free(all.i), free(all.j), free(all.v);
   }
   else
   {
      for (long long k = 0; k < entries; k++)
      {
         long long r, c;
         double v;
         if (fscanf(f, "%lld %lld %lf", &r, &c, &v) != 3)
         {
            if (rank == 0) fprintf(stderr, "hypre_levels: %s ends early\n", argv[1]);
            MPI_Finalize();
            return 1;
         }
         r = new_of_old[r - 1], c = new_of_old[c - 1];
         if (r >= lo && r < hi) push(&t, r, c, v);
         if (symmetric && r != c && c >= lo && c < hi) push(&t, c, r, v);
      }
      fclose(f);
   }
   free(new_of_old);

   HYPRE_IJMatrix ij;
   HYPRE_IJMatrixCreate(MPI_COMM_WORLD, lo, hi - 1, lo, hi - 1, &ij);
   HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
   HYPRE_IJMatrixInitialize(ij);
   long long *order = malloc((t.len + 1) * sizeof *order);
   HYPRE_BigInt *cols = malloc((t.len + 1) * sizeof *cols);
   HYPRE_Real *vals = malloc((t.len + 1) * sizeof *vals);
   if (!order || !cols || !vals)
   {
      fprintf(stderr, "hypre_levels: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
   }
   for (long long k = 0; k < t.len; k++) order[k] = k;
   sort_key = &t;
   qsort(order, t.len, sizeof *order, by_row_col);
   for (long long k = 0; k < t.len;)
   {
      HYPRE_BigInt row = (HYPRE_BigInt) t.i[order[k]];
      HYPRE_Int len = 0;
      for (; k < t.len && t.i[order[k]] == row; k++, len++)
      {
         cols[len] = (HYPRE_BigInt) t.j[order[k]];
         vals[len] = t.v[order[k]];
      }
      HYPRE_IJMatrixAddToValues(ij, 1, &len, &row, cols, vals);
   }
   free(order), free(cols), free(vals);
   HYPRE_IJMatrixAssemble(ij);
   free(t.i), free(t.j), free(t.v);
   HYPRE_ParCSRMatrix A;
   HYPRE_IJMatrixGetObject(ij, (void **) &A);

   HYPRE_IJVector bij, xij;
   HYPRE_ParVector b, x;
   HYPRE_IJVectorCreate(MPI_COMM_WORLD, lo, hi - 1, &bij);
   HYPRE_IJVectorSetObjectType(bij, HYPRE_PARCSR);
   HYPRE_IJVectorInitialize(bij);
   HYPRE_IJVectorAssemble(bij);
   HYPRE_IJVectorGetObject(bij, (void **) &b);
   HYPRE_IJVectorCreate(MPI_COMM_WORLD, lo, hi - 1, &xij);
   HYPRE_IJVectorSetObjectType(xij, HYPRE_PARCSR);
   HYPRE_IJVectorInitialize(xij);
   HYPRE_IJVectorAssemble(xij);
   HYPRE_IJVectorGetObject(xij, (void **) &x);

   HYPRE_Solver amg;
   HYPRE_BoomerAMGCreate(&amg);
   HYPRE_BoomerAMGSetPrintLevel(amg, 0);
   if (nf > 1) HYPRE_BoomerAMGSetNumFunctions(amg, nf);
   const char *coarsen = getenv("HYPRE_LEVELS_COARSEN_TYPE");
   if (coarsen) HYPRE_BoomerAMGSetCoarsenType(amg, atoi(coarsen));
   MPI_Barrier(MPI_COMM_WORLD);
   double start = MPI_Wtime();
   HYPRE_BoomerAMGSetup(amg, A, b, x);
   double seconds = MPI_Wtime() - start, slowest;
   MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

   hypre_ParAMGData *data = (hypre_ParAMGData *) amg;
   int levels = hypre_ParAMGDataNumLevels(data);
   hypre_ParCSRMatrix **As = hypre_ParAMGDataAArray(data);
   for (int l = 0; l < levels; l++)
   {
      hypre_ParCSRMatrixSetNumNonzeros(As[l]);
      long long rows = (long long) hypre_ParCSRMatrixGlobalNumRows(As[l]);
      long long nnz = (long long) hypre_ParCSRMatrixNumNonzeros(As[l]);
      if (rank == 0) printf("%d %lld %lld\n", l, rows, nnz);
   }
   if (rank == 0) printf("setup_seconds %.6f\n", slowest);

   HYPRE_BoomerAMGDestroy(amg);
   HYPRE_IJVectorDestroy(bij);
   HYPRE_IJVectorDestroy(xij);
   HYPRE_IJMatrixDestroy(ij);
   HYPRE_Finalize();
   MPI_Finalize();
   return 0;
}
