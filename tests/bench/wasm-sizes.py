#!/usr/bin/env python3
"""Where a wasm's bytes go: section sizes, and code bytes per crate / per function from the
name section (use the wasm cargo writes, before wasm-bindgen/wasm-opt strip the names).
Stands in for twiggy, which is not available offline.

  python3 tests/bench/wasm-sizes.py file.wasm [top-N] [path-depth]
"""
import re
import sys
import zlib
from collections import defaultdict


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def demangle(name):
    """Path segments of a legacy-mangled Rust symbol; for `<T as Trait>::f` the path of T."""
    if not name.startswith("_ZN"):
        return [name]
    segs, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        ln = int(name[i:j])
        seg = name[j : j + ln]
        i = j + ln
        seg = seg.replace("$LT$", "<").replace("$GT$", ">").replace("$u20$", " ").replace("..", "::")
        seg = re.sub(r"\$[a-z0-9]+\$", "", seg)
        segs.append(seg)
    if segs and segs[-1].startswith("h") and len(segs[-1]) == 17:
        segs.pop()
    if segs and segs[0].startswith("_<"):
        segs[0] = segs[0][1:]
    if segs and segs[0].startswith("<"):
        inner = segs[0][1:].lstrip("&").replace("mut ", "").replace("dyn ", "")
        inner = re.split(r" as |<|>", inner)[0]
        segs = inner.split("::") + segs[1:]
    return segs


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    b = open(path, "rb").read()
    i = 8
    sections = []
    imports_funcs = 0
    code_sizes = []
    names = {}
    data_bytes = 0
    while i < len(b):
        sid = b[i]
        i += 1
        size, i = leb(b, i)
        body = b[i : i + size]
        name = None
        if sid == 0:
            nl, j = leb(body, 0)
            name = body[j : j + nl].decode()
            if name == "name":
                k = j + nl
                while k < len(body):
                    sub = body[k]
                    k += 1
                    ssz, k = leb(body, k)
                    if sub == 1:
                        cnt, m = leb(body, k)
                        for _ in range(cnt):
                            idx, m = leb(body, m)
                            ln, m = leb(body, m)
                            names[idx] = body[m : m + ln].decode("utf-8", "replace")
                            m += ln
                    k += ssz
        elif sid == 2:
            cnt, j = leb(body, 0)
            for _ in range(cnt):
                for _ in range(2):
                    ln, j = leb(body, j)
                    j += ln
                kind = body[j]
                j += 1
                if kind == 0:
                    _, j = leb(body, j)
                    imports_funcs += 1
                elif kind == 1:
                    j += 1
                    fl = body[j]; j += 1
                    _, j = leb(body, j)
                    if fl & 1:
                        _, j = leb(body, j)
                elif kind == 2:
                    fl = body[j]; j += 1
                    _, j = leb(body, j)
                    if fl & 1:
                        _, j = leb(body, j)
                elif kind == 3:
                    j += 2
        elif sid == 10:
            cnt, j = leb(body, 0)
            for _ in range(cnt):
                sz, j2 = leb(body, j)
                code_sizes.append(sz + (j2 - j))
                j = j2 + sz
        elif sid == 11:
            data_bytes = size
        sections.append((sid, name, size))
        i += size
    labels = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
              7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}
    print(f"{path}: {len(b):,} bytes, deflate {len(zlib.compress(b, 9)):,}")
    for sid, name, size in sections:
        print(f"  section {labels.get(sid, sid):9} {name or '':28} {size:>10,}")
    per_crate = defaultdict(int)
    per_fn = []
    for k, sz in enumerate(code_sizes):
        n = names.get(k + imports_funcs, f"func[{k + imports_funcs}]")
        per_fn.append((sz, n))
        segs = demangle(n)
        per_fn[-1] = (sz, "::".join(segs) or n)
        per_crate["::".join(segs[:depth]) if segs else "(unnamed) " + n[:30]] += sz
    total = sum(code_sizes)
    print(f"\ncode: {total:,} bytes in {len(code_sizes):,} functions; data: {data_bytes:,}")
    print("\nby crate (first path segment of the function name):")
    for c, sz in sorted(per_crate.items(), key=lambda x: -x[1])[:top]:
        print(f"  {sz:>10,}  {100 * sz / total:5.1f}%  {c}")
    print(f"\nlargest {top} functions:")
    for sz, n in sorted(per_fn, reverse=True)[:top]:
        print(f"  {sz:>9,}  {n[:150]}")


main()
