/* An unmodified MPI + OpenMP program for `run`'s pinning tests: each rank runs an
 * OpenMP parallel region of steps of about 1,000 dependent adds with a barrier after
 * each for 0.2 s of wall time (long enough for numabench's sampler to see the team on
 * any CPU, however fast or busy), then the ranks meet in MPI_Gather. Rank 0 prints each rank's team; with
 * OMP_RANKS_DIR set, each rank also writes its team to DIR/rank-R (numabench run keeps
 * the program's output to itself). */
#include <mpi.h>
#include <omp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, team = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The step after whose barrier every thread stops: set once, by the thread that runs
     * a step's `single`, and read after that step's barrier by all (a thread still at an
     * earlier step reads a larger number than its own and goes on). */
    int last = INT_MAX;
    double start = omp_get_wtime();
    #pragma omp parallel
    {
        #pragma omp single
        team = omp_get_num_threads();
        volatile double x = 0;
        for (int step = 0;; step++) {
            for (int i = 0; i < 1000; i++) x += i;
            #pragma omp single
            if (omp_get_wtime() - start >= 0.2) last = step;
            /* the single's implicit barrier */
            if (step >= last) break;
        }
    }
    const char *dir = getenv("OMP_RANKS_DIR");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rank-%d", dir, rank);
        FILE *out = fopen(path, "w");
        if (out) {
            fprintf(out, "%d\n", team);
            fclose(out);
        }
    }
    int teams[64] = {0};
    MPI_Gather(&team, 1, MPI_INT, teams, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 64; r++) printf("rank %d team %d\n", r, teams[r]);
    MPI_Finalize();
    return 0;
}
