#!/usr/bin/env python3
"""run.py - differential fuzzing campaign for warpwise.

  run.py --warpwise PATH --seeds A-B[,C,D-E] [--modes default,forced,...]
         [--nvcc PATH | --no-nvcc] [--arches sm_75,sm_90] [--no-werror]
         [--no-rule-families | --only-rule-families] [--out DIR] [-j N]
         [--gpu-batch DIR [--checks]]      (docs/fuzzing.md)

For each seed, tests/fuzz/gen.py writes a random, self-checking CUDA program;
for each mode, warpwise rewrites it and the result is checked:

  crash        warpwise died (signal, exit code other than 0/1, "internal
               error", a stack dump)
  refused      warpwise exited 1 on a program it must accept
  generator    the original itself does not compile with nvcc, does not build
               or pass its self-check on the CPU executor (a gen.py bug)
  nvcc         the rewritten program does not compile (nvcc -arch=sm_XX -c),
               with -Werror all-warnings where the original compiles with
               it (--werror, the default); where the original warns, the
               plain compile, and a warning that the original lacks fails
  linkage      a kernel with external linkage in the original (other files
               may launch it) is not defined in the rewritten program with
               the same name, parameters and linkage
  idempotence  rewriting the rewritten file again with the same flags changes
               it
  cpu          the original and the rewritten program, built with the CPU
               executor (tests/equiv), print different output
  setup        warpwise could not be started (e.g. while it is relinked)

One line per (seed, mode), in order; then a summary with the line
"N passed, M failed", the failures per class and how many programs had each
transformation applied. Exits 1 when anything failed. Failing cases keep
their files under --out (default: a fresh temporary directory).

--gpu-batch DIR writes, instead of checking (with --checks: as well), the
original and rewritten sources and DIR/run_gpu.sh, which compiles each pair
with nvcc -arch=sm_90 (-fmad=$FMAD, default true) on a machine with a GPU,
runs both and compares their output, checksums included.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, 'gen.py')
CPU_BUILD = os.path.join(HERE, '..', 'equiv', 'cpu_build.py')

MODES = {
    'default': [],
    'forced': ['--force-transforms'],
    'split-literal': ['--force-transforms', '--transforms', 'split',
                      '--split-form', 'literal'],
    'split-compact': ['--force-transforms', '--transforms', 'split',
                      '--split-form', 'compact'],
    'split-adaptive': ['--force-transforms', '--transforms', 'split',
                       '--split-form', 'adaptive'],
    'meld-branch-free': ['--force-transforms', '--transforms', 'meld',
                         '--meld-form', 'branch-free'],
    'realloc': ['--force-transforms', '--transforms', 'meld,realloc'],
    'share': ['--force-transforms', '--transforms', 'share'],
}
CLASSES = ['crash', 'refused', 'generator', 'nvcc', 'linkage', 'idempotence',
           'cpu', 'setup']
TRANSFORMS = ['meld', 'fuse', 'realloc', 'fission', 'split-literal',
              'split-compact', 'split-adaptive', 'share']


def parse_seeds(text):
    seeds = []
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        if '-' in part:
            a, b = part.split('-', 1)
            seeds += range(int(a), int(b) + 1)
        else:
            seeds.append(int(part))
    return seeds


def run(cmd, cwd, timeout=600):
    """(returncode, combined output); a timeout reads as returncode None."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode('utf-8', 'replace') if e.stdout else ''
        return None, out + '\n(timed out after %d s)' % timeout
    except OSError as e:
        # The command could not be started (e.g. warpwise being relinked):
        # exit code 127, as a shell reports it.
        return 127, 'cannot run %s: %s' % (cmd[0], e)


# A kernel definition: linkage words, attributes, name and parameters.
KERNEL_DEF = re.compile(
    r'^[ \t]*((?:(?:static|inline|extern\s+"C")\s+)*)'
    r'(?:__launch_bounds__\([^()]*\)\s*)?__global__\s+'
    r'(?:(?:static|inline)\s+)?void\s+(?:__launch_bounds__\([^()]*\)\s*)?'
    r'(\w+)\s*\(([^()]*)\)\s*\{', re.M)
