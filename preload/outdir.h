/*
 * outdir: opening the output root without following anyone else's symbolic
 * links and without writing where another user could redirect or rename what
 * the profiler writes. The rule (README, "Where the logs go"):
 * - the path is walked from / one component at a time, never letting the
 *   kernel follow a link; a symbolic link on the way is followed only when
 *   it and the directory holding it are owned by you or root, and that
 *   directory is not writable by other users unless it is sticky;
 * - a missing directory is made (mode 0700) wherever the kernel lets you
 *   make it (mkdirat below the descriptor of the directory just checked),
 *   then opened and checked like every other component;
 * - the root itself is owned by you, and not writable by other users unless
 *   sticky;
 * - the process's logs are made below the root's descriptor with O_EXCL
 *   (never through a link) and opened again with O_NOFOLLOW.
 * "You" is the effective uid, the owner of what the process creates;
 * "writable by other users" is the mode's write bit for others, or for the
 * group when the group is not your effective gid.
 */
#ifndef PP_OUTDIR_H
#define PP_OUTDIR_H

#include <stddef.h>

/* Room for a refusal's reason. */
#define PP_OUTDIR_WHY_MAX 1024

/*
 * Opens the output root path (absolute), making the directories that are
 * missing. Returns an O_PATH descriptor of it (close-on-exec, the caller's to
 * close), or a negative errno. When the rule above refuses the path, why
 * (PP_OUTDIR_WHY_MAX bytes) holds the reason, naming the component at fault
 * (no trailing period); otherwise why is "".
 */
int pp_outdir_open(const char *path, char *why);

/*
 * The name of a process, the one place it is made: base (the
 * executable's basename), '@' and host (pp_identity_dir_host; left out
 * with its '@' when ""), '.' and pid, then '.' and k when k > 0 (the k-th
 * name tried after that one was taken). A host in the name keeps processes
 * of several hosts writing into one shared output root apart (their pids
 * may be the same); the name ends in ".PID" or ".PID.K" either way. A base
 * so long that the name and the longest file name made of it
 * (<name>.thread-<tid>.log: PP_OUTDIR_SUFFIX_ROOM bytes after it) would not
 * fit NAME_MAX is cut. Into name (size bytes). Returns 0 or -ENAMETOOLONG.
 */
int pp_outdir_process_name(char *name, size_t size, const char *base, const char *host,
			   int pid, int k);

/* What a process's file names add after its name, at the most (".thread-<u64>.log"). */
#define PP_OUTDIR_SUFFIX_ROOM 32

/*
 * Names the process under rootfd: pp_outdir_process_name's name with k
 * from 0 until one is taken neither as a directory nor as a process log
 * <name>.log (an earlier process of the same pid, an exec'd image's or an
 * earlier run's). The process's log is made first, create(rootfd,
 * "<name>.log"), which must create it exclusively and return 0, -EEXIST
 * (the next name is tried) or another negative errno; its other files,
 * <name>.thread-<tid>.log and the like, are made beside it later
 * (sigsafe/threads.h). Returns 0 with the name in name (name_size bytes),
 * or a negative errno.
 */
int pp_outdir_make_process(int rootfd, const char *base, const char *host, int pid,
			   char *name, size_t name_size,
			   int (*create)(int rootfd, const char *file));

#endif
