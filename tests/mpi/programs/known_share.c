/* A 2-rank MPI program whose time in blocking MPI is known by design
 * (tests/mpi/monitor.rs derives its expectations from the arguments):
 *   known_share N TC_MS M TB_MS
 * Phase 1, N rounds of ping-pong: rank 1 computes TC then sends 100 bytes
 * (MPI_Send); rank 0 is blocked in MPI_Recv meanwhile, then computes TC
 * and sends 2048 bytes back (MPI_Isend + MPI_Wait) while rank 1 is blocked
 * in MPI_Recv. Exactly one rank computes at any time.
 * Phase 2, M rounds: both ranks compute TB at once, then MPI_Barrier.
 * Then rank 0 sends one 2,400,000-byte message and both call
 * MPI_Allreduce. "Compute" spins until the wall clock has advanced by the
 * given time, so the design holds however the CPUs are shared. */
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

static volatile double sink;

static void compute(double seconds) {
    double end = now() + seconds;
    double x = 1.0;
    while (now() < end) {
        for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
    }
    sink = x;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: known_share N TC_MS M TB_MS\n");
        return 2;
    }
    int rounds = atoi(argv[1]), phase2 = atoi(argv[3]);
    double tc = atof(argv[2]) / 1000.0, tb = atof(argv[4]) / 1000.0;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "known_share needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char small[100];
    int medium[512];
    memset(small, 1, sizeof small);
    memset(medium, 2, sizeof medium);
    for (int round = 0; round < rounds; round++) {
        if (rank == 1) {
            compute(tc);
            MPI_Send(small, sizeof small, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            MPI_Recv(medium, 512, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(small, sizeof small, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            compute(tc);
            MPI_Request request;
            MPI_Isend(medium, 512, MPI_INT, 1, 2, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
    for (int round = 0; round < phase2; round++) {
        compute(tb);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double *large = calloc(300000, sizeof(double));
    if (rank == 0)
        MPI_Send(large, 300000, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    else
        MPI_Recv(large, 300000, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double one = 1.0, total = 0.0;
    MPI_Allreduce(&one, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(large);
    MPI_Finalize();
    return total == 2.0 ? 0 : 1;
}
