/* Ranks that compute for 0.5 s of wall clock, calling MPI_Barrier every
 * 10 ms (on one rank it returns at once): outside blocking MPI nearly all
 * the time, so with one rank per core TLP_1 is close to 1. */
#include <mpi.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double start = now(), x = 1.0;
  while (now() - start < 0.5) {
    double slice = now();
    while (now() - slice < 0.01) x = x * 1.0000001 + 1e-9;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  sink = x;
  MPI_Finalize();
  return 0;
}
