/* MPI_Pcontrol bounds the monitor's TLP window (2 ranks). With the argument
 * "window": MPI_Pcontrol(0) right after MPI_Init, both ranks compute for
 * 0.6 s (both outside MPI: "setup"), MPI_Barrier, MPI_Pcontrol(1); then for
 * 0.5 s rank 0 waits in MPI_Recv while rank 1 sleeps and then sends (one
 * rank outside), MPI_Pcontrol(0). Without the argument the same program
 * makes no MPI_Pcontrol call, so the window is MPI_Init to MPI_Finalize. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int window = argc > 1 && strcmp(argv[1], "window") == 0, rank, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (window) MPI_Pcontrol(0);
  /* MPI_Wtime is not wrapped: computing by its clock stays outside MPI. */
  double start = MPI_Wtime(), x = 1.0;
  while (MPI_Wtime() - start < 0.6) x = x * 1.0000001 + 1e-9;
  sink = x;
  MPI_Barrier(MPI_COMM_WORLD);
  if (window) MPI_Pcontrol(1);
  if (rank == 0) {
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    usleep(500000);
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  if (window) MPI_Pcontrol(0);
  MPI_Finalize();
  return 0;
}
