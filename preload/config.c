/*
 * The configuration: INI text parsed with inih in two steps. Reading
 * collects each section's values with their line numbers (inih r55 tells its
 * handler no line number, so inih reads lines through our reader, which
 * counts them, drops leading whitespace so that an indented key is never a
 * continuation line, and measures each line against inih's buffer before
 * inih can cut it). Building then checks every value and resolves the events.
 * Every problem is collected with its line; nothing is printed here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evname.h"
#include "strdist.h"

/* config/default.ini, built in (the Makefile passes its path). */
__asm__(".section .rodata\n"
	".hidden pp_config_default_ini\n"
	"pp_config_default_ini:\n"
	".incbin \"" PP_CONFIG_DEFAULT_INI "\"\n"
	".byte 0\n"
	".previous\n");
extern const char pp_config_default_ini[];

#ifdef PP_CONFIG_BUILT_DEFAULT
/* pp_config_default_bytes: the default parsed at build time (tools/config_gen.c). */
#include "config_default.h"
#endif

#define PP_CONFIG_VALUE_MAX 256
#define PP_CONFIG_MAX_KEYS 10
/*
 * The shortest period of cpu-clock and task-clock, and the highest
 * frequency: a sample every 100 us of CPU at most. The kernel's hrtimer
 * would fire every 10 us, but each overflow and its signal cost the thread
 * 10-20 us of CPU on a virtual machine: at 10 us a program made no headway
 * (README, Sampling rate).
 */
#define PP_CONFIG_MIN_TIME_PERIOD 100000ull
#define PP_CONFIG_MAX_RATE 10000ull
#define PP_CONFIG_MAX_TIME_PERIOD 3600000000000ull
#define PP_CONFIG_MAX_COUNT_PERIOD (1ull << 62)
#define PP_CONFIG_DEFAULT_RATE_LIMIT 100000ull

enum pp_config_kind { PP_SEC_PROFILE, PP_SEC_SAMPLE, PP_SEC_COUNT };

static const char *const pp_config_kinds[] = { "profile", "sample", "count" };

enum { K_OUTPUT, K_MODE, K_MAX_FRAMES, K_FOLLOW_EXEC, K_UNAVAILABLE, K_STRICT,
       K_SIGNAL, K_STACKS, K_DELAY, K_TOGGLE_SIGNAL };
static const char *const pp_config_profile_keys[] = {
	"output", "mode", "max_frames", "follow_exec", "unavailable", "strict",
	"signal", "stacks", "delay", "toggle_signal",
};
_Static_assert(sizeof(pp_config_profile_keys) / sizeof(pp_config_profile_keys[0]) <=
	       PP_CONFIG_MAX_KEYS, "PP_CONFIG_MAX_KEYS holds [profile]'s keys");

enum { K_EVENT, K_PERIOD, K_FREQUENCY, K_EXCLUDE_KERNEL, K_EXCLUDE_USER,
       K_PRECISE_IP, K_RINGS };
static const char *const pp_config_event_keys[] = {
	"event", "period", "frequency", "exclude_kernel", "exclude_user",
	"precise_ip", "rings",
};

struct pp_config_value {
	int line; /* 0: not given */
	char text[PP_CONFIG_VALUE_MAX];
};

struct pp_config_section {
	int kind;
	int line;
	char name[PPF_NAME_MAX];
	struct pp_config_value v[PP_CONFIG_MAX_KEYS];
};

struct pp_config_parser {
	const char *source;
	const char *pos;      /* the next line of the text */
	int lineno;
	struct pp_config_errors *errs;
	struct pp_config_section profile;
	struct pp_config_section events[PP_CONFIG_MAX_EVENTS];
	unsigned nevents;
	struct pp_config_section *cur; /* NULL before any section or in a bad one */
	int cur_bad;          /* the current section was reported: skip its keys */
};

/* Records one problem at line (0: the file as a whole), kept in line order. */
__attribute__((format(printf, 3, 4)))
static void pp_config_error(struct pp_config_parser *p, int line,
			    const char *fmt, ...)
{
	struct pp_config_errors *errs = p->errs;
	unsigned at;
	size_t len;
	va_list ap;

	if (errs->n == PP_CONFIG_MAX_ERRORS) {
		errs->more++;
		return;
	}
	for (at = errs->n; at > 0 && errs->e[at - 1].line > line; at--)
		errs->e[at] = errs->e[at - 1];
	errs->e[at].line = line;
	if (line > 0)
		snprintf(errs->e[at].msg, sizeof(errs->e[at].msg), "%s:%d: ",
			 p->source, line);
	else
		snprintf(errs->e[at].msg, sizeof(errs->e[at].msg), "%s: ", p->source);
	len = strlen(errs->e[at].msg);
	va_start(ap, fmt);
	vsnprintf(errs->e[at].msg + len, sizeof(errs->e[at].msg) - len, fmt, ap);
	va_end(ap);
	errs->n++;
}

static int pp_config_has_error_at(const struct pp_config_parser *p, int line)
{
	for (unsigned i = 0; i < p->errs->n; i++)
		if (p->errs->e[i].line == line)
			return 1;
	return 0;
}

/* Copies s[0..len) with surrounding blanks removed into out (out_size > 0). */
static void pp_config_trim(const char *s, size_t len, char *out, size_t out_size)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (len >= out_size)
		len = out_size - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

static int pp_config_lookup(const char *word, const char *const *words, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (strcasecmp(word, words[i]) == 0)
			return (int)i;
	return -1;
}

