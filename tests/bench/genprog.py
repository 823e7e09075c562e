#!/usr/bin/env python3
"""genprog.py SHAPE N OUT.o: write a BPF ELF object (EM_BPF, ET_REL, no BTF)
with one XDP program "prog" of exactly N instruction slots, for the scaling
benchmark. The ELF is written directly (no clang), so N is exact and
generating 1M instructions takes a second.

Shapes (every one returns XDP_PASS-or-other; the kernel verifier accepts
them while it stays under its 1M processed-instruction limit):
  straight  ALU64 over r1..r5 and 8-byte stack spills/fills, no jumps
  branchy   a diamond every 6 slots: if rX > K goto +2; two ALU; a join
  loops     loops of 4 iterations: r6 = 0; L: r6 += 1; r1 += r6; r2 ^= r1;
            if r6 < 4 goto L (lift with --loop-bound=4)
"""
import struct
import sys

ALU64, JMP, STX, LDX = 0x07, 0x05, 0x03, 0x01
K, X = 0x00, 0x08
ADD, SUB, MUL, OR, AND, LSH, RSH, XOR, MOV = 0x00, 0x10, 0x20, 0x40, 0x50, 0x60, 0x70, 0xa0, 0xb0
JGT, JLT = 0x20, 0xa0
EXIT = 0x95
DW_MEM = 0x18 | 0x60


def insn(code, dst=0, src=0, off=0, imm=0):
    return struct.pack('<BBhi', code, (src << 4) | dst, off, imm)


def alu(op, dst, imm):
    return insn(ALU64 | op | K, dst, 0, 0, imm)


def alux(op, dst, src):
    return insn(ALU64 | op | X, dst, src)


LDX_W = LDX | 0x60 | 0x00
# r1..r5 unknown scalars: xdp_md's ingress_ifindex (12) and rx_queue_index
# (16), so that nothing folds to a constant
PROLOGUE = [insn(LDX_W, 2, 1, 16), insn(LDX_W, 3, 1, 12), alux(MOV, 4, 2), alu(ADD, 4, 5),
            alux(MOV, 5, 3), alux(XOR, 5, 2), insn(LDX_W, 1, 1, 12)]
EPILOGUE = [alu(MOV, 0, 2), insn(JMP | EXIT)]   # r0 = XDP_PASS; exit


def straight_unit(i):
    r = 1 + i % 5
    s = 1 + (i + 2) % 5
    ops = [alu(ADD, r, 7 + i % 13), alux(XOR, r, s), alu(MUL, r, 3),
           alu(RSH, r, 1 + i % 7),
           insn(STX | DW_MEM, 10, r, -8 * (1 + i % 8), 0),
           insn(LDX | DW_MEM, s, 10, -8 * (1 + i % 8), 0),
           alux(ADD, s, r), alu(AND, s, 0xffff)]
    return ops


def branchy_unit(i):
    r = 1 + i % 5
    s = 1 + (i + 1) % 5
    return [insn(JMP | JGT | K, r, 0, 2, 100 + i % 1000),   # if r > K goto +2
            alu(ADD, s, 1), alux(XOR, s, r),               # then (fall through)
            alu(ADD, r, 3), alu(AND, r, 0xfff),            # join
            alux(ADD, s, r)]


def loops_unit(i):
    return [alu(MOV, 6, 0),
            alu(ADD, 6, 1), alux(ADD, 1, 6), alux(XOR, 2, 1),   # L:
            insn(JMP | JLT | K, 6, 0, -4, 4),                   # if r6 < 4 goto L
            alu(AND, 1, 0xffff)]


UNITS = {'straight': straight_unit, 'branchy': branchy_unit, 'loops': loops_unit}


def program(shape, n):
    if n < len(PROLOGUE) + len(EPILOGUE):
        raise SystemExit('genprog: N must be at least %d' % (len(PROLOGUE) + len(EPILOGUE)))
    out = list(PROLOGUE)
    body = n - len(PROLOGUE) - len(EPILOGUE)
    i = 0
    while body > 0:
        u = UNITS[shape](i)
        if len(u) > body:                  # fill the rest with plain ALU
            u = [alu(ADD, 1 + (i + k) % 5, 1) for k in range(body)]
        out += u
        body -= len(u)
        i += 1
    out += EPILOGUE
    assert len(out) == n
    return b''.join(out)


def elf(code):
    """ET_REL for EM_BPF: null, xdp, license, .symtab, .strtab, .shstrtab."""
    shstr = b'\0xdp\0license\0.symtab\0.strtab\0.shstrtab\0'
    name = {s: shstr.index(s.encode() + b'\0') for s in
            ['xdp', 'license', '.symtab', '.strtab', '.shstrtab']}
    strtab = b'\0prog\0_license\0'
    lic = b'GPL\0'
    sym = struct.pack('<IBBHQQ', 0, 0, 0, 0, 0, 0)
    sym += struct.pack('<IBBHQQ', strtab.index(b'_license'), 0x11, 0, 2, 0, len(lic))  # GLOBAL OBJECT
    sym += struct.pack('<IBBHQQ', strtab.index(b'prog'), 0x12, 0, 1, 0, len(code))     # GLOBAL FUNC
    body = b''
    offs = {}
    for key, data in [('xdp', code), ('license', lic), ('.symtab', sym),
                      ('.strtab', strtab), ('.shstrtab', shstr)]:
        while (64 + len(body)) % 8:
            body += b'\0'
        offs[key] = 64 + len(body)
        body += data
    while (64 + len(body)) % 8:
        body += b'\0'
    shoff = 64 + len(body)
    hdr = b'\x7fELF' + bytes([2, 1, 1, 0]) + b'\0' * 8
    hdr += struct.pack('<HHIQQQIHHHHHH', 1, 247, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 6, 5)
    sh = b'\0' * 64

    def shdr(nm, typ, flags, key, size, link=0, info=0, align=8, entsize=0):
        return struct.pack('<IIQQQQIIQQ', nm, typ, flags, 0, offs[key], size, link, info,
                           align, entsize)
    sh += shdr(name['xdp'], 1, 0x6, 'xdp', len(code))
    sh += shdr(name['license'], 1, 0x3, 'license', len(lic), align=1)
    sh += shdr(name['.symtab'], 2, 0, '.symtab', len(sym), link=4, info=1, entsize=24)
    sh += shdr(name['.strtab'], 3, 0, '.strtab', len(strtab), align=1)
    sh += shdr(name['.shstrtab'], 3, 0, '.shstrtab', len(shstr), align=1)
    return hdr + body + sh


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in UNITS:
        raise SystemExit('usage: genprog.py straight|branchy|loops N OUT.o')
    with open(sys.argv[3], 'wb') as f:
        f.write(elf(program(sys.argv[1], int(sys.argv[2]))))


if __name__ == '__main__':
    main()
