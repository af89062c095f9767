/*
 * libvendini: a library that carries its own ini_parse, as programs that
 * vendor inih do, with its own meaning: it parses nothing and returns 4242.
 * It is a dependency of libiniuser.so, not of the program itself.
 */
int ini_parse(const char *filename, void *handler, void *user);

int ini_parse(const char *filename, void *handler, void *user)
{
	(void)filename;
	(void)handler;
	(void)user;
	return 4242;
}
