-- report/schema.sql: the riot report database (schema version 8).
--
-- One database holds several runs (captures and replays), each with a
-- unique label. Times are ns, sizes bytes. Syscalls are named as in
-- bpf/syscalls.def; classes as riot_class_name(), plus the timeline classes
-- data_read, data_write, sync and metadata. NULL means unknown.
-- Compatibility: a reader refuses a database whose meta.schema_version is
-- newer than its own; new versions only add tables and columns.

CREATE TABLE meta (
	key TEXT PRIMARY KEY,		-- 'application' = 'riot', 'schema_version'
	value TEXT NOT NULL
);

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	label TEXT NOT NULL UNIQUE,
	kind TEXT NOT NULL CHECK (kind IN ('capture', 'replay')),
	created_unix INTEGER NOT NULL,	-- when the run was stored
	host TEXT, kernel TEXT, arch TEXT,
	cpu_model TEXT, cpu_count INTEGER, memory_bytes INTEGER,
	-- the filesystem of the replay root, or of most captured operations
	fs_type TEXT, fs_device TEXT, fs_mount_point TEXT, fs_mount_options TEXT,
	riot_version TEXT, cmdline TEXT,
	trace_file TEXT, trace_sha256 TEXT,
	start_unix_ns INTEGER, duration_ns INTEGER NOT NULL,
	replay_speed REAL,		-- 0: as fast as possible
	replay_order TEXT, replay_workers INTEGER, replay_engine TEXT, replay_fill TEXT,
	ops INTEGER NOT NULL,		-- syscalls summarised
	errors INTEGER NOT NULL,	-- of those, failed
	proc_events INTEGER NOT NULL,	-- fork, exec, exit records
	bytes_read INTEGER NOT NULL,	-- data_read + data_copy
	bytes_written INTEGER NOT NULL,	-- data_write + data_copy
	busy_ns INTEGER NOT NULL,	-- sum of latencies
	complete INTEGER,		-- 0: the log was cut short
	dropped_events INTEGER NOT NULL,
	unresolved_fds INTEGER NOT NULL,
	unknown_cwd INTEGER NOT NULL,
	truncated_paths INTEGER NOT NULL,
	timeline_late INTEGER NOT NULL,	-- ops left out of their second's p99
	events_kept INTEGER NOT NULL,	-- 1: the events table holds every op
	-- paced replays (version 2): 0 when the replay fell behind its
	-- schedule (issue delay p99 over 1 ms or any op over 10 ms late),
	-- 1 when it kept it; NULL for captures and unpaced replays
	timing_kept INTEGER,
	late_ops INTEGER,		-- paced ops issued over 1 ms late
	delay_p99_ns INTEGER, delay_max_ns INTEGER,	-- issue delay, all ops
	-- version 4 (a version 3 report gains them with ALTER TABLE):
	start_late_ns INTEGER,		-- replay --start-at: how far past it the
					-- schedule started; NULL: no --start-at
	shard TEXT,			-- replay --shard: 'K/N'; NULL: whole log
	fleet_runs INTEGER,		-- a fleet run (riot report merge): how
					-- many runs it sums; NULL: a run of its own
	-- version 5 (an older report gains it with ALTER TABLE):
	probe_ns INTEGER,		-- a capture's: the time its probes added to
					-- each duration (the log's header), taken
					-- off every latency; NULL: none
	-- version 6 (an older report gains them with ALTER TABLE), replays:
	replay_timing TEXT,		-- 'fast' (as fast as possible), 'think'
					-- (the program's time between calls
					-- kept) or 'captured' (the schedule)
	predicted_ns INTEGER,		-- think: the program's predicted time on
					-- this storage, from its start (its
					-- first process record or call) to its
					-- end (its last call's end or exit)
	captured_ns INTEGER,		-- the same span of the captured program
	unreliable INTEGER,		-- 1: the replay did not do the captured
					-- I/O (divergences, skipped or
					-- unreplayable ops over 1 %, or a call's
					-- success or failure turned round)
	warning TEXT,			-- why, as the summary's warning line
	-- version 7 (an older report gains them with ALTER TABLE):
	fleet_id INTEGER,		-- a run a fleet run sums: the fleet
					-- run's id; NULL: in no fleet
	device_shared INTEGER,		-- the devices' window: 1 others wrote
					-- too (a shard's fleet, or other
					-- processes of the host), 0 the run was
					-- the only writer, NULL unknown
	device_other_writers INTEGER,	-- the other processes that wrote then
	device_other_bytes INTEGER	-- and what they wrote (/proc/PID/io)
);

-- Per syscall: latency and, for replays, issue delay.
CREATE TABLE syscalls (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	sys TEXT NOT NULL,
	class TEXT NOT NULL,		-- riot_class_name()
	count INTEGER NOT NULL, errors INTEGER NOT NULL, bytes INTEGER NOT NULL,
	lat_sum_ns INTEGER NOT NULL, lat_mean_ns REAL NOT NULL,
	lat_min_ns INTEGER NOT NULL,
	lat_p50_ns INTEGER NOT NULL, lat_p90_ns INTEGER NOT NULL,
	lat_p99_ns INTEGER NOT NULL, lat_p999_ns INTEGER NOT NULL,
	lat_max_ns INTEGER NOT NULL,
	delay_count INTEGER NOT NULL,	-- ops with an issue delay (replays)
	delay_p50_ns INTEGER, delay_p99_ns INTEGER, delay_max_ns INTEGER,
	PRIMARY KEY (run_id, sys)
);

-- Per timeline class (data_read, data_write, sync, metadata) and 'all'.
CREATE TABLE classes (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	class TEXT NOT NULL,
	count INTEGER NOT NULL, errors INTEGER NOT NULL, bytes INTEGER NOT NULL,
	lat_sum_ns INTEGER NOT NULL,
	lat_p50_ns INTEGER NOT NULL, lat_p90_ns INTEGER NOT NULL,
	lat_p99_ns INTEGER NOT NULL, lat_p999_ns INTEGER NOT NULL,
	lat_max_ns INTEGER NOT NULL,
	-- version 8 (an older report gains them with ALTER TABLE): think
	-- time, the gap before each call since its thread's previous call
	-- ended (riot dump's gap_ns), of the class's calls that have one (a
	-- capture's; NULL: none, as for replays); p50 and p99 from a
	-- lib/hist.h histogram
	gap_count INTEGER, gap_sum_ns INTEGER,
	gap_p50_ns INTEGER, gap_p99_ns INTEGER,
	PRIMARY KEY (run_id, class)
);

-- Log-linear histograms (lib/hist.h: 64 buckets per power of two, so a
-- percentile is within 1.6 %). Only non-empty buckets are stored; a bucket
-- holds the values low_ns..high_ns inclusive.
CREATE TABLE histograms (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	sys TEXT NOT NULL,
	metric TEXT NOT NULL CHECK (metric IN ('latency', 'issue_delay')),
	bucket INTEGER NOT NULL,
	low_ns INTEGER NOT NULL, high_ns INTEGER NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (run_id, sys, metric, bucket)
);

-- Per file: by resolved path (path_id is the model's id within the run).
CREATE TABLE files (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	path_id INTEGER NOT NULL,	-- 0: operations with no resolved path
	path TEXT,
	ops INTEGER NOT NULL, errors INTEGER NOT NULL,
	bytes_read INTEGER NOT NULL, bytes_written INTEGER NOT NULL,
	lat_sum_ns INTEGER NOT NULL,
	PRIMARY KEY (run_id, path_id)
);

CREATE TABLE processes (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	pid INTEGER NOT NULL,
	comm TEXT,
	ops INTEGER NOT NULL, errors INTEGER NOT NULL,
	bytes_read INTEGER NOT NULL, bytes_written INTEGER NOT NULL,
	lat_sum_ns INTEGER NOT NULL,
	PRIMARY KEY (run_id, pid)
);

-- Per second of completion and timeline class; seconds without ops of a
-- class have no row.
CREATE TABLE timeline (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	second INTEGER NOT NULL,
	class TEXT NOT NULL,
	ops INTEGER NOT NULL, bytes INTEGER NOT NULL,
	lat_p99_ns INTEGER,		-- NULL: every op of it completed late
	PRIMARY KEY (run_id, second, class)
);

-- Throughput at a resolution that follows the run's span (at most 256
-- buckets, of 10 us for a run under 2.56 ms, doubling as needed): ops and
-- bytes of the timeline classes completing in [t_ns, t_ns + width_ns);
-- empty buckets have no row. Added to older databases when a run is
-- stored, when it lacks the table; a reader that finds no table or no
-- rows for a run uses the timeline.
CREATE TABLE IF NOT EXISTS rates (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	t_ns INTEGER NOT NULL,
	width_ns INTEGER NOT NULL,
	ops INTEGER NOT NULL, bytes INTEGER NOT NULL,
	PRIMARY KEY (run_id, t_ns)
);

CREATE TABLE errors (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	sys TEXT NOT NULL,
	errno INTEGER NOT NULL,
	name TEXT NOT NULL,		-- "ENOENT"
	count INTEGER NOT NULL,
	PRIMARY KEY (run_id, sys, errno)
);

-- Replays: operations whose result differed from the capture.
CREATE TABLE divergences (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	sys TEXT NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('result', 'bytes', 'skipped', 'other')),
	count INTEGER NOT NULL,
	PRIMARY KEY (run_id, sys, kind)
);

-- The first divergences of a run, for a look at what went wrong.
CREATE TABLE divergence_samples (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	sys TEXT NOT NULL, kind TEXT NOT NULL,
	captured_ret INTEGER, replay_ret INTEGER, path TEXT,
	PRIMARY KEY (run_id, seq)
);

-- Every filesystem a run's files were on (a capture may span several).
CREATE TABLE filesystems (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	dev INTEGER,			-- st_dev
	fs_type TEXT, device TEXT, mount_point TEXT, mount_options TEXT,
	ops INTEGER NOT NULL
);

-- Only with --events: every operation. sys is the riot syscall id
-- (syscall_names maps it), path_id refers to files(run_id, path_id).
CREATE TABLE events (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	t_ns INTEGER NOT NULL,		-- since the run's start
	lat_ns INTEGER NOT NULL,
	sys INTEGER NOT NULL,
	pid INTEGER NOT NULL, tid INTEGER NOT NULL,
	file INTEGER NOT NULL, path_id INTEGER NOT NULL,
	ret INTEGER NOT NULL,
	issue_delay_ns INTEGER		-- NULL for captures
);

CREATE TABLE syscall_names (
	id INTEGER PRIMARY KEY,		-- RIOT_SYS_*: stable across versions
	name TEXT NOT NULL,
	class TEXT NOT NULL
);

-- Added in version 3; an older report is upgraded by running every
-- statement from the next line on (so they say IF NOT EXISTS).
-- What reached the block devices during a run (docs/reports.md: "What the
-- storage saw"): block_rq_issue to block_rq_complete, counted at completion as
-- /sys/block/<dev>/stat counts. A loop device is counted at the loop
-- device; a device-mapper or md device at its members. Every request to
-- the device in the window counts, whoever sent it.
CREATE TABLE IF NOT EXISTS devices (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	dev INTEGER NOT NULL,		-- st_dev encoding (glibc makedev)
	name TEXT NOT NULL,		-- "sda1", "loop3"
	kind TEXT NOT NULL,		-- disk, partition, loop
	note TEXT,			-- "loop device backed by ...", "member of dm-0"
	window_ns INTEGER NOT NULL,	-- recording start to end
	flush_ns INTEGER,		-- the syncfs that ended the window; NULL: none
	read_reqs INTEGER NOT NULL, read_bytes INTEGER NOT NULL,
	write_reqs INTEGER NOT NULL, write_bytes INTEGER NOT NULL,
	discard_reqs INTEGER NOT NULL, discard_bytes INTEGER NOT NULL,
	flush_reqs INTEGER NOT NULL,
	-- issue to completion, from a lib/hist.h histogram (within 1.6 %)
	read_p50_ns INTEGER, read_p99_ns INTEGER, read_max_ns INTEGER,
	write_p50_ns INTEGER, write_p99_ns INTEGER, write_max_ns INTEGER,
	depth_mean REAL NOT NULL,	-- requests in flight on average: sum of
					-- their latencies over the window
	depth_peak INTEGER NOT NULL,	-- the most in flight at once
	untimed INTEGER NOT NULL,	-- requests ending with no issue seen: a
					-- flush sequence's, or issued before
	write_amplification REAL,	-- write_bytes / runs.bytes_written; NULL
					-- when the workload wrote nothing
	PRIMARY KEY (run_id, dev)
);

-- Queue depth over time: requests in flight sampled every 10 ms, averaged
-- over points of step_ns (wider for long runs), with the most in flight
-- within each point.
CREATE TABLE IF NOT EXISTS device_depth (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	dev INTEGER NOT NULL,
	t_ns INTEGER NOT NULL,		-- since the window started
	step_ns INTEGER NOT NULL,
	depth REAL NOT NULL, depth_max INTEGER NOT NULL,
	PRIMARY KEY (run_id, dev, t_ns)
);

-- Added in version 8: flamegraph stacks, comm;syscall;path components
-- (frames from the root, joined by ';'; none for a call without a path),
-- with their calls, latency and bytes moved (ret of data calls). At most
-- the cap's heaviest by each weight (riot report --max-stacks, default
-- 1000) are stored as they are; every other is folded into an '(other)'
-- frame under the longest beginning it shares with a kept one, so the
-- weights sum to every call of the run and the table stays small.
CREATE TABLE IF NOT EXISTS stacks (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	stack TEXT NOT NULL,
	count INTEGER NOT NULL, time_ns INTEGER NOT NULL, bytes INTEGER NOT NULL,
	PRIMARY KEY (run_id, stack)
);
