#!/usr/bin/env bash
# test_anonymize_links: `riot anonymize --keep /usr` judges a name by where
# the path leads through the log's own symlinks and "..", not by the path
# text. The log: /usr/share/docs -> /home/alice/private (a link out of the
# kept prefix, shown by readlink), /home/alice/lib -> ../../usr/lib (into
# it, relative), /usr/local/data -> /srv/data (made by the workload's
# symlink call, later in the log than a path through it), a file reached as
# /usr/share/docs/tax-return-2024.pdf, as /home/alice/private/... and from
# a cwd through the link, "docs/../medical/..." across the link, and a
# link loop. Checks: no name of a file outside /usr is left in the clear,
# names under /usr reached through a link are; the file reached by three
# names has one name in the copy; `riot init` of the original and of the
# copy make trees of one shape (dirs, files, sizes, links and where they
# lead). Needs no root.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"

head -c 32 /dev/zero >"$IT_TMP/key"
"$BIN/mklog" -o "$IT_TMP/o.riot" <<'EOF' || fail "mklog"
snap_proc pid=100 cwd=/
openat dirfd=AT_FDCWD path=/usr/local/data/db.sqlite flags=O_RDONLY ret=3 size=300 ftype=reg created=0
close fd=3 ret=0
readlink path=/usr/share/docs path2=/home/alice/private ret=19
readlink path=/home/alice/lib path2=../../usr/lib ret=13
stat path=/usr/lib ret=0 ftype=dir
stat path=/srv/data ret=0 ftype=dir
readlink path=/usr/loop path2=loop ret=4
openat dirfd=AT_FDCWD path=/usr/share/docs/tax-return-2024.pdf flags=O_RDONLY ret=3 size=100 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/home/alice/private/tax-return-2024.pdf flags=O_RDONLY ret=3 size=100 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/usr/share/docs/../medical/hiv-test-result.pdf flags=O_RDONLY ret=3 size=50 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/home/alice/lib/libz.so flags=O_RDONLY ret=3 size=70 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/usr/loop/x flags=O_RDONLY ret=-ELOOP
chdir path=/usr/share/docs ret=0
openat dirfd=AT_FDCWD path=tax-return-2024.pdf flags=O_RDONLY ret=3 size=100 ftype=reg created=0
close fd=3 ret=0
symlink path=/usr/local/data path2=/srv/data ret=0
EOF
"$RIOT" anonymize "$IT_TMP/o.riot" -o "$IT_TMP/a.riot" --keep /usr --key-file "$IT_TMP/key" \
	>"$IT_TMP/out" 2>&1 || fail "anonymize: $(cat "$IT_TMP/out")"
"$RIOT" dump "$IT_TMP/a.riot" >"$IT_TMP/dump" || fail "dump of the copy"

for secret in tax-return-2024.pdf hiv-test-result.pdf medical private alice db.sqlite srv; do
	n=$(grep -c -- "$secret" "$IT_TMP/dump")
	[ "$n" = 0 ] || fail "'$secret' (outside /usr) is in the copy's clear text $n times"
done
grep -q "path_raw=/[a-z2-7]*/[a-z2-7]*/[a-z2-7]*/libz.so " "$IT_TMP/dump" ||
	fail "libz.so (in /usr/lib, through /home/alice/lib) is not kept"

python3 - "$IT_TMP/dump" <<'PY' || fail "the file reached by three names has more than one name"
import re, sys
paths = [m.group(1) for m in re.finditer(r"op=openat .*?path_raw=(\S+)", open(sys.argv[1]).read())]
# the 2nd, 3rd and 6th opens are tax-return-2024.pdf
names = {paths[i].rsplit("/", 1)[-1] for i in (1, 2, 6)}
assert len(names) == 1, names
assert paths[1].startswith("/usr/share/docs/"), paths[1]
assert re.fullmatch(r"/usr/share/docs/\.\./[a-z2-7]{16}/[a-z2-7]{16}", paths[3]), paths[3]
PY

"$RIOT" init "$IT_TMP/o.riot" --root "$IT_TMP/ro" >/dev/null || fail "init of the original"
"$RIOT" init "$IT_TMP/a.riot" --root "$IT_TMP/ra" >/dev/null || fail "init of the copy"
python3 - "$IT_TMP/ro" "$IT_TMP/ra" <<'PY' || fail "the trees differ in shape"
import os, sys

def shape(root, d):
    kids = []
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if n == ".riot-root" and d == root:
            continue
        if os.path.islink(p):
            t = os.path.realpath(p)
            assert t == root or t.startswith(root + "/"), (p, t)
            kind = "f%d" % os.path.getsize(t) if os.path.isfile(t) else \
                   "d" if os.path.isdir(t) else "missing"
            kids.append("l->" + kind)
        elif os.path.isdir(p):
            kids.append(shape(root, p))
        else:
            kids.append("f%d" % os.path.getsize(p))
    return "d(" + ",".join(sorted(kids)) + ")"

o, a = (shape(os.path.realpath(r), os.path.realpath(r)) for r in sys.argv[1:3])
sys.exit(0 if o == a else 1)
PY
echo "--keep /usr through links and ..: nothing outside /usr in the clear, one name per file, trees of one shape"
