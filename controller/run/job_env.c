/*
 * Each rank's environment, file and command line (see job_env.h), coded
 * from MLX's launcher, ml-explore/mlx 846d176,
 * python/mlx/_distributed_utils/launch.py ("launch.py:N" below), and
 * mlx-lm 0.32.0 (ml-explore/mlx-lm d78bf58, mlx_lm/server.py).
 */
#include "job_env.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_line.h"
#include "textbuf.h"

/*
 * The job's directory on the node, as the shell sees it: sets $d.  A fixed
 * place shared with the node's agent (tbagentd --jobs-dir, the same
 * default), which reads the ranks' pid files there and reports their
 * processes; TBMESH_JOBS in the SSH session's environment moves it.
 */
#define JOB_DIR_FMT "d=\"${TBMESH_JOBS:-" JOB_DIR_DEFAULT "}/job%" PRId64 "\"; "

/*
 * Is pid $1 alive: kill -0, and not a zombie (an orphan whose reaper has
 * not reaped it answers kill -0 too).  ps's own pid column, since a
 * caller's -p may not be all it lists.
 */
#define ALIVE_FN "alive() { kill -0 \"$1\" 2>/dev/null && ps -o pid=,stat= -p \"$1\" " \
	"2>/dev/null | awk -v p=\"$1\" '$1 == p && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }; "

/* ---- a growing string ---- */

/* s single-quoted for the shell ('\'' for each quote). */
static void
sb_quote(struct textbuf *b, const char *s)
{
	textbuf_printf(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			textbuf_printf(b, "'\\''");
		else
			textbuf_printf(b, "%c", *s);
	textbuf_printf(b, "'");
}

int
job_env_json_str(char *buf, size_t size, const char *s)
{
	size_t len = strlen(buf);

#define PUT(...) do { \
	int n_ = snprintf(buf + len, size - len, __VA_ARGS__); \
	if (n_ < 0 || (size_t)n_ >= size - len) \
		return -1; \
	len += (size_t)n_; \
} while (0)
	PUT("\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			PUT("\\%c", *p);
		else if (*p == '\n')
			PUT("\\n");
		else if (*p == '\t')
			PUT("\\t");
		else if (*p < 0x20)
			PUT("\\u%04x", *p);
		else
			PUT("%c", *p);
	}
	PUT("\"");
#undef PUT
	return 0;
}

/* ---- the environment ---- */

static int
add_var(struct job_env *e, int r, const char *key, const char *value, int is_file)
{
	struct job_var *v;

	if (e->n_vars[r] >= JOB_ENV_VARS)
		return -1;
	v = &e->vars[r][e->n_vars[r]++];
	snprintf(v->key, sizeof(v->key), "%s", key);
	snprintf(v->value, sizeof(v->value), "%s", value);
	v->is_file = is_file;
	return 0;
}

/* An environment entry's name: letters, digits, '_' (launch.py:135-140 skips others). */
static int
key_ok(const char *k, size_t n)
{
	if (n == 0 || n >= JOB_ENV_KEY_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)k[i]) && k[i] != '_')
			return 0;
	return 1;
}

/*
 * A JSON string of s as python's json.dumps writes it (", " between
 * items): the device names and addresses are plain ASCII.
 */
static void
sb_json(struct textbuf *b, const char *s)
{
	char buf[2 * JOB_ARG_MAX] = "";

	if (job_env_json_str(buf, sizeof(buf), s) == -1)
		b->oom = 1;
	else
		textbuf_printf(b, "%s", buf);
}

/*
 * MLX_IBV_DEVICES' file: json.dumps([h.rdma for h in hosts]) (launch.py:389),
 * echo'd into it, so it ends with a newline (launch.py:145).  An entry is
 * null, a device name, or a list of them (common.py Hostfile, and jaccl.cpp
 * 42-53 reads all three).
 */