ANON_NAMESPACE = re.compile(r'^namespace \{$.*?^\} // namespace$',
                            re.M | re.S)
WARNING = re.compile(r'warning\s*(#\d+-D)?\s*:\s*(.*)')


def external_kernels(text):
    """{(name, parameters)} of the kernels defined with external linkage
    (not static, not in an anonymous namespace), the parameters' spacing
    normalized."""
    text = ANON_NAMESPACE.sub('', text)
    out = set()
    for m in KERNEL_DEF.finditer(text):
        if 'static' in m.group(1).split():
            continue
        params = re.sub(r'\s*([*&,])\s*', r'\1', ' '.join(m.group(3).split()))
        out.add((('extern "C" ' if '"C"' in m.group(1) else '') + m.group(2),
                 params))
    return out


def warnings_of(out):
    """The set of warnings nvcc printed, without their file and line."""
    found = set()
    for line in out.splitlines():
        m = WARNING.search(line)
        if m:
            found.add(('%s: %s' % (m.group(1), m.group(2)) if m.group(1)
                       else m.group(2)).strip())
    return found


def crashed(rc, out):
    if rc is None or rc < 0 or rc not in (0, 1):
        return True
    return ('internal error' in out or 'Stack dump' in out
            or 'PLEASE submit a bug report' in out)


def describe_rc(rc):
    if rc is None:
        return 'timeout'
    if rc < 0:
        try:
            return 'signal %s' % signal.Signals(-rc).name
        except ValueError:
            return 'signal %d' % -rc
    return 'exit %d' % rc


