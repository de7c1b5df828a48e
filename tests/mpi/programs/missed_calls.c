/* Blocking calls that the monitor once missed, each made by 2 ranks while
 * rank 1 first stays outside MPI for D seconds, so that rank 0 is blocked
 * in the call for about D: MPI_Mprobe (then MPI_Mrecv), MPI_Alltoallw, the
 * five blocking MPI_Neighbor_* collectives on a periodic 1-D Cartesian
 * communicator, a persistent receive started with MPI_Start and one with
 * MPI_Startall (completed by MPI_Wait / MPI_Waitall), and
 * MPI_Sendrecv_replace. Rank 0 is therefore inside blocking MPI for about
 * 10 x D: 2 x D point to point, 6 x D collective, 2 x D waiting. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define D 0.2

static void late(int rank) {
  if (rank == 1) {
    struct timespec pause = {0, (long)(D * 1e9)};
    nanosleep(&pause, NULL);
  }
}

int main(int argc, char **argv) {
  int rank, size, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "missed_calls needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int other = 1 - rank;
  int send[2] = {rank, rank}, recv[2] = {0, 0}, one[2] = {1, 1}, disp[2] = {0, 4};
  MPI_Aint adisp[2] = {0, 4};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Comm ring;
  int dims[1] = {2}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);

  /* 1. MPI_Mprobe, then MPI_Mrecv of the probed message. */
  late(rank);
  if (rank == 0) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(1, 7, MPI_COMM_WORLD, &message, &status);
    MPI_Mrecv(recv, 1, MPI_INT, &message, &status);
  } else {
    MPI_Send(send, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
  /* 2. MPI_Alltoallw. */
  late(rank);
  MPI_Alltoallw(send, one, disp, types, recv, one, disp, types, MPI_COMM_WORLD);
  /* 3-7. The neighbourhood collectives (2 neighbours: the other rank twice). */
  int four[4], counts[2] = {1, 1};
  late(rank);
  MPI_Neighbor_allgather(send, 1, MPI_INT, four, 1, MPI_INT, ring);
  late(rank);
  MPI_Neighbor_allgatherv(send, 1, MPI_INT, four, counts, disp, MPI_INT, ring);
  late(rank);
  MPI_Neighbor_alltoall(send, 1, MPI_INT, four, 1, MPI_INT, ring);
  late(rank);
  MPI_Neighbor_alltoallv(send, counts, disp, MPI_INT, four, counts, disp, MPI_INT, ring);
  late(rank);
  MPI_Neighbor_alltoallw(send, counts, adisp, types, four, counts, adisp, types, ring);
  /* 8. A persistent receive, MPI_Start then MPI_Wait. */
  MPI_Request request;
  if (rank == 0) {
    MPI_Recv_init(recv, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &request);
    MPI_Start(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    /* 9. Again with MPI_Startall and MPI_Waitall. */
    MPI_Startall(1, &request);
    MPI_Waitall(1, &request, MPI_STATUSES_IGNORE);
    MPI_Request_free(&request);
  } else {
    for (i = 0; i < 2; i++) {
      late(rank);
      MPI_Send(send, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
  }
  /* 10. MPI_Sendrecv_replace. */
  late(rank);
  MPI_Sendrecv_replace(send, 1, MPI_INT, other, 9, other, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
