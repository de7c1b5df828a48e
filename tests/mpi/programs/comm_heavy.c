/* A communication-heavy MPI program for scripts/bench-mpi-monitor: ITERS
 * rounds of an 8-byte ping-pong between rank pairs (0-1, 2-3, ...) and an
 * MPI_Allreduce over all ranks; almost all of its time is in MPI calls,
 * so the monitor's per-call cost shows.
 *   comm_heavy [ITERS]   (default 20000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
