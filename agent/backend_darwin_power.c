/*
 * The power stream of the darwin collector: see backend_darwin_power.h.
 */
#include "backend_darwin_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream.h"
#include "darwin_parse.h"
#include "darwin_sched.h"
#include "macos_json.h"

#define WHY_MAX 200
#define INTERVAL_MS_MIN 100	/* macmon samples at least 100 ms (main.rs: interval.max(100)) */
#define INTERVAL_MS_MAX 600000

/* The two commands, in the order tried. */
static const struct {
	const char *name;
	const char *sep;         /* record separator */
	int skip_first;          /* the text before the first separator is a header */
} sources[2] = {
	{ "macmon", "\n", 0 },
	{ "powermetrics", "*** Sampled", 1 },
};

struct darwin_power {
	struct cmdstream *cs;    /* NULL: none running */
	int src;                 /* index in sources[] of cs, or of the next start */
	int interval_ms;         /* cs's -i */
	double last_heard;       /* mono: cs's start or its last sample */
	unsigned long parsed;    /* cs's records already read */
	double next_start;       /* mono */
	double backoff;          /* seconds; 0 after a sample */
	char why[2][WHY_MAX];    /* by source: why its last child ended; "" none since the
				    last sample */
	char parse_err[WHY_MAX]; /* the last sample did not read; "" it did */
	struct report_power power;
	struct report_thermal thermal;
	double sample_mono;      /* when the sample was read; NAN: no sample yet */
};

struct darwin_power *
darwin_power_new(void)
{
	struct darwin_power *p = calloc(1, sizeof(*p));

	if (p != NULL)
		p->sample_mono = NAN;
	return p;
}

void
darwin_power_free(struct darwin_power *p)
{
	if (p == NULL)
		return;
	cmdstream_free(p->cs);
	free(p);
}

static void
power_null(struct report_power *pw, struct report_thermal *th)
{
	memset(pw, 0, sizeof(*pw));
	pw->system_watts = pw->cpu_watts = pw->gpu_watts = pw->ane_watts = NAN;
	pw->dram_watts = pw->collected_at = NAN;
	th->cpu_celsius = th->gpu_celsius = th->collected_at = NAN;
}

/* "pipe -i 5000" of the running or last command, for messages. */
static void
args_of(int src, int ms, char *buf, size_t len)
{
	if (src == 0)
		snprintf(buf, len, "pipe -i %d", ms);
	else
		snprintf(buf, len, "--samplers cpu_power,gpu_power -i %d", ms);
}

/* Start sources[p->src], else the other one when it is not on PATH. */
static void
start(struct darwin_power *p, double mono, int ms)
{
	char msbuf[16], err[WHY_MAX];
	int notfound;

	snprintf(msbuf, sizeof(msbuf), "%d", ms);
	for (int tries = 0; tries < 2; tries++) {
		char *macmon[] = { "macmon", "pipe", "-i", msbuf, NULL };
		char *pm[] = { "powermetrics", "--samplers", "cpu_power,gpu_power", "-i", msbuf,
			NULL };

		p->cs = cmdstream_start(p->src == 0 ? macmon : pm, sources[p->src].sep,
		    sources[p->src].skip_first, err, sizeof(err), &notfound);
		if (p->cs != NULL) {
			p->interval_ms = ms;
			p->last_heard = mono;
			p->parsed = 0;
			return;
		}
		snprintf(p->why[p->src], sizeof(p->why[0]), "%s", err);
		if (!notfound)
			break;
		p->src ^= 1;
	}
	p->backoff = darwin_stream_backoff(p->backoff);
	p->next_start = mono + p->backoff;
}

/* The child is gone (why says how): start again after a backoff. */
static void
stopped(struct darwin_power *p, double mono)
{
	int got = cmdstream_records(p->cs) > 0;

	cmdstream_free(p->cs);
	p->cs = NULL;
	if (!got)
		p->src ^= 1;	/* no sample from it: the other one's turn */
	p->backoff = darwin_stream_backoff(p->backoff);
	p->next_start = mono + p->backoff;
}

/* Parse the child's last complete record as the current sample. */
static void
take_sample(struct darwin_power *p, double mono)
{
	const char *rec = cmdstream_record(p->cs);
	struct report_power pw;
	struct report_thermal th;
	int rc;

	power_null(&pw, &th);
	if (p->src == 0)
		rc = macos_parse_macmon(rec, strlen(rec), &pw, &th, p->parse_err,
		    sizeof(p->parse_err));
	else
		rc = darwin_parse_powermetrics(rec, &pw, p->parse_err, sizeof(p->parse_err));
	if (rc == 0)
		p->parse_err[0] = '\0';
	if (rc == 0 || pw.source[0] != '\0') {	/* a partial read keeps its values */
		p->power = pw;
		p->thermal = th;
		p->sample_mono = mono;
		p->backoff = 0;
		p->why[0][0] = p->why[1][0] = '\0';
	}
	p->last_heard = mono;
}

