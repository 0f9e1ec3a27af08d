#!/usr/bin/env python3
"""Turn the base tarball, read as a stream on stdin, into a git fast-import
stream on stdout: one commit of every file under TOPDIR/ (the directory
itself stripped), on refs/heads/work, tagged "base".

tree.sh feeds it the decompressed tarball and checks the result out, so
the base commit is written as one pack, where "tar -x" and then "git add"
of the 90,000 files wrote each as a loose object after hashing it (most
of the 6 minutes that took here). The commit is the one "git add -A -f .
&& git commit" made of the unpacked tree (BASE pins its hash): regular
files (100755 when the owner may execute them) and symbolic links; tar's
directories need no entry. Names are kept as the tarball's bytes.

usage: base-import.py TOPDIR AUTHOR COMMITTER DATE MESSAGE <tar >stream
"""
import sys
import tarfile


def enc(name):
    return name.encode("utf-8", "surrogateescape")


def data(out, b):
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    top, author, committer, date, message = sys.argv[1:]
    prefix = top.rstrip("/") + "/"
    out = sys.stdout.buffer
    files = []
    with tarfile.open(fileobj=sys.stdin.buffer, mode="r|", encoding="utf-8",
                      errors="surrogateescape") as tar:
        for m in tar:
            if not m.name.startswith(prefix) or m.isdir():
                continue
            path = m.name[len(prefix):]
            if m.issym():
                mode, content = "120000", enc(m.linkname)
            elif m.isreg():
                mode = "100755" if m.mode & 0o100 else "100644"
                content = tar.extractfile(m).read()
            else:
                sys.exit(f"base-import: {m.name}: neither a file nor a link")
            if "\n" in path or path.startswith('"'):
                sys.exit(f"base-import: {path!r}: a path fast-import cannot take")
            files.append((mode, path))
            out.write(b"blob\nmark :%d\n" % len(files))
            data(out, content)
    if not files:
        sys.exit(f"base-import: no file under {prefix} in the tarball")
    # git sorts the tree itself; the order of the M lines does not matter.
    out.write(b"commit refs/heads/work\n")
    out.write(f"author {author} {date}\n".encode())
    out.write(f"committer {committer} {date}\n".encode())
    data(out, (message.rstrip("\n") + "\n").encode())
    for i, (mode, path) in enumerate(files, 1):
        out.write(b"M %s :%d %s\n" % (mode.encode(), i, enc(path)))
    out.write(b"\nreset refs/tags/base\nfrom refs/heads/work\n\n")


if __name__ == "__main__":
    main()
