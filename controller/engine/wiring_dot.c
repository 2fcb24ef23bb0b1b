/*
 * Cabling plans as Graphviz DOT, the form PTM topology files and
 * mlx.distributed_config --dot drawings use:
 *
 *   graph "studio4" {
 *       "mac1":"tb2" -- "mac2":"tb5";
 *   }
 *
 * The reader takes what people write: comments (//, / * * /, and # lines),
 * graph/node/edge attribute statements and [attribute] lists (ignored),
 * quoted or bare ids, ; or , or nothing between statements, subgraphs,
 * edge chains of nodes without ports (a -- b -- c: a port holds one
 * cable, so a chain cannot pass through one), digraphs with ->, and ports
 * with or without
 * "tb".  Errors name the line.
 *
 * Two attributes are kept for wiring_import.c, which reads
 * mlx.distributed_config --dot's drawings: a node statement's label
 * (`a [label="mac1.local"]`: the Mac the id stands for) and an edge's
 * label when it is two interface names (`a -- b [label="en2/en5"]`).
 */
#include "wiring_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DOT_LINKS_MAX 4096
#define DOT_ID_MAX 256

enum tok { T_EOF = 0, T_ID, T_QID, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_SEMI,
	T_COMMA, T_EQ, T_COLON, T_EDGE, T_ERR };

struct lexer {
	const char *s, *end;
	int line;
	enum tok t;
	char id[DOT_ID_MAX];
	int tline;
	char *err;
	size_t errlen;
};

struct ends {
	struct wiring_end e;
	int line;
};

struct parser {
	struct lexer lx;
	struct wiring_plan_link *links;
	int *lines;
	wiring_ifname (*ifaces)[2];
	int *iface_lines;
	int n, cap;
	struct wiring_dot_label *labels;
	int n_labels, cap_labels;
};

/* The value of a `label` attribute in a list: "" none. */
struct attr_label {
	char value[DOT_ID_MAX];
	int line;
};

static int
lex_fail(struct lexer *lx, const char *msg)
{
	snprintf(lx->err, lx->errlen, "line %d: %s", lx->line, msg);
	lx->t = T_ERR;
	return -1;
}

/* Skip blanks and comments; -1 on an unterminated comment. */
static int
skip_space(struct lexer *lx)
{
	while (lx->s < lx->end) {
		char c = *lx->s;

		if (c == '\n') {
			lx->line++;
			lx->s++;
		} else if (isspace((unsigned char)c)) {
			lx->s++;
		} else if (c == '#' || (c == '/' && lx->s + 1 < lx->end && lx->s[1] == '/')) {
			while (lx->s < lx->end && *lx->s != '\n')
				lx->s++;
		} else if (c == '/' && lx->s + 1 < lx->end && lx->s[1] == '*') {
			int start = lx->line;

			for (lx->s += 2; lx->s < lx->end; lx->s++) {
				if (*lx->s == '\n')
					lx->line++;
				else if (*lx->s == '*' && lx->s + 1 < lx->end && lx->s[1] == '/')
					break;
			}
			if (lx->s >= lx->end) {
				lx->line = start;
				return lex_fail(lx, "a /* comment is not closed");
			}
			lx->s += 2;
		} else
			break;
	}
	return 0;
}

static int
lex_quoted(struct lexer *lx)
{
	size_t k = 0;

	for (lx->s++; lx->s < lx->end && *lx->s != '"'; lx->s++) {
		char c = *lx->s;

		if (c == '\\' && lx->s + 1 < lx->end && (lx->s[1] == '"' || lx->s[1] == '\\'))
			c = *++lx->s;
		else if (c == '\\' && lx->s + 1 < lx->end && lx->s[1] == '\n') {
			lx->s++;
			lx->line++;
			continue;
		}
		if (c == '\n')
			lx->line++;
		if (k + 1 >= sizeof(lx->id))
			return lex_fail(lx, "a quoted id is longer than 255 characters");
		lx->id[k++] = c;
	}
	if (lx->s >= lx->end) {
		lx->line = lx->tline;
		return lex_fail(lx, "a quoted id is not closed (missing \")");
	}
	lx->s++;
	lx->id[k] = '\0';
	lx->t = T_QID;
	return 0;
}

static int
bare_char(const struct lexer *lx, const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (isalnum(c) || c == '_' || c == '.' || c >= 0x80)
		return 1;
	/* a '-' inside an id ("D-N", "mac-1"), but not an edge operator */
	return c == '-' && p + 1 < lx->end && p[1] != '-' && p[1] != '>';
}

