#!/usr/bin/env python3
"""progress.py BPF_INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR: the progress line.

On a terminal (stderr a pty) checking several invariants shows
"[DONE/TOTAL] CHECK done" rewritten in place and cleared at the end, exactly;
piped or redirected stderr gets nothing; one check gets no progress line;
the report on stdout is the same either way.
"""
import os
import pty
import subprocess
import sys
import tempfile

BIN, SRC, EX = (os.path.abspath(a) for a in sys.argv[1:4])
fails = 0


def on_pty(args):
    m, s = pty.openpty()
    p = subprocess.Popen([BIN] + args, cwd=SRC, stdout=subprocess.PIPE, stderr=s)
    os.close(s)
    err = b""
    while True:
        try:
            d = os.read(m, 4096)
        except OSError:   # EIO: the other side closed
            break
        if not d:
            break
        err += d
    out = p.stdout.read()
    p.wait()
    os.close(m)
    return p.returncode, out, err


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print(f"FAIL: {what}")


args = ["--jobs=1", f"{EX}/xdp_fw.bpf.o", "examples/xdp_fw.inv"]
rc, out, err = on_pty(args)
names = ["xdp.never_abort", "ipv4_tcp_ssh_passes", "drop_only_ipv4", "no_user_writes", "bound_insns",
         "xdp.drops_only_if"]
want = f"\r\x1b[K[0/{len(names)}] checking {EX}/xdp_fw.bpf.o"
for k, n in enumerate(names):
    want += f"\r\x1b[K[{k + 1}/{len(names)}] xdp_fw.{n} done"
want += "\r\x1b[K"
check(rc == 0 and err.decode() == want, f"on a terminal: exit {rc}, stderr {err!r}, expected {want!r}")
p = subprocess.run([BIN] + args, cwd=SRC, capture_output=True)
check(p.returncode == 0 and p.stderr == b"", f"piped: exit {p.returncode}, stderr {p.stderr!r}")
check(p.stdout == out, "the report is the same on a terminal and piped")
with tempfile.TemporaryFile() as f:
    q = subprocess.run([BIN] + args, cwd=SRC, stdout=subprocess.PIPE, stderr=f)
    f.seek(0)
    check(q.returncode == 0 and f.read() == b"", "stderr redirected to a file: no progress line")
one = os.path.join(tempfile.mkdtemp(), "one.inv")
open(one, "w").write('program "xdp_fw" {\n  invariant x { on exit { assert ret <= 4; } }\n}\n')
rc, out, err = on_pty([f"{EX}/xdp_fw.bpf.o", one])
check(rc == 0 and err == b"" and out.endswith(b"1 check: 1 hold, 0 violated, 0 unknown\n"),
      f"one check on a terminal: exit {rc}, stderr {err!r}")
os.unlink(one)
print(f"progress: {'ok' if not fails else f'{fails} failed'}")
sys.exit(1 if fails else 0)
