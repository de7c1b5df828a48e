/* An exchange-heavy MPI application for scripts/bench-mpi-monitor: a
 * Jacobi relaxation of a NX-wide grid split into strips of ROWS rows per
 * rank; after every sweep each rank swaps its edge rows with both
 * neighbours (blocking MPI_Sendrecv, NX doubles each way) and every
 * CHECK sweeps the ranks agree on the residual (MPI_Allreduce).
 *   halo NX ROWS ITERS [CHECK]   (CHECK default 10)
 * A narrow strip makes the exchanges most of the time. Rank 0 prints the
 * residual and "total S s": from the end of MPI_Init to the end of
 * MPI_Finalize, CLOCK_MONOTONIC. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double start = now();
    if (argc < 4) {
        fprintf(stderr, "usage: halo NX ROWS ITERS [CHECK]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nx = atoi(argv[1]), rows = atoi(argv[2]), iters = atoi(argv[3]);
    int check = argc > 4 ? atoi(argv[4]) : 10;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    /* rows + 2 halo rows; fixed boundary: 1 on the global top edge. */
    double *grid = calloc((size_t)(rows + 2) * nx, sizeof(double));
    double *next = calloc((size_t)(rows + 2) * nx, sizeof(double));
    if (rank == 0)
        for (int x = 0; x < nx; x++) grid[x] = next[x] = 1.0;
    double residual = 0.0;
    for (int iter = 0; iter < iters; iter++) {
        MPI_Sendrecv(&grid[1 * nx], nx, MPI_DOUBLE, up, 0, &grid[(rows + 1) * nx], nx, MPI_DOUBLE,
                     down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&grid[rows * nx], nx, MPI_DOUBLE, down, 1, &grid[0], nx, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0)
            for (int x = 0; x < nx; x++) grid[x] = 1.0;
        double local = 0.0;
        for (int y = 1; y <= rows; y++)
            for (int x = 1; x < nx - 1; x++) {
                double value = 0.25 * (grid[(y - 1) * nx + x] + grid[(y + 1) * nx + x] +
                                       grid[y * nx + x - 1] + grid[y * nx + x + 1]);
                double change = value - grid[y * nx + x];
                local += change * change;
                next[y * nx + x] = value;
            }
        double *swap = grid;
        grid = next;
        next = swap;
        if (check > 0 && iter % check == 0)
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("residual %g after %d sweeps\n", residual, iters);
    free(grid);
    free(next);
    MPI_Finalize();
    if (rank == 0) printf("total %.6f s\n", now() - start);
    return 0;
}
