/*
 * petsc_dump_levels: PETSc's algebraic multigrid (PCGAMG by default) on a
 * 3D Laplacian, then every level's operator and interpolation viewed as
 * PETSc binary files, for amgcomm:
 *
 *   OUTDIR/A0.petsc, P0.petsc, A1.petsc, ...   level 0 the finest:
 *                                              amgcomm analyze --levels-from OUTDIR
 *
 * dump_levels() below is the part to copy into an application: call it
 * after KSPSetUp (or after the first KSPSolve) on a KSP whose PC is PCMG
 * or PCGAMG. It reads the levels with PCMGGetLevels, PCMGGetSmoother and
 * PCMGGetInterpolation (PETSc numbers its levels from the coarsest).
 *
 * The other way needs no code: run the application with -pc_mg_dump_binary;
 * PCSetUp_MG then writes all levels into one file, binaryoutput (or
 * $PETSC_VIEWER_BINARY_FILENAME), which amgcomm reads as it is:
 *   amgcomm analyze --levels-from binaryoutput
 *
 * Build (Debian: apt-get install petsc-dev):
 *   mpicc tools/petsc_dump_levels.c $(pkg-config --cflags --libs petsc) -o petsc_dump_levels
 * Run:
 *   mpirun -n 4 ./petsc_dump_levels OUTDIR [N] [PETSc options]
 * N: grid points per direction (default 12).
 */
#include <petscksp.h>

/* View A_l and P_l of every level of a set-up PCMG (or PCGAMG) as
 * dir/A<l>.petsc and dir/P<l>.petsc, level 0 the finest. */
static PetscErrorCode dump_levels(PC pc, const char *dir)
{
  PetscInt n;
  char     name[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PCMGGetLevels(pc, &n));
  for (PetscInt l = 0; l < n; l++) {
    PetscInt    i = n - 1 - l; /* PETSc's level: 0 the coarsest */
    KSP         smoother;
    Mat         A;
    PetscViewer v;

    PetscCall(PCMGGetSmoother(pc, i, &smoother));
    PetscCall(KSPGetOperators(smoother, &A, NULL));
    PetscCall(PetscSNPrintf(name, sizeof name, "%s/A%" PetscInt_FMT ".petsc", dir, l));
    PetscCall(PetscViewerBinaryOpen(PetscObjectComm((PetscObject)pc), name, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerDestroy(&v));
    if (i > 0) {
      Mat P;
      PetscCall(PCMGGetInterpolation(pc, i, &P));
      PetscCall(PetscSNPrintf(name, sizeof name, "%s/P%" PetscInt_FMT ".petsc", dir, l));
      PetscCall(PetscViewerBinaryOpen(PetscObjectComm((PetscObject)pc), name, FILE_MODE_WRITE, &v));
      PetscCall(MatView(P, v));
      PetscCall(PetscViewerDestroy(&v));
    }
  }
  PetscFunctionReturn(0); /* PETSC_SUCCESS from PETSc 3.19 on */
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b, x;
  KSP         ksp;
  PC          pc;
  PetscInt    n = 12, lo, hi, levels;
  PetscMPIInt size;

  if (argc < 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: petsc_dump_levels OUTDIR [N] [PETSc options]\n");
    return 2;
  }
  const char *dir = argv[1];
  if (argc > 2 && argv[2][0] != '-') n = atoi(argv[2]);
  if (n < 2) {
    fprintf(stderr, "petsc_dump_levels: N must be at least 2\n");
    return 2;
  }
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

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
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));

  PetscCall(dump_levels(pc, dir));
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc_dump_levels: %" PetscInt_FMT " levels of a %" PetscInt_FMT "^3 Laplacian on %d ranks in %s\n", levels, n, size, dir));
  for (PetscInt l = 0; l < levels; l++) {
    KSP      smoother;
    Mat      Al;
    PetscInt rows;
    MatInfo  info;
    PetscCall(PCMGGetSmoother(pc, levels - 1 - l, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(MatGetSize(Al, &rows, NULL));
    PetscCall(MatGetInfo(Al, MAT_GLOBAL_SUM, &info));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "level %" PetscInt_FMT ": %" PetscInt_FMT " rows, %.0f nonzeros\n", l, rows, info.nz_used));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