static char *
devices_json(const struct plan *p)
{
	struct textbuf b = { 0 };

	textbuf_printf(&b, "[");
	for (int i = 0; i < p->n_ranks; i++) {
		textbuf_printf(&b, "%s[", i ? ", " : "");
		for (int j = 0; j < p->n_ranks; j++) {
			int n = p->hosts[i].n_rdma[j];
			textbuf_printf(&b, "%s", j ? ", " : "");
			if (n == 0)
				textbuf_printf(&b, "null");
			else if (n == 1)
				sb_json(&b, p->hosts[i].rdma[j][0]);
			else {
				textbuf_printf(&b, "[");
				for (int k = 0; k < n; k++) {
					textbuf_printf(&b, "%s", k ? ", " : "");
					sb_json(&b, p->hosts[i].rdma[j][k]);
				}
				textbuf_printf(&b, "]");
			}
		}
		textbuf_printf(&b, "]");
	}
	textbuf_printf(&b, "]\n");
	return textbuf_take(&b);
}

/*
 * MLX_HOSTFILE's file for ring: one list of "ip:port" per rank, the port
 * from --starting-port up by one per (rank, ip, connection), one
 * connection per ip (launch.py:305-314, --connections-per-ip default 1 at
 * 501-506).
 */
static char *
ring_json(const struct plan *p)
{
	struct textbuf b = { 0 };
	int port = JOB_STARTING_PORT;

	textbuf_printf(&b, "[");
	for (int i = 0; i < p->n_ranks; i++) {
		textbuf_printf(&b, "%s[", i ? ", " : "");
		for (int k = 0; k < p->hosts[i].n_ips; k++)
			textbuf_printf(&b, "%s\"%s:%d\"", k ? ", " : "", p->hosts[i].ips[k], port++);
		textbuf_printf(&b, "]");
	}
	textbuf_printf(&b, "]\n");
	return textbuf_take(&b);
}

/* jaccl's checks (launch.py:374-381): rank 0 has an ip, the matrix N x N with a null diagonal. */
static int
jaccl_ok(const struct plan *p, char *err, size_t errlen)
{
	if (p->hosts[0].n_ips < 1) {
		snprintf(err, errlen, "rank 0 has no address the other ranks reach (%s)",
		    p->coordinator_from[0] ? p->coordinator_from : "the plan has no coordinator");
		return -1;
	}
	for (int i = 0; i < p->n_ranks; i++) {
		if (p->hosts[i].n_rdma[i] != 0) {
			snprintf(err, errlen, "malformed hostfile for jaccl: rank %d names an RDMA "
			    "device toward itself", i);
			return -1;
		}
		for (int j = 0; j < p->n_ranks; j++)
			if (p->hosts[i].n_rdma[j] < 0 || p->hosts[i].n_rdma[j] > PLAN_CABLES_MAX) {
				snprintf(err, errlen, "malformed hostfile for jaccl: rank %d", i);
				return -1;
			}
	}
	return 0;
}

/*
 * The distributed part: hostfile envs first (launch.py:554), then the
 * backend's (jaccl: MLX_JACCL_COORDINATOR=hosts[0].ips[0]:port, 383-386,
 * MLX_JACCL_RING=1 for jaccl-ring, 387-388), then the file's variable
 * (144-147), then MLX_RANK (150).
 */