static struct pp_config_section *pp_config_find_event(struct pp_config_parser *p,
						      int kind, const char *name)
{
	for (unsigned i = 0; i < p->nevents; i++)
		if (p->events[i].kind == kind && strcmp(p->events[i].name, name) == 0)
			return &p->events[i];
	return NULL;
}

static void pp_config_unknown_section(struct pp_config_parser *p,
				      const char *kind, const char *name)
{
	const char *s = pp_strdist_closest(kind, pp_config_kinds, 3);

	if (s)
		pp_config_error(p, p->lineno, "unknown section [%s%s%s]; did you "
				"mean [%s%s%s]?", kind, *name ? " " : "", name, s,
				*name ? " " : "", name);
	else
		pp_config_error(p, p->lineno, "unknown section [%s%s%s]; sections "
				"are [profile], [sample EVENT] and [count EVENT]",
				kind, *name ? " " : "", name);
}

/* Begins a section at the current line; inner is the text between [ and ]. */
static void pp_config_section_begin(struct pp_config_parser *p, const char *inner,
				    size_t len)
{
	char text[PP_CONFIG_VALUE_MAX], *name;
	struct pp_config_section *s;
	int kind;

	pp_config_trim(inner, len, text, sizeof(text));
	name = text + strcspn(text, " \t");
	if (*name)
		*name++ = '\0';
	name += strspn(name, " \t");
	p->cur = NULL;
	p->cur_bad = 1;
	kind = pp_config_lookup(text, pp_config_kinds, 3);
	if (kind < 0) {
		pp_config_unknown_section(p, text, name);
		return;
	}
	if (kind == PP_SEC_PROFILE) {
		if (*name)
			pp_config_error(p, p->lineno, "[profile %s]: the profile "
					"section takes no name", name);
		else if (p->profile.line)
			pp_config_error(p, p->lineno, "[profile] appears twice "
					"(first on line %d)", p->profile.line);
		else {
			p->profile.line = p->lineno;
			p->cur = &p->profile;
			p->cur_bad = 0;
		}
		return;
	}
	if (!*name) {
		pp_config_error(p, p->lineno, "[%s] needs an event, as in [%s "
				"cpu-clock]", text, text);
		return;
	}
	if (strlen(name) >= PPF_NAME_MAX) {
		pp_config_error(p, p->lineno, "[%s %s]: the name is longer than "
				"%u characters", text, name, PPF_NAME_MAX - 1);
		return;
	}
	if ((s = pp_config_find_event(p, kind, name)) != NULL) {
		pp_config_error(p, p->lineno, "[%s %s] appears twice (first on "
				"line %d)", text, name, s->line);
		return;
	}
	if (p->nevents == PP_CONFIG_MAX_EVENTS) {
		pp_config_error(p, p->lineno, "[%s %s]: more than %d events",
				text, name, PP_CONFIG_MAX_EVENTS);
		return;
	}
	s = &p->events[p->nevents++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = p->lineno;
	snprintf(s->name, sizeof(s->name), "%s", name);
	p->cur = s;
	p->cur_bad = 0;
}

/* Looks at a line before inih does: sections, and lines inih would reject. */
static void pp_config_line_check(struct pp_config_parser *p, const char *s,
				 size_t len)
{
	const char *end;

	if (len == 0 || *s == ';' || *s == '#')
		return;
	if (*s == '[') {
		end = memchr(s, ']', len);
		if (end) {
			const char *rest = end + 1, *stop = s + len;

			/* After the ], blanks and a comment only. */
			while (rest < stop && (*rest == ' ' || *rest == '\t'))
				rest++;
			if (rest < stop && *rest != ';' && *rest != '#') {
				pp_config_error(p, p->lineno, "'%.*s': text after the section's ]",
						(int)len, s);
				p->cur = NULL;
				p->cur_bad = 1;
				return;
			}
			pp_config_section_begin(p, s + 1, (size_t)(end - s - 1));
			return;
		}
		pp_config_error(p, p->lineno, "'%.*s': a section name needs a "
				"closing ]", (int)len, s);
		p->cur = NULL;
		p->cur_bad = 1;
		return;
	}
	if (!memchr(s, '=', len) && !memchr(s, ':', len))
		pp_config_error(p, p->lineno, "'%.*s': expected 'key = value', "
				"a [section] or a comment", (int)len, s);
}

/*
 * inih's reader: hands it one line of the text per call (fgets-like: at most
 * num - 1 bytes, newline included), without leading blanks.
 */
static char *pp_config_read_line(char *str, int num, void *stream)
{
	struct pp_config_parser *p = stream;
	const char *s = p->pos, *nl;
	size_t len;

	if (!*s || num < 3)
		return NULL;
	nl = strchr(s, '\n');
	len = nl ? (size_t)(nl - s) : strlen(s);
	p->pos = nl ? nl + 1 : s + len;
	p->lineno++;
	if (p->lineno == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3, len -= 3;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (len && s[len - 1] == '\r')
		len--;
	if (len + 2 > (size_t)num) {
		pp_config_error(p, p->lineno, "the line is %zu characters long; "
				"the longest line read is %d characters", len,
				num - 2);
		if (*s == '[') {
			p->cur = NULL;
			p->cur_bad = 1;
		}
		len = 0;
	} else {
		pp_config_line_check(p, s, len);
	}
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static void pp_config_unknown_key(struct pp_config_parser *p, const char *key,
				  const char *const *keys, unsigned n)
{
	const char *s = pp_strdist_closest(key, keys, n);
	const char *sec = p->cur->kind == PP_SEC_PROFILE ? "profile" :
			  pp_config_kinds[p->cur->kind];
	char list[256] = "";

	if (s) {
		pp_config_error(p, p->lineno, "unknown key '%s' in [%s%s%s]; did "
				"you mean '%s'?", key, sec, *p->cur->name ? " " : "",
				p->cur->name, s);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", keys[i]);
	pp_config_error(p, p->lineno, "unknown key '%s' in [%s%s%s]; the keys "
			"are %s", key, sec, *p->cur->name ? " " : "",
			p->cur->name, list);
}

/* inih's handler: stores one value. Always "succeeds": we report ourselves. */
static int pp_config_on_value(void *user, const char *section, const char *key,
			      const char *value)
{
	struct pp_config_parser *p = user;
	const char *const *keys;
	struct pp_config_value *v;
	unsigned n;
	int k;

	(void)section;
	if (!p->cur) {
		if (!p->cur_bad)
			pp_config_error(p, p->lineno, "'%s' is outside any "
					"section: put it under [profile] or an "
					"event's section", key);
		return 1;
	}
	keys = p->cur->kind == PP_SEC_PROFILE ? pp_config_profile_keys :
						pp_config_event_keys;
	n = p->cur->kind == PP_SEC_PROFILE ?
		    sizeof(pp_config_profile_keys) / sizeof(*keys) :
		    sizeof(pp_config_event_keys) / sizeof(*keys);
	k = pp_config_lookup(key, keys, n);
	if (k < 0) {
		pp_config_unknown_key(p, key, keys, n);
		return 1;
	}
	v = &p->cur->v[k];
	if (v->line) {
		pp_config_error(p, p->lineno, "'%s' is given twice in this "
				"section (first on line %d)", keys[k], v->line);
		return 1;
	}
	v->line = p->lineno;
	if (strlen(value) >= sizeof(v->text))
		pp_config_error(p, p->lineno, "the value of '%s' is longer than "
				"%zu characters", keys[k], sizeof(v->text) - 1);
	snprintf(v->text, sizeof(v->text), "%s", value);
	return 1;
}

/* ---- values ------------------------------------------------------------ */

static int pp_config_bool(struct pp_config_parser *p, const char *key,
			  const struct pp_config_value *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	if (!v->line)
		return 0;
	if (pp_config_lookup(v->text, yes, 4) >= 0)
		*out = 1;
	else if (pp_config_lookup(v->text, no, 4) >= 0)
		*out = 0;
	else
		pp_config_error(p, v->line, "%s = '%s': expected yes or no (or "
				"true/false, on/off, 1/0)", key, v->text);
	return 0;
}

/* A whole number with an optional unit suffix from units (factor each). */
struct pp_config_unit {
	const char *suffix;
	uint64_t factor;
};

static int pp_config_number(const char *text, const struct pp_config_unit *units,
			    unsigned nunits, uint64_t *out)
{
	char *end, unit[16];
	unsigned long long n;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno)
		return -ERANGE;
	pp_config_trim(end, strlen(end), unit, sizeof(unit));
	if (!*unit) {
		*out = n;
		return 0;
	}
	for (unsigned i = 0; i < nunits; i++) {
		if (strcmp(unit, units[i].suffix) != 0)
			continue;
		if (n > UINT64_MAX / units[i].factor)
			return -ERANGE;
		*out = n * units[i].factor;
		return 0;
	}
	return -EINVAL;
}

/* Parses v as a number in [lo, hi]; what describes the expected form. */
static int pp_config_range(struct pp_config_parser *p, const char *key,
			   const struct pp_config_value *v,
			   const struct pp_config_unit *units, unsigned nunits,
			   uint64_t lo, uint64_t hi, const char *what, uint64_t *out)
{
	uint64_t n;
	int err = pp_config_number(v->text, units, nunits, &n);

	if (err == -EINVAL) {
		pp_config_error(p, v->line, "%s = '%s': expected %s", key, v->text,
				what);
		return err;
	}
	if (err || n < lo || n > hi) {
		pp_config_error(p, v->line, "%s = '%s' is out of range: expected %s",
				key, v->text, what);
		return -ERANGE;
	}
	*out = n;
	return 0;
}

static const struct pp_config_unit pp_config_time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
};
static const struct pp_config_unit pp_config_hz_units[] = {
	{ "Hz", 1 }, { "hz", 1 }, { "kHz", 1000 }, { "khz", 1000 },
};

static int pp_config_choice(struct pp_config_parser *p, const char *key,
			    const struct pp_config_value *v,
			    const char *const *choices, unsigned n, int *out)
{
	int k;

	if (!v->line)
		return 0;
	k = pp_config_lookup(v->text, choices, n);
	if (k >= 0) {
		*out = k;
		return 0;
	}
	if (n == 2)
		pp_config_error(p, v->line, "%s = '%s': expected %s or %s", key,
				v->text, choices[0], choices[1]);
	else
		pp_config_error(p, v->line, "%s = '%s': expected %s, %s or %s",
				key, v->text, choices[0], choices[1], choices[2]);
	return -EINVAL;
}

/* ---- building ---------------------------------------------------------- */

static void pp_config_build_profile(struct pp_config_parser *p,
				    struct pp_config *cfg)
{
	static const char *const modes[] = { "auto", "sigtrap", "signal" };
	static const char *const unavailable[] = { "skip", "off" };
	static const char *const stacks[] = { "once", "whole" };
	const struct pp_config_value *v = p->profile.v;
	int mode = 0;
	uint64_t n;

	if (v[K_OUTPUT].line) {
		if (!v[K_OUTPUT].text[0])
			pp_config_error(p, v[K_OUTPUT].line, "output has no value");
		snprintf(cfg->output, sizeof(cfg->output), "%s", v[K_OUTPUT].text);
	}
	pp_config_choice(p, "mode", &v[K_MODE], modes, 3, &mode);
	cfg->mode_request = (uint32_t)mode;
	if (v[K_SIGNAL].line) {
		int sig = pp_config_signal_number(v[K_SIGNAL].text);

		if (sig < 0)
			pp_config_error(p, v[K_SIGNAL].line, "signal = '%s': expected "
					"auto, SIGPROF, SIGUSR1, SIGUSR2, SIGRTMIN+N, "
					"SIGRTMAX-N or a number of one of those",
					v[K_SIGNAL].text);
		else
			cfg->signal = sig;
	}
	if (v[K_MAX_FRAMES].line &&
	    pp_config_range(p, "max_frames", &v[K_MAX_FRAMES], NULL, 0, 1,
			    PPF_MAX_FRAMES, "a number of frames from 1 to 512",
			    &n) == 0)
		cfg->max_frames = (unsigned)n;
	pp_config_bool(p, "follow_exec", &v[K_FOLLOW_EXEC], &cfg->follow_exec);
	pp_config_choice(p, "unavailable", &v[K_UNAVAILABLE], unavailable, 2,
			 &cfg->unavailable_off);
	pp_config_bool(p, "strict", &v[K_STRICT], &cfg->strict);
	pp_config_choice(p, "stacks", &v[K_STACKS], stacks, 2, &cfg->whole_stacks);
	if (v[K_DELAY].line &&
	    pp_config_range(p, "delay", &v[K_DELAY], pp_config_time_units, 4, 0,
			    PP_CONFIG_MAX_TIME_PERIOD, "a duration from 0 to 3600s, "
			    "such as 500ms or 10s (a bare number is nanoseconds)", &n) == 0)
		cfg->delay_ns = n;
	if (v[K_TOGGLE_SIGNAL].line) {
		int sig = pp_config_any_signal(v[K_TOGGLE_SIGNAL].text);

		if (sig < 0)
			pp_config_error(p, v[K_TOGGLE_SIGNAL].line, "toggle_signal = '%s': "
					"expected none, a signal's name (SIGUSR2, SIGRTMIN+N, "
					"...) or its number", v[K_TOGGLE_SIGNAL].text);
		else
			cfg->toggle_signal = sig;
	}
}

int pp_config_any_signal(const char *text)
{
	const char *name = strncasecmp(text, "SIG", 3) == 0 ? text + 3 : text;
	char *end;
	long n;

	if (strcasecmp(text, "none") == 0)
		return 0;
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && strcasecmp(name, abbrev) == 0)
			return sig;
	}
	n = strtol(text, &end, 10);
	if (end != text && !*end)
		return n >= 1 && n <= SIGRTMAX ? (int)n : -1;
	n = pp_config_signal_number(text);
	return n > 0 ? (int)n : -1;
}

