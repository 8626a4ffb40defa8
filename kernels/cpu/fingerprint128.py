"""FarmHash's Fingerprint128 (farmhashcc, CityHash128 v1.1) of a byte string.

`fingerprint128(b"abc")` is (low 64 bits, high 64 bits) as unsigned ints, equal to
TensorFlow's `Fingerprint128` (checked through its SdcaFprint op on strings of 0 to 1000
bytes, which cover every length branch: 0, 1-3, 4-7, 8-16, 17-127 and >= 128 bytes).
All arithmetic is modulo 2**64; words are read little-endian.
"""

from __future__ import annotations

__all__ = ["fingerprint128"]

_M = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0x9DDFEA08EB382D69


def _f64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _f32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rot(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int = _KMUL) -> int:
    """Hash128to64 of (u, v) with multiplier `mul`."""
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _M
        a = (_f64(s, 0) + _K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M
        return _len16((n + (_f32(s, 0) << 3)) & _M, _f32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    """WeakHashLen32WithSeeds of the 32 bytes at s[i:]."""
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _murmur(s: bytes, lo: int, hi: int) -> tuple[int, int]:
    """CityMurmur: strings under 128 bytes, seeded by (lo, hi)."""
    n = len(s)
    a, b, c, d = lo, hi, 0, 0
    left = n - 16
    if left <= 0:
        a = (_shift_mix((a * _K1) & _M) * _K1) & _M
        c = (b * _K1 + _len0to16(s)) & _M
        d = _shift_mix((a + (_f64(s, 0) if n >= 8 else c)) & _M)
    else:
        c = _len16((_f64(s, n - 8) + _K1) & _M, a)
        d = _len16((b + n) & _M, (c + _f64(s, n - 16)) & _M)
        a = (a + d) & _M
        i = 0
        while True:
            a ^= (_shift_mix((_f64(s, i) * _K1) & _M) * _K1) & _M
            a = (a * _K1) & _M
            b ^= a
            c ^= (_shift_mix((_f64(s, i + 8) * _K1) & _M) * _K1) & _M
            c = (c * _K1) & _M
            d ^= c
            i += 16
            left -= 16
            if left <= 0:
                break
    a = _len16(a, c)
    b = _len16(d, b)
    return a ^ b, _len16(b, a)


def _with_seed(s: bytes, lo: int, hi: int) -> tuple[int, int]:
    """CityHash128WithSeed."""
    n = len(s)
    if n < 128:
        return _murmur(s, lo, hi)
    x, y, z = lo, hi, (n * _K1) & _M
    v0 = (_rot(y ^ _K1, 49) * _K1 + _f64(s, 0)) & _M
    v1 = (_rot(v0, 42) * _K1 + _f64(s, 8)) & _M
    w0 = (_rot((y + z) & _M, 35) * _K1 + x) & _M
    w1 = (_rot((x + _f64(s, 88)) & _M, 53) * _K1) & _M
    i = 0
    while True:
        for _ in range(2):
            x = (_rot((x + y + v0 + _f64(s, i + 8)) & _M, 37) * _K1) & _M
            y = (_rot((y + v1 + _f64(s, i + 48)) & _M, 42) * _K1) & _M
            x ^= w1
            y = (y + v0 + _f64(s, i + 40)) & _M
            z = (_rot((z + w0) & _M, 33) * _K1) & _M
            v0, v1 = _weak32(s, i, (v1 * _K1) & _M, (x + w0) & _M)
            w0, w1 = _weak32(s, i + 32, (z + w1) & _M, (y + _f64(s, i + 16)) & _M)
            z, x = x, z
            i += 64
        n -= 128
        if n < 128:
            break
    x = (x + _rot((v0 + z) & _M, 49) * _K0) & _M
    y = (y * _K0 + _rot(w1, 37)) & _M
    z = (z * _K0 + _rot(w0, 27)) & _M
    w0 = (w0 * 9) & _M
    v0 = (v0 * _K0) & _M
    done = 0
    while done < n:
        done += 32
        y = (_rot((x + y) & _M, 42) * _K0 + v1) & _M
        w0 = (w0 + _f64(s, i + n - done + 16)) & _M
        x = (x * _K0 + w0) & _M
        z = (z + w1 + _f64(s, i + n - done)) & _M
        w1 = (w1 + v0) & _M
        v0, v1 = _weak32(s, i + n - done, (v0 + z) & _M, v1)
        v0 = (v0 * _K0) & _M
    x = _len16(x, v0)
    y = _len16((y + z) & _M, w0)
    return (_len16((x + v1) & _M, w1) + y) & _M, _len16((x + w1) & _M, (y + v1) & _M)


def fingerprint128(s: bytes) -> tuple[int, int]:
    """(low, high) 64-bit halves of `s`'s 128-bit fingerprint."""
    if len(s) >= 16:
        return _with_seed(s[16:], _f64(s, 0), (_f64(s, 8) + _K0) & _M)
    return _with_seed(s, _K0, _K1)
