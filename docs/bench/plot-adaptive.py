#!/usr/bin/env python3
"""Speedup over the original of each program in docs/bench/adaptive.sh's
output (the adaptive split as warpwise applies it, the forced compact split,
each pair pinned), one panel per variant and mask layout.

  python3 docs/bench/plot-adaptive.py docs/bench/h100-adaptive-variants.txt \
      docs/bench/adaptive-variants.png
"""
import collections
import re
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

LABELS = {'adaptive': 'warpwise (adaptive, default)', 'compact': 'compact (forced)',
          'inplace': 'in-place pair pinned', 'light': 'light pair pinned'}


def main(log, png):
    times = collections.defaultdict(dict)
    for line in open(log):
        m = re.match(r'(\w+)\.(\w+) \[(\d+) (\d+) (\d+)\] (.*)', line)
        if not m:
            continue
        variant, program, _, share, linear, rest = m.groups()
        t = re.findall(r'time_ms ([0-9.]+)', rest)
        if t:
            times[(variant, linear, int(share))][program] = float(t[0])
    panels = [('dm', '0'), ('w96', '0'), ('r64', '0'), ('dm', '1')]
    titles = {'dm': 'decision mask (2^22)', 'w96': 'WIDTH 96, 127 registers (2^21)',
              'r64': 'ROUNDS 64, compute-bound (2^21)'}
    fig, axes = plt.subplots(1, len(panels), figsize=(17, 4))
    for ax, (variant, linear) in zip(axes, panels):
        points = sorted((s, d) for (v, l, s), d in times.items() if v == variant and l == linear)
        for program, label in LABELS.items():
            xs = [s for s, d in points if program in d and 'orig' in d]
            ys = [d['orig'] / d[program] for s, d in points if program in d and 'orig' in d]
            if xs:
                ax.plot(xs, ys, 'o-' if program == 'adaptive' else '.--', label=label)
        ax.axhline(1.0, color='gray', lw=0.8)
        ax.axhline(0.95, color='red', lw=0.6, ls=':')
        ax.set_title('%s, %s mask' % (titles[variant], 'linear' if linear == '1' else 'random'),
                     fontsize=9)
        ax.set_xlabel('heavy-side share (%)')
        ax.set_ylabel('speedup over the original')
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