/*
 * The signal a `signal` value names: 0 for auto, -1 when it is not one the
 * signal mode may use (SIGPROF, SIGUSR1, SIGUSR2 or a real-time signal).
 */
int pp_config_signal_number(const char *text)
{
	char *end;
	long n;

	if (strcasecmp(text, "auto") == 0)
		return 0;
	if (strncasecmp(text, "SIG", 3) == 0)
		text += 3;
	if (strcasecmp(text, "PROF") == 0)
		return SIGPROF;
	if (strcasecmp(text, "USR1") == 0)
		return SIGUSR1;
	if (strcasecmp(text, "USR2") == 0)
		return SIGUSR2;
	if (strncasecmp(text, "RTMIN", 5) == 0 || strncasecmp(text, "RTMAX", 5) == 0) {
		int max = strncasecmp(text, "RTMAX", 5) == 0;

		n = 0;
		/* A digit right after the sign: no blank, no empty number. */
		if (text[5] == (max ? '-' : '+') && text[6] >= '0' && text[6] <= '9')
			n = strtol(text + 6, &end, 10);
		else if (text[5] == (max ? '-' : '+'))
			return -1;
		else
			end = (char *)text + 5;
		if (*end || n < 0 || n > SIGRTMAX - SIGRTMIN)
			return -1;
		return max ? SIGRTMAX - (int)n : SIGRTMIN + (int)n;
	}
	n = strtol(text, &end, 10);
	if (end == text || *end)
		return -1;
	if (n == SIGPROF || n == SIGUSR1 || n == SIGUSR2 ||
	    (n >= SIGRTMIN && n <= SIGRTMAX))
		return (int)n;
	return -1;
}

