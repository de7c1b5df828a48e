/* A 2-rank MPI program whose TLP is known by design while one rank makes
 * a great many short blocking calls (tests/mpi/monitor_logs.rs derives its
 * expectations from the arguments; the monitor's per-rank logs then span
 * several chunks and must be merged in order):
 *   bursts CALLS TB_MS TC_MS
 * Phase 1: both ranks compute TB; rank 1 makes at least CALLS blocking
 * sends to MPI_PROC_NULL meanwhile (each returns at once), so both are
 * outside MPI nearly all of TB. Then MPI_Barrier.
 * Phase 2: rank 0 computes TC while rank 1 is blocked in MPI_Recv.
 * Rank 1 is not its host's first rank: its log travels to rank 0 at
 * MPI_Finalize. Rank 1 prints the number of calls it made. "Compute" spins until the
 * wall clock has advanced by the given time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

static void spin(int steps) {
    double x = 1.0;
    for (int i = 0; i < steps; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bursts CALLS TB_MS TC_MS\n");
        return 2;
    }
    long calls = atol(argv[1]);
    double tb = atof(argv[2]) / 1000.0, tc = atof(argv[3]) / 1000.0;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "bursts needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double value = 0.0;
    long made = 0;
    double end = now() + tb;
    if (rank == 1) {
        while (made < calls || now() < end) {
            MPI_Send(&value, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
            made++;
            spin(20);
        }
    } else {
        while (now() < end) spin(1000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        end = now() + tc;
        while (now() < end) spin(1000);
        MPI_Send(&value, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if (rank == 1) printf("%ld calls\n", made);
    return 0;
}
