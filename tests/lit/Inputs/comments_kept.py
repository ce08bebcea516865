#!/usr/bin/env python3
"""comments_kept.py ORIGINAL REWRITTEN

Fails, naming them, when comments of ORIGINAL's code are missing from
REWRITTEN, or appear there fewer times. Lines that start with `//` in the
first column (the test's own header and RUN/CHECK lines) are not code.
"""
import re
import sys

COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)


def comments(path):
    text = open(path).read()
    code = '\n'.join(l for l in text.splitlines() if not l.startswith('//'))
    return [c.rstrip() for c in COMMENT.findall(code)]


original, rewritten = comments(sys.argv[1]), comments(sys.argv[2])
missing = [c for c in sorted(set(original))
           if rewritten.count(c) < original.count(c)]
for c in missing:
    print('missing: ' + c)
sys.exit(1 if missing else 0)
