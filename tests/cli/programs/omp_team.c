/* An unmodified OpenMP program for `run`'s pinning tests: a parallel region that
 * runs 20,000 steps of about 1,000 dependent adds (a few tenths of a second), with a barrier after each so that a
 * runtime that stopped spinning sleeps in futex waits (voluntary switches). Prints the
 * team size it ran. */
#include <omp.h>
#include <stdio.h>

int main(void) {
    int team = 0;
    #pragma omp parallel
    {
        #pragma omp single
        team = omp_get_num_threads();
        volatile double x = 0;
        for (int step = 0; step < 20000; step++) {
            for (int i = 0; i < 1000; i++) x += i;
            #pragma omp barrier
        }
    }
    printf("team %d\n", team);
    return 0;
}
