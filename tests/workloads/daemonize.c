/*
 * daemonize DIR: burns 0.1 s of CPU in daemonize_parent, then becomes a
 * daemon (daemon(3): the parent leaves by glibc's own _exit(0)); the
 * daemon burns 0.1 s in daemonize_child and writes DIR/daemonize.done.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

WL_BURNER(daemonize_parent, 3)
WL_BURNER(daemonize_child, 5)

int main(int argc, char **argv)
{
	char done[4096];
	int fd;

	if (argc < 2)
		return 2;
	daemonize_parent(0.1);
	if (daemon(1, 0) != 0)
		return 3;
	daemonize_child(0.1);
	snprintf(done, sizeof(done), "%s/daemonize.done", argv[1]);
	fd = open(done, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0 ? 4 : 0;
}