static int
lex_bare(struct lexer *lx)
{
	size_t k = 0;

	while (lx->s < lx->end && bare_char(lx, lx->s)) {
		if (k + 1 >= sizeof(lx->id))
			return lex_fail(lx, "an id is longer than 255 characters");
		lx->id[k++] = *lx->s++;
	}
	if (k == 0)               /* a lone '-' at the end */
		return lex_fail(lx, "unexpected character '-'");
	lx->id[k] = '\0';
	lx->t = T_ID;
	return 0;
}

static int
lex_next(struct lexer *lx)
{
	static const char punct[] = "{}[];,=:";
	static const enum tok ptok[] = {T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_SEMI,
		T_COMMA, T_EQ, T_COLON};
	const char *pc;
	char msg[64];

	if (skip_space(lx) < 0)
		return -1;
	lx->tline = lx->line;
	lx->id[0] = '\0';
	if (lx->s >= lx->end) {
		lx->t = T_EOF;
		return 0;
	}
	if (*lx->s == '"')
		return lex_quoted(lx);
	if (*lx->s == '-' && lx->s + 1 < lx->end && (lx->s[1] == '-' || lx->s[1] == '>')) {
		lx->s += 2;
		lx->t = T_EDGE;
		return 0;
	}
	if (*lx->s != '\0' && (pc = strchr(punct, *lx->s)) != NULL) {
		lx->s++;
		lx->t = ptok[pc - punct];
		return 0;
	}
	if (bare_char(lx, lx->s) || *lx->s == '-')
		return lex_bare(lx);
	if (*lx->s == '<')
		return lex_fail(lx, "HTML-like ids (<...>) are not supported");
	snprintf(msg, sizeof(msg), "unexpected character '%c'",
	    isprint((unsigned char)*lx->s) ? *lx->s : '?');
	return lex_fail(lx, msg);
}

static int
is_id(const struct lexer *lx)
{
	return lx->t == T_ID || lx->t == T_QID;
}

static int
keyword(const struct lexer *lx, const char *kw)
{
	return lx->t == T_ID && strcasecmp(lx->id, kw) == 0;
}

static int
fail_at(struct parser *ps, int line, const char *fmt, const char *a, const char *b)
{
	char msg[400];

	snprintf(msg, sizeof(msg), fmt, a, b);
	snprintf(ps->lx.err, ps->lx.errlen, "line %d: %s", line, msg);
	return -1;
}

/*
 * Skip attribute lists [a=b, c=d; ...]; at '[' on entry.  lab (NULL: not
 * wanted) gets the value of the last label=value in them.
 */
static int
skip_attrs(struct parser *ps, struct attr_label *lab)
{
	int line = ps->lx.tline;

	while (ps->lx.t == T_LBRACK) {
		int after = 0;         /* 1: after `label`, 2: after `label =` */

		do {
			if (lex_next(&ps->lx) < 0)
				return -1;
			if (ps->lx.t == T_EOF)
				return fail_at(ps, line, "an attribute list is not closed (missing ']')",
				    "", "");
			if (after == 2 && is_id(&ps->lx) && lab != NULL) {
				snprintf(lab->value, sizeof(lab->value), "%s", ps->lx.id);
				lab->line = ps->lx.tline;
			}
			if (after == 1 && ps->lx.t == T_EQ)
				after = 2;
			else
				after = is_id(&ps->lx) && strcmp(ps->lx.id, "label") == 0;
		} while (ps->lx.t != T_RBRACK);
		if (lex_next(&ps->lx) < 0)
			return -1;
	}
	return 0;
}

/* node_id: ID [':' ID [':' ID]]; at the ID on entry. */
static int
parse_end(struct parser *ps, struct ends *out)
{
	char name[DOT_ID_MAX];

	snprintf(name, sizeof(name), "%s", ps->lx.id);
	memset(out, 0, sizeof(*out));
	out->line = ps->lx.tline;
	if (!api_name_valid(name))
		return fail_at(ps, out->line, "\"%s\" is not a node name%s", name,
		    " (1-63 of A-Z a-z 0-9 . _ -)");
	memcpy(out->e.node, name, strlen(name) + 1);   /* valid: at most 63 */
	out->e.receptacle[0] = '\0';
	if (lex_next(&ps->lx) < 0)
		return -1;
	if (ps->lx.t != T_COLON)
		return 0;
	if (lex_next(&ps->lx) < 0)
		return -1;
	if (!is_id(&ps->lx))
		return fail_at(ps, ps->lx.tline, "expected a receptacle after \"%s:\"%s", name, "");
	if (wiring_receptacle_norm(ps->lx.id, out->e.receptacle, sizeof(out->e.receptacle)) < 0)
		return fail_at(ps, ps->lx.tline, "\"%s\" is not a receptacle (tb2, 2, 0-1)%s",
		    ps->lx.id, "");
	if (lex_next(&ps->lx) < 0)
		return -1;
	if (ps->lx.t == T_COLON) {   /* a compass point: ignored */
		if (lex_next(&ps->lx) < 0 || !is_id(&ps->lx))
			return ps->lx.t == T_ERR ? -1 :
			    fail_at(ps, ps->lx.tline, "expected a compass point%s%s", "", "");
		return lex_next(&ps->lx);
	}
	return 0;
}

