/* A communication-heavy MPI program for scripts/bench-mpi-monitor.
 *   comm_heavy [ITERS]     (default 20000) ITERS rounds of an 8-byte
 *       ping-pong between rank pairs (0-1, 2-3, ...) and an MPI_Allreduce
 *       over all ranks; almost all of its time is in MPI calls.
 *   comm_heavy pingpong N  N round trips of a 0-byte message between
 *       ranks 0 and 1 (others idle): the tightest loop of blocking calls.
 *   comm_heavy calls N     each rank times N blocking sends to
 *       MPI_PROC_NULL (which MPI returns from at once), best of 5 loops,
 *       and rank 0 prints the nanoseconds per call: the cost of a call
 *       itself, wrapper included.
 * Rank 0 then prints "total S s": from the end of MPI_Init to the end of
 * MPI_Finalize (so it includes what a monitor does at MPI_Finalize),
 * CLOCK_MONOTONIC, and "finalize S s": MPI_Finalize alone. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void per_call(int calls, int rank) {
    double value = 0.0, best = 1e30;
    for (int loop = 0; loop < 5; loop++) {
        double start = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            MPI_Send(&value, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double elapsed = MPI_Wtime() - start;
        if (elapsed < best) best = elapsed;
    }
    if (rank == 0) printf("%.1f ns per call\n", best / calls * 1e9);
}

static void pingpong(int trips, int rank) {
    char byte = 0;
    for (int i = 0; i < trips; i++) {
        if (rank == 0) {
            MPI_Send(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&byte, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("%d round trips\n", trips);
}

static void rounds(int iters, int rank, int size) {
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
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double start = now();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "calls") == 0)
        per_call(atoi(argv[2]), rank);
    else if (argc > 2 && strcmp(argv[1], "pingpong") == 0)
        pingpong(atoi(argv[2]), rank);
    else
        rounds(argc > 1 ? atoi(argv[1]) : 20000, rank, size);
    double finalize = now();
    MPI_Finalize();
    double end = now();
    if (rank == 0) printf("total %.6f s\nfinalize %.6f s\n", end - start, end - finalize);
    return 0;
}