static int
distributed_env(const struct plan *p, struct job_env *e, int generation, char *err,
    size_t errlen)
{
	int jaccl = strcmp(p->backend, "jaccl") == 0, jring = strcmp(p->backend, "jaccl-ring") == 0;
	char coord[64], rank[16];
	const char *fvar;

	if (jaccl || jring) {
		if (jaccl_ok(p, err, errlen) == -1)
			return -1;
		snprintf(coord, sizeof(coord), "%s:%d", p->hosts[0].ips[0], JOB_STARTING_PORT);
		snprintf(e->file_name, sizeof(e->file_name), "g%d-devices.json", generation);
		e->file = devices_json(p);
		fvar = "MLX_IBV_DEVICES";
	} else if (strcmp(p->backend, "ring") == 0) {
		for (int i = 0; i < p->n_ranks; i++)
			if (p->hosts[i].n_ips < 1) {   /* launch.py:300-303 */
				snprintf(err, errlen, "the ring backend needs addresses for "
				    "every rank: rank %d has none", i);
				return -1;
			}
		snprintf(e->file_name, sizeof(e->file_name), "g%d-hostfile.json", generation);
		e->file = ring_json(p);
		fvar = "MLX_HOSTFILE";
	} else {
		snprintf(err, errlen, "backend \"%s\" is not one tbmesh starts (jaccl, "
		    "jaccl-ring, ring)", p->backend);
		return -1;
	}
	if (e->file == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int r = 0; r < p->n_ranks; r++) {
		for (int k = 0; k < p->n_envs; k++) {
			const char *eq = strchr(p->envs[k], '=');
			size_t n = eq ? (size_t)(eq - p->envs[k]) : strlen(p->envs[k]);
			char key[JOB_ENV_KEY_MAX];
			if (!key_ok(p->envs[k], n))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)n, p->envs[k]);
			add_var(e, r, key, eq ? eq + 1 : "", 0);
		}
		if (jaccl || jring)
			add_var(e, r, "MLX_JACCL_COORDINATOR", coord, 0);
		if (jring)
			add_var(e, r, "MLX_JACCL_RING", "1", 0);
		add_var(e, r, fvar, e->file_name, 1);
		snprintf(rank, sizeof(rank), "%d", r);
		add_var(e, r, "MLX_RANK", rank, 0);
	}
	return 0;
}

/*
 * The command: mlx.launch execs it as given (launch.py:153-158), the rank's
 * pid is the interpreter's.  `python -m mlx_lm server` (mlx_lm/__main__.py
 * 3-6, cli.py:23), --model, --pipeline when the plan splits by layers
 * (server.py:1851-1855; placement_hostfile.c writes the same line), --host
 * and --port (server.py:1732-1743).
 */
static int
command(const struct plan *p, int port, const char *python, struct job_env *e)
{
	char portbuf[16];
	const char *argv[JOB_ARGV_MAX];
	int n = 0;

	snprintf(portbuf, sizeof(portbuf), "%d", port);
	argv[n++] = python[0] ? python : JOB_DEFAULT_PYTHON;
	argv[n++] = "-m";
	argv[n++] = "mlx_lm";
	argv[n++] = "server";
	argv[n++] = "--model";
	argv[n++] = p->model_path;
	if (p->strategy == PLAN_PIPELINE)
		argv[n++] = "--pipeline";
	argv[n++] = "--host";
	argv[n++] = "0.0.0.0";
	argv[n++] = "--port";
	argv[n++] = portbuf;
	for (int i = 0; i < n; i++) {
		if (strlen(argv[i]) >= JOB_ARG_MAX)
			return -1;
		snprintf(e->argv[i], JOB_ARG_MAX, "%s", argv[i]);
	}
	e->argc = n;
	return 0;
}

int
job_env_make(const struct plan *p, int64_t id, int generation, int port,
    const char *python, struct job_env *e, char *err, size_t errlen)
{
	char tag[64];

	memset(e, 0, sizeof(*e));
	if (p->n_ranks < 1 || p->n_ranks > JOB_RANKS_MAX) {
		snprintf(err, errlen, "a job runs 1 to %d ranks; the plan has %d", JOB_RANKS_MAX,
		    p->n_ranks);
		return -1;
	}
	if (p->model_path[0] == '\0') {
		snprintf(err, errlen, "the plan names no model path");
		return -1;
	}
	e->n_ranks = p->n_ranks;
	/* one Mac: the plan's `ssh HOST python3 -m mlx_lm ...`, no MLX_* at all
	 * (MLX_RANK without a hostfile or devices would start nothing: the C++
	 * side's init needs both, distributed.cpp:182-201) */
	e->single = p->n_ranks == 1;
	if (!e->single && distributed_env(p, e, generation, err, errlen) == -1) {
		job_env_free(e);
		return -1;
	}
	if (command(p, port, python ? python : "", e) == -1) {
		snprintf(err, errlen, "the python path or the model path is too long");
		job_env_free(e);
		return -1;
	}
	/* tbmesh's tag (the job, its generation, the rank): mlx-lm's argparse
	 * refuses unknown flags, so the environment carries it */
	for (int r = 0; r < e->n_ranks; r++) {
		snprintf(tag, sizeof(tag), "%" PRId64 ".%d.%d", id, generation, r);
		add_var(e, r, "TBMESH_JOB", tag, 0);
	}
	return 0;
}

