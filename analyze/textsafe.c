/* textsafe: names made safe for line-oriented formats; see textsafe.h. */
#include "textsafe.h"

#include <stdlib.h>
#include <string.h>

/* What byte c becomes. */
static char pa_text_safe(char c, bool fold)
{
	unsigned char u = (unsigned char)c;

	if (u < 0x20 || u == 0x7f)
		return '?';
	return fold && c == ';' ? ':' : c;
}

void pa_text_clean(char *s, size_t n, bool fold)
{
	for (size_t i = 0; i < n; i++)
		s[i] = pa_text_safe(s[i], fold);
}

void pa_text_put(FILE *out, const char *s, bool fold)
{
	size_t n = strlen(s), at = 0;

	/* Runs of safe bytes in one write, as most names are all safe. */
	while (at < n) {
		size_t run = at;

		while (run < n && pa_text_safe(s[run], fold) == s[run])
			run++;
		fwrite(s + at, 1, run - at, out);
		if (run < n)
			fputc(pa_text_safe(s[run++], fold), out);
		at = run;
	}
}

size_t pa_text_utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f; /* nothing above U+10FFFF */
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Bytes of s's first invalid byte, or len when s is valid UTF-8. */
static size_t pa_text_utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = s[i] < 0x80 ? 1 : pa_text_utf8_len(s + i, len - i);

		if (!n)
			return i;
		i += n;
	}
	return len;
}

const char *pa_text_utf8(const char *s, char **own)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = pa_text_utf8_valid(u, len), at;
	char *out;

	*own = NULL;
	if (i == len)
		return s;
	/* Each bad byte grows to three. */
	out = malloc(3 * len + 1);
	if (!out)
		return NULL;
	memcpy(out, s, i);
	at = i;
	while (i < len) {
		size_t n = u[i] < 0x80 ? 1 : pa_text_utf8_len(u + i, len - i);

		if (n) {
			memcpy(out + at, s + i, n);
			at += n;
			i += n;
		} else {
			memcpy(out + at, "\xef\xbf\xbd", 3);
			at += 3;
			i++;
		}
	}
	out[at] = '\0';
	*own = out;
	return out;
}
