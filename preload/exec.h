/*
 * exec: what the profiler does around exec and the ends of a process that
 * bypass exit(): the exec family and posix_spawn put the profiler back into
 * a child's environment when the app passes one without it; exec notes the
 * attempt in process.log; _exit, _Exit and abort write the END records.
 */
#ifndef PP_EXEC_H
#define PP_EXEC_H

/*
 * Remembers this library's path and the PPROF_* variables in force (call
 * after PPROF_OUTPUT was made absolute) and resolves the real functions.
 * follow: whether exec'd children get the profiler back in their
 * environment.
 */
void pp_exec_init(int follow);

#endif
