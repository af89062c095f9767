/*
 * libiniuser: calls ini_parse, which it means to be libvendini.so's (its
 * own dependency): whichever the dynamic linker binds first.
 */
int ini_parse(const char *filename, void *handler, void *user);
int iniuser_parse(void);

int iniuser_parse(void)
{
	return ini_parse("/nonexistent/vendini.ini", (void *)0, (void *)0);
}
