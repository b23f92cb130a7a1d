"""help_check.py RIOT TOP: every command's --help against its parser.

For each command, the options its option table (struct option, and the
getopt_long short-option string) accepts, read from the source, and the
options its help text names:
- every option the help lists (an indented line starting with it, or the
  Usage lines) is in the parser's table, and one that takes an argument,
  given none, is answered "option '--opt' requires an argument": the
  parser knows it by that very name;
- every long and short option the parser accepts is in the help.
"--help"/"-h" are riot.c's, for every command.
Prints one line per mismatch; exit 1 if any."""
import re
import subprocess
import sys

RIOT, TOP = sys.argv[1], sys.argv[2]

# help (riot ARGS --help) -> [(invocation prefix, source file)]
COMMANDS = [
    (["capture"], [(["capture"], "capture/options.c:capture_long")]),
    (["top"], [(["top"], "capture/options.c:top_long")]),
    (["init"], [(["init"], "replay/cmd_init.c")]),
    (["replay"], [(["replay"], "replay/cmd_replay.c")]),
    (["report"], [(["report"], "report/cmd_report.c"),
                  (["report", "show"], "report/show.c"),
                  (["report", "merge"], "report/merge.c")]),
    (["compare"], [(["compare"], "report/cmd_compare.c")]),
    (["info"], [(["info"], "inspect/cmd_info.c")]),
    (["dump"], [(["dump"], "inspect/cmd_dump.c")]),
    (["import", "strace"], [(["import", "strace"], "convert/cmd_import_strace.c")]),
    (["export", "fio"], [(["export", "fio"], "convert/cmd_export_fio.c")]),
    (["anonymize"], [(["anonymize"], "anon/cmd_anonymize.c")]),
    (["version"], [(["version"], "inspect/cmd_version.c")]),
]

def parser_options(path):
    """{long name: has_arg}, set of short letters (with ':' when they take
    an argument) of the file's option table and getopt_long call."""
    path, _, name = path.partition(":")	# FILE:TABLE where a file has two
    name = name or r"\w+"
    src = open(f"{TOP}/{path}").read()
    m = re.search(rf"struct option {name}\[\] = \{{(.*?)\n\s*\}};|struct option {name}\[\] = \{{(.*?)\}};", src, re.S)
    assert m, f"{path}: no struct option table"
    table = m.group(1) or m.group(2)
    longs = {n: a for n, a in re.findall(r'\{\s*"([a-z0-9-]+)",\s*(\w+)', table)}
    calls = re.findall(r'getopt_long\(argc, argv, "([^"]*)"', src)
    assert len(calls) == 1, f"{path}: {len(calls)} getopt_long calls"
    shorts = {}
    s = calls[0].lstrip("+-:")
    i = 0
    while i < len(s):
        shorts[s[i]] = s[i + 1:i + 2] == ":"
        i += 2 if s[i + 1:i + 2] == ":" else 1
    return longs, shorts

def help_text(args):
    r = subprocess.run([RIOT] + args + ["--help"], capture_output=True, text=True)
    assert r.returncode == 0, f"riot {' '.join(args)} --help exited {r.returncode}"
    assert r.stderr == "", f"riot {' '.join(args)} --help wrote to stderr"
    return r.stdout

OPT_LINE = re.compile(r"^\s+(?:(-[a-zA-Z])(?:,\s+|\s+(?=-)))?(--[a-z][a-z0-9-]*)?")

def listed(text):
    """Options the help lists: at the start of an indented line, or in a
    Usage line ([--x] and -x forms)."""
    longs, shorts = set(), set()
    usage = True
    for line in text.splitlines():
        if line.startswith("Usage:") or (usage and line.startswith("       riot")):
            longs |= set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", line))
            shorts |= set(re.findall(r"(?<![\w-])-([a-zA-Z])\b", line))
            continue
        usage = False
        m = OPT_LINE.match(line)
        if m and (m.group(1) or m.group(2)):
            if m.group(1):
                shorts.add(m.group(1)[1])
            if m.group(2):
                longs.add(m.group(2)[2:])
    return longs, shorts

def getopt_answer(prefix, opt, has_arg):
    """What the parser said of a bare --opt, last on the line: 'known' or
    the error line."""
    r = subprocess.run([RIOT] + prefix + [opt], capture_output=True, text=True, timeout=30)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    want = f"option '{opt}' requires an argument"
    return "known" if r.returncode == 2 and first.endswith(want) else (first or f"exit {r.returncode}")

bad = []
for help_args, parsers in COMMANDS:
    name = " ".join(help_args)
    text = help_text(help_args)
    h_long, h_short = listed(text)
    all_long = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))
    all_short = set(re.findall(r"(?<![\w-])-([a-zA-Z])\b", text))
    p_long, p_short = {}, {}
    for prefix, path in parsers:
        lo, sh = parser_options(path)
        for o, a in lo.items():
            p_long.setdefault(o, []).append((prefix, a != "no_argument"))
        for o, a in sh.items():
            p_short.setdefault(o, []).append((prefix, a))
    for o in sorted(set(p_long) - {"help"}):
        if o not in all_long:
            bad.append(f"{name}: the parser takes --{o}, the help does not say so")
    for o in sorted(set(p_short) - {"h"}):
        if o not in all_short:
            bad.append(f"{name}: the parser takes -{o}, the help does not say so")
    for o in sorted(h_long - {"help"}):
        if o not in p_long:
            bad.append(f"{name}: the help lists --{o}, no parser of it takes it")
            continue
        # an option taking an argument, given none, gets getopt's (or
        # capture's) "requires an argument": the parser knows it by this
        # very name. One taking none is known from its table alone.
        if not any(a for _, a in p_long[o]):
            continue
        answers = [getopt_answer(prefix, "--" + o, a) for prefix, a in p_long[o] if a]
        if "known" not in answers:
            bad.append(f"{name}: --{o} is not taken: {answers}")
    for o in sorted(h_short - {"h"}):
        if o not in p_short:
            bad.append(f"{name}: the help lists -{o}, no parser of it takes it")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
