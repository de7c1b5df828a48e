/* An unmodified OpenMP program for `run`'s pinning tests: a parallel region that runs
 * steps of about 1,000 dependent adds, with a barrier after each, for 0.3 s of wall time,
 * so that the team lives long enough for numabench's sampler to see it on any CPU,
 * however fast or busy, and a runtime that stopped spinning sleeps in futex waits
 * (voluntary switches, one or more per barrier). Prints the team size it ran; with
 * OMP_TEAM_FILE set it also appends it to that file as one line (numabench run discards
 * the program's output), so every run of a `numabench run` leaves its line. */
#include <omp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int team = 0;
    /* The step after whose barrier every thread stops: set once, by the one thread that
     * runs a step's `single`, and read after that step's barrier by all (a thread still
     * at an earlier step reads a larger number than its own and goes on). */
    int last = INT_MAX;
    double start = omp_get_wtime();
    #pragma omp parallel
    {
        #pragma omp single
        team = omp_get_num_threads();
        volatile double x = 0;
        for (int step = 0;; step++) {
            for (int i = 0; i < 1000; i++) x += i;
            #pragma omp single
            if (omp_get_wtime() - start >= 0.3) last = step;
            /* the single's implicit barrier */
            if (step >= last) break;
        }
    }
    printf("team %d\n", team);
    const char *path = getenv("OMP_TEAM_FILE");
    if (path) {
        FILE *file = fopen(path, "a");
        if (!file || fprintf(file, "%d\n", team) < 0 || fclose(file) != 0) return 1;
    }
    return 0;
}
