/* Probe for the multi-host harness tests (tests/mpi/hosts_tests.rs).
 *
 * Usage: hosts_probe [ITERATIONS [REPEATS]]
 *
 * Every rank reports its hostname, the transparent-huge-page setting it
 * reads, its cpu cgroup, the CPUs it may run on (Cpus_allowed_list), the
 * variable HOSTS_PROBE_TAG of its environment
 * ("unset" if absent), and the result of an MPI_Allreduce of rank+1; with
 * ITERATIONS > 0 it also times a fixed compute loop REPEATS times, one rank at
 * a time (ranks waiting for their turn sleep instead of spinning in MPI, so
 * the timed rank is not disturbed by them), and reports its best time and
 * the share of the loops' wall time it had a CPU (thread CPU time / wall).
 * Rank 0 prints "size=N" then one line per rank:
 *   rank=R host=H sum=S loop_s=T cpu_share=F cgroup=C cpus=L tag=G thp=TEXT
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEXT 256
#define LINE 1024

static volatile double sink;

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Receives the turn token from src, polling every millisecond. */
static void wait_turn(int src) {
    int flag = 0, token;
    while (!flag) {
        MPI_Iprobe(src, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            usleep(1000);
    }
    MPI_Recv(&token, 1, MPI_INT, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* First line of a file without its newline, or "unreadable". */
static void first_line(const char *path, char *out) {
    FILE *f = fopen(path, "r");
    strcpy(out, "unreadable");
    if (f) {
        if (!fgets(out, TEXT, f))
            strcpy(out, "empty");
        fclose(f);
        out[strcspn(out, "\n")] = 0;
    }
}

/* The path of this process's cgroup in the hierarchy with the cpu controller. */
static void cpu_cgroup(char *out) {
    char line[TEXT];
    FILE *f = fopen("/proc/self/cgroup", "r");
    strcpy(out, "none");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = 0;
        controllers++;
        if (strcmp(controllers, "cpu") == 0 || strncmp(controllers, "cpu,", 4) == 0) {
            path[strcspn(path, "\n")] = 0;
            strncpy(out, path, TEXT - 1);
            out[TEXT - 1] = 0;
        }
    }
    fclose(f);
}

/* The Cpus_allowed_list of this process, or "unknown". */
static void allowed_cpus(char *out) {
    char line[TEXT];
    FILE *f = fopen("/proc/self/status", "r");
    strcpy(out, "unknown");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Cpus_allowed_list: %255s", out) == 1)
            break;
    fclose(f);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 0;
    int repeats = argc > 2 ? atoi(argv[2]) : 1;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char host[TEXT] = {0}, thp[TEXT], cgroup[TEXT], cpus[TEXT];
    gethostname(host, TEXT - 1);
    first_line("/sys/kernel/mm/transparent_hugepage/enabled", thp);
    cpu_cgroup(cgroup);
    allowed_cpus(cpus);
    int mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    double best = 0.0, wall = 0.0, cpu = 0.0;
    if (iterations > 0) {
        best = 1e300;
        /* Token ring: rank 0 rep 0, rank 1 rep 0, ..., rank 0 rep 1, ... */
        for (int rep = 0; rep < repeats; rep++) {
            if (size > 1 && (rank > 0 || rep > 0))
                wait_turn((rank + size - 1) % size);
            double t0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_THREAD_CPUTIME_ID), x = 1.0;
            for (long i = 0; i < iterations; i++)
                x = x * 1.0000001 + 1e-9;
            sink = x;
            double t = seconds(CLOCK_MONOTONIC) - t0;
            cpu += seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
            wall += t;
            if (t < best)
                best = t;
            int token = 0;
            if (size > 1 && !(rank == size - 1 && rep == repeats - 1))
                MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }

    char line[LINE];
    const char *tag = getenv("HOSTS_PROBE_TAG");
    snprintf(line, LINE,
             "rank=%d host=%s sum=%d loop_s=%.6f cpu_share=%.4f cgroup=%s cpus=%s tag=%s thp=%s", rank,
             host, sum, best, wall > 0 ? cpu / wall : 0.0, cgroup, cpus, tag ? tag : "unset", thp);
    char *all = rank == 0 ? malloc((size_t)size * LINE) : NULL;
    MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("size=%d\n", size);
        for (int r = 0; r < size; r++)
            printf("%s\n", all + (size_t)r * LINE);
        fflush(stdout);
        free(all);
    }
    MPI_Finalize();
    return 0;
}
