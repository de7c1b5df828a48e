/* MPI program for the VM test `mpi_hello_runs_in_vm` (tests/vm/mpi.rs):
 * every rank prints "rank=R size=S sum=X host=H", X being an MPI_Allreduce
 * sum of rank+1 over all ranks. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank, size, mine, sum = 0;
    char host[256] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    gethostname(host, sizeof host - 1);
    printf("rank=%d size=%d sum=%d host=%s\n", rank, size, sum, host);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
