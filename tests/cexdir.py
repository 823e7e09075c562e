#!/usr/bin/env python3
"""cexdir.py BPF_INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR: --cex-dir, --cex-dot, --replay.

- xdp_fw_bug: CHECK.pcap is a classic pcap (parsed here field by field:
  magic, version, snaplen, Ethernet link type, one record) whose packet is
  the counterexample's packet of --format=json byte for byte (and tshark's
  hex dump of it, when tshark is installed); cgroup_skb_bug's is raw IP.
- CHECK.replay.json re-runs with --replay: exit 1 and the same failing
  assert as the check's report; against the fixed program it does not
  apply (exit 3); with the packet changed so that no assert fails, exit 0.
- Malformed replay files: exit 2, one exact message on stderr, nothing on
  stdout; truncations and byte mutations never crash (exit 0..3, and one
  line on stderr for exit 2).
- --cex-dot: the DOT has the failing block red and the path's edges red;
  SVG when dot is installed, a note (and no SVG) when it is not on PATH.
- Nothing is written for checks that hold; usage and directory errors.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

BIN, SRC, EX = (os.path.abspath(a) for a in sys.argv[1:4])
fails = 0
checks = 0


def check(cond, what):
    global fails, checks
    checks += 1
    if not cond:
        fails += 1
        print(f"FAIL: {what}")


def run(args, env=None):
    return subprocess.run([BIN] + args, cwd=SRC, capture_output=True, text=True, env=env)


def parse_pcap(path):
    d = open(path, "rb").read()
    magic, vmaj, vmin, zone, sigfigs, snap, link = struct.unpack("<IHHiIII", d[:24])
    recs, off = [], 24
    while off < len(d):
        ts, us, incl, orig = struct.unpack("<IIII", d[off:off + 16])
        recs.append((ts, us, incl, orig, d[off + 16:off + 16 + incl]))
        off += 16 + incl
    return (magic, vmaj, vmin, zone, sigfigs, snap, link), recs, off == len(d)


def tshark_bytes(path):
    p = subprocess.run(["tshark", "-r", path, "-x"], capture_output=True, text=True)
    out = bytearray()
    for line in p.stdout.splitlines():
        parts = line.split("  ")
        if len(parts) >= 2 and len(parts[0]) == 4 and all(c in "0123456789abcdef" for c in parts[0]):
            out += bytes.fromhex(parts[1].replace(" ", ""))
    return bytes(out)


def main():
    tmp = tempfile.mkdtemp()
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp)
    print(f"cexdir: {checks - fails} passed, {fails} failed")
    return 1 if fails else 0


def body(tmp):
    bug = [f"{EX}/xdp_fw_bug.bpf.o", "examples/xdp_fw.inv"]
    cdir = f"{tmp}/cex"
    p = run(["--format=json", f"--cex-dir={cdir}", "--cex-dot"] + bug)
    check(p.returncode == 1, f"--cex-dir on xdp_fw_bug: exit {p.returncode}: {p.stderr}")
    rep = json.loads(p.stdout)
    viol = [r for r in rep["results"] if r["verdict"] == "violated"]
    name = "xdp_fw.ipv4_tcp_ssh_passes"
    other = "xdp_fw.xdp.drops_only_if"
    check([r["check"] for r in viol] == [name, other], f"violations {[r['check'] for r in viol]}")
    have_dot = shutil.which("dot") is not None
    want = {n + e for n in (name, other)
            for e in (".replay.json", ".pcap", ".dot") + ((".svg",) if have_dot else ())}
    check(set(os.listdir(cdir)) == want, f"files {sorted(os.listdir(cdir))} != {sorted(want)}")

    # the pcap, byte for byte
    hdr, recs, whole = parse_pcap(f"{cdir}/{name}.pcap")
    check(hdr == (0xa1b2c3d4, 2, 4, 0, 0, 65535, 1), f"pcap header {hdr}")
    pkt = bytes.fromhex(viol[0]["counterexample"]["packet"])
    check(whole and len(recs) == 1, f"pcap records {len(recs)}")
    check(len(pkt) == viol[0]["counterexample"]["packet_len"] == 54, f"packet length {len(pkt)}")
    check(recs and recs[0][:4] == (0, 0, len(pkt), len(pkt)), f"pcap record header {recs[0][:4]}")
    check(recs and recs[0][4] == pkt, "the pcap's packet is the counterexample's packet")
    if shutil.which("tshark"):
        check(tshark_bytes(f"{cdir}/{name}.pcap") == pkt, "tshark reads back the packet")
    else:
        print("cexdir: tshark is not installed: the pcap is checked by the parser here only")

    # raw IP for cgroup_skb (its packet starts at the IP header)
    p = run([f"--cex-dir={tmp}/cg", f"{EX}/cgroup_skb_bug.bpf.o", "examples/cgroup_skb.inv"])
    pcaps = [f for f in os.listdir(f"{tmp}/cg") if f.endswith(".pcap")]
    check(p.returncode == 1 and len(pcaps) == 1, f"cgroup_skb_bug: exit {p.returncode}, {pcaps}")
    if pcaps:
        hdr, recs, whole = parse_pcap(f"{tmp}/cg/{pcaps[0]}")
        check(hdr[6] == 101 and whole and len(recs) == 1 and recs[0][4][0] >> 4 in (4, 6),
              f"cgroup_skb pcap: link type {hdr[6]}, an IP packet")

    # --replay: the same failing assert
    rf = f"{cdir}/{name}.replay.json"
    p = run([f"--replay={rf}"] + bug[:1])
    text = run(bug).stdout.splitlines()
    first = [l for l in text if f"invariant {name} violated" in l]
    out = p.stdout.splitlines()
    check(p.returncode == 1 and p.stderr == "", f"--replay: exit {p.returncode}: {p.stderr}")
    check(out[:1] == first, f"--replay first line {out[:1]} != {first}")
    check(out and out[-1] == "    assert 0 failed at exit: r0 = 1 after 52 instructions",
          f"--replay last line {out[-1:]}")
    check("\n".join(out[2:]) == "\n".join(text[text.index(first[0]) + 2:text.index(first[0]) + len(out)]),
          "--replay prints the check's counterexample report")
    p = run([f"--replay={rf}", f"{EX}/xdp_fw.bpf.o"])
    check(p.returncode == 3 and p.stdout ==
          f"{rf}: the counterexample of {name} does not apply: call at xdp+64 is "
          "bpf_map_lookup_elem, the counterexample expected bpf_map_lookup_elem at xdp+107 (call 0)\n",
          f"--replay on the fixed program: {p.returncode} {p.stdout!r}")
    d = json.load(open(rf))
    reg = [r for r in d["cex"]["regions"] if r["kind"] == "packet"][0]
    b = bytearray.fromhex(reg["bytes"])
    off = d["cex"]["pkt"] - reg["base"]
    check(b[off + 36:off + 38] == b"\x00\x16", "the counterexample is SSH (port 22)")
    b[off + 37] = 23
    reg["bytes"] = b.hex()
    json.dump(d, open(f"{tmp}/telnet.json", "w"))
    p = run([f"--replay={tmp}/telnet.json"] + bug[:1])
    check(p.returncode == 0 and p.stdout == f"{tmp}/telnet.json: {name} no longer fails: exited with "
          "r0 = 1 after 52 instructions, no assert failed\n", f"telnet replay: {p.returncode} {p.stdout!r}")

    # malformed replay files: exit 2 and one exact message
    good = open(rf).read()

    def bad(content, msg, name="bad.json", obj=bug[0]):
        path = f"{tmp}/{name}"
        if content is not None:
            open(path, "w").write(content)
        q = run([f"--replay={path}", obj])
        check(q.returncode == 2 and q.stdout == "" and q.stderr == msg.replace("F:", path + ":") + "\n",
              f"bad replay file {content[:40] if content else name!r}: exit {q.returncode}, "
              f"stderr {q.stderr!r}, expected {msg!r}")

    def edit(f):
        d = json.loads(good)
        f(d)
        return json.dumps(d)

    def at(content, needle, add=0):   # ` stands for " (f-strings of 3.11 take no backslash)
        return content.index(needle.replace("`", '"')) + 1 + add

    bad("hello\n", "F:1:1: error: expected a value (object, array, string, integer, true, false or null)")
    bad("", "F:1:1: error: unexpected end of file (expected a value)")
    bad('{"format": "bpf-invcheck re', "F:1:28: error: unterminated string")
    bad("[1, 2]", "F:1:1: error: a replay file is a JSON object, not an array")
    bad('{"a": 1, "a": 2}', "F:1:10: error: duplicate key 'a' in an object")
    bad('{"a": 1.5}', "F:1:8: error: expected an integer (no fractions or exponents here)")
    bad('{"a": 01}', "F:1:9: error: a number with a leading zero")
    bad('{"a": "\\q"}', "F:1:9: error: bad escape in a string")
    bad("[" * 40, "F:1:34: error: nested too deeply")
    bad('{"a": 1} x', "F:1:10: error: text after the end of the value")
    c = edit(lambda d: d.update(version=2))
    bad(c, f"F:1:{at(c, '`version`: 2', 11)}: error: unsupported version 2 (this bpf-invcheck reads version 1)")
    c = edit(lambda d: d.update(format="pcap"))
    bad(c, f"F:1:{at(c, '`pcap')}: error: 'format' is 'pcap', not 'bpf-invcheck replay'")
    bad(edit(lambda d: d.pop("cex")), "F:1:1: error: 'cex' is missing (an object)")
    c = edit(lambda d: d.update(spec=5))
    bad(c, f"F:1:{at(c, '`spec`: 5', 8)}: error: 'spec' must be a string, not an integer")
    c = edit(lambda d: d.update(check="xdp_fw.nope"))
    bad(c, f"F:1:{at(c, '`xdp_fw.nope')}: error: check 'xdp_fw.nope' is not in {SRC}/examples/xdp_fw.inv "
        f"(against {EX}/xdp_fw_bug.bpf.o)")
    c = edit(lambda d: d["cex"]["regions"][1].update(bytes="0g"))
    bad(c, f"F:1:{at(c, '`0g')}: error: cex.regions[1]: '0g' is not a hex byte")
    c = edit(lambda d: d["cex"]["regions"][1].update(bytes="abc"))
    bad(c, f"F:1:{at(c, '`abc')}: error: cex.regions[1]: expected an even number of lowercase hex digits "
        "(at most 16777216 bytes)")
    c = edit(lambda d: d["cex"]["regions"][0].update(kind="disk"))
    bad(c, f"F:1:{at(c, '`disk')}: error: cex.regions[0]: unknown region kind 'disk'")
    c = edit(lambda d: d["cex"]["regions"][0].pop("base"))
    bad(c, f"F:1:{at(c, '{`name`: `ctx')}: error: cex.regions[0]: 'base' is missing (an integer)")
    c = edit(lambda d: d["cex"]["calls"][0].update(kfunc=7))
    bad(c, f"F:1:{at(c, '7, `ret')}: error: cex.calls[0]: 'kfunc' must be -1 or a kfunc index below 0 "
        f"({EX}/xdp_fw_bug.bpf.o)")
    c = edit(lambda d: d["cex"]["calls"][0].update(ret=-2))
    bad(c, f"F:1:{at(c, '`ret`: -2', 7)}: error: cex.calls[0]: 'ret' must be from 0 to 18446744073709551615")
    c = edit(lambda d: d["cex"].update(max_steps=1 << 40))
    bad(c, f"F:1:{at(c, str(1 << 40))}: error: cex: 'max_steps' must be from 0 to 67108864")
    c = edit(lambda d: d["cex"].update(args=[1, 2]))
    bad(c, f"F:1:{at(c, '[1, 2]')}: error: cex: 'args' must have 5 numbers, not 2")
    c = edit(lambda d: d["cex"].update(pkt_end=d["cex"]["pkt"] - 1))
    bad(c, f"F:1:{at(c, '`pkt`: ', 7)}: error: cex: 'pkt' is above 'pkt_end'")
    c = edit(lambda d: d["cex"]["reads"].append({"addr": 1, "size": 3, "value": 0}))
    bad(c, f"F:1:{at(c, '3, `value')}: error: cex.reads[0]: 'size' must be 1, 2, 4 or 8")
    c = edit(lambda d: d.update(site=9))
    bad(c, f"F:1:{at(c, '9, `message')}: error: 'site' 9: check {name} has asserts 0 to 0")
    c = edit(lambda d: d["cex"]["regions"][1].update(base=d["cex"]["regions"][0]["base"]))
    bad(c, "F: error: the counterexample cannot be set up: counterexample region 1 "
        "(packet, 0x600000000000, 374 bytes) cannot be set up")
    bad(None, "F: error: cannot read: No such file or directory", name="missing.json")
    os.mkdir(f"{tmp}/adir")
    bad(None, "F: error: cannot read: Is a directory", name="adir")

    # damaged files never crash: exit 0..3, one line on stderr for 2
    rnd = random.Random(6)
    raw = good.encode()
    cases = [raw[:n] for n in range(0, len(raw), max(1, len(raw) // 60))]
    for _ in range(60):
        m = bytearray(raw)
        m[rnd.randrange(len(m))] = rnd.choice(b'{}[]",:-0123456789abcdefxn \n')
        cases.append(bytes(m))
    for k, c in enumerate(cases):
        open(f"{tmp}/m.json", "wb").write(c)
        q = run([f"--replay={tmp}/m.json", bug[0]])
        ok = q.returncode in (0, 1, 3) or (q.returncode == 2 and q.stderr.count("\n") == 1 and not q.stdout)
        check(ok, f"damaged replay file {k}: exit {q.returncode}, stderr {q.stderr!r}")

    # --cex-dot
    dot = open(f"{cdir}/{name}.dot").read()
    check(dot.startswith("digraph cex {") and dot.count("#ff8080") == 1 and dot.count("color=red") >= 5,
          "the DOT highlights the failing block and the path")
    check('b30  examples/xdp_fw.bpf.c:142' in [l for l in dot.splitlines() if "#ff8080" in l][0],
          "the failing block is the exit at xdp_fw.bpf.c:142 (xdp_fw_bug)")
    if have_dot:
        check(open(f"{cdir}/{name}.svg").read().lstrip().startswith("<?xml"), "the SVG is rendered")
    env = dict(os.environ, PATH="/nonexistent")
    p = run([f"--cex-dir={tmp}/nodot", "--cex-dot", "--quiet"] + bug, env=env)
    check(p.returncode == 1 and p.stderr == "bpf-invcheck: note: dot (Graphviz) is not installed: "
          "wrote the .dot files only\n" and not os.path.exists(f"{tmp}/nodot/{name}.svg")
          and os.path.exists(f"{tmp}/nodot/{name}.dot"), f"without dot: {p.returncode} {p.stderr!r}")

    # holds: nothing written; usage and directory errors
    p = run([f"--cex-dir={tmp}/none", f"{EX}/xdp_fw.bpf.o", "examples/xdp_fw.inv"])
    check(p.returncode == 0 and os.listdir(f"{tmp}/none") == [], "nothing for checks that hold")
    p = run(["--cex-dot"] + bug)
    check(p.returncode == 2 and p.stderr == "bpf-invcheck: error: --cex-dot needs --cex-dir=DIR; try "
          "'bpf-invcheck --help'\n", f"--cex-dot alone: {p.stderr!r}")
    open(f"{tmp}/afile", "w").write("x")
    p = run([f"--cex-dir={tmp}/afile"] + bug)
    check(p.returncode == 2 and p.stderr == f"{tmp}/afile: error: not a directory\n", f"a file: {p.stderr!r}")


if __name__ == "__main__":
    sys.exit(main())
