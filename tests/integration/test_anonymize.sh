#!/usr/bin/env bash
# riot anonymize on a real capture: a shell that copies a tree made here
# with cp -a (relative paths, symlinks, a user xattr) and extracts it again
# with tar. The anonymised log reads with riot info (same events and calls)
# and replays like the original under another root: the same counts per
# syscall, divergences, skips and issued calls, the same tree shape, and
# every replayed path is the original's with each component renamed as
# HMAC-SHA256 under the key says (computed here with Python's hmac, apart
# from riot), symlink targets included. No component of the original's
# strings (paths, comms, the host) is left in the copy. The same key gives
# the same bytes, another key or a random one other names; --keep-ext and
# --keep keep exactly what they say, and still replay the same. Bad keys
# and arguments fail with one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
for p in tar cp; do command -v $p >/dev/null || fail "$p is required"; done

T=$IT_TMP
mkdir -p "$T/csrc/d/sub/deep"
for f in report.pdf notes.txt archive.tar.gz .hidden noext x.verylongext weird.a-b; do
	head -c $((1000 + ${#f} * 300)) /dev/urandom >"$T/csrc/d/$f"
done
head -c 7000 /dev/urandom >"$T/csrc/d/sub/deep/customer_acme_ledger"
ln -s report.pdf "$T/csrc/d/latest"
ln -s ../d/sub/deep "$T/csrc/d/up"
chmod 750 "$T/csrc/d/sub"; chmod 600 "$T/csrc/d/notes.txt"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.customer_tag", b"acme-secret")' \
	"$T/csrc/d/report.pdf" || fail "user xattrs on $T (the test needs a file system with them)"
"$RIOT" capture -q -o "$T/orig.riot" -- bash -c 'cd "$1" && cp -a csrc cdst &&
	tar -cf t.tar -C cdst d && mkdir x && tar -xf t.tar -C x' bash "$T" \
	>/dev/null 2>"$T/cap.err" </dev/null || { cat "$T/cap.err" >&2; fail "capture"; }
printf 'k3y-one\n' >"$T/key1"
printf 'another key' >"$T/key2"

anon() { # OUT ARGS...: riot anonymize orig.riot -o OUT ARGS
	local out=$1
	shift
	"$RIOT" anonymize "$T/orig.riot" -o "$T/$out" "$@" >"$T/$out.out" 2>"$T/anon.err" ||
		fail "riot anonymize $*: $(cat "$T/anon.err")"
	[ ! -s "$T/anon.err" ] || fail "riot anonymize $* wrote to stderr: $(cat "$T/anon.err")"
}

anon a1.riot --key-file "$T/key1"
grep -q '^anonymized .* -> .*a1.riot$' "$T/a1.riot.out" || fail "summary: $(cat "$T/a1.riot.out")"
"$RIOT" info --json "$T/orig.riot" >"$T/orig.info" || fail "riot info of the original"
"$RIOT" info --json "$T/a1.riot" >"$T/a1.info" || fail "riot info of the anonymised log"
python3 - "$T/orig.info" "$T/a1.info" <<'PY' || fail "riot info: the copy differs"
import json, sys
o, a = (json.load(open(p)) for p in sys.argv[1:])
for k in ("events", "syscalls", "drops", "duration_ns", "bytes_read", "bytes_written", "errors",
          "processes", "threads", "paths", "files", "unresolved_fds", "nonfile_fd_ops",
          "unknown_cwd", "truncated_paths", "ops", "op_errors", "complete"):
    assert o[k] == a[k], "%s: %r, copy %r" % (k, o[k], a[k])
h = a["header"]
assert (h["host"], h["cmdline"], h["target"], h["options"]) == \
    ("anonymized", "riot anonymize", "", ""), h
assert h["kernel"] == o["header"]["kernel"] and a["complete"], h
# the probe time describes the machine: kept, so reports of the copy
# take the same time off each latency
probe = ("probe_ns", "probe_calls", "probe_untraced_ns", "probe_recorded_ns")
assert o["header"]["probe_calls"] > 0, o["header"]
assert [h[k] for k in probe] == [o["header"][k] for k in probe], (h, o["header"])
PY
echo "riot info: the copy has the original's events, calls, bytes, paths, files and probe time"

# replay LOG NAME: replays LOG under $T/root-NAME; keeps the JSON summary
replay() {
	replay_json "$T/$1" "$T/root-$2"
	cp "$IT_TMP/replay.json" "$T/$2.json"
}
same_replay() { # NAME: the replay of NAME did what the original's did
	python3 - "$T/orig.json" "$T/$1.json" <<'PY' || fail "$1: the replay differs from the original's"
import json, sys
o, a = (json.load(open(p)) for p in sys.argv[1:])
ops = lambda r: {k: (v.get("ops"), v.get("issued"), v.get("unreplayable"))
                 for k, v in r["syscalls"].items()}
assert ops(o) == ops(a), "per syscall: %r\ncopy: %r" % (ops(o), ops(a))
for k in ("divergences", "issued", "skip_reasons", "bytes_read", "bytes_written"):
    assert o.get(k) == a.get(k), "%s: %r, copy %r" % (k, o.get(k), a.get(k))
PY
}
replay orig.riot orig
replay a1.riot a1
same_replay a1

# The trees. map_tree ROOT_ORIG ROOT_COPY KEYFILE [--keep-ext] [--keep P]...
# checks that the copy's tree is the original's with every entry renamed
# as the rules say (symlink targets too), and that their sorted lists of
# (depth, type, size) are equal (a symlink's size is its target's length,
# which renaming changes: left out).
cat >"$T/anon_map.py" <<'PY'
import base64, hashlib, hmac, os, re, sys

root_o, root_a, keyfile = sys.argv[1:4]
key = open(keyfile, "rb").read()
keep_ext, keep = False, []
args = sys.argv[4:]
while args:
    a = args.pop(0)
    if a == "--keep-ext":
        keep_ext = True
    else:
        keep.append(os.path.normpath(args.pop(0)))

def token(c):
    mac = hmac.new(key, b"p" + c.encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
    return base64.b32encode(mac).decode().lower()[:16]

def clear(pos):
    if pos in ("/proc", "/sys", "/dev"):
        return True
    if pos.startswith("/proc/") and re.fullmatch(r"\d+|self|thread-self|task|fd",
                                                 pos.rsplit("/", 1)[1]):
        return True
    return any(k == pos or k.startswith(pos + "/") or pos.startswith(k + "/") for k in keep)

def name(c, pos):
    if clear(pos):
        return c
    m = re.fullmatch(r"(?s)(.+)(\.[A-Za-z0-9]{1,10})", c) if keep_ext else None
    return token(c) + (m.group(2) if m else "")

def rename(path, base):
    """path as recorded, relative to the absolute base"""
    pos, out = (base if not path.startswith("/") else "/"), []
    for c in path.split("/"):
        if c in ("", ".", ".."):
            if c == "..":
                pos = os.path.dirname(pos) or "/"
            out.append(c)
            continue
        pos = pos.rstrip("/") + "/" + c
        out.append(name(c, pos))
    return "/".join(out)

def walk(root):
    ents = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            rel = "/" + os.path.relpath(p, root)
            if rel == "/.riot-root":
                continue
            st = os.lstat(p)
            kind = {0o040000: "d", 0o100000: "f", 0o120000: "l"}.get(st.st_mode & 0o170000, "?")
            ents[rel] = (kind, 0 if kind in "dl" else st.st_size, st.st_mode & 0o7777,
                         os.readlink(p) if kind == "l" else None)
    return ents

o, a = walk(root_o), walk(root_a)
shape = lambda t: sorted((p.count("/"), v[0], v[1]) for p, v in t.items())
assert shape(o) == shape(a), "the trees' shapes differ"
want = {}
for p, (kind, size, mode, target) in o.items():
    if target is not None:
        target = rename(target, os.path.dirname(p))
    want[rename(p, "/")] = (kind, size, mode, target)
bad = sorted(set(want.items()) ^ set(a.items()))
assert not bad, "renamed original and copy differ in:\n  " + "\n  ".join(map(repr, bad[:20]))
print("%d entries renamed as the key says" % len(a))
PY
python3 "$T/anon_map.py" "$T/root-orig" "$T/root-a1" "$T/key1" ||
	fail "the copy's replayed tree is not the original's renamed"
echo "a1: counts, divergences and skips as the original's; the tree renamed entry by entry"

# Nothing of the original's names is left: each component of 3 bytes or
# more of its paths (recorded and resolved), comms and header that the
# rules do not keep differs from every component of the copy's strings
# (split at '/', '.' and ' '); those of 6 bytes or more appear nowhere in
# the copy's strings nor in its raw bytes. (Shorter ones are only compared
# whole: 16 random characters of [a-z2-7] hold a given 3-letter word often
# enough to make a substring test fail by chance.)
"$RIOT" dump --format jsonl "$T/orig.riot" >"$T/orig.jsonl" || fail "dump of the original"
"$RIOT" dump --format jsonl "$T/a1.riot" >"$T/a1.jsonl" || fail "dump of the copy"
python3 - "$T/orig.jsonl" "$T/a1.jsonl" "$T/orig.info" "$T/a1.info" "$T/a1.riot" <<'PY' ||
import json, re, sys
oj, aj, oi, ai, raw = sys.argv[1:]
KEPT = re.compile(r"proc|sys|dev|self|thread-self|task|fd|\d+")
KERNEL = re.compile(r"[a-z_]+:[^/]*")	# pipe:[12], anon_inode:[eventfd]
# names of fields whose strings are no names: kinds, flags, and the
# values of system. xattrs (ACLs: numbers), which stay
ENUMS = ("type", "op", "kind", "flag_names", "ftype_name", "errno", "value")
orig = set()
def add(s, seps="/"):
    for c in (re.split("[" + re.escape(seps) + "]", s) if seps else [s]):
        c = c[:-10] if c.endswith(" (deleted)") else c
        if len(c.encode()) >= 3 and not KEPT.fullmatch(c):
            orig.add(c)
for line in open(oj):
    r = json.loads(line)
    for k, v in r.items():
        if not isinstance(v, str) or k in ENUMS or k == "str":
            continue
        if k in ("comm",):
            add(v, "")
        elif k == "path2_raw" and "xattr" in r.get("op", ""):
            if not v.startswith(("system.", "security.")):
                add(v.split(".", 1)[-1], "")
        elif not (r["type"] == "snap_fd" and KERNEL.fullmatch(v)):
            add(v)
h = json.load(open(oi))["header"]
for k in ("host", "cmdline", "target", "options"):
    add(h[k], "/ ")
assert "customer_acme_ledger" in orig and "customer_tag" in orig and "report.pdf" in orig, orig
copy_strs = []
for line in open(aj):
    copy_strs += [v for k, v in json.loads(line).items() if isinstance(v, str) and k not in ENUMS]
# the header, but "riot anonymize", its command line (checked above)
copy_strs += [v for k, v in json.load(open(ai))["header"].items()
              if isinstance(v, str) and k != "cmdline"]
copy = set()
for s in copy_strs:
    copy.update(re.split(r"[/. ]", s))
whole = sorted(orig & copy)
assert not whole, "original components in the copy: %r" % whole
text, data = "\n".join(copy_strs), open(raw, "rb").read()
sub = sorted(c for c in orig if len(c.encode()) >= 6 and (c in text or c.encode() in data))
assert not sub, "original components inside the copy's strings or bytes: %r" % sub
print("%d original components, none in the copy" % len(orig))
PY
	fail "the copy holds original names"
echo "a1: no original path component, comm or host name in the copy"

# The same key gives the same bytes; another key, and a random one, other
# names for every hashed component.
anon a1b.riot --key-file "$T/key1"
cmp -s "$T/a1.riot" "$T/a1b.riot" || fail "one key gave two different copies"
anon a2.riot --key-file "$T/key2"
anon r1.riot
anon r2.riot
grep -q 'random, not kept' "$T/r1.riot.out" || fail "the summary does not say the key is random"
tokens() { "$RIOT" dump --format jsonl "$T/$1" | grep -o '[a-z2-7]\{16\}' | sort -u; }
for k in a2 r1 r2; do
	tokens "$k.riot" >"$T/$k.tokens"
done
tokens a1.riot >"$T/a1.tokens"
[ "$(wc -l <"$T/a1.tokens")" -gt 20 ] || fail "too few names in the copy"
for p in "a1 a2" "a1 r1" "r1 r2"; do
	read -r a b <<<"$p"
	set -- "$a" "$b"
	[ -z "$(comm -12 "$T/$1.tokens" "$T/$2.tokens")" ] || fail "$1 and $2 share names"
	[ "$(wc -l <"$T/$1.tokens")" = "$(wc -l <"$T/$2.tokens")" ] || fail "$1 and $2: other counts of names"
done
replay r1.riot r1
same_replay r1
python3 "$T/anon_map.py" "$T/root-orig" "$T/root-a2" "$T/key2" 2>/dev/null &&
	fail "key2's tree renamed with key1's rule" || true
echo "one key, the same bytes; other keys (a file's, random ones) share no name"

# --keep-ext keeps the extensions the rule names, nothing else
anon e1.riot --key-file "$T/key1" --keep-ext
replay e1.riot e1
same_replay e1
python3 "$T/anon_map.py" "$T/root-orig" "$T/root-e1" "$T/key1" --keep-ext ||
	fail "--keep-ext: the replayed tree"
# report.pdf's copies keep .pdf; .hidden (a leading dot), x.verylongext
# (11 > 10) and weird.a-b (not alphanumeric) keep nothing
n=$(find "$T/root-orig" -name report.pdf | wc -l)
[ "$n" -ge 2 ] || fail "--keep-ext: $n report.pdf in the original's tree"
[ "$(find "$T/root-e1" -regextype posix-extended -regex '.*/[a-z2-7]{16}\.pdf' | wc -l)" = "$n" ] ||
	fail "--keep-ext: not $n NAME.pdf in the copy's tree"
[ -z "$(find "$T/root-e1" -name '*.verylongext' -o -name '*.a-b' -o -name '.hidden*')" ] ||
	fail "--keep-ext: an extension kept that the rule does not keep"
echo "--keep-ext: .pdf, .txt, .gz kept; .hidden, .verylongext, .a-b hashed; replays the same"

# --keep: /usr and the source tree in the clear (and their ancestors, so
# the relative paths cp used from $T stay consistent), the rest hashed
anon k1.riot --key-file "$T/key1" --keep /usr --keep "$T/csrc/"
replay k1.riot k1
same_replay k1
python3 "$T/anon_map.py" "$T/root-orig" "$T/root-k1" "$T/key1" --keep /usr --keep "$T/csrc" ||
	fail "--keep: the replayed tree"
tree_of "$T/root-orig$T/csrc" >"$T/csrc.orig"
tree_of "$T/root-k1$T/csrc" | diff -u "$T/csrc.orig" - >&2 || fail "--keep: csrc is not in the clear"
[ ! -e "$T/root-k1$T/cdst" ] && [ ! -e "$T/root-k1$T/x" ] || fail "--keep: cdst or x in the clear"
[ -d "$T/root-k1/usr" ] || fail "--keep /usr: no /usr in the copy's tree"
echo "--keep: /usr and csrc in the clear, cdst and x hashed; replays the same"

# Bad input: one line, exit 1 (runtime) or 2 (usage), no output left
bad() { # RC WHAT ARGS...
	local want=$1 what=$2
	shift 2
	rm -f "$T/bad.riot"
	"$RIOT" anonymize "$@" >/dev/null 2>"$T/bad.err"
	local rc=$?
	[ $rc = "$want" ] || fail "$what: exit $rc, not $want"
	# one line; a usage error adds the hint at --help
	grep -v "^Try 'riot anonymize --help'" "$T/bad.err" >"$T/bad.msg"
	[ "$(wc -l <"$T/bad.msg")" = 1 ] && grep -q '^riot: anonymize: ' "$T/bad.msg" ||
		fail "$what: not one line: $(cat "$T/bad.err")"
	[ ! -s "$T/bad.riot" ] || fail "$what: output left"
}
: >"$T/empty.key"
bad 1 "an empty key" "$T/orig.riot" -o "$T/bad.riot" --key-file "$T/empty.key"
grep -q 'empty' "$T/bad.err" || fail "an empty key: $(cat "$T/bad.err")"
bad 1 "a missing key" "$T/orig.riot" -o "$T/bad.riot" --key-file "$T/nokey"
bad 1 "a directory as key" "$T/orig.riot" -o "$T/bad.riot" --key-file "$T"
bad 2 "a relative --keep" "$T/orig.riot" -o "$T/bad.riot" --keep usr
bad 2 "--keep /" "$T/orig.riot" -o "$T/bad.riot" --keep /
bad 1 "two logs that are no segments" "$T/orig.riot" "$T/a1.riot" -o "$T/bad.riot"
bad 2 "no -o" "$T/orig.riot"
bad 1 "a missing log" "$T/none.riot" -o "$T/bad.riot"
printf 'not a log at all' >"$T/junk.riot"
n=$(stat -c %s "$T/orig.riot")
head -c $((n - 10)) "$T/orig.riot" >"$T/cut.riot"
bad 1 "not a log" "$T/junk.riot" -o "$T/bad.riot"
cp "$T/a1.riot" "$T/same.riot"
"$RIOT" anonymize "$T/same.riot" -o "$T/same.riot" >/dev/null 2>"$T/bad.err" &&
	fail "the input as output"
cmp -s "$T/a1.riot" "$T/same.riot" || fail "the input as output: the input changed"
# a log cut short (a killed capture) gives a copy cut short
"$RIOT" anonymize "$T/cut.riot" -o "$T/cut-a.riot" --key-file "$T/key1" >"$T/cut.out" 2>&1 ||
	fail "a cut log: $(cat "$T/cut.out")"
grep -q 'cut short' "$T/cut.out" || fail "a cut log: the summary does not say so"
"$RIOT" info --json "$T/cut-a.riot" | grep -q '"complete": *false' || fail "a cut log: the copy is complete"
echo "bad keys, prefixes, arguments and logs: one line each, nothing written"

# the segments of a rotated capture, read as one log and written as one:
# the same calls, per syscall, as the segments hold together
RW=$T/rot
mkdir -p "$RW"
"$RIOT" capture -q -o "$T/seg.riot" --rotate 4K -- "$BIN/rotwork" "$RW" 400 0 >/dev/null 2>"$T/seg.err" ||
	fail "rotated capture: $(cat "$T/seg.err")"
segs=("$T"/seg.0*.riot)
[ "${#segs[@]}" -ge 3 ] || fail "rotated capture: ${#segs[@]} segments, want 3 or more"
"$RIOT" anonymize "${segs[@]}" -o "$T/seg-a.riot" --key-file "$T/key1" >/dev/null 2>"$T/seg.err" ||
	fail "anonymize of ${#segs[@]} segments: $(cat "$T/seg.err")"
"$RIOT" info --json "${segs[@]}" >"$T/seg.info" || fail "riot info of the segments"
"$RIOT" info --json "$T/seg-a.riot" >"$T/seg-a.info" || fail "riot info of the anonymised segments"
python3 - "$T/seg.info" "$T/seg-a.info" <<'PY' || fail "the anonymised segments differ from the segments"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("ops", "events", "syscalls", "bytes_read", "bytes_written", "drops", "unresolved_fds"):
    if a.get(k) != b.get(k):
        print("%s: segments %r, anonymised %r" % (k, a.get(k), b.get(k)), file=sys.stderr)
        sys.exit(1)
if "segments" not in a or "segments" in b:
    print("segments: the input's %r, the copy's %r" % (a.get("segments"), b.get("segments")),
          file=sys.stderr)
    sys.exit(1)
PY
bad 1 "segments out of order" "${segs[1]}" "${segs[0]}" -o "$T/bad.riot"
echo "the ${#segs[@]} segments of a rotated capture anonymised as one log"
