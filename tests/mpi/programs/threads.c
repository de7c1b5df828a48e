/* A 2-rank MPI_THREAD_MULTIPLE program whose blocking time is known by
 * design (tests/mpi/monitor_logs.rs):
 *   threads TC_MS
 * Rank 0 starts two threads, each blocked in MPI_Recv (tags 1 and 2) from
 * the start; rank 1 computes TC, sends tag 1, computes TC, sends tag 2.
 * So rank 0's threads are blocked TC and 2 TC (3 TC of blocking time),
 * while the process is inside MPI for 2 TC, during which rank 1 computes.
 * Exits 3 if the library does not provide MPI_THREAD_MULTIPLE.
 * "Compute" spins until the wall clock has advanced by TC. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

static void compute(double seconds) {
    double end = now() + seconds, x = 1.0;
    while (now() < end)
        for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void *receive(void *tag) {
    double value;
    MPI_Recv(&value, 1, MPI_DOUBLE, 1, (int)(long)tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: threads TC_MS\n");
        return 2;
    }
    double tc = atof(argv[1]) / 1000.0;
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Both ranks start together: rank 0's threads are waiting when rank 1
     * begins to compute. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pthread_t threads[2];
        for (long tag = 1; tag <= 2; tag++) pthread_create(&threads[tag - 1], NULL, receive, (void *)tag);
        for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    } else {
        double value = 1.0;
        compute(tc);
        MPI_Send(&value, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        compute(tc);
        MPI_Send(&value, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
