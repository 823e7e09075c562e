#!/usr/bin/env python3
"""z3_soname.py LIBDIR - print the SONAME of LIBDIR/libz3.so (the name
z3lazy.c opens, as the dynamic linker would have for a linked binary) and
the path of that file, tab-separated. Reads the ELF dynamic section itself
(64- and 32-bit, either byte order)."""
import os
import struct
import sys

DT_NULL, DT_STRTAB, DT_SONAME = 0, 5, 14


def soname(path):
    with open(path, 'rb') as f:
        b = f.read()
    if b[:4] != b'\x7fELF':
        raise ValueError('not an ELF file')
    is64, end = b[4] == 2, '<' if b[5] == 1 else '>'
    if is64:
        phoff, = struct.unpack_from(end + 'Q', b, 0x20)
        phentsize, phnum = struct.unpack_from(end + 'HH', b, 0x36)
    else:
        phoff, = struct.unpack_from(end + 'I', b, 0x1c)
        phentsize, phnum = struct.unpack_from(end + 'HH', b, 0x2a)
    loads, dyn = [], None
    for i in range(phnum):
        o = phoff + i * phentsize
        if is64:
            typ, _, off, vaddr, _, filesz = struct.unpack_from(end + 'IIQQQQ', b, o)
        else:
            typ, off, vaddr, _, filesz = struct.unpack_from(end + 'IIIII', b, o)
        if typ == 1:
            loads.append((vaddr, off, filesz))
        elif typ == 2:
            dyn = (off, filesz)
    if dyn is None:
        raise ValueError('no dynamic section')
    fmt, size = (end + 'qQ', 16) if is64 else (end + 'iI', 8)
    strtab = name = None
    for o in range(dyn[0], dyn[0] + dyn[1], size):
        tag, val = struct.unpack_from(fmt, b, o)
        if tag == DT_NULL:
            break
        if tag == DT_STRTAB:
            strtab = val
        elif tag == DT_SONAME:
            name = val
    if strtab is None or name is None:
        raise ValueError('no SONAME')
    for vaddr, off, filesz in loads:             # the string table's file offset
        if vaddr <= strtab < vaddr + filesz:
            s = off + strtab - vaddr + name
            return b[s:b.index(b'\0', s)].decode()
    raise ValueError('the string table is in no segment')


def main():
    lib = os.path.join(sys.argv[1], 'libz3.so')
    try:
        name = soname(lib)
    except (OSError, ValueError, struct.error) as e:
        sys.exit(f'z3_soname.py: {lib}: {e}')
    print(f'{name}\t{os.path.join(os.path.dirname(os.path.realpath(lib)), name)}', end='')


if __name__ == '__main__':
    main()
