/* A communication-heavy MPI program for scripts/bench-mpi-monitor: ITERS
 * rounds of an 8-byte ping-pong between rank pairs (0-1, 2-3, ...) and an
 * MPI_Allreduce over all ranks; almost all of its time is in MPI calls,
 * so the monitor's per-call cost shows.
 *   comm_heavy [ITERS]   (default 20000)
 * With `calls N`, each rank times N blocking sends to MPI_PROC_NULL (which
 * MPI returns from at once), best of 5 loops, and rank 0 prints the
 * nanoseconds per call: the cost of a call itself, wrapper included. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int per_call(int calls, int rank) {
    double value = 0.0, best = 1e30;
    for (int loop = 0; loop < 5; loop++) {
        double start = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            MPI_Send(&value, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double elapsed = MPI_Wtime() - start;
        if (elapsed < best) best = elapsed;
    }
    if (rank == 0) printf("%.1f ns per call\n", best / calls * 1e9);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "calls") == 0) return per_call(atoi(argv[2]), rank);
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int partner = rank ^ 1;
    double value = rank, sum = 0.0;
    for (int i = 0; i < iters; i++) {
        if (partner < size) {
            if (rank % 2 == 0) {
                MPI_Send(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD);
                MPI_Recv(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&value, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD);
            }
        }
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("%d rounds, sum %g\n", iters, sum);
    MPI_Finalize();
    return 0;
}
