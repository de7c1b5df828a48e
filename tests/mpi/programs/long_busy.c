/* Ranks that compute for SECONDS of wall clock in 10 ms slices, each slice
 * followed by MPI_Barrier, and write their pid to DIR/rank-<rank>.pid
 * first, so that a test can kill one of them mid-run:
 *   long_busy SECONDS DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: long_busy SECONDS DIR\n");
    return 2;
  }
  double seconds = atof(argv[1]);
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[4096];
  snprintf(name, sizeof name, "%s/rank-%d.pid", argv[2], rank);
  FILE *file = fopen(name, "w");
  if (file) {
    fprintf(file, "%ld\n", (long)getpid());
    fclose(file);
  }
  double start = now(), x = 1.0;
  while (now() - start < seconds) {
    double slice = now();
    while (now() - slice < 0.01) x = x * 1.0000001 + 1e-9;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  sink = x;
  MPI_Finalize();
  return 0;
}
