/*
 * init: the constructor. It loads the configuration, chooses the sampling
 * mode and its signal, loads libunwind, and starts profiling the process
 * (process.h), whose threads thread.h sets up.
 */
#ifndef PP_INIT_H
#define PP_INIT_H

/*
 * Profiling cannot start, in the constructor: with strict = yes, says so
 * and stops the program (exit status 1) before main; otherwise nothing.
 */
void pp_init_strict_stop(void);

/*
 * What a line saying profiling cannot start ends with: "; profiling is
 * off, the program runs unprofiled", or "" when starting (the constructor,
 * not a fork child) with strict = yes, whose line (pp_init_strict_stop)
 * follows and says the program stops.
 */
const char *pp_init_off(int starting);

#endif
