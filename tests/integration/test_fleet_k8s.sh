#!/usr/bin/env bash
# examples/k8s-indexed-job.yaml without Kubernetes: the Job's container is
# read from the YAML (parsed, not copied: command, args, env, volume
# mounts, completions, parallelism) and run once per JOB_COMPLETION_INDEX,
# all at once as parallelism = completions asks, with the environment the
# pod would get (SHARDS from the manifest, START_AT from the ConfigMap the
# header's kubectl line makes, in its RFC 3339 form). Each volume is a
# directory here: the command's paths under a volume's mountPath are
# mapped to it, as the kubelet's mounts would, and "riot" is this riot.
# What this proves: the command and environment the manifest gives each
# pod make shard K of N with one start, and the reports merge into the
# whole replay. What it does not: scheduling, the image, the volumes,
# the ConfigMap, privileges (README says so).
# Checks: every index exits 0; shard K/N in report shard-K.db labelled
# shard-K, started against START_AT (start_late_ns = start - START_AT);
# the merged fleet run equals the whole replay per syscall (count,
# errors, bytes) and per process; the shared root ends as the whole
# replay's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
YAML=$IT_DIR/../../examples/k8s-indexed-job.yaml
python3 -c 'import yaml' 2>/dev/null || unavailable "python3-yaml is missing (make deps-test)"

python3 "$IT_DIR/fleet_log.py" 32 | "$BIN/mklog" -o "$IT_TMP/app.riot" || fail "mklog"
"$RIOT" replay "$IT_TMP/app.riot" --root "$IT_TMP/full" --no-block --report "$IT_TMP/full.db" \
	--label full >/dev/null 2>"$IT_TMP/err" || fail "whole replay: $(cat "$IT_TMP/err")"
mkdir -p "$IT_TMP/vol/logs" "$IT_TMP/vol/storage" "$IT_TMP/vol/reports" "$IT_TMP/bin"
cp "$IT_TMP/app.riot" "$IT_TMP/vol/logs/app.riot"
ln -s "$RIOT" "$IT_TMP/bin/riot"
start=$(date -u -d '+5 sec' +%Y-%m-%dT%H:%M:%SZ)

# the pods' commands, one line of JSON each: argv and environment
python3 - "$YAML" "$IT_TMP/vol" "$start" >"$IT_TMP/pods" <<'PY' || fail "reading the manifest"
import json, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
vol, start = sys.argv[2], sys.argv[3]
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job"
n = spec["completions"]
assert spec["parallelism"] == n, "parallelism %s, completions %s" % (spec["parallelism"], n)
(c,) = spec["template"]["spec"]["containers"]
configmap = {"riot-start": {"START_AT": start}}   # kubectl create configmap riot-start ...
volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
mounts = {m["mountPath"]: "%s/%s" % (vol, m["name"]) for m in c["volumeMounts"]
          if m["name"] in volumes}
def mapped(s):
    for path, here in sorted(mounts.items(), key=lambda x: -len(x[0])):
        s = s.replace(path + "/", here + "/")
    return s
for k in range(n):
    env = {"JOB_COMPLETION_INDEX": str(k)}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        else:
            ref = e["valueFrom"]["configMapKeyRef"]
            env[e["name"]] = configmap[ref["name"]][ref["key"]]
    print(json.dumps({"argv": [mapped(a) for a in c["command"] + c.get("args", [])],
                      "env": env}))
PY
n=$(wc -l <"$IT_TMP/pods")
[ "$n" = 4 ] || fail "the manifest gives $n pods, 4 expected"
python3 - "$IT_TMP/pods" "$IT_TMP" <<'PY' || fail "a pod failed"
import json, os, subprocess, sys
tmp = sys.argv[2]
procs = []
for k, line in enumerate(open(sys.argv[1])):
    pod = json.loads(line)
    env = dict(os.environ, PATH=tmp + "/bin:" + os.environ["PATH"], **pod["env"])
    procs.append(subprocess.Popen(pod["argv"], env=env, stdout=open("%s/pod%d.out" % (tmp, k), "w"),
                                  stderr=subprocess.STDOUT))
bad = [k for k, p in enumerate(procs) if p.wait() != 0]
for k in bad:
    sys.stderr.write("pod %d: %s" % (k, open("%s/pod%d.out" % (tmp, k)).read()))
sys.exit(1 if bad else 0)
PY
"$RIOT" report merge "$IT_TMP"/vol/reports/shard-*.db -o "$IT_TMP/fleet.db" ||
	fail "merging the pods' reports"
target=$(date -u -d "$start" +%s)
python3 - "$IT_TMP" "$target" <<'PY' || fail "shards and merge"
import sqlite3, sys
tmp, target = sys.argv[1], int(sys.argv[2]) * 10**9
full = sqlite3.connect(tmp + "/full.db")
m = sqlite3.connect(tmp + "/fleet.db")
bad = []
for k in range(4):
    c = sqlite3.connect("%s/vol/reports/shard-%d.db" % (tmp, k))
    row = c.execute("SELECT label, shard, start_unix_ns - start_late_ns FROM runs").fetchone()
    if row != ("shard-%d" % k, "%d/4" % k, target):
        bad.append("shard-%d.db: %s" % (k, row))
fid, fr = m.execute("SELECT id, fleet_runs FROM runs WHERE label = 'fleet'").fetchone()
for q in ("SELECT sys, count, errors, bytes FROM syscalls WHERE run_id = ?",
          "SELECT pid, ops, bytes_read, bytes_written FROM processes WHERE run_id = ?"):
    w = sorted(full.execute(q.replace("?", "(SELECT id FROM runs)")))
    if sorted(m.execute(q, (fid,))) != w:
        bad.append("fleet differs from the whole replay: %s" % q)
if fr != 4:
    bad.append("fleet_runs %s" % fr)
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
diff <(tree_of "$IT_TMP/full") <(tree_of "$IT_TMP/vol/storage/riot-root") ||
	fail "the shared root after 4 pods differs from the whole replay's root"
echo "k8s: the manifest's command ran as 4 indexed pods; their merge is the whole replay"
