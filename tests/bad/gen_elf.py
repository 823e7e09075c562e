#!/usr/bin/env python3
"""gen_elf.py BASE_DIR OUTDIR: write the malformed objects of
tests/data/bad/expect.tsv (kind "elf") into OUTDIR, each one a named,
deterministic damage of a base object in BASE_DIR (tests/data/bad/base:
xdp_fw.bpf.bin, one program, maps, BTF, .BTF.ext; loop_sum.bpf.bin, a
.text callback, globals). The bases are copies of build/examples/NAME.bpf.o
(clang 14), kept in the repository because a build's objects embed its
directory (debug info, BTF strings), which moves every offset in the
messages; refresh them with `cp build/examples/NAME.bpf.o
tests/data/bad/base/NAME.bpf.bin` and review the table's diff
(tests/bad.py --regen).

Not here because they are not malformed (the checker accepts them, as it
should): a call of an unknown helper id (any result, havocs its pointers),
`ja -1` (a loop: unknown at the loop bound), a function symbol of size 0
(it reaches up to the next symbol).

Every case is one function below, registered with @case; the name is the
file name (NAME.o) and the table's key. Offsets come from the object's
own headers, so the cases follow the examples when they are rebuilt.
"""
import os
import struct
import sys

CASES = []


def case(base):
    def reg(fn):
        CASES.append((fn.__name__, base, fn))
        return fn
    return reg


