// mfem_element_parts MESH SEQ RANKS: MFEM's element partition
// (Mesh::GeneratePartitioning with part_method 1, as ParMesh(comm, mesh)
// calls it) of MESH refined SEQ times in serial, over RANKS parts. One line
// per element, in MFEM's order: index, center x y z, part. Built against a
// serial MFEM by scripts/mfem_metis4_parts.sh (MFEM 3.3.2 with METIS 4.0.3,
// MFEM's default METIS then).
#include "mfem.hpp"
#include <cstdio>
using namespace mfem;
int main(int argc, char** argv)
{
   Mesh mesh(argv[1], 1, 1);
   int seq = atoi(argv[2]), np = atoi(argv[3]);
   for (int i = 0; i < seq; i++) { mesh.UniformRefinement(); }
   int* part = mesh.GeneratePartitioning(np, 1);
   for (int e = 0; e < mesh.GetNE(); e++)
   {
      Array<int> v;
      mesh.GetElementVertices(e, v);
      double c[3] = {0, 0, 0};
      for (int j = 0; j < v.Size(); j++)
      {
         double* x = mesh.GetVertex(v[j]);
         for (int d = 0; d < 3; d++) { c[d] += x[d] / v.Size(); }
      }
      printf("%d %.9f %.9f %.9f %d\n", e, c[0], c[1], c[2], part[e]);
   }
   delete [] part;
   return 0;
}
