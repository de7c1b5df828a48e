/*
 * openmp_report - one OpenMP parallel region (OMP_NUM_THREADS threads); each
 * thread busy-spins ~30 ms, then prints
 * "thread <omp_get_thread_num()> cpu <cpu> allowed <count>".
 * The first line is "threads <omp_get_num_threads()>".
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>

static int allowed_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    return CPU_COUNT(&set);
}

int main(void)
{
#pragma omp parallel
    {
        volatile unsigned long sink = 0;
        double end = omp_get_wtime() + 0.03;
        while (omp_get_wtime() < end)
            for (int i = 0; i < 1000; i++)
                sink += i;
#pragma omp single
        printf("threads %d\n", omp_get_num_threads());
#pragma omp critical
        {
            printf("thread %d cpu %d allowed %d\n", omp_get_thread_num(), sched_getcpu(),
                   allowed_count());
            fflush(stdout);
        }
    }
    return 0;
}