/* perf_event_max_sample_rate: the highest frequency the kernel accepts. */
static uint64_t pp_config_rate_limit(void)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/perf_event_max_sample_rate",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return PP_CONFIG_DEFAULT_RATE_LIMIT;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10) ? strtoull(buf, NULL, 10) :
					 PP_CONFIG_DEFAULT_RATE_LIMIT;
}

static void pp_config_event_rate(struct pp_config_parser *p,
				 const struct pp_config_section *s,
				 struct pp_config_event *ev)
{
	const struct pp_config_value *per = &s->v[K_PERIOD], *fr = &s->v[K_FREQUENCY];
	uint64_t limit, n;
	char what[160];

	if (per->line && fr->line) {
		pp_config_error(p, per->line > fr->line ? per->line : fr->line,
				"[sample %s] has both a period and a frequency; "
				"give one", s->name);
		return;
	}
	if (fr->line) {
		limit = pp_config_rate_limit();
		if (limit > PP_CONFIG_MAX_RATE)
			limit = PP_CONFIG_MAX_RATE;
		snprintf(what, sizeof(what), "samples per second from 1 to %llu "
			 "(10 kHz, or the kernel's perf_event_max_sample_rate "
			 "if lower)", (unsigned long long)limit);
		if (pp_config_range(p, "frequency", fr, pp_config_hz_units, 4, 1,
				    limit, what, &n) == 0) {
			ev->period = n;
			ev->freq = 1;
		}
		return;
	}
	if (per->line && ev->time_ns) {
		if (pp_config_range(p, "period", per, pp_config_time_units, 4,
				    PP_CONFIG_MIN_TIME_PERIOD,
				    PP_CONFIG_MAX_TIME_PERIOD, "a duration from "
				    "100us to 3600s, such as 500us, 1ms or 2s "
				    "(a bare number is nanoseconds)", &n) == 0)
			ev->period = n;
	} else if (per->line) {
		if (pp_config_range(p, "period", per, NULL, 0, 1,
				    PP_CONFIG_MAX_COUNT_PERIOD, "a whole number "
				    "of events (one sample every N)", &n) == 0)
			ev->period = n;
	} else if (ev->time_ns) {
		ev->period = 1000000; /* 1 ms, as in config/default.ini */
	} else {
		pp_config_error(p, s->line, "[sample %s] needs a period (one "
				"sample every N events) or a frequency (samples "
				"per second)", s->name);
	}
}

