/*
 * identity: who and where this process is, for PPF_REC_IDENTITY and the
 * process directory's name: the host (uname's nodename), the host's boot
 * (/proc/sys/kernel/random/boot_id), and the MPI rank, world size and job
 * that a launcher put in the environment (Open MPI, MPICH/PMI, PMIx,
 * Slurm's srun). Gathered once per image, at its first use (the
 * constructor): one uname, one read of boot_id, one pass over environ. A
 * fork child keeps its parent's (the same host, the same rank). Nothing
 * here runs in signal context.
 */
#ifndef PP_IDENTITY_H
#define PP_IDENTITY_H

#include <stddef.h>

#include "sigsafe/records.h"

/* The process's identity; gathered at the first call. Valid for the image's life. */
const struct pp_records_identity *pp_identity_get(void);

/*
 * The host as it goes into a process directory's name, into buf (size
 * bytes): the nodename up to its first '.', each byte other than a letter,
 * a digit, '-' or '_' made '_', at most size - 1 bytes; "" when unknown.
 */
void pp_identity_dir_host(char *buf, size_t size);

#endif