static int
same_end(const struct wiring_end *x, const struct wiring_end *y)
{
	return strcmp(x->node, y->node) == 0 && x->receptacle[0] &&
	    strcmp(x->receptacle, y->receptacle) == 0;
}

/* Room for one more link in every per-link array; 0 or -1 (memory). */
static int
grow_links(struct parser *ps)
{
	int cap = ps->cap ? ps->cap * 2 : 32;
	struct wiring_plan_link *v;
	int *lines, *il;
	wiring_ifname (*ifs)[2];

	if (ps->n < ps->cap)
		return 0;
	if ((v = realloc(ps->links, (size_t)cap * sizeof(*v))) != NULL)
		ps->links = v;
	if ((lines = realloc(ps->lines, (size_t)cap * sizeof(*lines))) != NULL)
		ps->lines = lines;
	if ((ifs = realloc(ps->ifaces, (size_t)cap * sizeof(*ifs))) != NULL)
		ps->ifaces = ifs;
	if ((il = realloc(ps->iface_lines, (size_t)cap * sizeof(*il))) != NULL)
		ps->iface_lines = il;
	if (v == NULL || lines == NULL || ifs == NULL || il == NULL)
		return -1;
	ps->cap = cap;
	return 0;
}

static int
add_link(struct parser *ps, const struct ends *a, const struct ends *b)
{
	const struct ends *both[2] = {a, b};

	if (strcmp(a->e.node, b->e.node) == 0)
		return fail_at(ps, b->line, "a link from %s to itself%s", a->e.node, "");
	if (ps->n >= DOT_LINKS_MAX)
		return fail_at(ps, b->line, "more than %s links%s", "4096", "");
	if (grow_links(ps) < 0)
		return fail_at(ps, b->line, "out of memory%s%s", "", "");
	for (int k = 0; k < ps->n; k++)
		for (int s = 0; s < 2; s++) {
			const struct wiring_end *e = &both[s]->e;

			if (same_end(e, &ps->links[k].a) || same_end(e, &ps->links[k].b)) {
				char what[128];

				snprintf(what, sizeof(what), "%s tb%s", e->node, e->receptacle);
				snprintf(ps->lx.err, ps->lx.errlen, "line %d: %s is used twice (also "
				    "on line %d)", both[s]->line, what, ps->lines[k]);
				return -1;
			}
		}
	ps->links[ps->n].a = a->e;
	ps->links[ps->n].b = b->e;
	ps->lines[ps->n] = a->line;
	ps->ifaces[ps->n][0][0] = ps->ifaces[ps->n][1][0] = '\0';
	ps->iface_lines[ps->n] = a->line;
	ps->n++;
	return 0;
}

/* An interface name: letters, then digits ("en2"); its length, or 0. */
static size_t
ifname_len(const char *s)
{
	size_t k = 0, d;

	while (isalpha((unsigned char)s[k]))
		k++;
	for (d = k; isdigit((unsigned char)s[d]); d++)
		;
	return k > 0 && d > k && d < sizeof(wiring_ifname) ? d : 0;
}

/* "en2/en5" (blanks around either allowed) into a and b: 1, or 0 (a and b
 * untouched) when the label is something else ("40 Gb/s"). */
static int
iface_pair(const char *s, char *a, char *b)
{
	wiring_ifname got[2];

	for (int k = 0; k < 2; k++) {
		size_t n;

		while (*s == ' ' || *s == '\t')
			s++;
		if ((n = ifname_len(s)) == 0)
			return 0;
		memcpy(got[k], s, n);
		got[k][n] = '\0';
		for (s += n; *s == ' ' || *s == '\t'; s++)
			;
		if (k == 0 && *s++ != '/')
			return 0;
	}
	if (*s != '\0')
		return 0;
	memcpy(a, got[0], sizeof(got[0]));
	memcpy(b, got[1], sizeof(got[1]));
	return 1;
}

