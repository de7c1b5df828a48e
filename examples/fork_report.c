/*
 * fork_report - a process tree, one step at a time: main reports, then forks child 1
 * (which stays the same program) and waits for it, then forks child 2, which execs
 * this program again as "fork_report 2", and waits for it. Each child reports from its
 * main thread, then starts two threads one after the other, each reporting.
 *
 * Lines: "process <p> main cpu <cpu> allowed <count>" and
 *        "process <p> thread <t> cpu <cpu> allowed <count>".
 *
 * Under the numabench-pin shim with a shared counter (NUMABENCH_PIN_COUNTER), the
 * threads take indices in this order: main 0, child 1 main 1, its threads 2 and 3,
 * child 2 main 4 (at fork; its exec keeps it), its threads 5 and 6.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int allowed_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    return CPU_COUNT(&set);
}

static int process_number;

static void *report(void *arg)
{
    intptr_t t = (intptr_t)arg;
    printf("process %d thread %d cpu %d allowed %d\n", process_number, (int)t, sched_getcpu(),
           allowed_count());
    fflush(stdout);
    return NULL;
}

static int child(int number)
{
    process_number = number;
    printf("process %d main cpu %d allowed %d\n", number, sched_getcpu(), allowed_count());
    fflush(stdout);
    for (intptr_t t = 0; t < 2; t++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, report, (void *)t) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
        pthread_join(thread, NULL);
    }
    return 0;
}

/* Forks; the child runs child(number) itself or execs "self number"; waits for it. */
static int fork_and_wait(const char *self, int number, int exec_it)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (exec_it) {
            char arg[16];
            snprintf(arg, sizeof arg, "%d", number);
            execl(self, self, arg, (char *)NULL);
            perror("execl");
            _exit(127);
        }
        _exit(child(number));
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child %d failed\n", number);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return child(atoi(argv[1]));
    printf("process 0 main cpu %d allowed %d\n", sched_getcpu(), allowed_count());
    if (fork_and_wait("/proc/self/exe", 1, 0) != 0)
        return 1;
    return fork_and_wait("/proc/self/exe", 2, 1);
}
