/*
 * exec: what the profiler does around exec: the exec family and
 * posix_spawn put the profiler back into a child's environment when the
 * app passes one without it; exec notes the attempt in process.log and
 * stops sampling until it fails (process.h).
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