void
job_env_free(struct job_env *e)
{
	if (e == NULL)
		return;
	free(e->file);
	e->file = NULL;
}

const char *
job_env_get(const struct job_env *e, int rank, const char *key)
{
	if (rank < 0 || rank >= e->n_ranks)
		return NULL;
	for (int i = 0; i < e->n_vars[rank]; i++)
		if (strcmp(e->vars[rank][i].key, key) == 0)
			return e->vars[rank][i].value;
	return NULL;
}

/* ---- the shell lines ---- */

char *
job_env_start_line(const struct job_env *e, int64_t id, int generation, int r)
{
	struct textbuf b = { 0 };

	if (r < 0 || r >= e->n_ranks)
		return NULL;
	textbuf_printf(&b, "set -e; " ALIVE_FN JOB_DIR_FMT "mkdir -p \"$d\"; cd \"$d\"; ", id);
	/* standard input first, read whole whatever follows */
	if (e->file != NULL)
		textbuf_printf(&b, "cat >'%s'; ", e->file_name);
	/* a copy already running (a controller that stopped after sending this) */
	textbuf_printf(&b, "if [ -f rank%d.pid ] && alive \"$(cat rank%d.pid)\"; then "
	    "echo \"running $(cat rank%d.pid) $(cat rank%d.gen 2>/dev/null || echo 0)\"; "
	    "exit 3; fi; ", r, r, r, r);
	textbuf_printf(&b, "echo \"== job %" PRId64 " generation %d rank %d\" >>rank%d.log; ",
	    id, generation, r, r);
	for (int i = 0; i < e->n_vars[r]; i++) {
		const struct job_var *v = &e->vars[r][i];
		textbuf_printf(&b, "%s=", v->key);
		if (v->is_file)
			textbuf_printf(&b, "\"$d\"/");
		sb_quote(&b, v->value);
		textbuf_printf(&b, " ");
	}
	/* nohup: no SIGHUP when the channel closes; every descriptor redirected,
	 * or the SSH command would wait for the rank to end */
	textbuf_printf(&b, "nohup");
	for (int i = 0; i < e->argc; i++) {
		textbuf_printf(&b, " ");
		sb_quote(&b, e->argv[i]);
	}
	textbuf_printf(&b, " </dev/null >>rank%d.log 2>&1 & ", r);
	textbuf_printf(&b, "p=$!; echo $p >rank%d.pid; echo %d >rank%d.gen; echo \"started $p\"",
	    r, generation, r);
	return textbuf_take(&b);
}

char *
job_env_stop_line(int64_t id, int r, int grace)
{
	struct textbuf b = { 0 };

	textbuf_printf(&b, ALIVE_FN JOB_DIR_FMT "f=\"$d/rank%d.pid\"; ", id, r);
	textbuf_printf(&b, "[ -f \"$f\" ] || { echo none; exit 0; }; p=$(cat \"$f\"); "
	    "case \"$p\" in ''|*[!0-9]*) rm -f \"$f\"; echo none; exit 0;; esac; ");
	textbuf_printf(&b, "alive \"$p\" && kill -TERM \"$p\" 2>/dev/null || "
	    "{ rm -f \"$f\"; echo \"gone $p\"; exit 0; }; ");
	/* SIGTERM is often not acted on (MLX issue 3910): SIGKILL after the
	 * grace, by the clock (a check may take a while on a loaded Mac) */
	textbuf_printf(&b, "end=$(($(date +%%s) + %d)); while [ \"$(date +%%s)\" -lt \"$end\" ]; do "
	    "alive \"$p\" || { rm -f \"$f\"; echo \"gone $p\"; exit 0; }; sleep 0.1; done; ",
	    grace + 1);   /* whole seconds: at least grace, at most one more */
	textbuf_printf(&b, "kill -KILL \"$p\" 2>/dev/null; i=0; while [ $i -lt 20 ]; do "
	    "alive \"$p\" || { rm -f \"$f\"; echo \"gone $p\"; exit 0; }; sleep 0.1; "
	    "i=$((i+1)); done; echo \"alive $p\"; exit 4");
	return textbuf_take(&b);
}

