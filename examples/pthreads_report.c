/*
 * pthreads_report [N] - create N threads (default 4); each busy-spins ~50 ms,
 * then prints "thread <i> cpu <cpu> allowed <count>": where it runs and how many
 * CPUs its affinity allows. main prints "main cpu <cpu> allowed <count>" first.
 *
 * Odd-numbered threads end with pthread_exit() and even ones return, so running
 * under the numabench-pin LD_PRELOAD shim also checks that both ways out pass
 * through its trampoline with their return value. Exit status 0 if every join
 * returned what the thread gave.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int allowed_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    return CPU_COUNT(&set);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void busy(double seconds)
{
    volatile unsigned long sink = 0;
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

static void *work(void *arg)
{
    intptr_t i = (intptr_t)arg;
    busy(0.05);
    printf("thread %d cpu %d allowed %d\n", (int)i, sched_getcpu(), allowed_count());
    fflush(stdout);
    if (i % 2)
        pthread_exit((void *)(i + 1));
    return (void *)(i + 1);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1) {
        fprintf(stderr, "usage: %s [THREADS >= 1]\n", argv[0]);
        return 2;
    }
    printf("main cpu %d allowed %d\n", sched_getcpu(), allowed_count());
    fflush(stdout);
    pthread_t *threads = calloc(n, sizeof *threads);
    if (!threads)
        return 1;
    for (intptr_t i = 0; i < n; i++) {
        int error = pthread_create(&threads[i], NULL, work, (void *)i);
        if (error) {
            fprintf(stderr, "pthread_create: error %d\n", error);
            return 1;
        }
    }
    int status = 0;
    for (intptr_t i = 0; i < n; i++) {
        void *result = NULL;
        pthread_join(threads[i], &result);
        if (result != (void *)(i + 1)) {
            fprintf(stderr, "thread %d returned %p, expected %p\n", (int)i, result,
                    (void *)(i + 1));
            status = 1;
        }
    }
    free(threads);
    return status;
}