/* Resolves the event's name; reports an unknown one with a suggestion. */
static int pp_config_event_encode(struct pp_config_parser *p,
				  const struct pp_config_section *s,
				  struct pp_config_event *ev, int line)
{
	struct pp_evname en;
	char why[256], near[128];
	int err = pp_evname_encode(ev->spec, ev->exclude_user, ev->exclude_kernel,
				   &en, why, sizeof(why));

	if (err == -ENOENT && pp_evname_closest(ev->spec, near, sizeof(near)))
		pp_config_error(p, line, "unknown event '%s' in [%s %s]; did you "
				"mean '%s'?", ev->spec, pp_config_kinds[s->kind],
				s->name, near);
	else if (err == -ENOENT)
		pp_config_error(p, line, "unknown event '%s' in [%s %s]; name a "
				"perf event (cpu-clock, page-faults, cycles, ...), "
				"a raw rNNNN or a libpfm4 PMU event", ev->spec,
				pp_config_kinds[s->kind], s->name);
	else if (err)
		pp_config_error(p, line, "event '%s' in [%s %s]: %s", ev->spec,
				pp_config_kinds[s->kind], s->name, why);
	if (err)
		return err;
	ev->type = en.type;
	ev->config = en.config;
	ev->config1 = en.config1;
	ev->config2 = en.config2;
	ev->exclude_user = en.exclude_user;
	ev->exclude_kernel = en.exclude_kernel;
	ev->precise_ip = en.precise_ip;
	ev->time_ns = en.time_ns;
	ev->kernel_only = en.kernel_only;
	return 0;
}

/*
 * Context switches and migrations happen in the kernel: excluding the kernel
 * would count nothing, so they count there unless the file says otherwise,
 * and saying so is an error.
 */
static int pp_config_kernel_only(struct pp_config_parser *p,
				 const struct pp_config_section *s,
				 struct pp_config_event *ev, int line)
{
	if (!ev->kernel_only || !ev->exclude_kernel)
		return 0;
	if (s->v[K_EXCLUDE_KERNEL].line || strchr(ev->spec, ':')) {
		pp_config_error(p, s->v[K_EXCLUDE_KERNEL].line ?
				s->v[K_EXCLUDE_KERNEL].line : line,
				"[%s %s]: %s happens in the kernel: excluding "
				"the kernel, it counts nothing", pp_config_kinds[s->kind],
				s->name, ev->spec);
		return -EINVAL;
	}
	ev->exclude_kernel = 0;
	return pp_config_event_encode(p, s, ev, line);
}

static int pp_config_same_event(const struct pp_config_event *a,
				const struct pp_config_event *b)
{
	return a->count_only == b->count_only && a->type == b->type &&
	       a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel;
}

/* The wall-clock event's period: a duration, no shorter than the helper's tick. */
#define PP_CONFIG_MIN_WALL_PERIOD 1000000ull
#define PP_CONFIG_DEFAULT_WALL_PERIOD 1000000ull

/*
 * [sample wall] (or event = wall): not a perf event but the profiler's own
 * (wall.h); it takes a period of wall time and nothing else.
 */
