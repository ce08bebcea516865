#!/usr/bin/env python3
"""gen.py SEED [--no-rule-families | --only-rule-families] - print one
random, race-free, self-checking CUDA program.

The program is a pure function of SEED (random.Random(SEED); no global
randomness, no time). It holds 1-3 kernels drawn from a few families, each
built to offer warpwise candidates for one or more transformations:

  branchy   a divergent (or warp-/block-uniform) if-else or switch whose arms
            have the same shape with different operands (fuse), with nested
            ifs and loops in the arms (meld); loops with break/continue, loop
            headers with side effects, early return, aliased arguments,
            template kernels, macros, __device__ helpers, int atomics;
  fission   loops whose bodies hold independent accumulations over separate
            arrays (sometimes with a dependence that forbids the split);
  split     a top-level if-else with one light and one heavy arm, launched
            with side-effecting launch arguments now and then (whose values
            show the launch's order of evaluation, docs/fuzzing.md);
  block     __shared__ staging with __syncthreads, warp shuffles, ballots and
            int atomics at convergent points, around a divergent branch;
  exchange  bitonic compare-exchange steps in __shared__ memory (seed 004's
            figure 1): loads inside the direction branch with a __device__
            swap, loads hoisted with two stores, or one store per side, so
            that melding and its branch-free form (speculated stores) apply.
            Drawn from a second generator, so the other kernels of a seed
            are the same with or without it.
  uniform   block-uniform scalars and a table every thread computes
            (variable sharing); a third generator of its own.
  nested, fpchain, extern, refill
            the families of issue 26's general rules and issue 30's refill
            (gen_families.py): brace-less loop nests (fission),
            floating-point chains after a divergent branch (fuse and meld
            under nvcc's contraction), externally linked kernels with
            launch-uniform arithmetic (share), loops of data-dependent
            length per item (refill). Each is in about a third of the
            programs, each from a generator of its own; --no-rule-families
            leaves them out (the programs of earlier versions, byte for
            byte); --only-rule-families gives a program of the four alone
            (the kernels they are wherever the seed draws them). The refill
            family, added later, adds a kernel to some seeds' programs.
  chains    (not a kernel) about half of the programs define two __device__
            chains, dv_chain_a and dv_chain_b, the same steps with other
            constants; some expressions call dv_chain_a, and a mirrored
            arm calls dv_chain_b where its twin calls dv_chain_a (fusion
            through calls). From a stream of its own: the programs without
            them are those of earlier versions, byte for byte.

Each kernel has a plain C++ host reference (the per-thread code is the kernel
text with device-only names mapped to host ones). The program compares the
results with a tolerance, prints "fuzz SEED: OK" when all agree, and prints
bit-exact checksums of every result buffer, so that the original and a
rewritten program can be compared exactly on the same platform.
"""
import random
import re
import sys

from gen_families import FAMILY_SHARE, FAMILY_STREAMS, RuleFamilies

CONSTS = ['0.5f', '0.25f', '0.75f', '1.5f', '0.125f', '2.0f', '0.375f',
          '0.625f', '1.25f', '0.0625f', '0.875f', '3.0f']
THRESH = ['0.0f', '0.25f', '-0.25f', '0.5f', '-0.5f', '0.125f']


def host_text(text):
    """The host version of device code: device-only names mapped."""
    for a, b in (('__device__ __forceinline__ ', 'static inline '),
                 ('__device__ ', 'static '),
                 ('__fmul_rn(', 'h_fmul_rn('), ('__fsqrt_rn(', 'h_fsqrt_rn('),
                 ('DV_', 'H_'), ('dv_', 'h_'),
                 ('threadIdx.x', 'tx'), ('blockIdx.x', 'bx'),
                 ('blockDim.x', 'bd'), ('gridDim.x', 'gd'),
                 ('atomicAdd(', 'fz_atomic_add(')):
        text = text.replace(a, b)
    return text


def mark_unused(lines, names):
    """`[[maybe_unused]]` on the declaration of each of NAMES that LINES
    declare once and never read: nvcc warns for it (#177, #550), which would
    keep the program from compiling under -Werror all-warnings. Returns the
    names marked."""
    marked = []
    for n in names:
        pat = re.compile(r'(?<![\w.])%s\b' % n)
        uses = sum(len(pat.findall(l)) for l in lines)
        decl = [j for j, l in enumerate(lines)
                if re.match(r'\s*(float|T) %s = ' % n, l)]
        if uses == 1 and len(decl) == 1:
            j = decl[0]
            body = lines[j].lstrip()
            lines[j] = lines[j][:len(lines[j]) - len(body)] + \
                '[[maybe_unused]] ' + body
            marked.append(n)
    return marked


class Buf:
    def __init__(self, name, ctype, count, init, written):
        self.name, self.ctype, self.count = name, ctype, count
        self.init, self.written = init, written


class Kernel:
    def __init__(self, name):
        self.name = name
        self.tmpl_header = ''     # 'template <int K, typename T>'
        self.tmpl_args = ''       # '<4, float>'
        self.params = []          # declaration texts
        self.body = []            # device lines, without indentation base
        self.ref = None           # full host reference text (block family)
        self.bufs = []
        self.args = []            # (kind, value): ('buf', name, offset) / ('scalar', expr, refexpr)
        self.grid = 1
        self.block = 32
        self.grid_expr = None     # device launch grid text
        self.families = []
        # Linkage and launch (gen_families.py's extern family).
        self.prefix = ''          # 'static ', 'extern "C" '
        self.bounds = False       # __launch_bounds__(block)
        self.anon = False         # inside an anonymous namespace
        self.prototype = False    # declared before its definition
        self.wrapper = False      # launched from a host function