char *
job_env_ps_line(const int64_t *pids, int n)
{
	struct textbuf b = { 0 };

	textbuf_printf(&b, "ps -o pid=,stat=,time=,rss= -p ");
	for (int i = 0; i < n; i++)
		textbuf_printf(&b, "%s%" PRId64, i ? "," : "", pids[i]);
	if (n == 0)
		textbuf_printf(&b, "1");
	textbuf_printf(&b, " 2>/dev/null; exit 0");
	return textbuf_take(&b);
}

/*
 * POSIX sh and tools that macOS and Linux both have (wc -c, tail -c +K,
 * head -c, od): the size first, then at most cap bytes below it, so a log
 * that grows meanwhile is read to a known offset.
 */
char *
job_env_tail_line(int64_t id, int r, int64_t from, int64_t cap)
{
	struct textbuf b = { 0 };

	if (cap < 1)
		cap = 1;
	textbuf_printf(&b, JOB_DIR_FMT "f=\"$d/rank%d.log\"; "
	    "[ -f \"$f\" ] || { echo 'log 0 0 0 -'; exit 0; }; "
	    "s=$(wc -c <\"$f\"); s=$((s)); o=%" PRId64 "; w=-; ", id, r, from < 0 ? -1 : from);
	/*
	 * The last cap bytes; or from o, unless the file is shorter (shrank)
	 * or no line starts at o (another file: replaced): the byte before o
	 * is no newline, and o is not where a line longer than cap was cut
	 * (cap bytes without a newline before o)
	 */
	textbuf_printf(&b, "if [ \"$o\" -lt 0 ]; then o=$((s - %" PRId64 ")); "
	    "[ \"$o\" -ge 0 ] || o=0; "
	    "elif [ \"$o\" -gt \"$s\" ]; then o=0; w=shrank; "
	    "elif [ \"$o\" -gt 0 ] && [ \"$(tail -c +\"$o\" \"$f\" | head -c 1 | od -An -tx1 | "
	    "tr -d ' \\n')\" != 0a ]; then ", cap);
	textbuf_printf(&b, "k=1; [ \"$o\" -lt %" PRId64 " ] || k=$(tail -c +$((o - %" PRId64
	    " + 1)) \"$f\" | head -c %" PRId64 " | LC_ALL=C tr -dc '\\n' | wc -c); "
	    "[ $((k)) -eq 0 ] || { o=0; w=replaced; }; fi; ", cap, cap, cap);
	/* the byte before o leads the data: the reader knows whether a line starts at o */
	textbuf_printf(&b, "n=$((s - o)); [ \"$n\" -le %" PRId64 " ] || n=%" PRId64 "; "
	    "if [ \"$o\" -gt 0 ]; then echo \"log $s $o 1 $w\"; "
	    "tail -c +\"$o\" \"$f\" | head -c $((n + 1)); "
	    "else echo \"log $s 0 0 $w\"; head -c \"$n\" \"$f\"; fi; exit 0", cap, cap);
	return textbuf_take(&b);
}

/* The header "log SIZE START LEAD WHY\n" at out: its length, or 0 when it is not one. */
static size_t
tail_header(const char *out, size_t len, long long *size, long long *start, int *lead,
    char *why, size_t whylen)
{
	const char *nl = memchr(out, '\n', len < 127 ? len : 127);
	char head[128], w[16];

	if (nl == NULL)
		return 0;
	memcpy(head, out, (size_t)(nl - out));
	head[nl - out] = '\0';
	if (sscanf(head, "log %lld %lld %d %15s", size, start, lead, w) != 4 || *size < 0 ||
	    *start < 0 || *start > *size || (*lead != 0 && *lead != 1) ||
	    (strcmp(w, "-") != 0 && strcmp(w, "shrank") != 0 && strcmp(w, "replaced") != 0))
		return 0;
	snprintf(why, whylen, "%.11s", strcmp(w, "-") == 0 ? "" : w);
	return (size_t)(nl - out) + 1;
}

