# scripts/tea-batch under a real scheduler: a one-node Slurm cluster started
# here (munged, slurmctld and slurmd as root, on 127.0.0.1, every file in
# the scratch directory), a suite of three generated traces submitted as a
# job array (sbatch --array=1-3), merged, and every output compared byte
# for byte with the same suite run locally. The daemons are stopped by pid
# and nothing is left outside the scratch directory. Skipped (77), saying
# why, where Slurm cannot be had: not root, or slurm-wlm and munge missing
# (scripts/install-deps.sh installs them as root).
. "$(dirname "$0")/lib.bash"
SRC=$DATA/../..
BATCH="$SRC/scripts/tea-batch"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: a one-node Slurm cluster needs root"; exit 77; }
for c in munged slurmctld slurmd sbatch squeue sinfo scancel; do
    command -v "$c" >/dev/null || { echo "SKIP: $c is missing (apt-get install slurm-wlm munge)"; exit 77; }
done

D=$SCRATCH/cluster
mkdir -p "$D/state" "$D/spool" "$D/munge"
chmod 700 "$D/munge"
HOST=$(hostname -s)
# ports of this test's own, away from Slurm's defaults (6817, 6818)
CTLD_PORT=$((20000 + $$ % 20000))
SLURMD_PORT=$((CTLD_PORT + 1))
PIDS=""

stop_cluster() {
    for p in $PIDS; do
        kill "$p" 2>/dev/null
    done
    for p in $PIDS; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.5
        done
        kill -9 "$p" 2>/dev/null
    done
    PIDS=""
}
trap stop_cluster EXIT
trap 'stop_cluster; exit 1' INT TERM

# munge: our own key and socket
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$D/munge/munge.key"
munged --foreground --force --socket="$D/munge/socket" --key-file="$D/munge/munge.key" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/munged.seed" \
    >"$D/munged.out" 2>&1 &
PIDS="$PIDS $!"

cat >"$D/slurm.conf" <<CONF
ClusterName=teatest
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$D/munge/socket
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=teatest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -S "$D/munge/socket" ] && break
    sleep 0.5
done
[ -S "$D/munge/socket" ] || { cat "$D/munged.out" "$D/munge/munged.log" >&2; fail "munged did not start"; }
slurmctld -D -i -f "$SLURM_CONF" >"$D/slurmctld.out" 2>&1 &
PIDS="$PIDS $!"
slurmd -D -f "$SLURM_CONF" >"$D/slurmd.out" 2>&1 &
PIDS="$PIDS $!"
# the node idle within 60 s
state=""
for _ in $(seq 1 120); do
    state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || { tail -n 20 "$D/slurmctld.log" "$D/slurmd.log" "$D"/*.out >&2; fail "the Slurm node is '$state', not idle"; }

# --- the suite: three traces, as a job array and locally
for w in mixed memory branchy; do
    run 0 "$TEA" gen --workload $w --cycles 300000 --seed 3 -q -o $w.tea
done
printf 'mixed.tea\nmemory.tea\nbranchy.tea\n' >list.txt
OPTS="--freqs 100k,1M --seeds 2 --quiet"
# shellcheck disable=SC2086 # OPTS is a word list
job=$(sbatch --parsable --array=1-3 --output="$SCRATCH/slurm-%A_%a.out" --chdir="$SCRATCH" \
    --wrap="sh '$BATCH' job --bin '$BIN' list.txt - out-slurm -- $OPTS") ||
    fail "sbatch refused the job array: $job"
for _ in $(seq 1 240); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.5
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || { scancel "$job"; fail "the job array did not finish in 120 s"; }
for i in 1 2 3; do
    [ -f "out-slurm/batch/done/$i" ] || { cat slurm-*.out >&2; fail "array task $i left no marker"; }
done
for i in 1 2 3; do
    # shellcheck disable=SC2086
    run 0 sh "$BATCH" job --bin "$BIN" list.txt $i out-local -- $OPTS
done
run 0 sh "$BATCH" merge --bin "$BIN" out-slurm
run 0 sh "$BATCH" merge --bin "$BIN" out-local
# every output, byte for byte; the provenance JSON names OUT (out-slurm or
# out-local), and is compared with that name replaced
(cd out-slurm && find . -type f | sort) >slurm-files.txt
(cd out-local && find . -type f | sort) >local-files.txt
cmp -s slurm-files.txt local-files.txt || fail "the Slurm run wrote other files than the local one"
[ "$(wc -l <slurm-files.txt)" -gt 10 ] || fail "too few outputs: $(cat slurm-files.txt)"
while read -r f; do
    case $f in
    ./batch/*) continue ;; # markers and the recorded list name OUT
    *.json)
        sed 's/out-slurm/OUT/g' "out-slurm/$f" >a.json
        sed 's/out-local/OUT/g' "out-local/$f" >b.json
        cmp -s a.json b.json || fail "$f differs between the Slurm run and the local one (OUT aside)"
        ;;
    *) cmp -s "out-slurm/$f" "out-local/$f" || fail "$f differs between the Slurm run and the local one" ;;
    esac
done <slurm-files.txt
[ "$(wc -l <out-slurm/results.csv)" -eq $((1 + 3 * 5 * 2 * 2)) ] ||
    fail "results.csv: $(wc -l <out-slurm/results.csv) lines, expected a header and 3 x 5 x 2 x 2 rows"

stop_cluster
trap - EXIT
for p in $(cat "$D"/*.pid "$D/munge/munged.pid" 2>/dev/null); do
    kill -0 "$p" 2>/dev/null && fail "daemon $p still runs"
done
echo ok