static void pp_config_build_wall(struct pp_config_parser *p,
				 const struct pp_config_section *s, struct pp_config *cfg)
{
	const struct pp_config_value *v = s->v;
	uint64_t n = PP_CONFIG_DEFAULT_WALL_PERIOD;

	if (s->kind == PP_SEC_COUNT) {
		pp_config_error(p, s->line, "[count %s]: wall is sampled, not counted; "
				"use [sample %s]", s->name, s->name);
		return;
	}
	if (cfg->wall_ns) {
		pp_config_error(p, s->line, "[sample %s] is the wall event a second "
				"time (give one)", s->name);
		return;
	}
	for (int k = K_FREQUENCY; k <= K_PRECISE_IP; k++)
		if (v[k].line)
			pp_config_error(p, v[k].line, "[sample %s] (wall time) takes only "
					"a period and rings; not %s", s->name,
					pp_config_event_keys[k]);
	if (v[K_PERIOD].line &&
	    pp_config_range(p, "period", &v[K_PERIOD], pp_config_time_units, 4,
			    PP_CONFIG_MIN_WALL_PERIOD, PP_CONFIG_MAX_TIME_PERIOD,
			    "a duration of wall time from 1ms to 3600s, such as 1ms, "
			    "10ms or 1s (a bare number is nanoseconds)", &n) != 0)
		return;
	if (v[K_RINGS].line) {
		if (!strcasecmp(v[K_RINGS].text, "thread"))
			cfg->wall_rings = PP_WALL_RINGS_THREAD;
		else if (!strcasecmp(v[K_RINGS].text, "cpu"))
			cfg->wall_rings = PP_WALL_RINGS_CPU;
		else
			pp_config_error(p, v[K_RINGS].line, "rings = %s: thread (a ring "
					"of switch records per thread, the default) or cpu "
					"(one per CPU, inherited by the threads)",
					v[K_RINGS].text);
	}
	cfg->wall_ns = n;
}

/* Whether section s asks for the wall-clock event. */
static int pp_config_is_wall(const struct pp_config_section *s)
{
	const struct pp_config_value *ev = &s->v[K_EVENT];

	return strcasecmp(ev->line ? ev->text : s->name, "wall") == 0;
}

static void pp_config_build_event(struct pp_config_parser *p,
				  const struct pp_config_section *s,
				  struct pp_config *cfg)
{
	struct pp_config_event *ev = &cfg->events[cfg->nevents];
	const struct pp_config_value *v = s->v;
	int line = v[K_EVENT].line ? v[K_EVENT].line : s->line;
	uint64_t n;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", s->name);
	ev->count_only = s->kind == PP_SEC_COUNT;
	ev->line = s->line;
	ev->exclude_kernel = 1;
	if (v[K_EVENT].line && (!v[K_EVENT].text[0] ||
				strlen(v[K_EVENT].text) >= sizeof(ev->spec))) {
		pp_config_error(p, line, "event = '%s': expected an event name "
				"of 1 to %u characters", v[K_EVENT].text,
				PPF_NAME_MAX - 1);
		return;
	}
	snprintf(ev->spec, sizeof(ev->spec), "%s",
		 v[K_EVENT].line ? v[K_EVENT].text : s->name);
	pp_config_bool(p, "exclude_kernel", &v[K_EXCLUDE_KERNEL], &ev->exclude_kernel);
	pp_config_bool(p, "exclude_user", &v[K_EXCLUDE_USER], &ev->exclude_user);
	if (ev->exclude_kernel && ev->exclude_user) {
		pp_config_error(p, s->line, "[%s %s] excludes both user and "
				"kernel space: nothing is left to count",
				pp_config_kinds[s->kind], s->name);
		return;
	}
	if (v[K_RINGS].line)
		pp_config_error(p, v[K_RINGS].line, "[%s %s]: rings is a key of "
				"[sample wall] only", pp_config_kinds[s->kind], s->name);
	if (pp_config_event_encode(p, s, ev, line))
		return;
	if (pp_config_kernel_only(p, s, ev, line))
		return;
	if (ev->count_only) {
		for (int k = K_PERIOD; k <= K_PRECISE_IP; k++)
			if (k != K_EXCLUDE_KERNEL && k != K_EXCLUDE_USER && v[k].line)
				pp_config_error(p, v[k].line, "[count %s] counts "
						"only: it takes no %s", s->name,
						pp_config_event_keys[k]);
	} else {
		pp_config_event_rate(p, s, ev);
		if (v[K_PRECISE_IP].line &&
		    pp_config_range(p, "precise_ip", &v[K_PRECISE_IP], NULL, 0,
				    0, 3, "0, 1, 2 or 3", &n) == 0)
			ev->precise_ip = (unsigned)n;
	}
	for (unsigned i = 0; i < cfg->nevents; i++) {
		if (!pp_config_same_event(&cfg->events[i], ev))
			continue;
		pp_config_error(p, line, "[%s %s] is the same event as [%s %s] "
				"on line %d", pp_config_kinds[s->kind], s->name,
				pp_config_kinds[s->kind], cfg->events[i].name,
				cfg->events[i].line);
		return;
	}
	cfg->nevents++;
}

static void pp_config_init(struct pp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->output, sizeof(cfg->output), "pprof-data");
	cfg->mode_request = PPF_MODE_REQUEST_AUTO;
	cfg->max_frames = 128;
	cfg->follow_exec = 1;
}

/* A file without event sections samples what the embedded default samples. */
static int pp_config_default_events(struct pp_config *cfg)
{
	struct pp_config_errors errs = { 0 };
	struct pp_config def;
	int err = pp_config_parse(&def, PP_CONFIG_EMBEDDED, pp_config_default_ini,
				  &errs);

	if (!err) {
		memcpy(cfg->events, def.events, sizeof(def.events));
		cfg->nevents = def.nevents;
	}
	pp_config_release(&def);
	return err;
}

