/*
 * sigev: the threads glibc makes for SIGEV_THREAD notifications
 * (timer_create, mq_notify) sampled as the program's others. glibc starts
 * each notification's thread itself, by its internal pthread_create, which
 * no wrapper sees, and with every signal blocked: the sampling signal
 * never came (the sigtrap mode) and no event was opened (the signal mode),
 * so a timer's callbacks took no sample at all. The wrappers hand glibc a
 * function of their own, which starts the thread as pthread_create's
 * trampoline does (its slot and events; the sampling signal unblocked in
 * the kernel while the app's view of the mask keeps glibc's: masks.h) and
 * then calls the program's function with the program's value.
 *
 * The function and value go to the thread in a record of our own, one per
 * distinct (function, value) pair the program ever gave, never freed: a
 * notification glibc took just before its timer was deleted may start its
 * thread after the delete, and a registration may be dropped without its
 * notification. Memory follows the distinct pairs, not the timers made.
 */
#ifndef PP_SIGEV_H
#define PP_SIGEV_H

/* Finds the real functions (nextsym.h); the wrappers call it themselves too. */
void pp_sigev_resolve(void);

/* In a fork child: the table's lock, which a thread of the parent may have held. */
void pp_sigev_fork_child(void);

#endif /* PP_SIGEV_H */