/* Read the running child; stop it when it ended or fell silent. */
static void
check(struct darwin_power *p, double mono, double interval)
{
	double silence = darwin_stream_silence(interval);
	char fail[WHY_MAX];

	cmdstream_poll(p->cs);
	if (cmdstream_records(p->cs) > p->parsed) {
		p->parsed = cmdstream_records(p->cs);
		take_sample(p, mono);
	}
	if (!cmdstream_running(p->cs)) {
		snprintf(p->why[p->src], sizeof(p->why[0]), "%s",
		    cmdstream_failure(p->cs, fail, sizeof(fail)));
		stopped(p, mono);
	} else if (mono - p->last_heard > silence) {
		snprintf(p->why[p->src], sizeof(p->why[0]), "printed nothing for %g s: killed",
		    silence);
		stopped(p, mono);
	}
}

/* One collection on its own: wait for a first sample, from either command. */
static void
wait_first(struct darwin_power *p, double mono, double interval, int wait_ms)
{
	for (int tries = 0; tries < 2 && isnan(p->sample_mono); tries++) {
		if (p->cs == NULL) {
			p->next_start = mono;
			start(p, mono, p->interval_ms);
			if (p->cs == NULL)
				return;
		}
		cmdstream_wait(p->cs, wait_ms);
		check(p, mono, interval);
		if (p->cs != NULL && isnan(p->sample_mono)) {
			snprintf(p->why[p->src], sizeof(p->why[0]), "no sample within %g s",
			    wait_ms / 1000.0);
			stopped(p, mono);
		}
	}
}

static int
interval_ms(double interval)
{
	double ms = interval * 1000;

	if (!(ms >= INTERVAL_MS_MIN))
		return INTERVAL_MS_MIN;
	return ms > INTERVAL_MS_MAX ? INTERVAL_MS_MAX : (int)lround(ms);
}

/*
 * What went wrong, by source: why its last child ended, and when the next
 * start is (or that it is running again).
 */
static void
failures(struct darwin_power *p, struct report *r, double mono)
{
	char args[64], next[64];

	for (int i = 0; i < 2; i++) {
		if (p->why[i][0] == '\0')
			continue;
		args_of(i, p->interval_ms, args, sizeof(args));
		next[0] = '\0';
		if (i == p->src && p->cs != NULL)
			snprintf(next, sizeof(next), "; started again");
		else if (i == p->src)
			snprintf(next, sizeof(next), "; next start in %.0f s",
			    p->next_start - mono > 0 ? p->next_start - mono : 0);
		report_add_error(r, sources[i].name, "%s: %s%s", args, p->why[i], next);
	}
}

/*
 * The sample, when fresh (with the failures while the child is down); else
 * null sections and what went wrong, if anything.
 */
static void
fill(struct darwin_power *p, struct report *r, double mono, double wall, double interval)
{
	char args[64];

	if (!isnan(p->sample_mono) && mono - p->sample_mono <= darwin_stream_silence(interval)) {
		r->power = p->power;
		r->thermal = p->thermal;
		r->power.collected_at = darwin_section_wall(wall, mono, p->sample_mono);
		r->thermal.collected_at = r->power.collected_at;
	}
	if (p->parse_err[0] != '\0' && p->cs != NULL) {
		args_of(p->src, p->interval_ms, args, sizeof(args));
		report_add_error(r, sources[p->src].name, "%s: %s", args, p->parse_err);
	}
	failures(p, r, mono);
}

void
darwin_power_collect(struct darwin_power *p, struct report *r, double mono, double wall,
    double interval, int wait_ms)
{
	int ms = interval_ms(interval);

	if (p->cs != NULL && p->interval_ms != ms) {	/* a new interval: start over at once */
		cmdstream_free(p->cs);
		p->cs = NULL;
		p->next_start = mono;
	}
	if (p->cs != NULL)
		check(p, mono, interval);
	if (p->cs == NULL && mono >= p->next_start)
		start(p, mono, ms);
	p->interval_ms = ms;
	if (wait_ms > 0 && isnan(p->sample_mono))
		wait_first(p, mono, interval, wait_ms);
	fill(p, r, mono, wall, interval);
}
