/* What the pieces of a monitored MPI call cost on this machine, for
 * scripts/bench-mpi-monitor: tight loops of one operation each (ns per
 * operation, best of 3): the two clocks the monitor can read
 * (clock_gettime(CLOCK_MONOTONIC) through the vDSO, rdtsc; rdtscp for
 * comparison), an uncontended atomic add, and a counter two threads on two
 * CPUs update at once: one word shared with compare-and-swap (the former
 * design's host table) against each thread's own cache line with a plain
 * store (the current design's private log). x86_64 only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#define N 10000000L

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;
static _Alignas(64) _Atomic uint64_t shared_word;
static struct { _Alignas(64) _Atomic uint64_t word; } own[2];
static int shared_mode;
static int cpus[2];

static void *update(void *arg) {
    long id = (long)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[id], &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (long i = 0; i < N; i++) {
        if (shared_mode) {
            uint64_t value = atomic_load(&shared_word);
            while (!atomic_compare_exchange_weak(&shared_word, &value, value + 1)) {
            }
        } else {
            uint64_t value = atomic_load_explicit(&own[id].word, memory_order_relaxed);
            atomic_store_explicit(&own[id].word, value + 1, memory_order_relaxed);
        }
    }
    return NULL;
}

static double two_threads(int shared) {
    shared_mode = shared;
    pthread_t threads[2];
    double start = now();
    for (long i = 0; i < 2; i++) pthread_create(&threads[i], NULL, update, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    return (now() - start) / N * 1e9;
}

int main(void) {
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    int found = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
        if (CPU_ISSET(cpu, &allowed)) cpus[found++] = cpu;
    if (found < 2) cpus[1] = cpus[0];
    double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
    _Atomic uint64_t counter = 0;
    unsigned aux;
    for (int round = 0; round < 3; round++) {
        double t[7];
        t[0] = now();
        for (long i = 0; i < N; i++) {
            struct timespec time;
            clock_gettime(CLOCK_MONOTONIC, &time);
            sink += time.tv_nsec;
        }
        t[1] = now();
        for (long i = 0; i < N; i++) sink += __rdtsc();
        t[2] = now();
        for (long i = 0; i < N; i++) sink += __rdtscp(&aux);
        t[3] = now();
        for (long i = 0; i < N; i++) atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
        t[4] = now();
        for (int k = 0; k < 4; k++)
            if ((t[k + 1] - t[k]) / N * 1e9 < best[k]) best[k] = (t[k + 1] - t[k]) / N * 1e9;
        double shared = two_threads(1), private = two_threads(0);
        if (shared < best[4]) best[4] = shared;
        if (private < best[5]) best[5] = private;
    }
    printf("clock_gettime(CLOCK_MONOTONIC) %.1f ns, rdtsc %.1f ns, rdtscp %.1f ns, atomic add %.1f ns\n",
           best[0], best[1], best[2], best[3]);
    printf("two threads on CPUs %d and %d: CAS on one shared word %.1f ns per update, "
           "own cache line %.1f ns\n", cpus[0], cpus[1], best[4], best[5]);
    return 0;
}