class Elf:
    """An ELF64 little-endian object as a mutable byte array."""

    def __init__(self, data):
        self.b = bytearray(data)

    def u(self, fmt, off):
        return struct.unpack_from('<' + fmt, self.b, off)[0]

    def put(self, fmt, off, v):
        struct.pack_into('<' + fmt, self.b, off, v)

    @property
    def shoff(self):
        return self.u('Q', 0x28)

    @property
    def shnum(self):
        return self.u('H', 0x3c)

    def sh(self, i):
        """Offset of section header I."""
        return self.shoff + 64 * i

    def name_of(self, i):
        stridx = self.u('H', 0x3e)
        stroff = self.u('Q', self.sh(stridx) + 24)
        n = self.u('I', self.sh(i))
        end = self.b.index(0, stroff + n)
        return self.b[stroff + n:end].decode()

    def sec(self, name):
        for i in range(self.shnum):
            if self.name_of(i) == name:
                return i
        raise KeyError(name)

    # section header fields: name 0 (I), type 4 (I), flags 8, addr 16,
    # offset 24, size 32 (Q), link 40, info 44 (I), align 48, entsize 56 (Q)
    def field(self, name, off, fmt='Q'):
        return self.u(fmt, self.sh(self.sec(name)) + off)

    def set(self, name, off, v, fmt='Q'):
        self.put(fmt, self.sh(self.sec(name)) + off, v)

    def data_off(self, name):
        return self.field(name, 24)

    def size(self, name):
        return self.field(name, 32)

    def insn(self, sec, k):
        """File offset of instruction K of code section SEC."""
        return self.data_off(sec) + 8 * k

    def set_insn(self, sec, k, code, regs, off, imm):
        self.put('B', self.insn(sec, k), code)
        self.put('B', self.insn(sec, k) + 1, regs)
        self.put('h', self.insn(sec, k) + 2, off)
        self.put('i', self.insn(sec, k) + 4, imm)

    def sym(self, k):
        """File offset of symbol K."""
        return self.data_off('.symtab') + 24 * k

    def sym_named(self, name):
        strtab = self.data_off('.strtab')
        for k in range(self.size('.symtab') // 24):
            n = self.u('I', self.sym(k))
            end = self.b.index(0, strtab + n)
            if self.b[strtab + n:end].decode() == name:
                return k
        raise KeyError(name)

    def btf(self, off):
        return self.data_off('.BTF') + off

    def ext(self, off):
        return self.data_off('.BTF.ext') + off


# ---- the ELF header ------------------------------------------------------

@case('xdp_fw')
def hdr_trunc_1(e): del e.b[1:]
@case('xdp_fw')
def hdr_trunc_4(e): del e.b[4:]
@case('xdp_fw')
def hdr_trunc_16(e): del e.b[16:]
@case('xdp_fw')
def hdr_trunc_63(e): del e.b[63:]
@case('xdp_fw')
def hdr_magic(e): e.b[1] = ord('X')
@case('xdp_fw')
def hdr_class32(e): e.b[4] = 1
@case('xdp_fw')
def hdr_class_none(e): e.b[4] = 0
@case('xdp_fw')
def hdr_class_bad(e): e.b[4] = 7
@case('xdp_fw')
def hdr_big_endian(e): e.b[5] = 2
@case('xdp_fw')
def hdr_data_none(e): e.b[5] = 0
@case('xdp_fw')
def hdr_type_exec(e): e.put('H', 0x10, 2)
@case('xdp_fw')
def hdr_type_dyn(e): e.put('H', 0x10, 3)
@case('xdp_fw')
def hdr_type_core(e): e.put('H', 0x10, 4)
@case('xdp_fw')
def hdr_machine_x86(e): e.put('H', 0x12, 62)
@case('xdp_fw')
def hdr_machine_arm(e): e.put('H', 0x12, 183)
@case('xdp_fw')
def hdr_shoff_past_end(e): e.put('Q', 0x28, len(e.b) + 4096)
@case('xdp_fw')
def hdr_shoff_huge(e): e.put('Q', 0x28, 0xfffffffffffffff0)
@case('xdp_fw')
def hdr_shnum_huge(e): e.put('H', 0x3c, 0xfff0)
@case('xdp_fw')
def hdr_shentsize(e): e.put('H', 0x3a, 40)
@case('xdp_fw')
def hdr_shstrndx_out(e): e.put('H', 0x3e, 200)
@case('xdp_fw')
def hdr_shstrndx_code(e): e.put('H', 0x3e, e.sec('xdp'))
@case('xdp_fw')
def hdr_no_sections(e): e.put('H', 0x3c, 0)
@case('xdp_fw')
def trunc_shdrs(e): del e.b[e.shoff + 64 * 5 + 10:]
@case('xdp_fw')
def trunc_half(e): del e.b[len(e.b) // 2:]


# ---- sections --------------------------------------------------------------

@case('xdp_fw')
def sec_code_past_end(e): e.set('xdp', 24, len(e.b) + 64)
@case('xdp_fw')
def sec_code_size_huge(e): e.set('xdp', 32, 0xffffffffffff0000)
@case('xdp_fw')
def sec_code_size_odd(e): e.set('xdp', 32, e.size('xdp') - 4)
@case('xdp_fw')
def sec_code_empty_prog(e): e.set('xdp', 32, 0)
@case('xdp_fw')
def sec_name_out(e): e.put('I', e.sh(e.sec('xdp')), 0xfffff)
@case('xdp_fw')
def sec_shstrtab_unterminated(e):
    i = e.u('H', 0x3e)
    off, size = e.u('Q', e.sh(i) + 24), e.u('Q', e.sh(i) + 32)
    e.b[off + size - 1] = ord('x')
@case('xdp_fw')
def sec_no_symtab(e): e.set('.symtab', 4, 0, 'I')
@case('xdp_fw')
def sec_two_symtabs(e): e.set('.debug_frame', 4, 2, 'I')
@case('xdp_fw')
def sec_symtab_link_out(e): e.set('.symtab', 40, 99, 'I')
@case('xdp_fw')
def sec_symtab_link_code(e): e.set('.symtab', 40, e.sec('xdp'), 'I')
@case('xdp_fw')
def sec_symtab_entsize(e): e.set('.symtab', 56, 16)
@case('xdp_fw')
def sec_symtab_size_odd(e): e.set('.symtab', 32, e.size('.symtab') - 5)
@case('xdp_fw')
def sec_symtab_past_end(e): e.set('.symtab', 32, len(e.b))
@case('xdp_fw')
def sec_strtab_past_end(e): e.set('.strtab', 24, len(e.b) - 8)
@case('xdp_fw')
def sec_strtab_unterminated(e):
    off, size = e.data_off('.strtab'), e.size('.strtab')
    e.b[off + size - 1] = ord('x')
@case('xdp_fw')
def sec_overlap_header(e): e.set('.symtab', 24, 0)
@case('xdp_fw')
def sec_overlap_shdrs(e): e.set('.strtab', 24, e.shoff)
@case('xdp_fw')
def sec_license_past_end(e): e.set('license', 24, len(e.b) + 1)
@case('loop_sum')
def sec_bss_huge(e): e.set('.bss', 32, 0x73000008)   # found by fuzz_object: seconds, 2 GiB
@case('loop_sum')
def sec_rodata_past_end(e): e.set('.rodata', 32, len(e.b))
@case('xdp_fw')
def sec_maps_past_end(e): e.set('.maps', 32, len(e.b))


# ---- symbols ---------------------------------------------------------------

@case('xdp_fw')
def sym_name_out(e): e.put('I', e.sym(e.sym_named('xdp_fw')), 0xffffff)
@case('xdp_fw')
def sym_shndx_out(e): e.put('H', e.sym(e.sym_named('xdp_fw')) + 6, 300)
@case('xdp_fw')
def sym_shndx_symtab(e): e.put('H', e.sym(e.sym_named('xdp_fw')) + 6, e.sec('.symtab'))
@case('xdp_fw')
def sym_func_value_out(e): e.put('Q', e.sym(e.sym_named('xdp_fw')) + 8, 0x10000)
@case('xdp_fw')
def sym_func_value_odd(e): e.put('Q', e.sym(e.sym_named('xdp_fw')) + 8, 4)
@case('xdp_fw')
def sym_func_size_out(e): e.put('Q', e.sym(e.sym_named('xdp_fw')) + 16, 0x100000)
@case('xdp_fw')
def sym_func_size_huge(e): e.put('Q', e.sym(e.sym_named('xdp_fw')) + 16, 0xfffffffffffffff8)
@case('xdp_fw')
def sym_func_size_odd(e): e.put('Q', e.sym(e.sym_named('xdp_fw')) + 16, 1081)
@case('xdp_fw')
def sym_map_value_out(e): e.put('Q', e.sym(e.sym_named('counters')) + 8, 0x1000)
@case('xdp_fw')
def sym_map_shndx_out(e): e.put('H', e.sym(e.sym_named('counters')) + 6, 999)
@case('xdp_fw')
def sym_no_func(e): e.b[e.sym(e.sym_named('xdp_fw')) + 4] = 0x10  # GLOBAL NOTYPE


@case('xdp_fw')
def sym_func_empty(e):
    """The xdp section's own symbol made a LOCAL FUNC: size 0 where xdp_fw
    starts (found by fuzz_check, session 16: every check was an internal
    error "function '' is empty")."""
    xdp = e.sec('xdp')
    for k in range(e.size('.symtab') // 24):
        if e.b[e.sym(k) + 4] == 0x03 and e.u('H', e.sym(k) + 6) == xdp:  # LOCAL SECTION
            e.b[e.sym(k) + 4] = 0x02                                     # LOCAL FUNC
            return
    raise KeyError('the xdp section symbol')


# ---- relocations -----------------------------------------------------------

def rel(e, k):
    return e.data_off('.relxdp') + 16 * k

@case('xdp_fw')
def rel_offset_out(e): e.put('Q', rel(e, 0), 0x100000)
@case('xdp_fw')
def rel_offset_end(e): e.put('Q', rel(e, 0), e.size('xdp'))
@case('xdp_fw')
def rel_offset_odd(e): e.put('Q', rel(e, 0), 0x4c)
@case('xdp_fw')
def rel_offset_not_lddw(e): e.put('Q', rel(e, 0), 0)
@case('xdp_fw')
def rel_sym_out(e): e.put('I', rel(e, 0) + 12, 5000)
@case('xdp_fw')
def rel_sym_zero(e): e.put('I', rel(e, 0) + 12, 0)
@case('xdp_fw')
def rel_sym_file(e): e.put('I', rel(e, 0) + 12, 1)
@case('xdp_fw')
def rel_type_unknown(e): e.put('I', rel(e, 0) + 8, 77)
@case('xdp_fw')
def rel_info_out(e): e.set('.relxdp', 44, 99, 'I')
@case('xdp_fw')
def rel_link_out(e): e.set('.relxdp', 40, 99, 'I')
@case('xdp_fw')
def rel_entsize(e): e.set('.relxdp', 56, 24)
@case('xdp_fw')
def rel_size_odd(e): e.set('.relxdp', 32, e.size('.relxdp') - 3)
@case('xdp_fw')
def rel_past_end(e): e.set('.relxdp', 24, len(e.b) - 16)
@case('xdp_fw')
def rel_count_huge(e): e.set('.relxdp', 32, 0x7ffffffffff0)
@case('xdp_fw')
def rel_addr_overflow(e):   # found by fuzz_object: INT64_MIN + -1 (UB)
    e.put('I', rel(e, 0) + 12, 2)                  # the section symbol of 'xdp'
    e.put('Q', e.sym(2) + 8, 0x8000000000000000)
    e.put('i', e.insn('xdp', e.u('Q', rel(e, 0)) // 8) + 4, -1)
@case('loop_sum')
def rel_callback_sym_out(e):
    r = e.data_off('.relxdp')
    for k in range(e.size('.relxdp') // 16):
        sym = e.u('I', r + 16 * k + 12)
        if e.u('H', e.sym(sym) + 6) == e.sec('.text'):
            e.put('Q', e.sym(sym) + 8, 0x8000)
            return
    raise KeyError('no .text relocation')


# ---- instructions ------------------------------------------------------------

@case('xdp_fw')
def insn_opcode_ff(e): e.set_insn('xdp', 0, 0xff, 0, 0, 0)
@case('xdp_fw')
def insn_opcode_zero(e): e.set_insn('xdp', 1, 0x00, 0, 0, 0)
@case('xdp_fw')
def insn_alu_bad_op(e): e.set_insn('xdp', 0, 0xe7, 0x01, 0, 1)
@case('xdp_fw')
def insn_reg_11(e): e.set_insn('xdp', 0, 0xb7, 0x0b, 0, 0)
@case('xdp_fw')
def insn_src_15(e): e.set_insn('xdp', 0, 0xbf, 0xf1, 0, 0)
@case('xdp_fw')
def insn_mov_reserved_off(e): e.set_insn('xdp', 0, 0xb7, 0x01, 7, 0)
@case('xdp_fw')
def insn_end_bad_width(e): e.set_insn('xdp', 0, 0xd4, 0x01, 0, 7)
@case('xdp_fw')
def insn_ld_abs_bad_size(e): e.set_insn('xdp', 0, 0x38, 0, 0, 0)
@case('xdp_fw')
def insn_atomic_bad_imm(e): e.set_insn('xdp', 0, 0xdb, 0x1a, -8, 0x77)
@case('xdp_fw')
def insn_store_to_r11(e): e.set_insn('xdp', 0, 0x7b, 0x1b, 0, 0)
@case('xdp_fw')
def insn_jump_past_end(e): e.set_insn('xdp', 0, 0x05, 0, 0x7000, 0)
@case('xdp_fw')
def insn_jump_before_start(e): e.set_insn('xdp', 2, 0x05, 0, -10, 0)
@case('xdp_fw')
def insn_jump_to_end(e):
    n = e.size('xdp') // 8
    e.set_insn('xdp', n - 2, 0x05, 0, 1, 0)
@case('xdp_fw')
def insn_cond_jump_out(e): e.set_insn('xdp', 0, 0x15, 0x01, 0x7fff, 0)
@case('xdp_fw')
def insn_jump_into_lddw(e):
    lddw = e.u('Q', rel(e, 0)) // 8
    e.set_insn('xdp', 0, 0x05, 0, lddw, 0)   # to lddw + 1, its second slot
@case('xdp_fw')
def insn_lddw_last_slot(e):
    n = e.size('xdp') // 8
    e.set_insn('xdp', n - 1, 0x18, 0x01, 0, 0)
@case('xdp_fw')
def insn_lddw_bad_second(e):
    lddw = e.u('Q', rel(e, 0)) // 8
    e.put('B', e.insn('xdp', lddw + 1), 0x07)
@case('xdp_fw')
def insn_lddw_bad_src(e):
    e.set_insn('xdp', 0, 0x18, 0x71, 0, 0)
    e.set_insn('xdp', 1, 0x00, 0, 0, 0)
@case('xdp_fw')
def insn_call_bad_src(e): e.set_insn('xdp', 0, 0x85, 0x50, 0, 1)
@case('xdp_fw')
def insn_call_local_out(e): e.set_insn('xdp', 0, 0x85, 0x10, 0, 5000)
@case('xdp_fw')
def insn_no_exit(e):
    n = e.size('xdp') // 8
    e.set_insn('xdp', n - 1, 0xb7, 0x00, 0, 0)
@case('xdp_fw')
def insn_exit_reserved(e):
    n = e.size('xdp') // 8
    e.set_insn('xdp', n - 1, 0x95, 0x01, 0, 0)
@case('xdp_fw')
def insn_div_reserved(e): e.set_insn('xdp', 0, 0x37, 0x01, 3, 2)
@case('xdp_fw')
def insn_ja32_reserved(e): e.set_insn('xdp', 0, 0x06, 0x01, 0, 0)
@case('xdp_fw')
def insn_ldx_bad_mode(e): e.set_insn('xdp', 0, 0xe1, 0x12, 0, 0)
@case('loop_sum')
def insn_callback_no_exit(e):
    n = e.size('.text') // 8
    e.set_insn('.text', n - 1, 0xb7, 0x00, 0, 0)


# ---- BTF ---------------------------------------------------------------------
# header: magic 0 (H), version 2, flags 3, hdr_len 4, type_off 8,
# type_len 12, str_off 16, str_len 20 (I)

@case('xdp_fw')
def btf_magic(e): e.put('H', e.btf(0), 0x1234)
@case('xdp_fw')
def btf_version(e): e.b[e.btf(2)] = 9
@case('xdp_fw')
def btf_hdr_len_huge(e): e.put('I', e.btf(4), 0x100000)
@case('xdp_fw')
def btf_type_off_out(e): e.put('I', e.btf(8), 0x100000)
@case('xdp_fw')
def btf_type_len_out(e): e.put('I', e.btf(12), 0xfffffff0)
@case('xdp_fw')
def btf_str_off_out(e): e.put('I', e.btf(16), 0x7ffffff0)
@case('xdp_fw')
def btf_str_len_zero(e): e.put('I', e.btf(20), 0)
@case('xdp_fw')
def btf_truncated(e): e.set('.BTF', 32, 30)
@case('xdp_fw')
def btf_bad_kind(e):
    t = e.btf(24 + e.u('I', e.btf(8)))
    e.put('I', t + 4, 0x1f000000)   # info: kind 31
@case('xdp_fw')
def btf_name_out(e):
    t = e.btf(24 + e.u('I', e.btf(8)))
    e.put('I', t, 0xffffff)
@case('xdp_fw')
def btf_member_name_out(e):
    t = e.btf(24 + e.u('I', e.btf(8)))
    for _ in range(200):    # the first struct: its first member's name
        info = e.u('I', t + 4)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        if kind == 4 and vlen:
            e.put('I', t + 12, 0xfffff)
            return
        t += 12 + {1: 4, 3: 12, 4: 12 * vlen, 6: 8 * vlen, 13: 8 * vlen,
                   14: 4, 15: 12 * vlen}.get(kind, 0)
    raise KeyError('no struct')
@case('xdp_fw')
def btf_type_ref_out(e):
    t = e.btf(24 + e.u('I', e.btf(8)))
    e.put('I', t + 8, 0xfffff)   # the first type's size/type field
@case('xdp_fw')
def btf_strings_unterminated(e):
    s = e.btf(24 + e.u('I', e.btf(16)))
    e.b[s + e.u('I', e.btf(20)) - 1] = ord('x')
@case('xdp_fw')
def btf_vlen_huge(e):
    t = e.btf(24 + e.u('I', e.btf(8)))
    e.put('I', t + 4, (4 << 24) | 0xffff)   # a struct with 65535 members
@case('xdp_fw')
def btf_section_past_end(e): e.set('.BTF', 24, len(e.b) - 4)


# ---- .BTF.ext ----------------------------------------------------------------
# header: magic 0 (H), version 2, flags 3, hdr_len 4, func_info_off 8,
# func_info_len 12, line_info_off 16, line_info_len 20, core_relo_off 24,
# core_relo_len 28 (I); each info block: rec_size (I), then per section
# sec_name_off, num_info (I) and the records.

def ext_func(e, off=0):
    return e.ext(e.u('I', e.ext(4)) + e.u('I', e.ext(8)) + off)

def ext_line(e, off=0):
    return e.ext(e.u('I', e.ext(4)) + e.u('I', e.ext(16)) + off)

@case('xdp_fw')
def ext_magic(e): e.put('H', e.ext(0), 0)
@case('xdp_fw')
def ext_version(e): e.b[e.ext(2)] = 3
@case('xdp_fw')
def ext_hdr_len_small(e): e.put('I', e.ext(4), 4)
@case('xdp_fw')
def ext_hdr_len_huge(e): e.put('I', e.ext(4), 0xffff0)
@case('xdp_fw')
def ext_truncated(e): e.set('.BTF.ext', 32, 6)
@case('xdp_fw')
def ext_func_off_out(e): e.put('I', e.ext(8), 0x100000)
@case('xdp_fw')
def ext_func_len_out(e): e.put('I', e.ext(12), 0xfffffff0)
@case('xdp_fw')
def ext_func_rec_size_zero(e): e.put('I', ext_func(e), 0)
@case('xdp_fw')
def ext_func_rec_size_small(e): e.put('I', ext_func(e), 4)
@case('xdp_fw')
def ext_func_count_huge(e): e.put('I', ext_func(e, 8), 0x7fffffff)
@case('xdp_fw')
def ext_func_sec_name_out(e): e.put('I', ext_func(e, 4), 0xfffff)
@case('xdp_fw')
def ext_func_insn_off_out(e): e.put('I', ext_func(e, 12), 0x80000)
@case('xdp_fw')
def ext_func_type_out(e): e.put('I', ext_func(e, 16), 0xfffff)
@case('xdp_fw')
def ext_line_off_out(e): e.put('I', e.ext(16), 0x100000)
@case('xdp_fw')
def ext_line_rec_size_zero(e): e.put('I', ext_line(e), 0)
@case('xdp_fw')
def ext_line_count_huge(e): e.put('I', ext_line(e, 8), 0xffffffff)
@case('xdp_fw')
def ext_line_insn_off_out(e): e.put('I', ext_line(e, 12), 0x80000)
@case('xdp_fw')
def ext_line_insn_off_odd(e): e.put('I', ext_line(e, 12), 3)
@case('xdp_fw')
def ext_line_file_out(e): e.put('I', ext_line(e, 16), 0xfffff)
@case('xdp_fw')
def ext_line_line_out(e): e.put('I', ext_line(e, 20), 0xfffff)
@case('xdp_fw')
def ext_core_off_out(e):
    e.put('I', e.ext(4), 32)
    e.put('I', e.ext(24), 0x100000)
    e.put('I', e.ext(28), 16)


def main():
    base_dir, out = sys.argv[1:3]
    os.makedirs(out, exist_ok=True)
    for name, base, fn in CASES:
        with open(os.path.join(base_dir, base + '.bpf.bin'), 'rb') as f:
            e = Elf(f.read())
        fn(e)
        with open(os.path.join(out, name + '.o'), 'wb') as f:
            f.write(e.b)
    if '--list' in sys.argv[3:]:
        for name, base, fn in CASES:
            print(name)


if __name__ == '__main__':
    main()