class Campaign:
    def __init__(self, args):
        self.a = args
        self.flags = {}
        self.seed_lock = threading.Lock()
        self.seed_state = {}     # seed -> Future of the seed's preparation
        self.orig_nvcc = {}      # (seed, arch, werror) -> (ok, output)

    # -------------------------------------------------------------- per seed
    def seed_dir(self, seed):
        return os.path.join(self.a.out, 'seed%d' % seed)

    def prepare_seed(self, seed):
        """Generates the program, builds it for the CPU and runs it once."""
        d = self.seed_dir(seed)
        os.makedirs(d, exist_ok=True)
        flag = {'with': [], 'without': ['--no-rule-families'],
                'only': ['--only-rule-families']}[self.a.rule_families]
        rc, text = run([sys.executable, GEN, str(seed)] + flag, d)
        if rc != 0:
            return {'error': 'gen.py failed: ' + text}
        src = os.path.join(d, 'prog.cu')
        with open(src, 'w') as f:
            f.write(text)
        res = {'src': src, 'text': text, 'families': sorted(set(
            re.findall(r'^    // k\d+_(\w+) \(', text, re.M)))}
        if self.a.gpu_batch and not self.a.checks:
            return res
        rc, out = run([sys.executable, CPU_BUILD, 'prog.cu', 'prog.cpu'], d)
        if rc != 0:
            res['error'] = 'the original does not build for the CPU executor:\n' + out
            return res
        rc, out = run(['./prog.cpu'], d, timeout=120)
        res['stdout'] = out
        if rc != 0 or ': OK' not in out:
            res['error'] = ('the original fails its own check on the CPU '
                            'executor (%s):\n%s' % (describe_rc(rc), out[-2000:]))
        return res

    def seed_info(self, seed):
        with self.seed_lock:
            fut = self.seed_state.get(seed)
            if fut is None:
                fut = concurrent.futures.Future()
                self.seed_state[seed] = fut
                mine = True
            else:
                mine = False
        if mine:
            try:
                fut.set_result(self.prepare_seed(seed))
            except Exception as e:  # pragma: no cover - reported as generator
                fut.set_result({'error': 'preparing the seed failed: %r' % e})
        return fut.result()

    def nvcc(self, d, name, arch, werror=False):
        """nvcc -arch=ARCH -c NAME; with a list of arches, one -gencode
        each; with werror, -Werror all-warnings."""
        if isinstance(arch, list):
            flags = ['-gencode=arch=compute_%s,code=%s' % (x[3:], x) for x in arch]
            tag = 'all'
        else:
            flags, tag = ['-arch=' + arch], arch
        if werror:
            flags += ['-Werror', 'all-warnings']
        obj = os.path.join(d, '%s.%s.%d.o' % (name, tag, threading.get_ident()))
        rc, out = run([self.a.nvcc] + flags + ['-c', name, '-o', obj], d)
        if os.path.exists(obj):
            os.remove(obj)
        return rc == 0, out

    def original_compiles(self, seed, arch, werror=False):
        key = (seed, tuple(arch) if isinstance(arch, list) else arch, werror)
        if key not in self.orig_nvcc:
            self.orig_nvcc[key] = self.nvcc(self.seed_dir(seed), 'prog.cu',
                                            arch, werror)
        return self.orig_nvcc[key]

    # -------------------------------------------------------------- per unit
    def unit(self, seed, mode):
        try:
            return self.unit_checks(seed, mode)
        except Exception as e:  # a bug here must not stop the campaign
            d = os.path.join(self.seed_dir(seed), mode)
            os.makedirs(d, exist_ok=True)
            res = {'seed': seed, 'mode': mode, 'fail': ['generator'],
                   'applied': [], 'changed': False, 'dir': d,
                   'notes': ['run.py failed on this case: %r' % e]}
            return self.finish(res, time.time())

    def unit_checks(self, seed, mode):
        t0 = time.time()
        res = {'seed': seed, 'mode': mode, 'fail': [], 'applied': [],
               'notes': [], 'changed': False, 'decisions': []}
        info = self.seed_info(seed)
        d = os.path.join(self.seed_dir(seed), mode)
        res['dir'] = d
        os.makedirs(d, exist_ok=True)
        if 'src' not in info:
            res['fail'].append('generator')
            res['notes'].append(info['error'])
            return self.finish(res, t0)
        shutil.copy(info['src'], os.path.join(d, 'prog.cu'))
        flags = MODES[mode]
        ww = self.a.warpwise
        rc, out = run([ww, 'rewrite', 'prog.cu', '-o', 'prog.ww.cu',
                       '--report', 'r.json'] + flags, d)
        with open(os.path.join(d, 'rewrite.log'), 'w') as f:
            f.write(out)
        if rc == 127 and out.startswith('cannot run'):
            res['fail'].append('setup')
            res['notes'].append(out)
            return self.finish(res, t0)
        if crashed(rc, out):
            res['fail'].append('crash')
            res['notes'].append('warpwise rewrite: %s\n%s' % (describe_rc(rc), out[-3000:]))
            return self.finish(res, t0)
        if rc != 0 or not os.path.exists(os.path.join(d, 'prog.ww.cu')):
            # A generated program must be accepted, unless it is itself broken.
            broken = [arch for arch in self.a.arches
                      if self.a.nvcc and not self.original_compiles(seed, arch)[0]]
            if broken:
                res['fail'].append('generator')
                res['notes'].append('the original does not compile for %s:\n%s'
                                    % (broken[0], self.original_compiles(seed, broken[0])[1][-3000:]))
            else:
                res['fail'].append('refused')
                res['notes'].append('warpwise rewrite: %s\n%s' % (describe_rc(rc), out[-3000:]))
            return self.finish(res, t0)
        try:
            with open(os.path.join(d, 'r.json')) as f:
                report = json.load(f)
            for fl in report.get('files', []):
                for dec in fl.get('decisions', []):
                    t = dec.get('transform', '?')
                    if t == 'split':
                        t = 'split-' + (dec.get('form') or '?')
                    if dec.get('applied'):
                        res['applied'].append(t)
                    fam = re.match(r'k\d+_([a-z]+)', dec.get('kernel') or '')
                    reason = dec.get('reason') or ''
                    res['decisions'].append((
                        t, fam.group(1) if fam else '?', bool(dec.get('applied')),
                        'bit-identical' in reason or '-fmad' in reason))
        except (OSError, ValueError) as e:
            res['notes'].append('cannot read the report: %r' % e)
        with open(os.path.join(d, 'prog.ww.cu')) as f:
            rewritten = f.read()
        res['changed'] = rewritten != info['text']
        if res['changed']:
            missing = external_kernels(info['text']) - external_kernels(rewritten)
            if missing:
                res['fail'].append('linkage')
                res['notes'].append(
                    'kernels with external linkage (other files may launch '
                    'them) are no longer defined as written: %s' % ', '.join(
                        '%s(%s)' % m for m in sorted(missing)))
        if self.a.gpu_batch and not self.a.checks:
            return self.finish(res, t0)
        if 'error' in info:
            res['fail'].append('generator')
            res['notes'].append(info['error'])
        # Idempotence (an unchanged file rewrites as the original did).
        rc2, out2 = 0, ''
        if res['changed']:
            rc2, out2 = run([ww, 'rewrite', 'prog.ww.cu', '-o', 'prog.ww2.cu'] + flags, d)
        if crashed(rc2, out2):
            res['fail'].append('crash')
            res['notes'].append('warpwise rewrite of prog.ww.cu: %s\n%s'
                                % (describe_rc(rc2), out2[-3000:]))
        elif rc2 != 0:
            res['fail'].append('idempotence')
            res['notes'].append('rewriting prog.ww.cu again failed (%s):\n%s'
                                % (describe_rc(rc2), out2[-3000:]))
        elif res['changed']:
            with open(os.path.join(d, 'prog.ww2.cu')) as f:
                again = f.read()
            if again != rewritten:
                res['fail'].append('idempotence')
                res['notes'].append('rewriting prog.ww.cu again changed it '
                                    '(diff prog.ww.cu prog.ww2.cu)')
        if not res['changed']:
            return self.finish(res, t0)
        if self.a.nvcc:
            self.nvcc_checks(seed, d, res)
        # CPU executor.
        if 'error' not in info:
            rc, bout = run([sys.executable, CPU_BUILD, 'prog.ww.cu', 'prog.ww.cpu'], d)
            if rc != 0:
                res['fail'].append('cpu')
                res['notes'].append('the rewritten program does not build for '
                                    'the CPU executor:\n' + bout[-3000:])
            else:
                rc, rout = run(['./prog.ww.cpu'], d, timeout=120)
                with open(os.path.join(d, 'orig.out'), 'w') as f:
                    f.write(info['stdout'])
                with open(os.path.join(d, 'rewritten.out'), 'w') as f:
                    f.write(rout)
                if rout != info['stdout'] or rc != 0:
                    res['fail'].append('cpu')
                    res['notes'].append('output differs (%s; diff orig.out '
                                        'rewritten.out)' % describe_rc(rc))
        return self.finish(res, t0)

    def nvcc_checks(self, seed, d, res):
        """nvcc on the rewritten program, for every arch in one nvcc (one
        host compilation); on an error, once per arch to name the arch.
        With --werror: -Werror all-warnings where the original compiles
        with it; where the original warns, the plain compile, and a warning
        the original lacks is a failure too."""
        arches = self.a.arches
        werror = self.a.werror and self.original_compiles(seed, arches, True)[0]
        if self.a.werror:
            res['werror'] = 'yes' if werror else 'fallback'
        flag = ' -Werror all-warnings' if werror else ''
        ok, out = self.nvcc(d, 'prog.ww.cu', arches, werror)
        if ok and self.a.werror and not werror:
            new = warnings_of(out) - warnings_of(
                self.original_compiles(seed, arches)[1])
            if new:
                res['fail'].append('nvcc')
                res['notes'].append(
                    'nvcc -c prog.ww.cu warns where the original does not:\n'
                    + '\n'.join(sorted(new)))
        if not ok:
            for arch in arches:
                ok1, nout = self.nvcc(d, 'prog.ww.cu', arch, werror)
                if ok1:
                    continue
                if not self.original_compiles(seed, arch)[0]:
                    res['fail'].append('generator')
                    res['notes'].append('the original does not compile for %s'
                                        % arch)
                else:
                    res['fail'].append('nvcc')
                    res['notes'].append('nvcc%s -arch=%s -c prog.ww.cu:\n%s'
                                        % (flag, arch, nout[-3000:]))
                break
            else:
                res['fail'].append('nvcc')
                res['notes'].append('nvcc%s -c prog.ww.cu (all arches):\n%s'
                                    % (flag, out[-3000:]))
        if res.get('werror') == 'fallback':
            res['notes'].append('the original warns under -Werror all-warnings,'
                                ' so the rewritten program was compiled '
                                'without it')

    def finish(self, res, t0):
        res['fail'] = sorted(set(res['fail']), key=CLASSES.index)
        res['time'] = time.time() - t0
        if res['fail']:
            with open(os.path.join(res['dir'], 'FAILURE.txt'), 'w') as f:
                f.write('seed %d, mode %s: %s\nwarpwise rewrite prog.cu %s\n\n%s\n'
                        % (res['seed'], res['mode'], ', '.join(res['fail']),
                           ' '.join(MODES[res['mode']]), '\n\n'.join(res['notes'])))
        return res


