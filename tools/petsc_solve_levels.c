/*
 * petsc_solve_levels: PETSc's algebraic multigrid (PCGAMG by default) as a
 * preconditioner of CG on a 3D Laplacian, solved, with every level printed
 * in hypre's IJ format with PETSc's own row ownership, for amgcomm:
 *
 *   OUTDIR/A0.00000 ...  A_0, P_0, A_1, ... one file per rank, each rank's
 *   OUTDIR/P0.00000 ...  rows as PETSc distributed them (level 0 the finest):
 *                        amgcomm analyze --levels-from OUTDIR
 *
 * Run it with -log_view :OUTDIR/log_view.txt -pc_mg_log, and PETSc's log
 * counts each level's events (MGSmooth Level k, MGResid Level k, MGInterp
 * Level k; PETSc numbers its levels from the coarsest), their messages and
 * their lengths:
 *   amgcomm analyze --levels-from OUTDIR --measured OUTDIR/log_view.txt
 *
 * print_ij() below is the part to copy into an application: call it for
 * each level's operator and interpolation after KSPSetUp (or KSPSolve).
 *
 * Build (Debian: apt-get install petsc-dev):
 *   mpicc tools/petsc_solve_levels.c $(pkg-config --cflags --libs petsc) -o petsc_solve_levels
 * Run:
 *   mpirun -n 4 ./petsc_solve_levels OUTDIR [N] -log_view :OUTDIR/log_view.txt -pc_mg_log
 * N: grid points per direction (default 12).
 */
#include <petscksp.h>

/* Print this rank's rows of M as dir/<name><l>.<rank> (hypre's
 * hypre_ParCSRMatrixPrintIJ layout: "ilower iupper jlower jupper", then
 * "i j value", global 0-based indices). */
static PetscErrorCode print_ij(Mat M, const char *dir, const char *name, PetscInt l)
{
  PetscInt    lo, hi, clo, chi;
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN];
  FILE       *f;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)M), &rank));
  PetscCall(MatGetOwnershipRange(M, &lo, &hi));
  PetscCall(MatGetOwnershipRangeColumn(M, &clo, &chi));
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/%s%" PetscInt_FMT ".%05d", dir, name, l, rank));
  f = fopen(path, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
  fprintf(f, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", lo, hi - 1, clo, chi - 1);
  for (PetscInt i = lo; i < hi; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(M, i, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++) fprintf(f, "%" PetscInt_FMT " %" PetscInt_FMT " %.17g\n", i, cols[k], (double)PetscRealPart(vals[k]));
    PetscCall(MatRestoreRow(M, i, &ncols, &cols, &vals));
  }
  fclose(f);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b, x;
  KSP         ksp;
  PC          pc;
  PetscInt    n = 12, lo, hi, levels, its;
  PetscMPIInt size;

  if (argc < 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: petsc_solve_levels OUTDIR [N] [PETSc options]\n");
    return 2;
  }
  const char *dir = argv[1];
  if (argc > 2 && argv[2][0] != '-') n = atoi(argv[2]);
  if (n < 2) {
    fprintf(stderr, "petsc_solve_levels: N must be at least 2\n");
    return 2;
  }
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  /* The 7-point Laplacian, rows in PETSc's default blocks. */
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n, 7, NULL, 3, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscInt    x0 = i % n, y0 = (i / n) % n, z0 = i / (n * n), cols[7], k = 0;
    PetscScalar vals[7];
    cols[k] = i; vals[k++] = 6.0;
    if (x0 > 0)     { cols[k] = i - 1;     vals[k++] = -1.0; }
    if (x0 < n - 1) { cols[k] = i + 1;     vals[k++] = -1.0; }
    if (y0 > 0)     { cols[k] = i - n;     vals[k++] = -1.0; }
    if (y0 < n - 1) { cols[k] = i + n;     vals[k++] = -1.0; }
    if (z0 > 0)     { cols[k] = i - n * n; vals[k++] = -1.0; }
    if (z0 < n - 1) { cols[k] = i + n * n; vals[k++] = -1.0; }
    PetscCall(MatSetValues(A, 1, &i, k, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));

  PetscCall(PCMGGetLevels(pc, &levels));
  for (PetscInt l = 0; l < levels; l++) {
    PetscInt i = levels - 1 - l; /* PETSc's level: 0 the coarsest */
    KSP      smoother;
    Mat      Al;
    PetscCall(PCMGGetSmoother(pc, i, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(print_ij(Al, dir, "A", l));
    if (i > 0) {
      Mat P;
      PetscCall(PCMGGetInterpolation(pc, i, &P));
      PetscCall(print_ij(P, dir, "P", l));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc_solve_levels: %" PetscInt_FMT " levels of a %" PetscInt_FMT "^3 Laplacian on %d ranks in %s, %" PetscInt_FMT " CG iterations\n", levels, n, size, dir, its));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
