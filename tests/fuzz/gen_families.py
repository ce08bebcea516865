"""gen_families.py - generator families for issue 26's general rules, mixed
into gen.py's Gen (class Gen(RuleFamilies)).

  nested   loop nests whose inner loop is the brace-less body of the outer
           one (`for (p) for (q) { s += a[..]; t += b[..]; }`, the single
           statement `for (p) for (q) s += ...;`, a while holding a for, a
           for holding a while, three deep, under an else, a triangular
           inner bound, now and then `#pragma unroll 1` between the loops),
           with independent accumulations over separate arrays, so that
           loop fission is a candidate; now and then a dependence between
           the accumulations that forbids it.
  fpchain  a divergent if-else whose arms have the same shape with different
           operands (fuse; nested ifs and loops in them for meld), followed
           by a chain of multiplies and adds over the arms' results
           (`acc = acc * k + p * q; acc += p * p;`), so that the places where
           nvcc contracts a product and an add into a fused multiply-add may
           move when the branch is merged: a rewrite must keep the results
           bit-identical on the GPU or decline. Its inputs use every bit of
           the mantissa, so that a moved rounding shows.
  extern   a kernel with external linkage (mostly; also extern "C", declared
           before its definition, static, in an anonymous namespace, with
           __launch_bounds__, launched directly or from a host function)
           whose threads compute launch-uniform arithmetic from its
           parameters (`int pitch = w + 2 * halo;`) and use it in a loop, so
           that variable sharing is a candidate: a kernel that other files
           may launch must keep its definition (tests/fuzz/run.py checks it).
  refill   a kernel whose threads each run a loop of data-dependent length
           on their own item (issue 30: `while (x > lim && it < cap) { x =
           x * k + c; ++it; }` from `x = |in[i]| * 64`, as a while, a for
           with a break or a do-while, behind an early return or an if;
           now and then a loop that only steps its own element,
           dec2zero's shape), so that the work refill is a candidate: by
           default under measured dispatch, forced with or without it.

Each family takes its own random.Random and never Gen.r, so that the kernels
gen.py drew before these stay the same, and adds nothing to Gen.uses.
"""
import re

# Each family is drawn in a share of the programs, from its own random
# stream (random.Random(seed * mul + add)).
FAMILY_SHARE = 0.35
FAMILY_STREAMS = [('nested', 1000003, 31), ('fpchain', 1000033, 37),
                  ('extern', 1000037, 41), ('refill', 1000039, 43)]
REFILL_K = ['0.5f', '0.75f', '0.625f', '0.875f']
REFILL_C = ['0.001f', '0.0625f', '0.125f', '0.25f']

# Multipliers below 1 keep the chains bounded.
CHAIN_K = ['0.5f', '0.75f', '0.25f', '0.875f', '0.625f', '0.375f']
ARM_C = ['0.5f', '0.25f', '0.75f', '1.25f', '0.125f', '0.375f', '0.625f',
         '0.875f']
FP_THRESH = ['0.0f', '0.25f', '-0.25f', '0.5f', '-0.5f']

# The statements of an fpchain arm: a template and its slots (x, y, z take
# a variable or a constant; c a constant; t a threshold; n a trip count).
ARM_FORMS = [
    ('p = {x} * {y} + {z};', 'xyz'),
    ('q = {x} * {y} - {z};', 'xyz'),
    ('p = {x} * {c} + {y} * {d};', 'xycd'),
    ('acc += {x} * {y};', 'xy'),
    ('acc -= {x} * {c};', 'xc'),
    ('q = ({x} + {y}) * {c};', 'xyc'),
    ('p += {x} * {c};', 'xc'),
    ('q = {x} * {y};', 'xy'),
    ('if ({x} > {t}) {{\n  p += {y} * {c};\n}}', 'xytc'),
    ('for (int k = 0; k < {n}; ++k)\n  q = q * {c} + {x} * {y};', 'xycn'),
]
CHAIN_FORMS = [
    'acc = acc * {K} + p * q;',
    'acc += p * p;',
    'acc -= q * w;',
    'acc = p * {K} + acc;',
    'acc += v * q;',
    'acc = acc * {K} - p * w;',
    'acc += p * {K} * q;',
    'float e{j} = p * q + acc;\nacc = e{j} * {K} + q * q;',
]