int pp_config_parse(struct pp_config *cfg, const char *source,
		    const char *text, struct pp_config_errors *errs)
{
	/*
	 * Zeroed a section at a time as the text opens it: all of it (37 KiB)
	 * faulted in and cleared at every process start.
	 */
	struct pp_config_parser *p = malloc(sizeof(*p));
	unsigned nsections;
	int ret;

	if (p) {
		memset(p, 0, offsetof(struct pp_config_parser, events));
		p->nevents = 0;
		p->cur = NULL;
		p->cur_bad = 0;
	}

	pp_config_init(cfg);
	/* Not the messages (8 KiB): each is written whole when an error is kept. */
	errs->n = 0;
	errs->more = 0;
	errs->said_off = 0;
	snprintf(cfg->source, sizeof(cfg->source), "%s", source);
	cfg->from_file = strcmp(source, PP_CONFIG_EMBEDDED) != 0;
	cfg->text = strdup(text);
	if (!p || !cfg->text) {
		free(p);
		return -ENOMEM;
	}
	p->source = source;
	p->pos = text;
	p->errs = errs;
	ret = ini_parse_stream(pp_config_read_line, p, pp_config_on_value, p);
	if (ret > 0 && !pp_config_has_error_at(p, ret))
		pp_config_error(p, ret, "expected 'key = value', a [section] or "
				"a comment");
	pp_config_build_profile(p, cfg);
	nsections = p->nevents;
	for (unsigned i = 0; i < nsections; i++) {
		if (pp_config_is_wall(&p->events[i]))
			pp_config_build_wall(p, &p->events[i], cfg);
		else
			pp_config_build_event(p, &p->events[i], cfg);
	}
	free(p);
	if (errs->n)
		return -EINVAL;
	/* [sample wall] alone: the CPU samples of the default run beside it. */
	return cfg->nevents ? 0 : pp_config_default_events(cfg);
}

int pp_config_default(struct pp_config *cfg, struct pp_config_errors *errs)
{
#ifdef PP_CONFIG_BUILT_DEFAULT
	_Static_assert(sizeof(pp_config_default_bytes) == sizeof(*cfg),
		       "config_default.h is not of this struct pp_config");
	memcpy(cfg, pp_config_default_bytes, sizeof(*cfg));
	errs->n = 0;
	errs->more = 0;
	errs->said_off = 0;
	/* Never written out (process.log holds a file's text only): not copied. */
	cfg->text = NULL;
	return 0;
#else
	return pp_config_parse(cfg, PP_CONFIG_EMBEDDED, pp_config_default_ini, errs);
#endif
}

const char *pp_config_default_text(void)
{
	return pp_config_default_ini;
}

void pp_config_release(struct pp_config *cfg)
{
	free(cfg->text);
	cfg->text = NULL;
}

/* One problem that is not on a line of the text (the file, the environment). */
__attribute__((format(printf, 2, 3)))
static void pp_config_fail(struct pp_config_errors *errs, const char *fmt, ...)
{
	va_list ap;

	memset(errs, 0, sizeof(*errs));
	va_start(ap, fmt);
	vsnprintf(errs->e[0].msg, sizeof(errs->e[0].msg), fmt, ap);
	va_end(ap);
	errs->n = 1;
}

/* What a file of this mode is, for messages: "a FIFO". */
static const char *pp_config_file_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" :
	       S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISSOCK(mode) ? "a socket" : S_ISLNK(mode) ? "a symbolic link" :
	       "of an unknown kind";
}

/*
 * Opens path for reading if it is a regular file, or returns -1 with errs
 * filled. Nothing else is ever read: the path is looked at through an
 * O_PATH descriptor first, which runs no driver's open and waits for no
 * writer, so a FIFO does not hang the program before main, and /dev/stdin
 * on a pipe or a terminal does not eat the program's own input. The real
 * open is O_NONBLOCK in case the path changed in between, and stays so
 * (a regular file reads the same) so that nothing claiming to be a regular
 * file can make the read wait. A regular file reached through /dev/stdin
 * is opened anew, with an offset of its own: the program's is not moved.
 */
static int pp_config_open_regular(const char *path, struct pp_config_errors *errs)
{
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);
	int err = fd < 0 || fstat(fd, &st) < 0 ? errno : 0;

	if (!err && S_ISREG(st.st_mode)) {
		close(fd);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		err = fd < 0 || fstat(fd, &st) < 0 ? errno : 0;
		if (!err && S_ISREG(st.st_mode))
			return fd;
	}
	if (err)
		pp_config_fail(errs, "PPROF_CONFIG=%s: cannot read it: %s", path,
			       strerror(err));
	else
		pp_config_fail(errs, "PPROF_CONFIG=%s: is %s, not a regular file; "
			       "not read", path, pp_config_file_kind(st.st_mode));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Reads the whole file at path (at most PP_CONFIG_MAX_TEXT bytes) into *text. */