/* Remember id's label (the last one given wins, as in Graphviz). */
static int
add_label(struct parser *ps, const struct ends *id, const struct attr_label *lab)
{
	struct wiring_dot_label *l = NULL;

	for (int k = 0; k < ps->n_labels; k++)
		if (strcmp(ps->labels[k].id, id->e.node) == 0)
			l = &ps->labels[k];
	if (l == NULL) {
		if (ps->n_labels == ps->cap_labels) {
			int cap = ps->cap_labels ? ps->cap_labels * 2 : 16;
			struct wiring_dot_label *v = realloc(ps->labels, (size_t)cap * sizeof(*v));

			if (v == NULL)
				return fail_at(ps, id->line, "out of memory%s%s", "", "");
			ps->labels = v;
			ps->cap_labels = cap;
		}
		l = &ps->labels[ps->n_labels++];
	}
	snprintf(l->id, sizeof(l->id), "%s", id->e.node);
	snprintf(l->label, sizeof(l->label), "%s", lab->value);
	l->line = id->line;
	return 0;
}

/* A statement that starts with an id: node, edge chain or attribute. */
static int
parse_id_stmt(struct parser *ps)
{
	struct ends prev, next;
	struct attr_label lab = { "", 0 };
	int first = ps->n;

	if (parse_end(ps, &prev) < 0)
		return -1;
	if (ps->lx.t == T_EQ) {       /* a = b */
		if (lex_next(&ps->lx) < 0)
			return -1;
		if (!is_id(&ps->lx))
			return fail_at(ps, ps->lx.tline, "expected a value after \"%s =\"%s",
			    prev.e.node, "");
		return lex_next(&ps->lx);
	}
	if (ps->lx.t != T_EDGE) {     /* a node statement */
		if (skip_attrs(ps, &lab) < 0)
			return -1;
		return lab.value[0] ? add_label(ps, &prev, &lab) : 0;
	}
	while (ps->lx.t == T_EDGE) {
		if (lex_next(&ps->lx) < 0)
			return -1;
		if (!is_id(&ps->lx))
			return fail_at(ps, ps->lx.tline, "expected a node after \"--\"%s%s", "",
			    "");
		if (parse_end(ps, &next) < 0 || add_link(ps, &prev, &next) < 0)
			return -1;
		if (ps->lx.t == T_EDGE && next.e.receptacle[0])
			return fail_at(ps, next.line, "a chain through %s:tb%s puts two cables on "
			    "one receptacle: chains take nodes without ports", next.e.node,
			    next.e.receptacle);
		prev = next;
	}
	if (skip_attrs(ps, &lab) < 0)
		return -1;
	for (int k = first; k < ps->n; k++)
		if (iface_pair(lab.value, ps->ifaces[k][0], ps->ifaces[k][1]))
			ps->iface_lines[k] = lab.line;
	return 0;
}

static int
parse_stmt(struct parser *ps, int *depth)
{
	struct lexer *lx = &ps->lx;

	if (lx->t == T_SEMI || lx->t == T_COMMA)
		return lex_next(lx);
	if (lx->t == T_RBRACE) {
		(*depth)--;
		return lex_next(lx);
	}
	if (lx->t == T_LBRACE) {
		(*depth)++;
		return lex_next(lx);
	}
	if (keyword(lx, "graph") || keyword(lx, "node") || keyword(lx, "edge")) {
		if (lex_next(lx) < 0)
			return -1;
		if (lx->t != T_LBRACK)
			return fail_at(ps, lx->tline, "expected [ after graph, node or edge%s%s",
			    "", "");
		return skip_attrs(ps, NULL);
	}
	if (keyword(lx, "subgraph")) {
		if (lex_next(lx) < 0 || (is_id(lx) && lex_next(lx) < 0))
			return -1;
		if (lx->t != T_LBRACE)
			return fail_at(ps, lx->tline, "expected { after subgraph%s%s", "", "");
		return 0;
	}
	if (is_id(lx))
		return parse_id_stmt(ps);
	if (lx->t == T_EOF)
		return fail_at(ps, lx->tline, "the graph is not closed (missing '}')%s%s", "", "");
	return fail_at(ps, lx->tline, "expected a statement, found %s%s",
	    lx->t == T_EDGE ? "\"--\"" : lx->t == T_LBRACK ? "'['" : lx->t == T_EQ ? "'='" :
	    lx->t == T_COLON ? "':'" : "']'", "");
}

