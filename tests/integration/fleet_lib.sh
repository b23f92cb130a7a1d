# shellcheck shell=bash
# tests/integration/fleet_lib.sh: the engines the fleet recipes of
# examples/ name, brought up on this host for a test and stopped at its
# end (sourced after lib.sh: IT_TMP, fail, unavailable). Every daemon runs
# as a child of the test from a private directory under IT_TMP, on ports
# chosen free, so the machine's own ssh, munge and Slurm (if any) are left
# alone; fleet_down (on EXIT) stops what fleet_lib started, by pid.
#
#   sshd_up N       an OpenSSH server listening on 127.0.0.2 ... 127.0.0.(N+1),
#                   the hosts h0 ... h(N-1) of FLEET_SSH ("ssh -F CONFIG")
#   slurm_up        munged, slurmctld and slurmd: a one-node cluster;
#                   exports SLURM_CONF for sbatch, squeue, scontrol
#   slurm_wait JOB  waits for a job (every task of an array) to end; its
#                   state(s) in SLURM_STATES

FLEET_DIR=$IT_TMP/engines
FLEET_PIDS=()
FLEET_RUN_SSHD=	# /run/sshd made here (sshd's privilege separation dir)

fleet_down() {
	local p
	if [ -n "${SLURM_CONF:-}" ] && [ -f "$FLEET_DIR/slurm/slurm.conf" ]; then
		scontrol shutdown >/dev/null 2>&1
	fi
	for p in "${FLEET_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${FLEET_PIDS[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
	done
	[ -z "$FLEET_RUN_SSHD" ] || rmdir "$FLEET_RUN_SSHD" 2>/dev/null
	it_cleanup
}
trap fleet_down EXIT

# free_port: a TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# need_cmd CMD PACKAGE: the command, or skip (a failure under CI).
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] ||
		unavailable "$1 is missing (Debian's $2: make deps-test installs it)"
}

sshd_up() {
	local n=$1 d=$FLEET_DIR/ssh port k
	[ "$(id -u)" -eq 0 ] || unavailable "the ssh fleet test needs root (sshd on loopback addresses)"
	need_cmd /usr/sbin/sshd openssh-server
	need_cmd ssh openssh-client
	mkdir -p "$d"
	ssh-keygen -q -t ed25519 -N '' -C riot-test-host -f "$d/host_key" || fail "ssh-keygen (host)"
	ssh-keygen -q -t ed25519 -N '' -C riot-test-user -f "$d/id" || fail "ssh-keygen (user)"
	cp "$d/id.pub" "$d/authorized_keys"
	port=$(free_port)
	{
		echo "Port $port"
		for k in $(seq 0 $((n - 1))); do echo "ListenAddress 127.0.0.$((k + 2))"; done
		cat <<EOF
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
LogLevel ERROR
EOF
	} >"$d/sshd_config"
	{
		for k in $(seq 0 $((n - 1))); do printf 'Host h%d\n\tHostName 127.0.0.%d\n' "$k" $((k + 2)); done
		cat <<EOF
Host *
	Port $port
	User root
	IdentityFile $d/id
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
EOF
	} >"$d/ssh_config"
	for k in $(seq 0 $((n - 1))); do
		echo "[127.0.0.$((k + 2))]:$port $(cut -d' ' -f1,2 "$d/host_key.pub")"
	done >"$d/known_hosts"
	if [ ! -d /run/sshd ]; then
		mkdir -m 755 /run/sshd || fail "cannot make /run/sshd"
		FLEET_RUN_SSHD=/run/sshd
	fi
	/usr/sbin/sshd -D -e -f "$d/sshd_config" 2>"$d/sshd.log" &
	FLEET_PIDS+=($!)
	FLEET_SSH="ssh -F $d/ssh_config"
	for k in $(seq 0 $((n - 1))); do
		for _ in $(seq 100); do
			$FLEET_SSH "h$k" true 2>/dev/null && continue 2
			sleep 0.1
		done
		fail "sshd on 127.0.0.$((k + 2)):$port does not answer: $(cat "$d/sshd.log")"
	done
}

slurm_up() {
	local d=$FLEET_DIR/slurm node
	[ "$(id -u)" -eq 0 ] || unavailable "the Slurm fleet test needs root (slurmd runs jobs as root)"
	need_cmd munged munge
	need_cmd slurmctld slurmctld
	need_cmd slurmd slurmd
	need_cmd sbatch slurm-client
	mkdir -p "$d/state" "$d/spool" "$d/run" "$d/log" "$d/munge"
	chmod 755 "$d/run"
	chmod 700 "$d/munge"
	# munge: a key of its own and a socket here; -f: munged as root
	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none || fail "munge key"
	chmod 400 "$d/munge/munge.key"
	munged -F -f --key-file="$d/munge/munge.key" --socket="$d/run/munge.sock" \
		--pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" \
		--seed-file="$d/run/munged.seed" >"$d/log/munged.out" 2>&1 &
	FLEET_PIDS+=($!)
	for _ in $(seq 100); do
		[ -S "$d/run/munge.sock" ] && break
		sleep 0.1
	done
	[ -S "$d/run/munge.sock" ] || fail "munged did not start: $(cat "$d/log/munged.out")"
	node=$(hostname -s)
	cat >"$d/slurm.conf" <<EOF
ClusterName=riottest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/run/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=fleet Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$d/slurm.conf
	slurmctld -D -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
	FLEET_PIDS+=($!)
	slurmd -D -f "$SLURM_CONF" >"$d/log/slurmd.out" 2>&1 &
	FLEET_PIDS+=($!)
	for _ in $(seq 300); do
		[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
		sleep 0.1
	done
	fail "the node is not idle: $(sinfo 2>&1; tail -n 5 "$d/log/slurmctld.log" "$d/log/slurmd.log")"
}

slurm_wait() {
	local job=$1
	for _ in $(seq 1800); do
		SLURM_STATES=$(scontrol -o show job "$job" 2>/dev/null |
			sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' ')
		case "$SLURM_STATES" in
		*PENDING* | *RUNNING* | *CONFIGURING* | *COMPLETING* | "") sleep 0.2 ;;
		*) return 0 ;;
		esac
	done
	fail "job $job did not end: $SLURM_STATES"
}
