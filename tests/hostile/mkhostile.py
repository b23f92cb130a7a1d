#!/usr/bin/env python3
"""mkhostile.py KIND OUT [IN]: writes a hostile .riot log, byte by byte from
formats/FORMAT.md, for the tests and the fuzz corpus.

  bomb OUT      20 blocks, each a few hundred bytes of zstd that decode to
                8388600 records of an unknown type (a record-count bomb)
  swap OUT IN   IN with its first two blocks swapped (IN: a complete log of
                at least two blocks)
  rehead OUT IN IN with a header whose strings hold terminal controls
                (host, kernel, arch, riot version, command line, target)
"""
import struct, subprocess, sys, zlib


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def tlv(key, value):
    return varint(key) + varint(len(value)) + value


def header(minor, payload=None, major=1):
    if payload is None:
        payload = tlv(1, b"bomb")
    fixed = b"RIOTLOG\0" + struct.pack("<HHI", major, minor, len(payload))
    body = fixed + payload
    return body + struct.pack("<I", zlib.crc32(body))


def frame(magic, payload, rlen, nrec, first_t):
    h = magic + struct.pack("<IIIQI", len(payload), rlen, nrec, first_t,
                            zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h)) + payload


def bomb(out):
    n = 8388600
    raw = varint(3) + varint(n) + varint(n) + varint(0) + b"\x09" * n + b"\x00" * n
    assert len(raw) <= 16 << 20
    comp = subprocess.run(["zstd", "-19", "-q", "-c"], input=raw, check=True,
                          stdout=subprocess.PIPE).stdout
    with open(out, "wb") as f:
        f.write(header(0))
        for _ in range(20):
            f.write(frame(b"RBLK", comp, len(raw), n, 0))


def blocks(b):
    pos = 16 + struct.unpack_from("<I", b, 12)[0] + 4
    offs = []
    while b[pos:pos + 4] == b"RBLK":
        offs.append(pos)
        pos += 32 + struct.unpack_from("<I", b, pos + 4)[0]
    return offs, pos


def swap(out, src):
    b = open(src, "rb").read()
    offs, _ = blocks(b)
    assert len(offs) >= 3, "need at least two blocks"
    a, m, e = offs[0], offs[1], offs[2]
    open(out, "wb").write(b[:a] + b[m:e] + b[a:m] + b[e:])


HOSTILE_HEADER = [
    (1, b"host\x1b]0;pwned\x07"), (2, b"\x1b[2Jkernel"), (3, b"arch\x1b[31m"),
    (4, b"ver\x9b2J"), (5, b"riot capture \x1b[2J\xff"), (7, b"target\r\x1b[K"),
]


def rehead(out, src):
    b = open(src, "rb").read()
    major, minor = struct.unpack_from("<HH", b, 8)
    end = 16 + struct.unpack_from("<I", b, 12)[0] + 4
    payload = b"".join(tlv(k, v) for k, v in HOSTILE_HEADER)
    open(out, "wb").write(header(minor, payload, major) + b[end:])


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "bomb":
        bomb(sys.argv[2])
    elif kind == "rehead":
        rehead(sys.argv[2], sys.argv[3])
    elif kind == "swap":
        swap(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
