#!/usr/bin/env python3
"""docs/bench/adaptive-shift.py SHIFT_TXT - the table of adaptive-shift.sh.

For each size, mask pattern and point: the original's time per launch (the
median over rounds, second half of the point's launches), each build's speed
against it, and the adaptive split's share of the best of {original, light
pair pinned, forced compact}. Checks that every build printed the same
checksum at every point. Then, per size and pattern: the adaptive split's
lowest and mean share of the best, and how many points are below 90%.
"""
import collections
import re
import sys



def read(path):
    times = collections.defaultdict(dict)
    sums = collections.defaultdict(set)
    current = None
    for line in open(path):
        m = re.match(r'== round (\d+) n (\d+) (\w+)', line)
        if m:
            current = (m.group(2), m.group(3))
            continue
        m = re.match(r'point +(\d+) (\w+) +(\d+)%: all ([\d.]+) ms '
                     r'second-half ([\d.]+) ms checksum (\w+)', line)
        if m and current:
            n, prog = current
            key = (int(n), m.group(2), int(m.group(1)), int(m.group(3)))
            times[key].setdefault(prog, []).append(float(m.group(5)))
            sums[key].add(m.group(6))
    return times, sums


def main():
    times, sums = read(sys.argv[1])
    bad = sorted(k for k in sums if len(sums[k]) != 1)
    print('checksums differ at:', bad if bad else 'none')
    groups = collections.defaultdict(list)
    for key in sorted(times):
        t = {p: sorted(v)[len(v) // 2] for p, v in times[key].items()}
        best = min(t[p] for p in ('orig', 'light', 'compact') if p in t)
        share = 100 * best / t['adaptive']
        groups[key[:2]].append(share)
        speed = ' '.join('%s %.2fx' % (p, t['orig'] / t[p])
                         for p in sorted(t) if p != 'orig')
        print('2^%d %-8s point %2d %3d%%: original %.4f ms | %s | adaptive '
              '%.0f%% of best' % (key[0], key[1], key[2], key[3], t['orig'],
                                  speed, share))
    # Every build that is not the reference, as the adaptive split is.
    builds = sorted({p for k in times for p in times[k]} - {'orig'})
    for build in builds:
        shares = collections.defaultdict(list)
        for key in times:
            t = {p: sorted(v)[len(v) // 2] for p, v in times[key].items()}
            best = min(t[p] for p in ('orig', 'light', 'compact') if p in t)
            if build in t:
                shares[key[:2]].append(100 * best / t[build])
        for (n, pattern), v in sorted(shares.items()):
            print('%-14s 2^%d %-8s: lowest %3.0f%%, mean %3.0f%% of best, '
                  '%2d of %d points below 90%%' %
                  (build, n, pattern, min(v), sum(v) / len(v),
                   sum(x < 90 for x in v), len(v)))
    return 1 if bad else 0
    for (n, pattern), v in sorted(groups.items()):
        print('2^%d %-8s: adaptive lowest %.0f%%, mean %.0f%% of best, %d of '
              '%d points below 90%%' % (n, pattern, min(v), sum(v) / len(v),
                                        sum(x < 90 for x in v), len(v)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