static int pp_config_read_file(const char *path, char **text,
			       struct pp_config_errors *errs)
{
	int fd = pp_config_open_regular(path, errs);
	char *buf = fd < 0 ? NULL : malloc(PP_CONFIG_MAX_TEXT + 1);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -EINVAL;
	if (!buf) {
		pp_config_fail(errs, "PPROF_CONFIG=%s: cannot read it: %s", path,
			       strerror(ENOMEM));
		goto out_fail;
	}
	while (len <= PP_CONFIG_MAX_TEXT &&
	       (n = read(fd, buf + len, PP_CONFIG_MAX_TEXT + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		pp_config_fail(errs, "%s: cannot read it: %s", path, strerror(errno));
		goto out_fail;
	}
	if (len > PP_CONFIG_MAX_TEXT) {
		pp_config_fail(errs, "%s: larger than %d bytes; is it the right "
			       "file?", path, PP_CONFIG_MAX_TEXT);
		goto out_fail;
	}
	if (memchr(buf, '\0', len)) {
		pp_config_fail(errs, "%s: byte %zu is a NUL: not a text file", path,
			       (size_t)((char *)memchr(buf, '\0', len) - buf));
		goto out_fail;
	}
	buf[len] = '\0';
	close(fd);
	*text = buf;
	return 0;
out_fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return -EINVAL;
}

/* Makes path absolute against the current directory, into out. */
static int pp_config_absolute(const char *path, char *out, size_t out_size)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/') {
		n = snprintf(out, out_size, "%s", path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(out, out_size, "%s/%s", cwd, path);
	}
	return n < 0 || (size_t)n >= out_size ? -ENAMETOOLONG : 0;
}

/*
 * A value shortened to fit a message: its start and its end around "...",
 * when it is longer than PP_CONFIG_SHOWN.
 */
#define PP_CONFIG_SHOWN 160
static const char *pp_config_shown(const char *value, char *buf, size_t size)
{
	size_t len = strlen(value);

	if (len <= PP_CONFIG_SHOWN || size < PP_CONFIG_SHOWN + 4)
		return value;
	snprintf(buf, size, "%.*s...%s", PP_CONFIG_SHOWN / 2, value,
		 value + len - PP_CONFIG_SHOWN / 2);
	return buf;
}

/*
 * A problem of the environment's, not of a file's: one line that also says
 * profiling is off (unless strict = yes, which then stops the program).
 */
__attribute__((format(printf, 3, 4)))
static void pp_config_env_fail(const struct pp_config *cfg, struct pp_config_errors *errs,
			       const char *fmt, ...)
{
	static const char off[] = "; profiling is off, the program runs unprofiled";
	char *msg = errs->e[0].msg;
	va_list ap;

	memset(errs, 0, sizeof(*errs));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(errs->e[0].msg) - sizeof(off), fmt, ap);
	va_end(ap);
	if (!cfg->strict)
		strcat(msg, off);
	errs->n = 1;
	errs->said_off = !cfg->strict;
}

/* The output root: PPROF_OUTPUT (out, may be NULL) or the file's, made absolute. */
static int pp_config_output(struct pp_config *cfg, const char *out,
			    struct pp_config_errors *errs)
{
	char abs[sizeof(cfg->output)], shown[PP_CONFIG_SHOWN + 4];
	int err;

	if (out && *out && strlen(out) >= sizeof(cfg->output)) {
		pp_config_env_fail(cfg, errs, "PPROF_OUTPUT=%s: %s (%zu characters, a path "
				   "has at most %zu)", pp_config_shown(out, shown, sizeof(shown)),
				   strerror(ENAMETOOLONG), strlen(out), sizeof(cfg->output) - 1);
		return -ENAMETOOLONG;
	}
	if (out && *out)
		snprintf(cfg->output, sizeof(cfg->output), "%s", out);
	err = pp_config_absolute(cfg->output, abs, sizeof(abs));
	if (err) {
		pp_config_env_fail(cfg, errs, "%s%s: cannot make it an absolute path: %s%s",
				   out && *out ? "PPROF_OUTPUT=" : "the output directory ",
				   pp_config_shown(cfg->output, shown, sizeof(shown)),
				   strerror(-err), err == -ENAMETOOLONG ?
				   " (with the current directory in front)" : "");
		return err;
	}
	memcpy(cfg->output, abs, sizeof(abs));
	return 0;
}

/* PPROF_OUTPUT, PPROF_FOLLOW_EXEC and PPROF_MODE override the file. */
static int pp_config_from_env(struct pp_config *cfg, struct pp_config_errors *errs)
{
	const char *out = getenv("PPROF_OUTPUT");
	const char *follow = getenv("PPROF_FOLLOW_EXEC");
	const char *mode = getenv("PPROF_MODE");
	static const char *const modes[] = { "auto", "sigtrap", "signal" };
	char shown[PP_CONFIG_SHOWN + 4];
	int k;

	if (follow && *follow) {
		if (strcmp(follow, "0") != 0 && strcmp(follow, "1") != 0) {
			pp_config_env_fail(cfg, errs, "PPROF_FOLLOW_EXEC=%s: expected 0 or 1",
					   pp_config_shown(follow, shown, sizeof(shown)));
			return -EINVAL;
		}
		cfg->follow_exec = follow[0] == '1';
	}
	if (mode && *mode) {
		if ((k = pp_config_lookup(mode, modes, 3)) < 0) {
			pp_config_env_fail(cfg, errs, "PPROF_MODE=%s: expected auto, "
					   "sigtrap or signal",
					   pp_config_shown(mode, shown, sizeof(shown)));
			return -EINVAL;
		}
		cfg->mode_request = (uint32_t)k;
	}
	return pp_config_output(cfg, out, errs);
}

int pp_config_load(struct pp_config *cfg, struct pp_config_errors *errs)
{
	const char *path = getenv("PPROF_CONFIG");
	char abs[PATH_MAX];
	char *text = NULL;
	int err;

	if (!path || !*path) {
		err = pp_config_default(cfg, errs);
	} else if ((err = pp_config_absolute(path, abs, sizeof(abs))) != 0) {
		pp_config_init(cfg);
		pp_config_fail(errs, "PPROF_CONFIG=%s: %s", path, strerror(-err));
	} else if ((err = pp_config_read_file(abs, &text, errs)) != 0) {
		pp_config_init(cfg);
	} else {
		/* Children that chdir and exec read the same file. */
		if (strcmp(path, abs) != 0)
			setenv("PPROF_CONFIG", abs, 1);
		err = pp_config_parse(cfg, abs, text, errs);
		free(text);
	}
	pp_evname_done();
	if (err)
		return err;
	return pp_config_from_env(cfg, errs);
}