/* [p, p+n) as a malloc'd string cut to JOB_LOG_LINE_MAX bytes, a NUL byte as '?'. */
static char *
log_text(const char *p, size_t n)
{
	char *s;

	if (n > JOB_LOG_LINE_MAX)
		n = JOB_LOG_LINE_MAX;
	if ((s = malloc(n + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = p[i] == '\0' ? '?' : p[i];
	s[n] = '\0';
	return s;
}

/* Add [p, p+n) to l's lines; 0, or -1 out of memory. */
static int
log_add(struct job_log *l, const char *p, size_t n)
{
	char **lines = realloc(l->lines, (size_t)(l->n_lines + 1) * sizeof(char *));

	if (lines == NULL)
		return -1;
	l->lines = lines;
	if ((lines[l->n_lines] = log_text(p, n)) == NULL)
		return -1;
	l->n_lines++;
	return 0;
}

/* Complete lines in [data, data+n). */
static int
log_count(const char *data, size_t n)
{
	int k = 0;

	for (const char *p = data; (p = memchr(p, '\n', n - (size_t)(p - data))) != NULL; p++)
		k++;
	return k;
}

int
job_env_tail_read(const char *out, size_t len, int64_t from, int max_lines,
    struct job_log *l, char *err, size_t errlen)
{
	long long size, start;
	int lead, skip = 0;
	size_t h = tail_header(out, len, &size, &start, &lead, l->reset, sizeof(l->reset));
	size_t p = 0, n;
	const char *data;

	if (h == 0) {
		snprintf(err, errlen, "not a log's answer: \"%.60s\"", out);
		return -1;
	}
	data = out + h;
	n = len - h;
	if (lead && n > 0) {
		/* the byte before start: from an offset, the tail line checked that
		 * a line starts there; the last bytes, a line starts after a newline */
		const char *nl = data[0] == '\n' || from >= 0 ? data : memchr(data, '\n', n);
		p = nl ? (size_t)(nl - data) + 1 : n;
		start += (long long)p - 1;
		data += p;
		n -= p;
	}
	l->size = size;
	l->start = start;
	l->more = 0;
	if (from < 0)
		skip = log_count(data, n) - max_lines;
	for (p = 0; p < n;) {
		const char *nl = memchr(data + p, '\n', n - p);
		if (nl == NULL)
			break;
		if (from >= 0 && l->n_lines == max_lines) {
			l->more = 1;
			break;
		}
		if (skip > 0) {
			skip--;
			l->start = start + (long long)(nl - data) + 1;
		} else if (log_add(l, data + p, (size_t)(nl - data) - p) == -1)
			goto oom;
		p = (size_t)(nl - data) + 1;
	}
	l->end = start + (long long)p;
	if (l->more || (p == n && l->end < size))
		l->more = 1;   /* cut by the line or byte bound */
	else if (p < n && start + (long long)n < size && p == 0) {
		/* a line longer than a whole read: taken cut, or it would never end */
		if (log_add(l, data, n) == -1)
			goto oom;
		l->end = start + (long long)n;
		l->more = 1;
	} else if (p < n && start + (long long)n < size)
		l->more = 1;   /* cut in the middle of a line: the rest next time */
	else if (p < n && (l->partial = log_text(data + p, n - p)) == NULL)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int
job_env_ps_find(const char *out, int64_t pid, double *cpu_seconds, int64_t *rss_bytes)
{
	struct ps_proc p;

	/* a zombie (stat Z) is gone: nothing reaped it yet */
	if (!ps_line_find(out, pid, &p) || ps_stat_zombie(p.stat))
		return 0;
	*cpu_seconds = p.cpu_seconds;
	*rss_bytes = p.rss_bytes;
	return ps_stat_runnable(p.stat) ? 2 : 1;
}
