#!/usr/bin/env python3
"""compare_offload_output.py EXPECTED ACTUAL [options]

Compares the stdout of an OpenMP sample (samples/openmp/*.c) with the stdout
of its CUDA translation. Result lines are

  checksum <name> <value>    must be identical (the text), unless
                             --checksum-rtol is given (then numerically
                             within that relative tolerance)
  reduction <name> <value>   must agree within --rtol relative to the larger
                             magnitude, with an absolute floor of --atol

Both outputs must name the same checksums and the same reductions, at least
one result in all, each name once; any other stdout line must be the same in
both. Prints `K checksums, R reductions, max rel diff D` and exits 0 when
the outputs agree; otherwise prints every difference and exits 1.
Used by tests/scripts/offload_equivalence.sh and scripts/bench-offload.
"""
import argparse
import math
import sys


def parse(text):
    """({'checksum': {name: value}, 'reduction': {...}}, other lines, errors)"""
    results = {'checksum': {}, 'reduction': {}}
    other, errors = [], []
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] in results:
            if len(fields) != 3:
                errors.append('malformed line: %r' % line)
                continue
            kind, name, value = fields
            if name in results[kind]:
                errors.append('%s %s printed twice' % (kind, name))
            results[kind][name] = value
        else:
            other.append(line.rstrip())
    return results, other, errors


def rel_diff(a, b, atol):
    """The relative difference of two numbers given as text (inf when one is
    not a number or only one is NaN)."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return 0.0 if a == b else math.inf
    if math.isnan(x) or math.isnan(y):
        return 0.0 if math.isnan(x) and math.isnan(y) else math.inf
    if x == y:
        return 0.0
    if math.isinf(x) or math.isinf(y):
        return math.inf
    return abs(x - y) / max(abs(x), abs(y), atol)


def compare(expected, actual, rtol=1e-12, atol=1e-300, checksum_rtol=None):
    """Returns (errors, summary): errors is a list of strings (empty when the
    outputs agree); summary has 'checksums', 'reductions' (counts) and
    'max_rel_diff' (over the reductions and, with checksum_rtol, the
    checksums)."""
    exp, exp_other, errors = parse(expected)
    act, act_other, act_errors = parse(actual)
    errors = ['expected: ' + e for e in errors] + ['actual: ' + e for e in act_errors]
    worst = 0.0
    for kind in ('checksum', 'reduction'):
        e, a = exp[kind], act[kind]
        for name in sorted(set(e) - set(a)):
            errors.append('%s %s missing from the actual output' % (kind, name))
        for name in sorted(set(a) - set(e)):
            errors.append('%s %s not in the expected output' % (kind, name))
        for name in sorted(set(e) & set(a)):
            if kind == 'checksum' and checksum_rtol is None:
                if e[name] != a[name]:
                    errors.append('checksum %s: expected %s, got %s (rel diff %.3g)' % (
                        name, e[name], a[name], rel_diff(e[name], a[name], atol)))
                continue
            tol = rtol if kind == 'reduction' else checksum_rtol
            d = rel_diff(e[name], a[name], atol)
            worst = max(worst, d)
            if not d <= tol:
                errors.append('%s %s: expected %s, got %s (rel diff %.3g > %g)' % (
                    kind, name, e[name], a[name], d, tol))
    if not exp['checksum'] and not exp['reduction']:
        errors.append('no checksum or reduction line in the expected output')
    if exp_other != act_other:
        errors.append('other stdout lines differ: expected %r, got %r' % (
            exp_other[:5], act_other[:5]))
    summary = {'checksums': len(exp['checksum']), 'reductions': len(exp['reduction']),
               'max_rel_diff': worst}
    return errors, summary


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('expected')
    p.add_argument('actual')
    p.add_argument('--rtol', type=float, default=1e-12,
                   help='relative tolerance of reduction lines (default 1e-12)')
    p.add_argument('--atol', type=float, default=1e-300,
                   help='absolute floor of the relative difference (default 1e-300)')
    p.add_argument('--checksum-rtol', type=float,
                   help='compare checksums numerically within this tolerance '
                        '(default: identical text)')
    a = p.parse_args()
    with open(a.expected) as f:
        expected = f.read()
    with open(a.actual) as f:
        actual = f.read()
    errors, s = compare(expected, actual, a.rtol, a.atol, a.checksum_rtol)
    for e in errors:
        print('  ' + e)
    if errors:
        return 1
    print('%d checksums, %d reductions, max rel diff %.3g' % (
        s['checksums'], s['reductions'], s['max_rel_diff']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
