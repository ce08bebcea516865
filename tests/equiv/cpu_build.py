#!/usr/bin/env python3
"""cpu_build.py SOURCE.cu OUTPUT [extra g++ flags]

Builds a CUDA program for the CPU executor (cuda_cpu.h): every launch
`kernel<<<grid, block[, smem[, stream]]>>>(args)` becomes
`ww_launch([](auto... a) { kernel(a...); }, grid, block[, ...])(args)`, then g++ compiles the result
with cuda_cpu.h force-included. Used only by tests.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def find_kernel_start(src, pos):
    """Start of the kernel expression that ends right before `<<<` at pos:
    an identifier, possibly qualified and with template arguments."""
    i = pos
    while i > 0 and src[i - 1].isspace():
        i -= 1
    end = i
    depth = 0
    while i > 0:
        c = src[i - 1]
        if c == '>':
            depth += 1
        elif c == '<':
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (c.isalnum() or c in '_:'):
            break
        i -= 1
    return i, end


def find_config_end(src, pos):
    """Index of the `>>>` closing the configuration that starts at pos."""
    depth = 0
    i = pos
    while i < len(src):
        if src.startswith('>>>', i) and depth == 0:
            return i
        c = src[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        i += 1
    raise SystemExit('cpu_build: unterminated <<< at offset %d' % pos)


def convert(src):
    out = []
    last = 0
    for m in re.finditer(r'<<<', src):
        if m.start() < last:
            continue
        kstart, kend = find_kernel_start(src, m.start())
        cend = find_config_end(src, m.end())
        out.append(src[last:kstart])
        # A generic lambda rather than the function itself, so that template
        # arguments deduced from the call (`k<8><<<g, b>>>(in, out)`) are
        # deduced as nvcc deduces them.
        out.append('ww_launch([](auto... ww_a) { %s(ww_a...); }, %s)' % (
            src[kstart:kend].strip(), src[m.end():cend].strip()))
        last = cend + 3
    out.append(src[last:])
    return ''.join(out)


# `extern __shared__ float s[];` -> a pointer to the launch's dynamic shared
# buffer (cuda_cpu.h).
DYNAMIC_SHARED = re.compile(
    r'extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?'
    r'([A-Za-z_][\w\s:<>,*]*?)\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?'
    r'(\w+)\s*\[\s*\]\s*;')


def dynamic_shared(src):
    return DYNAMIC_SHARED.sub(
        lambda m: '%s *%s = (%s *)ww::dynamicShared();' % (
            m.group(1), m.group(2), m.group(1)), src)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    source, output = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    with open(source) as f:
        text = dynamic_shared(convert(f.read()))
    cpp = output + '.cpu.cpp'
    with open(cpp, 'w') as f:
        f.write('#line 1 "%s"\n' % source)
        f.write(text)
    cmd = [os.environ.get('CXX', 'g++'), '-std=c++17', '-O1', '-w',
           '-include', os.path.join(HERE, 'cuda_cpu.h'),
           '-I', os.path.join(HERE, 'fake'),
           '-I', os.path.dirname(os.path.abspath(source)),
           cpp, '-o', output] + extra
    r = subprocess.run(cmd)
    sys.exit(r.returncode)


if __name__ == '__main__':
    main()
