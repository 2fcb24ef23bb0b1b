#!/usr/bin/env python3
"""The metric names a set of PromQL expressions select.

Reads a JSON array of strings on standard input: PromQL expressions, or
Grafana variable queries (label_values(EXPR, LABEL), query_result(EXPR)),
possibly with Grafana variables ($cluster, ${node}, $__rate_interval).
Prints each metric name once, sorted; with --each, one line per expression:
the expression, a tab, and its names separated by spaces.

A small lexer, not a parser: it drops what can hold no metric name (string
literals, {label matchers}, [ranges], the label lists of by/without/on/
ignoring/group_left/group_right, offsets), then every identifier that is not
a function or aggregation (followed by "("), a keyword or a number is a
metric name.  PromQL's grammar: prometheus/prometheus promql/parser/lex.go.
"""
import json
import re
import sys

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
            "and", "or", "unless", "offset", "atan2", "inf", "nan"}


def grafana_query(q):
    """The PromQL inside a Grafana variable query, or q itself."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*", q, re.S)
    if m:
        return m.group(1)
    if re.fullmatch(r"\s*label_values\(\s*[A-Za-z_]\w*\s*\)\s*", q):
        return ""
    m = re.fullmatch(r"\s*query_result\((.*)\)\s*", q, re.S)
    return m.group(1) if m else q


def names(expr):
    e = grafana_query(expr)
    e = re.sub(r"\$\{[^}]*\}|\$\w+", "", e)
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', e)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\b(?:group_left|group_right)\b", " ", e)
    e = re.sub(r"\boffset\s+-?\w+", " ", e)
    found = set()
    for m in re.finditer(r"(?<![\w.:])([A-Za-z_:][\w:]*)", e):
        word = m.group(1)
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or word.lower() in KEYWORDS:
            continue
        found.add(word)
    return found


def main():
    exprs = json.load(sys.stdin)
    if "--each" in sys.argv[1:]:
        for x in exprs:
            print("%s\t%s" % (x, " ".join(sorted(names(x)))))
        return
    every = set()
    for x in exprs:
        every |= names(x)
    for n in sorted(every):
        print(n)


if __name__ == "__main__":
    main()