def indent(lines, by=1):
    return ['  ' * by + l if not l.startswith('#') else l for l in lines]


class RuleFamilies:
    """Methods of gen.py's Gen; self.Kernel and self.Buf are gen.py's
    classes."""

    def launch_of(self, k, r, partial=0.4):
        block = r.choice([32, 64, 128])
        grid = r.randint(2, 4)
        n = grid * block
        if r.random() < partial:
            n -= r.randint(1, 20)
        k.grid, k.block, k.grid_expr = grid, block, str(grid)
        return n

    def add_buf(self, k, name, ctype, count, init, written, param):
        bf = self.Buf(k.name + '_' + name, ctype, count, init, written)
        k.bufs.append(bf)
        k.params.append(param)
        k.args.append(('buf', bf.name, 0))
        return bf

    def add_scalar(self, k, param, value):
        k.params.append(param)
        k.args.append(('scalar', value, value))

    def wrapper_text(self, k):
        """A host function that launches the kernel: fz_launch_<name>(grid,
        block, the kernel's parameters)."""
        names = [re.search(r'(\w+)$', p).group(1) for p in k.params]
        return self.wrap('static void fz_launch_%s(' % k.name,
                         ['int fz_g', 'int fz_b'] + k.params, ') {') + \
            self.wrap('  %s<<<fz_g, fz_b>>>(' % k.name, names, ');') + ['}']

    # ------------------------------------------------------------- nested
    def nested(self, idx, r):
        k = self.Kernel('k%d_nested' % idx)
        k.families.append('nested')
        n = self.launch_of(k, r)
        P, Q = r.randint(2, 4), r.randint(2, 5)
        shape = r.choice(['for-for'] * 3 + ['single', 'while-bare',
                                            'while-braced', 'for-while',
                                            'triple', 'else', 'triangle'])
        k.families.append(shape)
        depth3 = 2 if shape == 'triple' else 1
        R = '__restrict__ ' if r.random() < 0.85 else ''
        ngroups = 2 if shape == 'single' else r.choice([2, 2, 3])
        names = 'abcdef'[:2 * ngroups]
        for nm in names:
            self.add_buf(k, nm, 'float', P * Q * depth3 * n, 'rand', False,
                         'const float *%s%s' % (R, nm))
        for g in range(ngroups):
            self.add_buf(k, 'o%d' % g, 'float', n, 'zero', True,
                         'float *%so%d' % (R, g))
        self.add_scalar(k, 'int n', str(n))
        self.add_scalar(k, 'int P', str(P))
        self.add_scalar(k, 'int Q', str(Q))
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        if n != k.grid * k.block or r.random() < 0.5:
            B += ['if (i >= n)', '  return;']
        groups = []
        for g in range(ngroups):
            x, y = names[2 * g], names[2 * g + 1]
            accs = ['s%d_%d' % (g, j) for j in range(r.randint(1, 2))]
            B += ['float %s = 0.0f;' % a for a in accs]
            groups.append((accs, [self.nested_stmt(r, a, x, y) for a in accs]))
        qb = 'Q' if r.random() < 0.7 else str(Q)
        if shape == 'single':
            # One statement as the inner body; the second group in a braced
            # nest of its own after it.
            B += self.nest(shape, [groups[0][1][0].format(o='{idx}')], qb, r)
            rest = groups[0][1][1:] + groups[1][1]
            B += self.nest('for-for', self.inner_body(rest, r), qb, r)
        else:
            # A dependence between the groups now and then: no fission.
            if r.random() < 0.25:
                src, dst = r.sample(range(ngroups), 2)
                groups[dst][1].append('%s += %s * 0.0625f;' % (
                    groups[dst][0][0], groups[src][0][-1]))
                k.families.append('dependence')
            order = []
            queues = [list(g[1]) for g in groups]
            while any(queues):
                q = r.choice([q for q in queues if q])
                order.append(q.pop(0))
            B += self.nest(shape, self.inner_body(order, r), qb, r)
        for g, (accs, _) in enumerate(groups):
            B.append('o%d[i] = %s;' % (g, ' + '.join(accs)))
        return k

    def nested_stmt(self, r, a, x, y):
        form = r.choice(['{a} += {x}[{o}];', '{a} += {x}[{o}] * {y}[{o}];',
                         '{a} += {x}[{o}] - {y}[{o}] * 0.5f;',
                         '{a} = {a} * 0.5f + {x}[{o}];',
                         '{a} -= {y}[{o}] * 0.25f;',
                         '{a} = fmaxf({a}, {x}[{o}] - {y}[{o}]);'])
        return form.format(a=a, x=x, y=y, o='{o}')

    def inner_body(self, stmts, r):
        """The statements with their index: a local `o` or written out."""
        if r.random() < 0.4:
            return ['int o = {idx};'] + [s.format(o='o') for s in stmts]
        return [s.format(o='{idx}') for s in stmts]

    def nest(self, shape, inner, qb, r):
        """The loop nest of a shape around the inner statements."""
        idx = {'while-bare': '((p - 1) * Q + q) * n + i',
               'triple': '((p * Q + q) * 2 + t) * n + i'}.get(
                   shape, '(p * Q + q) * n + i')
        inner = [s.replace('{idx}', idx) for s in inner]
        pragma = ['#pragma unroll 1'] if r.random() < 0.15 else []
        outer = 'for (int p = 0; p < P; ++p)'
        qcond = 'q < %s' % qb + (' && q <= p' if shape == 'triangle' else '')
        qloop = 'for (int q = 0; %s; ++q)' % qcond
        braced = [qloop + ' {'] + indent(inner) + ['}']
        if shape == 'single':
            return [outer] + pragma + indent([qloop] + indent(inner))
        if shape in ('for-for', 'triangle'):
            return [outer] + pragma + indent(braced)
        if shape == 'triple':
            return [outer, '  ' + qloop, '    for (int t = 0; t < 2; ++t) {'] + \
                indent(inner, 3) + ['    }']
        if shape == 'while-bare':
            return ['int p = 0;', 'while (p++ < P)'] + pragma + indent(braced)
        if shape == 'while-braced':
            return ['int p = 0;', 'while (p < P) {'] + indent(braced) + \
                ['  ++p;', '}']
        if shape == 'for-while':
            return [outer + ' {', '  int q = 0;', '  while (%s) {' % qcond] + \
                indent(inner, 2) + ['    ++q;', '  }', '}']
        # else: the nest is the brace-less else branch.
        return ['if (n < 0)', '  s0_0 = 1.0f;', 'else',
                '  ' + outer] + pragma + indent(braced, 2)

    # ------------------------------------------------------------ fpchain
    def fpchain(self, idx, r):
        k = self.Kernel('k%d_fpchain' % idx)
        k.families.append('fpchain')
        n = self.launch_of(k, r)
        rows = r.choice([1, 1, 2, 3])
        R = '__restrict__ ' if r.random() < 0.5 else ''
        use_mask = r.random() < 0.3
        two_out = r.random() < 0.4
        # Inputs with every bit of the mantissa: with gen.py's usual 12-bit
        # values most products are exact, and a moved contraction rarely
        # shows in the results.
        self.add_buf(k, 'a', 'float', n * rows, 'fine', False,
                     'const float *%sa' % R)
        self.add_buf(k, 'b', 'float', n * rows, 'fine', False,
                     'const float *%sb' % R)
        if use_mask:
            self.add_buf(k, 'm', 'int', n, 'mask', False, 'const int *%sm' % R)
        self.add_buf(k, 'out', 'float', n, 'zero', True, 'float *%sout' % R)
        if two_out:
            self.add_buf(k, 'out2', 'float', n, 'zero', True,
                         'float *%sout2' % R)
        self.add_scalar(k, 'int n', str(n))
        if rows > 1:
            self.add_scalar(k, 'int rows', str(rows))
        gain = r.random() < 0.5
        if gain:
            self.add_scalar(k, 'float gain', r.choice(CHAIN_K))
        cond = r.choice(['i % 2', 'threadIdx.x % 32 < 16', 'v > %s' % r.choice(FP_THRESH),
                         'w < %s' % r.choice(FP_THRESH), '(i / 32) % 2',
                         'threadIdx.x < 16'] + (['m[i] & 1'] * 2 if use_mask else []))
        arm = self.fp_arm(r)
        for _ in range(6):
            other = self.fp_mirror(arm, r)
            if other != arm:
                break
        chain = []
        for j in range(r.randint(2, 5)):
            K = 'gain' if gain and r.random() < 0.5 else r.choice(CHAIN_K)
            chain += r.choice(CHAIN_FORMS).format(K=K, j=j).split('\n')
        if two_out:
            chain.append('out2[i] = p - q;')
        # Each of v, w, p and q read after the branch (nvcc -Werror rejects
        # a variable set but never used).
        for x in ('v', 'w', 'p', 'q'):
            if not re.search(r'\b%s\b' % x, '\n'.join(chain)):
                chain.append('acc += %s * %s;' % (x, r.choice(CHAIN_K)))
        body = ['float v = a[%s];' % ('r * n + i' if rows > 1 else 'i'),
                'float w = b[%s];' % ('r * n + i' if rows > 1 else 'i'),
                'float p = %s;' % r.choice(['0.0f', 'v', 'w', 'v * w']),
                'float q = %s;' % r.choice(['0.0f', 'v', 'w', 'w * 0.5f']),
                'if (%s) {' % cond] + indent(self.fp_render(arm)) + \
            ['} else {'] + indent(self.fp_render(other)) + ['}'] + chain
        B = k.body
        B.append('int i = blockIdx.x * blockDim.x + threadIdx.x;')
        B += ['if (i >= n)', '  return;']
        B.append('float acc = %s;' % r.choice(['0.0f', '1.0f', '0.5f']))
        if rows > 1:
            B += ['for (int r = 0; r < rows; ++r) {'] + indent(body) + ['}']
        else:
            B += body
        B.append('out[i] = acc;')
        return k

    def fp_operand(self, r, consts=ARM_C):
        return r.choice(['v', 'w', 'p', 'q', 'v', 'w'] + consts[:2])

    def fp_arm(self, r):
        stmts = []
        for _ in range(r.randint(2, 4)):
            form, slots = r.choice(ARM_FORMS)
            vals = {}
            for s in slots:
                if s in 'xyz':
                    vals[s] = self.fp_operand(r)
                elif s in 'cd':
                    vals[s] = r.choice(ARM_C)
                elif s == 't':
                    vals[s] = r.choice(FP_THRESH)
                else:
                    vals[s] = str(r.randint(2, 3))
            stmts.append((form, vals))
        return stmts

    def fp_mirror(self, arm, r):
        """The same statements with other operands."""
        out = []
        for form, vals in arm:
            new = dict(vals)
            for s in vals:
                if s in 'xyz' and r.random() < 0.5:
                    new[s] = self.fp_operand(r)
                elif s in 'cd' and r.random() < 0.7:
                    new[s] = r.choice(ARM_C)
                elif s == 't' and r.random() < 0.5:
                    new[s] = r.choice(FP_THRESH)
            out.append((form, new))
        return out

    def fp_render(self, arm):
        lines = []
        for form, vals in arm:
            lines += form.format(**vals).split('\n')
        return lines

    # ------------------------------------------------------------- extern
    def extern(self, idx, r):
        k = self.Kernel('k%d_extern' % idx)
        k.families.append('extern')
        linkage = r.choice(['extern'] * 4 + ['extern-c', 'declared', 'static',
                                             'anon'])
        if linkage != 'extern':
            k.families.append(linkage)
        k.prefix = {'extern-c': 'extern "C" ', 'static': 'static '}.get(
            linkage, '')
        k.anon = linkage == 'anon'
        k.prototype = linkage == 'declared'
        k.wrapper = r.random() < 0.3
        if r.random() < 0.2:
            k.bounds = True
        w = self.launch_of(k, r, partial=0.5)
        h, halo = r.randint(2, 5), r.randint(0, 2)
        plane = (w + 2 * halo) * (h + 2 * halo)
        self.add_buf(k, 'in', 'float', 2 * plane, 'rand', False,
                     'const float *in')
        self.add_buf(k, 'out', 'float', w, 'zero', True, 'float *out')
        self.add_scalar(k, 'int w', str(w))
        self.add_scalar(k, 'int h', str(h))
        self.add_scalar(k, 'int halo', str(halo))
        uniform = ['int pitch = %s;' % r.choice(['w + 2 * halo', 'halo * 2 + w',
                                                 'w + halo + halo'])]
        with_plane = r.random() < 0.7
        if with_plane:
            uniform.append('int plane = pitch * (h + 2 * halo);')
        gain = '0.5f'
        if r.random() < 0.4:
            # Float arithmetic the host would compute instead.
            self.add_scalar(k, 'float scale', r.choice(ARM_C))
            uniform.append('float gain = scale * %s + %s;' % (
                r.choice(ARM_C), r.choice(ARM_C)))
            gain = 'gain'
        guard = ['int x = blockIdx.x * blockDim.x + threadIdx.x;',
                 'if (x >= w)', '  return;']
        B = k.body
        B += uniform + guard if r.random() < 0.6 else guard + uniform
        first = 'in[(y + halo) * pitch + x + halo]'
        second = 'in[plane + y * pitch + x]' if with_plane else \
            'in[(y + halo) * pitch + x]'
        B.append('float acc = 0.0f;')
        if r.random() < 0.5:
            B += ['for (int y = 0; y < h; ++y)',
                  '  acc += %s * %s %s %s;' % (first, gain, r.choice('+-'),
                                               second)]
        else:
            B += ['for (int y = 0; y < h; ++y) {',
                  '  float c = %s;' % first,
                  '  acc += c * %s;' % gain,
                  '  acc -= %s * %s;' % (second, r.choice(ARM_C)), '}']
        B.append('out[x] = acc;')
        return k

    # ------------------------------------------------------------- refill
    def refill(self, idx, r):
        k = self.Kernel('k%d_refill' % idx)
        k.families.append('refill')
        n = self.launch_of(k, r)
        R = '__restrict__ ' if r.random() < 0.7 else ''
        steps_only = r.random() < 0.2
        guard_return = r.random() < 0.6
        item = ['int i = blockIdx.x * blockDim.x + threadIdx.x;']
        if steps_only:
            # dec2zero: the loop only steps the item's own element.
            k.families.append('steps')
            self.add_buf(k, 'v', 'int', n, 'mask', True, 'int *%sv' % R)
            self.add_scalar(k, 'int n', str(n))
            loop = ['while (v[i] > 0)', '  v[i] -= 1;'] if r.random() < 0.5 \
                else ['while (v[i] > 0) {', '  v[i]--;', '}']
        else:
            self.add_buf(k, 'in', 'float', n, 'rand', False,
                         'const float *%sin' % R)
            self.add_buf(k, 'out', 'float', n, 'zero', True,
                         'float *%sout' % R)
            self.add_buf(k, 'steps', 'int', n, 'zero', True,
                         'int *%ssteps' % R)
            self.add_scalar(k, 'int n', str(n))
            cap = r.choice([8, 16, 32, 64])
            self.add_scalar(k, 'int cap', str(cap))
            kk, c = r.choice(REFILL_K), r.choice(REFILL_C)
            lim = r.choice(['0.5f', '1.0f', '2.0f'])
            shape = r.choice(['while', 'while', 'for-break', 'do'])
            k.families.append(shape)
            step = 'x = x * %s + %s;' % (kk, c)
            pre = ['float x = fabsf(in[i]) * 64.0f;', 'int it = 0;']
            if shape == 'while':
                body = ['while (x > %s && it < cap) {' % lim, '  ' + step,
                        '  ++it;', '}']
            elif shape == 'for-break':
                body = ['for (; it < cap; ++it) {',
                        '  if (x <= %s)' % lim, '    break;', '  ' + step,
                        '}']
            else:
                body = ['do {', '  ' + step, '  ++it;',
                        '} while (x > %s && it < cap);' % lim]
            loop = pre + body + ['out[i] = x;', 'steps[i] = it;']
        if guard_return:
            k.body += item + ['if (i >= n)', '  return;'] + loop
        else:
            k.families.append('if-guard')
            k.body += item + ['if (i < n) {'] + indent(loop) + ['}']
        return k