class Gen(RuleFamilies):
    Kernel, Buf = Kernel, Buf

    def __init__(self, seed, rule_families='with'):
        self.seed = seed
        self.rule_families = rule_families
        self.r = random.Random(seed)
        self.uses = set()
        self.kernels = []
        self.salt = self.r.randrange(1, 50)
        self.salt_now = self.salt
        self.grid_calls = 0
        # Macros in statements keep fuse/meld away (warpwise does not rewrite
        # statements partly inside a macro): only some programs use them.
        self.macros = self.r.random() < 0.35
        # Pairs of __device__ chains (dv_chain_a in one arm, its twin
        # dv_chain_b with other constants where the mirrored arm has it):
        # fusion through calls. Drawn from a stream of their own, so that a
        # program without them is the one this generator always wrote.
        self.r2 = random.Random(seed * 7919 + 17)
        self.chains = self.r2.random() < 0.5
        self.chain_steps = []
        if self.chains:
            for _ in range(self.r2.randint(2, 5)):
                op = self.r2.choice(['fma', 'square', 'clamp'])
                self.chain_steps.append(
                    (op, [self.r2.choice(CONSTS) for _ in range(4)]))

    # ---------------------------------------------------------- expressions
    def leaf(self, avail):
        r = self.r
        if avail and r.random() < 0.75:
            return ('v', r.choice(avail))
        return ('c', r.choice(CONSTS))

    def expr(self, avail, depth):
        e = self.expr_plain(avail, depth)
        if self.chains and depth > 0 and self.r2.random() < 0.2:
            self.uses.add('chain')
            return ('f', 'dv_chain_a', [e])
        return e

    def chain_text(self, name, twin):
        """dv_chain_a, or (twin) dv_chain_b: the same steps, other
        constants."""
        lines = ['__device__ float %s(float p) {' % name,
                 '  float y = p;']
        for op, cs in self.chain_steps:
            c1, c2 = (cs[2], cs[3]) if twin else (cs[0], cs[1])
            if op == 'fma':
                lines.append('  y = y * %s + %s;' % (c1, c2))
            elif op == 'square':
                lines.append('  y = fminf(fmaxf(y * y * %s + %s, -4.0f), 4.0f);'
                             % (c1, c2))
            else:
                lines.append('  y = fminf(fmaxf(y, -%s), %s) + %s;'
                             % (c1.lstrip('-'), c1.lstrip('-'), c2))
        lines.append('  return fminf(fmaxf(y, -4.0f), 4.0f);')
        lines.append('}')
        return '\n'.join(lines)

    def expr_plain(self, avail, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(avail)
        k = r.choices(['bin', 'bin', 'bin', 'call', 'special'], k=1)[0]
        if k == 'bin':
            op = r.choice(['+', '-', '*', '*'])
            if op == '*' and r.random() < 0.6:
                return ('b', op, self.expr(avail, depth - 1),
                        ('c', r.choice(CONSTS)))
            return ('b', op, self.expr(avail, depth - 1),
                    self.expr(avail, depth - 1))
        if k == 'call':
            f = r.choice(['fminf', 'fmaxf', 'mul', 'mix'])
            if f == 'mul':
                f = r.choice(['__fmul_rn', 'DV_MUL'] if self.macros
                             else ['__fmul_rn'])
                self.uses.add('mul')
            elif f == 'mix':
                f = 'dv_mix'
                self.uses.add('mix')
            return ('f', f, [self.expr(avail, depth - 1),
                             self.expr(avail, depth - 1)])
        f = r.choice(['sqrt', 'fsqrt', 'exp', 'soft', 'abs', 'div', 'scale'])
        if f in ('fsqrt',):
            self.uses.add('mul')
        if f == 'soft':
            self.uses.add('soft')
        if f == 'scale' and not self.macros:
            f = 'abs'
        if f == 'scale':
            self.uses.add('scale')
        return ('s', f, self.expr(avail, depth - 1),
                self.expr(avail, depth - 2) if f == 'div' else None)

    def render(self, e):
        t = e[0]
        if t == 'v':
            return e[1]
        if t == 'c':
            return e[1]
        if t == 'b':
            return '(%s %s %s)' % (self.render(e[2]), e[1], self.render(e[3]))
        if t == 'f':
            return '%s(%s)' % (e[1], ', '.join(self.render(a) for a in e[2]))
        f, a = e[1], self.render(e[2])
        if f == 'sqrt':
            return 'sqrtf(fabsf(%s) + 1.0f)' % a
        if f == 'fsqrt':
            return '__fsqrt_rn(fabsf(%s) + 0.5f)' % a
        if f == 'exp':
            return 'expf(-fabsf(%s))' % a
        if f == 'soft':
            return 'dv_soft(%s)' % a
        if f == 'abs':
            return 'fabsf(%s)' % a
        if f == 'scale':
            return 'DV_TWICE(%s)' % a
        return '(%s / (fabsf(%s) + 1.0f))' % (a, self.render(e[3]))

    def has_product(self, e):
        if e[0] == 'b':
            if e[1] == '*' and e[2][0] != 'c' and e[3][0] != 'c':
                return True
            return self.has_product(e[2]) or self.has_product(e[3])
        if e[0] == 'f':
            return e[1] in ('__fmul_rn', 'DV_MUL') or any(
                self.has_product(a) for a in e[2])
        if e[0] == 's':
            return self.has_product(e[2]) or (
                e[3] is not None and self.has_product(e[3]))
        return False

    def bounded(self, e):
        s = self.render(e)
        if self.has_product(e):
            s = 'fminf(fmaxf(%s, -4.0f), 4.0f)' % s
        return s

    def mutate(self, e, avail):
        """Same shape, different operands."""
        r = self.r
        t = e[0]
        if t == 'v':
            return ('v', r.choice(avail)) if avail and r.random() < 0.4 else e
        if t == 'c':
            return ('c', r.choice(CONSTS)) if r.random() < 0.7 else e
        if t == 'b':
            return ('b', e[1], self.mutate(e[2], avail), self.mutate(e[3], avail))
        if t == 'f':
            twin = {'dv_chain_a': 'dv_chain_b',
                    'dv_chain_b': 'dv_chain_a'}.get(e[1], e[1])
            return ('f', twin, [self.mutate(a, avail) for a in e[2]])
        return ('s', e[1], self.mutate(e[2], avail),
                self.mutate(e[3], avail) if e[3] is not None else None)

    # ----------------------------------------------------------- statements
    def stmts(self, count, avail, accs, depth, ctrl, prefix, arrays):
        """A list of statement trees; temps declared are named prefix+N."""
        r = self.r
        out = []
        avail = list(avail)
        for j in range(count):
            kinds = ['decl'] * 4 + ['acc'] * 3 + ['racc']
            if self.macros:
                kinds.append('macro')
            if arrays:
                kinds.append('tacc')
            if ctrl and depth < 2:
                kinds += ['if', 'for']
            k = r.choice(kinds)
            if k == 'decl':
                name = '%s%d' % (prefix, j)
                out.append(('decl', name, self.expr(avail, 3)))
                avail.append(name)
            elif k == 'acc':
                out.append(('acc', r.choice(accs), r.choice(['+=', '-=', 'mix']),
                            self.expr(avail, 2)))
            elif k == 'macro':
                self.uses.add('acc')
                out.append(('macro', r.choice(accs), self.expr(avail, 2)))
            elif k == 'racc':
                self.uses.add('racc')
                out.append(('racc', r.choice(accs), self.expr(avail, 2)))
            elif k == 'tacc':
                self.uses.add('tacc')
                out.append(('tacc', r.choice(arrays), self.expr(avail, 2)))
            elif k == 'if':
                cv = r.choice([a for a in avail if a in ('v', 'w', 'x')] or ['x'])
                body = self.stmts(r.randint(1, 3), avail, accs, depth + 1, ctrl,
                                  prefix + 'i%d_' % j, arrays)
                els = None
                if r.random() < 0.4:
                    els = self.stmts(r.randint(1, 2), avail, accs, depth + 1,
                                     ctrl, prefix + 'e%d_' % j, arrays)
                out.append(('if', cv, r.choice(['>', '<']), r.choice(THRESH),
                            body, els))
            else:
                var = 'k%d' % (depth + 1)
                body = self.stmts(r.randint(1, 3), avail + ['(float)' + var],
                                  accs, depth + 1, ctrl, prefix + 'f%d_' % j,
                                  arrays)
                out.append(('for', var, r.randint(2, 4), body))
        return out

    def mirror(self, sts, avail):
        """The other arm: the same statements with different operands; now
        and then one statement dropped or one added."""
        r = self.r
        out = []
        avail = list(avail)
        for s in sts:
            k = s[0]
            if k == 'decl':
                out.append(('decl', s[1], self.mutate(s[2], avail)))
                avail.append(s[1])
            elif k == 'acc':
                out.append(('acc', s[1], s[2], self.mutate(s[3], avail)))
            elif k in ('macro', 'racc', 'tacc'):
                out.append((k, s[1], self.mutate(s[2], avail)))
            elif k == 'if':
                out.append(('if', s[1], s[2], r.choice(THRESH),
                            self.mirror(s[4], avail),
                            self.mirror(s[5], avail) if s[5] else None))
            elif k == 'for':
                out.append(('for', s[1], r.randint(2, 4),
                            self.mirror(s[3], avail + ['(float)' + s[1]])))
        if len(out) > 1 and r.random() < 0.2:
            i = r.randrange(len(out))
            if out[i][0] != 'decl':
                del out[i]
        if r.random() < 0.2:
            accs = [s[1] for s in sts if s[0] == 'acc'] or None
            if accs:
                out.append(('acc', r.choice(accs), '+=', self.expr(avail, 2)))
        return out

    def emit(self, sts, ind):
        lines = []
        p = '  ' * ind
        for s in sts:
            k = s[0]
            if k == 'decl':
                lines.append('%s%sfloat %s = %s;' % (
                    p, '[[maybe_unused]] ' if len(s) > 3 else '', s[1],
                    self.bounded(s[2])))
            elif k == 'acc':
                if s[2] == 'mix':
                    lines.append('%s%s = %s * 0.5f + %s;' % (
                        p, s[1], s[1], self.bounded(s[3])))
                else:
                    lines.append('%s%s %s %s;' % (p, s[1], s[2], self.bounded(s[3])))
            elif k == 'macro':
                lines.append('%sDV_ACC(%s, %s);' % (p, s[1], self.bounded(s[2])))
            elif k == 'racc':
                lines.append('%sdv_racc(%s, %s);' % (p, s[1], self.bounded(s[2])))
            elif k == 'tacc':
                lines.append('%sdv_tacc<%s>(%s, %s);' % (
                    p, s[1][1], s[1][0], self.bounded(s[2])))
            elif k == 'if':
                lines.append('%sif (%s %s %s) {' % (p, s[1], s[2], s[3]))
                lines += self.emit(s[4], ind + 1)
                if s[5]:
                    lines.append('%s} else {' % p)
                    lines += self.emit(s[5], ind + 1)
                lines.append('%s}' % p)
            elif k == 'for':
                lines.append('%sfor (int %s = 0; %s < %d; ++%s) {' % (
                    p, s[1], s[1], s[2], s[1]))
                lines += self.emit(s[3], ind + 1)
                lines.append('%s}' % p)
        return lines

    def mark_unread(self, arms):
        """The arms with each temporary that an arm declares and never
        reads declared `[[maybe_unused]]` (nvcc's #177 and #550 would keep
        the original from compiling under -Werror all-warnings), in every
        arm that declares it, so that the arms keep the same shape. No
        random draw: the rest of the seed's program is as before."""
        unread = set()
        for arm in arms:
            text = '\n'.join(self.emit(arm, 0))
            unread |= {n for n in self.decl_names(arm)
                       if len(re.findall(r'(?<![\w.])%s\b' % n, text)) == 1}

        def mark(sts):
            out = []
            for s in sts:
                if s[0] == 'if':
                    s = s[:4] + (mark(s[4]), mark(s[5]) if s[5] else None)
                elif s[0] == 'for':
                    s = s[:3] + (mark(s[3]),)
                if s[0] == 'decl' and s[1] in unread:
                    s = s + ('unused',)
                out.append(s)
            return out
        return [mark(a) for a in arms]

    def decl_names(self, sts):
        for s in sts:
            if s[0] == 'decl':
                yield s[1]
            elif s[0] == 'if':
                yield from self.decl_names(s[4])
                yield from self.decl_names(s[5] or [])
            elif s[0] == 'for':
                yield from self.decl_names(s[3])

    def arms(self, avail, accs, ctrl, arrays, n_arms=2):
        r = self.r
        first = self.stmts(r.randint(2, 6), avail, accs, 0, ctrl, 't', arrays)
        res = [first]
        for _ in range(n_arms - 1):
            for attempt in range(6):
                other = self.mirror(first, avail)
                if self.emit(other, 0) not in [self.emit(a, 0) for a in res]:
                    break
            res.append(other)
        return self.mark_unread(res)

    # -------------------------------------------------------------- kernels
    def launch_shape(self, warps_only=False):
        r = self.r
        block = r.choice([32, 64, 96, 128])
        grid = r.randint(2, 6 if block <= 64 else 4)
        n = grid * block
        if not warps_only and r.random() < 0.4:
            n -= r.randint(1, 20)
        return grid, block, n

    def grid_arg(self, k, n_var):
        """The launch's grid: a constant, or from a side-effecting call."""
        if self.r.random() < 0.3:
            self.uses.add('gridof')
            k.grid_expr = 'fz_grid_of(%s, %d)' % (n_var, k.block)
        else:
            k.grid_expr = str(k.grid)

    def salt_arg(self, k):
        """A launch argument with a side effect: `fz_salt++`."""
        v = self.salt_now
        self.salt_now += 1
        k.args.append(('scalar', 'fz_salt++', str(v)))

    def branchy(self, idx):
        r = self.r
        k = Kernel('k%d_branchy' % idx)
        k.families.append('branchy')
        grid, block, n = self.launch_shape()
        k.grid, k.block = grid, block
        guard = n != grid * block or r.random() < 0.5
        loop = r.choice(['rows', 'rows', 'header', 'none'])
        rows = r.randint(2, 4) if loop != 'none' else 1
        templ = r.random() < 0.25
        T = 'T' if templ else 'float'
        K = r.choice([2, 3, 4])
        use_mask = r.random() < 0.4
        cond = r.choice(['lane', 'lane', 'half', 'data', 'mask' if use_mask else 'data',
                         'warp', 'block', 'tid16', 'switch'])
        alias = r.choice(['none', 'none', 'none', 'same', 'offset'])
        restrict = '__restrict__ ' if (alias == 'none' and r.random() < 0.4) else ''
        two_out = r.random() < 0.4
        atomics = r.random() < 0.3
        pre = '%s_' % k.name
        size_in = n * rows
        a = Buf(pre + 'a', 'float', size_in + (n if alias == 'offset' else 0),
                'rand', alias != 'none')
        b = Buf(pre + 'b', 'float', size_in, 'rand', False)
        k.bufs += [a, b]
        k.params += ['const %s *%sa' % (T, restrict), 'const %s *%sb' % (T, restrict)]
        k.args += [('buf', a.name, 0), ('buf', b.name, 0)]
        if use_mask:
            m = Buf(pre + 'm', 'int', n, 'mask', False)
            k.bufs.append(m)
            k.params.append('const int *%sm' % restrict)
            k.args.append(('buf', m.name, 0))
        if alias == 'same':
            k.params.append('%s *out' % T)
            k.args.append(('buf', a.name, 0))
        elif alias == 'offset':
            k.params.append('%s *out' % T)
            k.args.append(('buf', a.name, size_in))
        else:
            o = Buf(pre + 'out', 'float', n, 'zero', True)
            k.bufs.append(o)
            k.params.append('%s *%sout' % (T, restrict))
            k.args.append(('buf', o.name, 0))
        if two_out:
            o2 = Buf(pre + 'out2', 'float', n, 'zero', True)
            k.bufs.append(o2)
            k.params.append('%s *%sout2' % (T, restrict))
            k.args.append(('buf', o2.name, 0))
        if atomics:
            c = Buf(pre + 'cnt', 'int', 1, 'zero', True)
            k.bufs.append(c)
            k.params.append('int *cnt')
            k.args.append(('buf', c.name, 0))
        k.params += ['int n', 'int rows']
        k.args += [('scalar', str(n), str(n)), ('scalar', str(rows), str(rows))]
        salted = r.random() < 0.3
        if salted:
            k.params.append('int salt')
            self.salt_arg(k)
        if templ:
            k.tmpl_header = 'template <int K, typename T>'
            k.tmpl_args = '<%d, float>' % K
            k.families.append('template')
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        if guard:
            B.append('if (i >= n)')
            B.append('  return;')
        B.append('%s s = 0.0f;' % T)
        B.append('%s u = 0.0f;' % T)
        B.append('float x = (float)(i %% 7) * 0.125f%s;' % (
            ' + (float)salt * 0.0625f' if salted else ''))
        arrays = []
        if templ:
            B.append('float acc[K];')
            B.append('for (int k = 0; k < K; ++k)')
            B.append('  acc[k] = 0.0f;')
            arrays.append(('acc', 'K'))
        elif r.random() < 0.3:
            B.append('float acc[2] = {0.0f, 0.0f};')
            arrays.append(('acc', 2))
        ind = 0
        if loop == 'rows':
            B.append('for (int r = 0; r < rows; r++) {')
            ind = 1
            B.append('  float v = a[r * n + i];')
            B.append('  float w = b[r * n + i];')
        elif loop == 'header':
            B.append('for (int r = 0, o = i; r < rows; r++, o += n) {')
            ind = 1
            B.append('  float v = a[o];')
            B.append('  float w = b[o];')
        else:
            B.append('float v = a[i];')
            B.append('float w = b[i];')
        p = '  ' * ind
        if loop != 'none':
            if r.random() < 0.3:
                B.append(p + 'if (v > 0.875f)')
                B.append(p + '  continue;')
            if r.random() < 0.2:
                B.append(p + 'if (w < -0.9375f)')
                B.append(p + '  break;')
        avail = ['v', 'w', 'x']
        accs = ['s', 'u']
        ctrl = r.random() < 0.6
        condtext = {
            'lane': 'i % 2',
            'half': 'threadIdx.x % 32 < 16',
            'data': 'v > %s' % r.choice(THRESH),
            'mask': 'm[i] & 1',
            'warp': '(i / 32) % 2',
            'block': 'blockIdx.x % 2 == 0',
            'tid16': 'threadIdx.x < 16',
        }
        k.cond = cond
        if cond == 'switch':
            sel = 'm[i] & 3' if use_mask else 'i % 4'
            ncase = r.randint(2, 4)
            arms = self.arms(avail, accs, ctrl, arrays, ncase)
            B.append(p + 'switch (%s) {' % sel)
            for ci, arm in enumerate(arms):
                if ci == ncase - 1:
                    B.append(p + 'default: {')
                else:
                    B.append(p + 'case %d: {' % ci)
                B += self.emit(arm, ind + 1)
                if atomics and ci == 0:
                    B.append(p + '  atomicAdd(cnt, 1);')
                B.append(p + '  break;')
                B.append(p + '}')
            B.append(p + '}')
        else:
            arms = self.arms(avail, accs, ctrl, arrays)
            B.append(p + 'if (%s) {' % condtext[cond])
            B += self.emit(arms[0], ind + 1)
            if atomics:
                B.append(p + '  atomicAdd(cnt, %d);' % r.randint(1, 3))
            B.append(p + '} else {')
            B += self.emit(arms[1], ind + 1)
            if atomics:
                B.append(p + '  atomicAdd(cnt, %d);' % r.randint(1, 3))
            B.append(p + '}')
        if loop != 'none':
            B.append('}')
        tail = 's + u * 0.5f'
        if arrays:
            tail += ' + acc[0] + acc[1]'
        if two_out:
            B.append('out[i] = %s;' % tail)
            B.append('out2[i] = u - s * 0.25f;')
        else:
            B.append('out[i] = %s;' % tail)
        mark_unused(B, ['x', 'v', 'w'])
        self.grid_arg(k, str(n))
        return k

    def fission(self, idx):
        r = self.r
        k = Kernel('k%d_fission' % idx)
        k.families.append('fission')
        grid, block, n = self.launch_shape()
        k.grid, k.block = grid, block
        rows = r.randint(2, 6)
        R = '__restrict__ ' if r.random() < 0.7 else ''
        ngroups = r.choice([2, 2, 3])
        pre = k.name + '_'
        names = 'abcdef'[:2 * ngroups]
        for nm in names:
            bf = Buf(pre + nm, 'float', n * rows, 'rand', False)
            k.bufs.append(bf)
            k.params.append('const float *%s%s' % (R, nm))
            k.args.append(('buf', bf.name, 0))
        for g in range(ngroups):
            bf = Buf(pre + 'o%d' % g, 'float', n, 'zero', True)
            k.bufs.append(bf)
            k.params.append('float *%so%d' % (R, g))
            k.args.append(('buf', bf.name, 0))
        k.params += ['int n', 'int rows']
        k.args += [('scalar', str(n), str(n)), ('scalar', str(rows), str(rows))]
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        if n != grid * block or r.random() < 0.5:
            B.append('if (i >= n)')
            B.append('  return;')
        header = r.choice(['plain', 'plain', 'plain', 'side'])
        calls = r.random() < 0.2
        groups = []
        for g in range(ngroups):
            x, y = names[2 * g], names[2 * g + 1]
            kind = r.choice(['plain'] * 6 + ['macro', 'macro', 'helper', 'tmpl'])
            accs = ['g%d_%d' % (g, j) for j in range(r.randint(1, 3))]
            for a in accs:
                B.append('float %s = 0.0f;' % a)
            sts = []
            for a in accs:
                forms = ['%s += %s[o] * %s[o];',
                         '%s += %s[o] - %s[o] * 0.5f;',
                         '%s = %s * 0.5f + %s[o] * %s[o];']
                if calls:
                    forms += ['%s += %s[o] / (fabsf(%s[o]) + 1.0f);',
                              '%s = fmaxf(%s, %s[o] - %s[o]);',
                              '%s += fminf(%s[o], %s[o]) * 0.5f;']
                form = r.choice(forms)
                if form.count('%s') == 3:
                    sts.append(form % (a, x, y))
                else:
                    sts.append(form % (a, a, x, y))
            if kind == 'macro':
                self.uses.add('acc')
                sts.append('DV_ACC(%s, %s[o]);' % (accs[0], x))
            elif kind == 'helper':
                self.uses.add('racc')
                sts.append('dv_racc(%s, %s[o] * 0.25f);' % (accs[-1], y))
            elif kind == 'tmpl':
                self.uses.add('tacc')
                B.append('float arr%d[2] = {0.0f, 0.0f};' % g)
                sts.append('dv_tacc<2>(arr%d, %s[o]);' % (g, x))
                accs.append('arr%d[0] + arr%d[1]' % (g, g))
            groups.append((accs, sts))
        # A dependence between groups now and then: the loop must stay whole.
        dep = ngroups >= 2 and r.random() < 0.25
        if dep:
            groups[1][1].append('%s += %s * 0.0625f;' % (groups[1][0][0],
                                                        groups[0][0][0]))
        # Interleave the groups' statements, keeping each group's order.
        order = []
        queues = [list(g[1]) for g in groups]
        while any(queues):
            q = r.choice([q for q in queues if q])
            order.append(q.pop(0))
        if r.random() < 0.4:
            B.append('#pragma unroll 1')
        if header == 'side':
            B.append('for (int r = 0, o = i; r < rows; r++, o += n) {')
        else:
            B.append('for (int r = 0; r < rows; r++) {')
            B.append('  const int o = r * n + i;')
        if r.random() < 0.15:
            B.append('  if (%s[o] > 0.96875f)' % names[0])
            B.append('    %s;' % r.choice(['break', 'continue']))
        for s in order:
            B.append('  ' + s)
        B.append('}')
        for g, (accs, _) in enumerate(groups):
            B.append('o%d[i] = %s;' % (g, ' + '.join(accs)))
        self.grid_arg(k, str(n))
        return k

    def split(self, idx):
        r = self.r
        k = Kernel('k%d_split' % idx)
        k.families.append('split')
        grid, block, n = self.launch_shape()
        k.grid, k.block = grid, block
        R = '__restrict__ ' if r.random() < 0.8 else ''
        templ = r.random() < 0.25
        pre = k.name + '_'
        m = Buf(pre + 'mask', 'int', n, 'mask', False)
        src = Buf(pre + 'in', 'float', n, 'rand', False)
        out = Buf(pre + 'out', 'float', n, 'zero', True)
        k.bufs += [m, src, out]
        k.params += ['const int *%smask' % R, 'const float *%sin' % R,
                     'float *%sout' % R]
        k.args += [('buf', m.name, 0), ('buf', src.name, 0), ('buf', out.name, 0)]
        suffix = r.random() < 0.3
        if suffix:
            o2 = Buf(pre + 'out2', 'float', n, 'zero', True)
            k.bufs.append(o2)
            k.params.append('float *%sout2' % R)
            k.args.append(('buf', o2.name, 0))
        k.params.append('int n')
        k.args.append(('scalar', str(n), str(n)))
        salted = r.random() < 0.4
        if salted:
            k.params.append('int salt')
            self.salt_arg(k)
        W = r.choice([4, 6, 8])
        if templ:
            k.tmpl_header = 'template <int W>'
            k.tmpl_args = '<%d>' % W
            k.families.append('template')
            Wt = 'W'
        else:
            Wt = str(W)
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        B.append('if (i >= n)')
        B.append('  return;')
        B.append('float x = in[i];')
        cond = r.choice(['mask[i] % 3 == 0', 'mask[i] & 1', 'x > 0.25f',
                         'i % 4 == 0', 'mask[i] % 5 != 0'])
        heavy_then = r.random() < 0.5
        light = ['out[i] = x * %s + %s;' % (r.choice(CONSTS), r.choice(CONSTS))]
        nacc = r.randint(3, 6)
        heavy = []
        for j in range(nacc):
            heavy.append('float h%d = %s;' % (j, r.choice(['0.0f', 'x', 'x * 0.5f'])))
        heavy.append('for (int k = 0; k < %s; ++k) {' % Wt)
        heavy.append('  float e = in[(i + k * %d) %% n];' % r.choice([7, 13, 31]))
        forms = ['h%d += e * %s;', 'h%d = h%d * 0.5f + e * %s;',
                 'h%d -= e * e * %s;']
        if r.random() < 0.3:
            forms += ['h%d = fmaxf(h%d, e - %s);', 'h%d += sqrtf(fabsf(e) + %s);']
        for j in range(nacc):
            form = r.choice(forms)
            if form.count('%s') == 1 and form.count('h%d') == 1:
                heavy.append('  ' + form % (j, r.choice(CONSTS)))
            else:
                heavy.append('  ' + form % (j, j, r.choice(CONSTS)))
        heavy.append('}')
        heavy.append('out[i] = %s;' % ' + '.join('h%d' % j for j in range(nacc)))
        if salted:
            light.append('out[i] += (float)salt;')
        B.append('if (%s) {' % cond)
        B += ['  ' + s for s in (heavy if heavy_then else light)]
        B.append('} else {')
        B += ['  ' + s for s in (light if heavy_then else heavy)]
        B.append('}')
        if suffix:
            B.append('out2[i] = x * 2.0f;')
        self.grid_arg(k, str(n))
        return k

    def blockk(self, idx):
        """Shared memory, barriers, warp intrinsics and atomics, with its own
        reference."""
        r = self.r
        k = Kernel('k%d_block' % idx)
        k.families.append('block')
        block = r.choice([32, 64, 128])
        grid = r.randint(2, 4)
        n = grid * block
        k.grid, k.block = grid, block
        sh = r.randint(1, block - 1)
        pre = k.name + '_'
        a = Buf(pre + 'a', 'float', n, 'rand', False)
        m = Buf(pre + 'm', 'int', n, 'mask', False)
        out = Buf(pre + 'out', 'float', n, 'zero', True)
        ws = Buf(pre + 'ws', 'int', n, 'zero', True)
        cnt = Buf(pre + 'cnt', 'int', 1, 'zero', True)
        k.bufs += [a, m, out, ws, cnt]
        k.params += ['const float *a', 'const int *m', 'float *out', 'int *ws',
                     'int *cnt']
        for bf in (a, m, out, ws, cnt):
            k.args.append(('buf', bf.name, 0))
        cond = r.choice(['t % 2', 'x > 0.0f', 't < 16', '(t / 32) % 2',
                         't % 32 >= 8'])
        arms = self.arms(['x', 'y'], ['s', 'u'], r.random() < 0.5, [])
        two_phase = r.random() < 0.6
        S = 'FZ_B%d' % idx
        B = k.body
        B.append('__shared__ float tile[%s];' % S)
        B.append('int t = threadIdx.x;')
        B.append('int i = blockIdx.x * %s + t;' % S)
        B.append('tile[t] = a[i];')
        B.append('__syncthreads();')
        B.append('float x = tile[(t + %d) %% %s];' % (sh, S))
        B.append('float y = (float)(m[i] % 5) * 0.25f;')
        B.append('float s = 0.0f;')
        B.append('float u = 0.0f;')
        arm_lines = ['if (%s) {' % cond] + self.emit(arms[0], 1) + \
            ['} else {'] + self.emit(arms[1], 1) + ['}']
        B += arm_lines
        B.append('int q = m[i] & 15;')
        B.append('for (int o = 16; o > 0; o /= 2)')
        B.append('  q += __shfl_xor_sync(0xffffffffu, q, o);')
        B.append('unsigned bal = __ballot_sync(0xffffffffu, x > 0.0f);')
        B.append('ws[i] = q + __popc(bal);')
        B.append('if (t % 32 == 0)')
        B.append('  atomicAdd(cnt, q);')
        if two_phase:
            B.append('__syncthreads();')
            B.append('tile[t] = s + u;')
            B.append('__syncthreads();')
            B.append('out[i] = s - u + tile[(t + 1) %% %s] * 0.5f;' % S)
        else:
            B.append('out[i] = s - u;')
        k.defines = ['#define %s %d' % (S, block)]
        y_unused = mark_unused(B, ['y'])
        # The reference.
        hl = []
        hl.append('static void ref_%s(const float *a, const int *m, float *out, '
                  'int *ws, int *cnt, int fz_grid, int fz_block) {' % k.name)
        # ss only where it is read: nvcc -Werror rejects a variable set but
        # never used.
        if two_phase:
            hl.append('  float xs[%s], ss[%s];' % (S, S))
        else:
            hl.append('  float xs[%s];' % S)
        hl.append('  for (int bx = 0; bx < fz_grid; ++bx) {')
        hl.append('    for (int t = 0; t < %s; ++t) {' % S)
        hl.append('      int i = bx * %s + t;' % S)
        hl.append('      float x = a[bx * %s + (t + %d) %% %s];' % (S, sh, S))
        hl.append('      %sfloat y = (float)(m[i] %% 5) * 0.25f;' % (
            '[[maybe_unused]] ' if y_unused else ''))
        hl.append('      float s = 0.0f;')
        hl.append('      float u = 0.0f;')
        hl += ['      ' + host_text(l) for l in arm_lines]
        hl.append('      xs[t] = x;')
        hl.append('      out[i] = s - u;')
        if two_phase:
            hl.append('      ss[t] = s + u;')
        hl.append('    }')
        hl.append('    for (int t = 0; t < %s; ++t) {' % S)
        hl.append('      int i = bx * %s + t;' % S)
        hl.append('      int w0 = t / 32 * 32;')
        hl.append('      int q = 0, pop = 0;')
        hl.append('      for (int l = w0; l < w0 + 32; ++l) {')
        hl.append('        q += m[bx * %s + l] & 15;' % S)
        hl.append('        pop += xs[l] > 0.0f;')
        hl.append('      }')
        hl.append('      ws[i] = q + pop;')
        hl.append('      if (t % 32 == 0)')
        hl.append('        *cnt += q;')
        if two_phase:
            hl.append('      out[i] += ss[(t + 1) %% %s] * 0.5f;' % S)
        hl.append('    }')
        hl.append('  }')
        hl.append('}')
        k.ref = '\n'.join(hl)
        k.grid_expr = str(grid)
        return k

    # ------------------------------------------------------------- program
    def kernel_text(self, k):
        lines = []
        if k.tmpl_header:
            lines.append(k.tmpl_header)
        head = '%s__global__ void %s%s(' % (
            k.prefix, '__launch_bounds__(%d) ' % k.block if k.bounds else '',
            k.name)
        if k.prototype:
            # Declared first; a host function that launches it comes between
            # the declaration and the definition.
            lines += self.wrap(head, k.params, ');') + ['']
            if k.wrapper:
                lines += self.wrapper_text(k) + ['']
        lines += self.wrap(head, k.params, ') {')
        lines += ['  ' + l if not l.startswith('#') else l for l in k.body]
        lines.append('}')
        if k.wrapper and not k.prototype:
            lines += [''] + self.wrapper_text(k)
        if k.anon:
            lines = ['namespace {'] + lines + ['} // namespace']
        return '\n'.join(lines)

    def wrap(self, head, params, tail):
        out, cur = [], head
        pad = ' ' * len(head)
        for j, prm in enumerate(params):
            piece = prm + (', ' if j + 1 < len(params) else '')
            if len(cur) + len(piece.rstrip()) > 78 and cur.strip() != head.strip():
                out.append(cur.rstrip())
                cur = pad
            cur += piece
        out.append(cur + tail)
        return out

    def ref_text(self, k):
        if k.ref is not None:
            return k.ref
        lines = []
        if k.tmpl_header:
            lines.append(k.tmpl_header)
        lines += self.wrap('static void ref_%s(' % k.name,
                           k.params + ['int fz_grid', 'int fz_block'], ') {')
        lines.append('  for (int bx = 0; bx < fz_grid; ++bx) {')
        lines.append('    for (int tx = 0; tx < fz_block; ++tx) {')
        lines.append('      [[maybe_unused]] int bd = fz_block;')
        lines.append('      [[maybe_unused]] int gd = fz_grid;')
        lines.append('      [&]() {')
        for l in k.body:
            lines.append(('        ' + host_text(l)) if not l.startswith('#')
                         else host_text(l))
        lines.append('      }();')
        lines.append('    }')
        lines.append('  }')
        lines.append('}')
        return '\n'.join(lines)

    def generate(self):
        r = self.r
        nk = r.choice([1, 2, 2, 3, 3])
        fams = []
        for j in range(nk):
            fams.append(r.choice(['branchy', 'branchy', 'branchy', 'fission',
                                  'fission', 'split', 'split', 'block']))
        only = self.rule_families == 'only'
        for j, f in enumerate([] if only else fams):
            self.kernels.append(getattr(self, {'block': 'blockk'}.get(f, f))(j))
        extra = random.Random(self.seed * 7919 + 17)
        if extra.random() < 0.5 and not only:
            self.kernels.append(self.exchange(len(self.kernels), extra))
        # Its own stream too: the kernels above are those of earlier versions.
        more = random.Random(self.seed * 104729 + 29)
        if more.random() < 0.5 and not only:
            self.kernels.append(self.uniform(len(self.kernels), more))
        # Issue 26's families (gen_families.py), each from its own stream;
        # with 'only', each of them, and nothing else.
        for fam, mul, add in FAMILY_STREAMS:
            own = random.Random(self.seed * mul + add)
            if (own.random() < FAMILY_SHARE or only) and \
                    self.rule_families != 'without':
                self.kernels.append(getattr(self, fam)(len(self.kernels), own))
        return self.program()

    def uniform(self, idx, r):
        """Block-uniform scalars and a table every thread computes (variable
        sharing), read with run-time indices; the table's fill is sometimes
        a recurrence, sometimes loads, and the early return comes before or
        after it."""
        k = Kernel('k%d_uniform' % idx)
        k.families.append('uniform')
        block = r.choice([32, 64, 128])
        grid = r.randint(2, 4)
        n = grid * block - (r.randint(1, 20) if r.random() < 0.5 else 0)
        k.grid, k.block = grid, block
        pre = k.name + '_'
        a = Buf(pre + 'a', 'float', grid * block, 'rand', False)
        ix = Buf(pre + 'ix', 'int', grid * block, 'mask', False)
        lut = Buf(pre + 'lut', 'float', 8, 'rand', False)
        out = Buf(pre + 'out', 'float', grid * block, 'zero', True)
        k.bufs += [a, ix, lut, out]
        k.params += ['const float *a', 'const int *ix', 'const float *lut',
                     'float *out', 'int n', 'float p', 'int q']
        for bf in (a, ix, lut, out):
            k.args.append(('buf', bf.name, 0))
        k.args.append(('scalar', str(n), str(n)))
        pv = r.choice(CONSTS)
        k.args.append(('scalar', pv, pv))
        qv = str(r.randint(1, 9))
        k.args.append(('scalar', qv, qv))
        T = r.choice([8, 16, 32, 48])
        loads = r.random() < 0.3
        recurrence = r.random() < 0.3
        early = r.random() < 0.5
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        if early:
            B += ['if (i >= n)', '  return;']
        B.append('int stride = q * 2 + 1;')
        B.append('float base = p + (float)(blockIdx.x * stride);')
        B.append('float w[%d];' % T)
        B.append('for (int k = 0; k < %d; ++k)' % T)
        if loads:
            B.append('  w[k] = lut[(k + blockIdx.x) % 8] + base;')
        else:
            B.append('  w[k] = base - (float)(k * q);')
        if recurrence:
            B.append('for (int k = 1; k < %d; ++k)' % T)
            B.append('  w[k] += w[k - 1] * 0.5f;')
        if not early:
            B += ['if (i >= n)', '  return;']
        B.append('float acc = 0.0f;')
        B.append('for (int t = 0; t < %d; ++t)' % r.choice([3, 4, 6]))
        B.append('  acc += w[((ix[i] & 255) + t * stride) %% %d] * a[i];' % T)
        B.append('out[i] = acc;')
        self.grid_arg(k, str(n))
        return k

    def exchange(self, idx, r):
        k = Kernel('k%d_exchange' % idx)
        k.families.append('exchange')
        block = r.choice([32, 64, 128])
        grid = r.randint(2, 3)
        n = grid * block
        k.grid, k.block = grid, block
        ty = r.choice(['int', 'float'])
        variant = r.choice(['inside', 'hoisted', 'one-store'])
        kmax = r.choice([v for v in (8, 16, 32, 64, 128) if v <= block])
        k0 = r.choice([2, 4])
        data = Buf(k.name + '_data', ty, n,
                   'rand' if ty == 'float' else 'mask', True)
        k.bufs.append(data)
        k.params.append('%s *data' % ty)
        k.args.append(('buf', data.name, 0))
        S = 'FZ_X%d' % idx
        k.defines = ['#define %s %d' % (S, block),
                     '__device__ inline void fz_swap%d(%s &a, %s &b) {' % (idx, ty, ty),
                     '  %s c = a;' % ty, '  a = b;', '  b = c;', '}']
        B = k.body
        B.append('__shared__ %s s[%s];' % (ty, S))
        B.append('unsigned t = threadIdx.x;')
        B.append('s[t] = data[blockIdx.x * %s + t];' % S)
        B.append('__syncthreads();')
        B.append('for (unsigned k = %d; k <= %d; k *= 2) {' % (k0, kmax))
        B.append('  for (unsigned j = k / 2; j > 0; j /= 2) {')
        B.append('    unsigned p = t ^ j;')
        B.append('    if (p > t) {')
        if variant == 'inside':
            B += ['      if ((t & k) == 0) {',
                  '        if (s[p] < s[t])',
                  '          fz_swap%d(s[t], s[p]);' % idx,
                  '      } else {',
                  '        if (s[p] > s[t])',
                  '          fz_swap%d(s[t], s[p]);' % idx,
                  '      }']
        else:
            second = ['          s[p] = a;'] if variant == 'hoisted' else []
            B += ['      %s a = s[t];' % ty, '      %s b = s[p];' % ty,
                  '      if ((t & k) == 0) {', '        if (b < a) {',
                  '          s[t] = b;'] + second + \
                 ['        }', '      } else {', '        if (b > a) {',
                  '          s[t] = b;'] + second + ['        }', '      }']
        B += ['    }', '    __syncthreads();', '  }', '}',
              'data[blockIdx.x * %s + t] = s[t];' % S]
        # The reference: the same steps, one block at a time (the pairs of a
        # step are disjoint, so their order does not matter).
        hl = ['static void ref_%s(%s *data, int fz_grid, int fz_block) {' % (k.name, ty),
              '  for (int bx = 0; bx < fz_grid; ++bx) {',
              '    %s *s = data + bx * %s;' % (ty, S),
              '    for (unsigned k = %d; k <= %d; k *= 2)' % (k0, kmax),
              '      for (unsigned j = k / 2; j > 0; j /= 2)',
              '        for (unsigned t = 0; t < %s; ++t) {' % S,
              '          unsigned p = t ^ j;',
              '          if (p <= t)',
              '            continue;',
              '          %s a = s[t], b = s[p];' % ty,
              '          if ((t & k) == 0 ? b < a : b > a) {',
              '            s[t] = b;']
        if variant != 'one-store':
            hl.append('            s[p] = a;')
        hl += ['          }', '        }', '  }', '}']
        k.ref = '\n'.join(hl)
        k.grid_expr = str(grid)
        return k

    def helpers(self):
        dev, both = [], []
        u = self.uses
        if 'mul' in u:
            dev.append('#define DV_MUL __fmul_rn')
            dev.append('#define H_MUL h_fmul_rn')
        if 'acc' in u:
            if 'mul' in u:
                dev.append('#define DV_ACC(acc, val) acc += DV_MUL(val, 0.5f)')
                dev.append('#define H_ACC(acc, val) acc += H_MUL(val, 0.5f)')
            else:
                dev.append('#define DV_ACC(acc, val) acc += (val) * 0.5f')
                dev.append('#define H_ACC(acc, val) acc += (val) * 0.5f')
        if 'scale' in u:
            dev.append('#define DV_SCALE(v) ((v) * 0.75f + 0.125f)')
            dev.append('#define DV_TWICE(v) DV_SCALE(DV_SCALE(v))')
            dev.append('#define H_SCALE(v) ((v) * 0.75f + 0.125f)')
            dev.append('#define H_TWICE(v) H_SCALE(H_SCALE(v))')
        funcs = []
        if 'mix' in u:
            funcs.append('__device__ float dv_mix(float p, float q) {\n'
                         '  return p * 0.75f + q * 0.25f;\n}')
        if 'soft' in u:
            funcs.append('__device__ __forceinline__ float dv_soft(float p) {\n'
                         '  return p / (fabsf(p) + 1.0f);\n}')
        if 'chain' in u:
            funcs.append(self.chain_text('dv_chain_a', False))
            funcs.append(self.chain_text('dv_chain_b', True))
        if 'racc' in u:
            funcs.append('__device__ void dv_racc(float &acc, float val) {\n'
                         '  acc += val * 0.5f;\n}')
        if 'tacc' in u:
            funcs.append('template <int K>\n'
                         '__device__ void dv_tacc(float (&acc)[K], float val) {\n'
                         '  for (int k = 0; k < K; ++k)\n'
                         '    acc[k] += val * (float)(k + 1) * 0.125f;\n}')
        return dev, funcs

    def program(self):
        seed = self.seed
        out = []
        w = out.append
        w('// fuzz program, seed %d (generated by tests/fuzz/gen.py; do not edit)' % seed)
        w('#include <cuda_runtime.h>')
        w('')
        w('#include <cmath>')
        w('#include <cstdio>')
        w('#include <cstdlib>')
        w('#include <cstring>')
        w('')
        w('#ifdef __CUDACC__WW_CPU')
        w('// Rounding-mode intrinsics for the CPU executor, whatever it provides.')
        w('inline float fz_fmul_rn(float p, float q) { return p * q; }')
        w('inline float fz_fsqrt_rn(float p) { return sqrtf(p); }')
        w('#define __fmul_rn fz_fmul_rn')
        w('#define __fsqrt_rn fz_fsqrt_rn')
        w('#endif')
        w('')
        w('[[maybe_unused]] static float h_fmul_rn(float p, float q) { return p * q; }')
        w('[[maybe_unused]] static float h_fsqrt_rn(float p) { return sqrtf(p); }')
        w('[[maybe_unused]] static int fz_atomic_add(int *p, int v) {')
        w('  int old = *p;')
        w('  *p += v;')
        w('  return old;')
        w('}')
        dev, funcs = self.helpers()
        for k in self.kernels:
            dev += getattr(k, 'defines', [])
        if dev:
            w('')
            out.extend(dev)
        for f in funcs:
            w('')
            w(f)
            w('')
            # A helper that only a discarded draw called is not referenced
            # (nvcc #177 for a static host function; a __device__ one is
            # not reported).
            w(host_text(f).replace('static ', '[[maybe_unused]] static ', 1))
        for k in self.kernels:
            w('')
            w(self.kernel_text(k))
            w('')
            w(self.ref_text(k))
        w('')
        w('static unsigned fz_state = %du;' % (seed * 2654435761 % 2**32))
        w('static unsigned fz_next() {')
        w('  fz_state = fz_state * 1664525u + 1013904223u;')
        w('  return fz_state >> 8;')
        w('}')
        w('static int fz_calls = 0;')
        w('static int fz_salt = %d;' % self.salt)
        if 'gridof' in self.uses:
            w('static int fz_grid_of(int n, int block) {')
            w('  fz_calls++;')
            w('  return (n + block - 1) / block;')
            w('}')
        w('static unsigned long long fz_hash(const void *p, size_t n) {')
        w('  const unsigned char *c = (const unsigned char *)p;')
        w('  unsigned long long h = 1469598103934665603ull;')
        w('  for (size_t k = 0; k < n; ++k) {')
        w('    h ^= c[k];')
        w('    h *= 1099511628211ull;')
        w('  }')
        w('  return h;')
        w('}')
        w('[[maybe_unused]] static int fz_close(float g, float e) {')
        w('  if (g == e || (g != g && e != e))')
        w('    return 1;')
        w('  float d = fabsf(g - e);')
        w('  return d <= 1e-3f + 1e-3f * fabsf(e);')
        w('}')
        w('[[maybe_unused]] static int fz_check_f(const char *name, const float *got, const float *ref, int n) {')
        w('  for (int k = 0; k < n; ++k)')
        w('    if (!fz_close(got[k], ref[k])) {')
        w('      printf("%s[%d]: got %.9g, expected %.9g\\n", name, k, got[k], ref[k]);')
        w('      return 0;')
        w('    }')
        w('  return 1;')
        w('}')
        w('[[maybe_unused]] static int fz_check_i(const char *name, const int *got, const int *ref, int n) {')
        w('  for (int k = 0; k < n; ++k)')
        w('    if (got[k] != ref[k]) {')
        w('      printf("%s[%d]: got %d, expected %d\\n", name, k, got[k], ref[k]);')
        w('      return 0;')
        w('    }')
        w('  return 1;')
        w('}')
        w('')
        w('int main() {')
        w('  int ok = 1;')
        # fz_grid_of calls made by the launches so far: a side-effecting
        # argument of a `<<<>>>` launch whose grid is fz_grid_of(...) also
        # reads fz_calls, so that its value shows the launch's order of
        # evaluation (the configuration first, then the arguments); a
        # rewrite that evaluates them in another order computes another
        # result. A wrapper's call passes both as function arguments, whose
        # order C++ leaves open: there it reads fz_salt alone.
        grid_calls = 0
        for k in self.kernels:
            if k.grid_expr.startswith('fz_grid_of('):
                grid_calls += 1
            w('  {')
            w('    // %s (%s)' % (k.name, ', '.join(k.families)))
            for bf in k.bufs:
                t, c = bf.ctype, bf.count
                w('    %s *h_%s = (%s *)malloc(%d * sizeof(%s));' % (t, bf.name, t, c, t))
                w('    %s *r_%s = (%s *)malloc(%d * sizeof(%s));' % (t, bf.name, t, c, t))
                w('    %s *d_%s;' % (t, bf.name))
                w('    for (int k = 0; k < %d; ++k)' % c)
                if bf.init == 'rand':
                    w('      h_%s[k] = (float)(int)(fz_next() %% 4096u) / 2048.0f - 1.0f;' % bf.name)
                elif bf.init == 'fine':
                    # Every bit of the mantissa (fz_next() has 24 bits): the
                    # roundings that contraction skips show in the results.
                    w('      h_%s[k] = (float)fz_next() / 8388608.0f - 1.0f;' % bf.name)
                elif bf.init == 'mask':
                    w('      h_%s[k] = (int)(fz_next() %% 64u);' % bf.name)
                else:
                    w('      h_%s[k] = 0;' % bf.name)
                w('    memcpy(r_%s, h_%s, %d * sizeof(%s));' % (bf.name, bf.name, c, t))
                w('    cudaMalloc((void **)&d_%s, %d * sizeof(%s));' % (bf.name, c, t))
                w('    cudaMemcpy(d_%s, h_%s, %d * sizeof(%s), cudaMemcpyHostToDevice);'
                  % (bf.name, bf.name, c, t))
            dargs, rargs = [], []
            launch_grid = k.grid_expr
            for a in k.args:
                if a[0] == 'buf':
                    off = ' + %d' % a[2] if a[2] else ''
                    dargs.append('d_%s%s' % (a[1], off))
                    rargs.append('r_%s%s' % (a[1], off))
                elif (a[1] == 'fz_salt++' and not k.wrapper and
                      k.grid_expr.startswith('fz_grid_of(')):
                    dargs.append('fz_salt++ + 1000 * fz_calls')
                    rargs.append(str(int(a[2]) + 1000 * grid_calls))
                elif a[1] == 'fz_salt++' and not k.wrapper:
                    # A constant grid spelled to read fz_salt before the
                    # argument increments it: evaluated in the launch's
                    # order it is the grid; after the argument, one block
                    # fewer.
                    dargs.append(a[1])
                    rargs.append(a[2])
                    launch_grid = '%d + %s - fz_salt' % (k.grid, a[2])
                else:
                    dargs.append(a[1])
                    rargs.append(a[2])
            if k.wrapper:
                call = '    fz_launch_%s(' % k.name
                dargs = [k.grid_expr, str(k.block)] + dargs
            else:
                call = '    %s%s<<<%s, %d>>>(' % (k.name, k.tmpl_args,
                                                 launch_grid, k.block)
            out.extend(self.wrap(call, dargs, ');'))
            w('    if (cudaDeviceSynchronize() != cudaSuccess) {')
            w('      printf("%s: launch failed\\n");' % k.name)
            w('      ok = 0;')
            w('    }')
            out.extend(self.wrap('    ref_%s%s(' % (k.name, k.tmpl_args),
                                 rargs + [str(k.grid), str(k.block)], ');'))
            for bf in k.bufs:
                if not bf.written:
                    continue
                t, c = bf.ctype, bf.count
                w('    cudaMemcpy(h_%s, d_%s, %d * sizeof(%s), cudaMemcpyDeviceToHost);'
                  % (bf.name, bf.name, c, t))
                w('    ok &= fz_check_%s("%s", h_%s, r_%s, %d);' % (
                    'f' if t == 'float' else 'i', bf.name, bf.name,
                    bf.name, c))
                w('    printf("checksum %s %%016llx\\n", fz_hash(h_%s, %d * sizeof(%s)));'
                  % (bf.name, bf.name, c, t))
            for bf in k.bufs:
                w('    cudaFree(d_%s);' % bf.name)
                w('    free(h_%s);' % bf.name)
                w('    free(r_%s);' % bf.name)
            w('  }')
        w('  printf("launch side effects: calls %d, salt %d\\n", fz_calls, fz_salt);')
        w('  ok &= fz_salt == %d;' % self.salt_now)
        w('  if (!ok) {')
        w('    printf("fuzz %d: FAILED\\n");' % seed)
        w('    return 1;')
        w('  }')
        w('  printf("fuzz %d: OK\\n");' % seed)
        w('  return 0;')
        w('}')
        return '\n'.join(out) + '\n'


def main():
    flags = {'--no-rule-families': 'without', '--only-rule-families': 'only'}
    args = [a for a in sys.argv[1:] if a not in flags]
    chosen = [flags[a] for a in sys.argv[1:] if a in flags]
    if len(args) != 1 or len(chosen) > 1:
        raise SystemExit('usage: gen.py SEED [--no-rule-families | '
                         '--only-rule-families]')
    sys.stdout.write(Gen(int(args[0]), (chosen or ['with'])[0]).generate())


if __name__ == '__main__':
    main()