def decisions_summary(results):
    """Per family (from the kernel's name), each transformation's
    decisions: applied/declined, and how many of the declined were declined
    because the floating-point results would change under nvcc's -fmad."""
    counts = {}
    for r in results:
        for t, fam, applied, fp in r.get('decisions', []):
            c = counts.setdefault(fam, {}).setdefault(t, [0, 0, 0])
            c[0 if applied else 1] += 1
            c[2] += fp and not applied
    lines = ['decisions on each family\'s kernels (applied/declined, '
             'declined for floating point):']
    for fam in sorted(counts):
        lines.append('  %-9s %s' % (fam, ', '.join(
            '%s %d/%d%s' % (t, a, d, ' (fp %d)' % f if f else '')
            for t, (a, d, f) in sorted(counts[fam].items()))))
    return '\n'.join(lines)


GPU_SCRIPT = r'''#!/usr/bin/env bash
# run_gpu.sh - written by tests/fuzz/run.py --gpu-batch. On a machine with a
# GPU: compiles every original sN.cu and each rewritten sN.MODE.cu with
# nvcc -arch=sm_90 -fmad=true (nvcc's default), runs both and compares their
# output, checksums included: they must be bit-identical.
# Usage: run_gpu.sh [NVCC]   (default: nvcc on PATH)
#   ARCH=sm_80 FMAD=false run_gpu.sh   another arch, or no contraction
set -u
cd "$(dirname "$0")"
nvcc=${1:-nvcc}
arch=${ARCH:-sm_90}
fmad=${FMAD:-true}
rm -rf bin && mkdir bin
pass=0 fail=0
# Compile everything first, in parallel; then run one program at a time.
ls s*.cu | sed 's/\.cu$//' | xargs -P "$(nproc)" -I{} sh -c \
  '"$0" -arch='$arch' -fmad='$fmad' -o bin/{} {}.cu >bin/{}.log 2>&1 || touch bin/{}.failed' "$nvcc"
for orig in $(ls s*.cu | grep -v '\..*\.cu$' | sort -V); do
  base=${orig%.cu}
  if [ -e bin/$base.failed ]; then
    echo "$base: the original does not compile"; fail=$((fail + 1)); continue
  fi
  bin/$base >bin/$base.out 2>&1
  if ! grep -q ': OK' bin/$base.out; then
    echo "$base: the original fails its self-check"; fail=$((fail + 1)); continue
  fi
  for rw in $(ls $base.*.cu 2>/dev/null); do
    name=${rw%.cu}
    if [ -e bin/$name.failed ]; then
      echo "$name: FAIL (does not compile)"; fail=$((fail + 1)); continue
    fi
    bin/$name >bin/$name.out 2>&1
    if cmp -s bin/$base.out bin/$name.out; then
      echo "$name: pass"; pass=$((pass + 1))
    else
      echo "$name: FAIL (output differs: diff bin/$base.out bin/$name.out)"
      fail=$((fail + 1))
    fi
  done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--warpwise', required=True)
    ap.add_argument('--seeds', required=True, help='A-B[,C,...]')
    ap.add_argument('--modes', default='default,forced,split-literal,'
                    'split-compact,split-adaptive',
                    help='modes, comma-separated, or "all" (%s)' %
                    ', '.join(MODES))
    ap.add_argument('--nvcc', default=None,
                    help='nvcc to compile with ("" to skip the nvcc checks)')
    ap.add_argument('--no-nvcc', action='store_true')
    ap.add_argument('--arches', default='sm_75,sm_90')
    ap.add_argument('--werror', action=argparse.BooleanOptionalAction,
                    default=True,
                    help='compile rewritten programs with -Werror all-warnings'
                    ' where the original compiles with it (default: on)')
    ap.add_argument('--out', default=None)
    ap.add_argument('-j', type=int, default=2)
    ap.add_argument('--no-rule-families', dest='rule_families',
                    action='store_const', const='without', default='with',
                    help="programs without gen_families.py's kernels (issue "
                    "26's rules): those of earlier versions, byte for byte")
    ap.add_argument('--only-rule-families', dest='rule_families',
                    action='store_const', const='only',
                    help="programs of gen_families.py's three kernels alone")
    ap.add_argument('--gpu-batch', default=None)
    ap.add_argument('--checks', action='store_true',
                    help='with --gpu-batch: check every case as well, and put '
                    'only the passing rewrites in the batch')
    ap.add_argument('--keep', action='store_true',
                    help='keep the files of passing cases as well')
    a = ap.parse_args()
    a.warpwise = os.path.abspath(a.warpwise)
    if a.no_nvcc:
        a.nvcc = ''
    elif a.nvcc is None:
        a.nvcc = shutil.which('nvcc') or (
            '/usr/local/cuda/bin/nvcc' if os.path.exists('/usr/local/cuda/bin/nvcc') else '')
    if a.nvcc:
        a.nvcc = os.path.abspath(a.nvcc) if os.sep in a.nvcc else a.nvcc
    a.arches = [x for x in a.arches.split(',') if x]
    modes = [m for m in a.modes.split(',') if m]
    if modes == ['all']:
        modes = list(MODES)
    for m in modes:
        if m not in MODES:
            ap.error('unknown mode %s (known: %s)' % (m, ', '.join(MODES)))
    seeds = parse_seeds(a.seeds)
    temp_out = a.out is None
    a.out = os.path.abspath(a.out or tempfile.mkdtemp(prefix='warpwise-fuzz-'))
    os.makedirs(a.out, exist_ok=True)
    if a.gpu_batch:
        a.gpu_batch = os.path.abspath(a.gpu_batch)
        os.makedirs(a.gpu_batch, exist_ok=True)
    if not a.nvcc and not a.gpu_batch:
        print('(no nvcc: the nvcc checks are skipped)')
    camp = Campaign(a)
    units = [(s, m) for s in seeds for m in modes]
    t0 = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        futs = [ex.submit(camp.unit, s, m) for s, m in units]
        for fut in futs:
            r = fut.result()
            results.append(r)
            status = 'FAIL(%s)' % ','.join(r['fail']) if r['fail'] else 'pass'
            print('seed %-5d %-16s %-22s %-5s applied: %s  [%.1fs]' % (
                r['seed'], r['mode'], status,
                'edit' if r['changed'] else 'same',
                ','.join(sorted(r['applied'])) or '-', r['time']), flush=True)
            if r['fail']:
                first = (r['notes'] or [''])[0].strip().splitlines()
                for line in first[:6]:
                    print('    ' + line)
                print('    files: %s' % r['dir'])
    elapsed = time.time() - t0
    # Summary.
    failed = [r for r in results if r['fail']]
    print('')
    print('== fuzz summary: %d seeds x %d modes = %d cases in %.0f s (-j %d)'
          % (len(seeds), len(modes), len(results), elapsed, a.j))
    print('%d passed, %d failed' % (len(results) - len(failed), len(failed)))
    print('failures by class: ' + ', '.join(
        '%s %d' % (c, sum(c in r['fail'] for r in results)) for c in CLASSES))
    print('programs with each transformation applied: ' + ', '.join(
        '%s %d' % (t, sum(t in r['applied'] for r in results)) for t in TRANSFORMS))
    if a.nvcc and a.werror and (a.checks or not a.gpu_batch):
        print('nvcc -Werror all-warnings: %d rewritten programs compiled with '
              'it, %d with the plain compile (their original warns)' % (
                  sum(r.get('werror') == 'yes' for r in results),
                  sum(r.get('werror') == 'fallback' for r in results)))
    fams = {}
    for s in seeds:
        for f in camp.seed_info(s).get('families', []):
            fams[f] = fams.get(f, 0) + 1
    print('programs holding each family: ' + ', '.join(
        '%s %d' % kv for kv in sorted(fams.items())))
    print(decisions_summary(results))
    for m in modes:
        rs = [r for r in results if r['mode'] == m]
        print('  %-16s %d programs (%d rewritten): %s; applied %s' % (
            m, len(rs), sum(r['changed'] for r in rs),
            ', '.join('%s %d' % (c, sum(c in r['fail'] for r in rs)) for c in CLASSES),
            ', '.join('%s %d' % (t, sum(t in r['applied'] for r in rs))
                      for t in TRANSFORMS if any(t in r['applied'] for r in rs)) or '-'))
    # GPU batch.
    if a.gpu_batch:
        for s in seeds:
            info = camp.seed_info(s)
            if 'src' in info:
                shutil.copy(info['src'], os.path.join(a.gpu_batch, 's%d.cu' % s))
        for r in results:
            src = os.path.join(r['dir'], 'prog.ww.cu')
            if r['changed'] and not r['fail'] and os.path.exists(src):
                shutil.copy(src, os.path.join(a.gpu_batch, 's%d.%s.cu' % (r['seed'], r['mode'])))
                # warpwise's runtime, which split outputs include (one text
                # for every output of one warpwise).
                runtime = os.path.join(r['dir'], 'warpwise_runtime.cuh')
                if os.path.exists(runtime):
                    shutil.copy(runtime, a.gpu_batch)
        script = os.path.join(a.gpu_batch, 'run_gpu.sh')
        with open(script, 'w') as f:
            f.write(GPU_SCRIPT)
        os.chmod(script, 0o755)
        print('gpu batch: %s (%d rewritten programs; run %s there)' % (
            a.gpu_batch, sum(1 for r in results if r['changed'] and not r['fail']),
            'run_gpu.sh'))
    # Keep only the failing cases.
    if not a.keep:
        for r in results:
            if not r['fail']:
                shutil.rmtree(r['dir'], ignore_errors=True)
        for s in seeds:
            d = camp.seed_dir(s)
            if not any(x for x in os.listdir(d) if x in MODES) if os.path.isdir(d) else False:
                shutil.rmtree(d, ignore_errors=True)
        if temp_out and not failed:
            shutil.rmtree(a.out, ignore_errors=True)
    if failed:
        print('failing cases are kept under %s (see FAILURE.txt in each)' % a.out)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