static int
parse_header(struct parser *ps)
{
	struct lexer *lx = &ps->lx;

	if (lex_next(lx) < 0)
		return -1;
	if (keyword(lx, "strict") && lex_next(lx) < 0)
		return -1;
	if (!keyword(lx, "graph") && !keyword(lx, "digraph"))
		return fail_at(ps, lx->tline, "expected \"graph\" or \"digraph\"%s%s", "", "");
	if (lex_next(lx) < 0 || (is_id(lx) && lex_next(lx) < 0))
		return -1;
	if (lx->t != T_LBRACE)
		return fail_at(ps, lx->tline, "expected '{' after the graph's name%s%s", "", "");
	return lex_next(lx);
}

static void
parser_free(struct parser *ps)
{
	free(ps->links);
	free(ps->lines);
	free(ps->ifaces);
	free(ps->iface_lines);
	free(ps->labels);
}

int
wiring_dot_read(const char *text, size_t len, struct wiring_dot_read *out, char *err,
    size_t errlen)
{
	struct parser ps;
	int depth = 1;

	memset(out, 0, sizeof(*out));
	memset(&ps, 0, sizeof(ps));
	ps.lx.s = text;
	ps.lx.end = text + len;
	ps.lx.line = 1;
	ps.lx.err = err;
	ps.lx.errlen = errlen;
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, errlen, "the file holds a NUL byte: not a DOT text");
		return -1;
	}
	if (parse_header(&ps) < 0)
		goto fail;
	while (depth > 0)
		if (parse_stmt(&ps, &depth) < 0)
			goto fail;
	if (ps.lx.t != T_EOF) {
		fail_at(&ps, ps.lx.tline, "text after the graph's closing '}'%s%s", "", "");
		goto fail;
	}
	if (ps.n == 0) {
		snprintf(err, errlen, "the graph has no links (expected \"mac1\":\"tb2\" -- "
		    "\"mac2\":\"tb5\")");
		goto fail;
	}
	*out = (struct wiring_dot_read){ ps.n, ps.links, ps.lines, ps.ifaces, ps.iface_lines,
		ps.n_labels, ps.labels };
	return 0;
fail:
	parser_free(&ps);
	return -1;
}

void
wiring_dot_read_free(struct wiring_dot_read *d)
{
	if (d == NULL)
		return;
	free(d->links);
	free(d->lines);
	free(d->ifaces);
	free(d->iface_lines);
	free(d->labels);
	memset(d, 0, sizeof(*d));
}

int
wiring_dot_parse(const char *text, size_t len, struct wiring_plan_link **out, int *n_out,
    char *err, size_t errlen)
{
	struct wiring_dot_read d;

	*out = NULL;
	*n_out = 0;
	if (wiring_dot_read(text, len, &d, err, errlen) < 0)
		return -1;
	*out = d.links;
	*n_out = d.n_links;
	d.links = NULL;
	wiring_dot_read_free(&d);
	return 0;
}

char *
wiring_dot_write(const char *cluster, const struct wiring_plan_link *links, int n)
{
	/* "graph \"C\" {\n" "}\n"; per link "\t\"A\":\"tbR\" -- \"B\":\"tbR\";\n" */
	size_t cap = strlen(cluster) + 16, len;
	char *buf, end[2][sizeof(links[0].a.node) + sizeof(links[0].a.receptacle) + 8];

	for (int k = 0; k < n; k++)
		cap += strlen(links[k].a.node) + strlen(links[k].a.receptacle) +
		    strlen(links[k].b.node) + strlen(links[k].b.receptacle) + 24;
	if ((buf = malloc(cap)) == NULL)
		return NULL;
	snprintf(buf, cap, "graph \"%s\" {\n", cluster);
	for (int k = 0; k < n; k++) {
		const struct wiring_end *e[2] = {&links[k].a, &links[k].b};

		for (int s = 0; s < 2; s++)
			if (e[s]->receptacle[0])
				snprintf(end[s], sizeof(end[s]), "\"%s\":\"tb%s\"", e[s]->node,
				    e[s]->receptacle);
			else
				snprintf(end[s], sizeof(end[s]), "\"%s\"", e[s]->node);
		text_append(buf, cap, "\t%s -- %s;\n", end[0], end[1]);
	}
	text_append(buf, cap, "}\n");
	/* cut short would store a plan that never parses again */
	len = strlen(buf);
	if (len < 2 || strcmp(buf + len - 2, "}\n") != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
