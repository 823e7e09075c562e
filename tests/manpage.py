#!/usr/bin/env python3
"""manpage.py BPF_INVCHECK SOURCE_ROOT BUILD_ROOT: the man page and the bash
completion agree with --help.

Every option of `bpf-invcheck --help` has an entry (.TP tag) in
docs/bpf-invcheck.1 and vice versa, a row of README.md's options table
(but --help and --version), and the bash completion offers exactly
those options: when you add an option, document it there. The page renders
without warnings (when groff is installed), meson installs it as
share/man/man1/bpf-invcheck.1 and the completion under
share/bash-completion/completions, and the completion completes.
"""
import json
import os
import re
import shutil
import subprocess
import sys

BIN, SRC, BUILD = (os.path.abspath(a) for a in sys.argv[1:4])
fails = 0
OPT = re.compile(r"(?<![A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*")


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print(f"FAIL: {what}")


help_text = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
# option lines: two spaces and a dash; the tag ends at two spaces or the line's end
help_opts = set()
for line in help_text.splitlines():
    if line.startswith("  -"):
        help_opts |= set(OPT.findall(re.split(r"\s{2,}", line.strip())[0]))

page = open(f"{SRC}/docs/bpf-invcheck.1").read().splitlines()
man_opts = set()
section = None
for k, line in enumerate(page):
    if line.startswith(".SH"):
        section = line[4:].strip()
    if section == "OPTIONS" and k and page[k - 1] == ".TP":
        tag = re.sub(r"\\f[BIRP]", "", line).replace("\\-", "-")
        man_opts |= set(OPT.findall(tag))

check(len(help_opts) >= 14, f"--help lists {len(help_opts)} options: {sorted(help_opts)}")
for o in sorted(help_opts - man_opts):
    check(False, f"option {o} is in --help but not in docs/bpf-invcheck.1: add a .TP entry under OPTIONS")
for o in sorted(man_opts - help_opts):
    check(False, f"option {o} is in docs/bpf-invcheck.1 but not in --help: remove it or add it to usage()")

# the README's options table names every option but --help and --version
readme = open(f"{SRC}/README.md").read()
for o in sorted(help_opts - {"--help", "--version", "-h", "-V"}):
    check(re.search(r"(\| |, )`" + re.escape(o) + r"[`= ]", readme) is not None,
          f"option {o} is in --help but not in README.md's options table")

comp = open(f"{SRC}/completions/bpf-invcheck.bash").read()
m = re.search(r'local opts="([^"]*)"', comp)
comp_opts = {o.rstrip("=") for o in m.group(1).split()} if m else set()
check(comp_opts == help_opts, f"completions/bpf-invcheck.bash offers {sorted(comp_opts ^ help_opts)} "
      "differently from --help")

if shutil.which("groff"):
    p = subprocess.run(["groff", "-man", "-ww", "-z", f"{SRC}/docs/bpf-invcheck.1"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"groff warns: {p.stderr}")
else:
    print("manpage: groff is not installed: rendering not checked")

installed = json.load(open(f"{BUILD}/meson-info/intro-installed.json"))
dests = {os.path.relpath(v, "/") for k, v in installed.items()}
check(any(d.endswith("share/man/man1/bpf-invcheck.1") for d in dests) and
      any(k.endswith("docs/bpf-invcheck.1") for k in installed), "meson installs the man page")
check(any(d.endswith("share/bash-completion/completions/bpf-invcheck") for d in dests),
      "meson installs the bash completion")

if shutil.which("bash"):
    script = (f"source {SRC}/completions/bpf-invcheck.bash\n"
              "COMP_WORDS=(bpf-invcheck --for); COMP_CWORD=1; _bpf_invcheck; echo \"${COMPREPLY[*]}\"\n"
              "COMP_WORDS=(bpf-invcheck --format=s); COMP_CWORD=1; _bpf_invcheck; echo \"${COMPREPLY[*]}\"\n"
              "COMP_WORDS=(bpf-invcheck --cex-d); COMP_CWORD=1; _bpf_invcheck; echo \"${COMPREPLY[*]}\"\n")
    p = subprocess.run(["bash", "-O", "extglob", "-c", script], capture_output=True, text=True)
    check(p.stdout == "--format=\n--format=sarif\n--cex-dir= --cex-dot\n",
          f"completion: {p.stdout!r} {p.stderr!r}")
print(f"manpage: {len(help_opts)} options, {'ok' if not fails else f'{fails} failed'}")
sys.exit(1 if fails else 0)
