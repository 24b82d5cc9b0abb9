#!/usr/bin/env bash
# Runs the benchmarks and writes docs/benchmarks.md.
#   benchmarks/run.sh quick   # about 5 minutes on 2 cores: 1 fork, short iterations (3 forks for the replay's goals)
#   benchmarks/run.sh full    # about 40 minutes: 3 forks, longer iterations (5 for the replay's goals)
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-quick}"
case "$profile" in
  quick) opts=(-f 1 -wi 3 -w 1s -i 5 -r 1s); replay_opts=(-f 3 -wi 3 -w 1s -i 5 -r 1s) ;;
  full)  opts=(-f 3 -wi 5 -w 2s -i 10 -r 2s); replay_opts=(-f 5 -wi 5 -w 2s -i 10 -r 2s) ;;
  *) echo "usage: benchmarks/run.sh [quick|full]" >&2; exit 2 ;;
esac

# Clean first: the benchmarks module weaves its own compiled classes in place, and classes javac did not recompile
# are then woven a second time; after a change of Idem's aspect that left closures of the old weave behind
# (ArrayIndexOutOfBoundsException in an AjcClosure at the first call).
mvn -q -B -ntp -pl benchmarks clean
mvn -q -B -ntp -pl benchmarks -am package -DskipTests
jar=benchmarks/target/benchmarks.jar
agent=$(ls agent/target/idem-agent-*.jar | grep -v -E 'original|-sources|-javadoc')
out=benchmarks/target

# Everything but the agent comparison and the store benchmarks (their own commands write their sections of the
# report, which Report keeps), with allocation per operation (-prof gc).
java -jar "$jar" "${opts[@]}" -prof gc -rf csv -rff "$out/jmh-main.csv" \
    -e 'AgentBenchmarks|JdbcStoreBenchmarks|RedisBenchmarks'
# The agent comparison: compile-time-woven and agent-instrumented replays in the same JVM.
java -jar "$jar" "${opts[@]}" -rf csv -rff "$out/jmh-agent.csv" -jvmArgsAppend "-javaagent:$agent" AgentBenchmarks

# The replay's goals compare scores a few nanoseconds apart, so they get a run of their own: the replay and its two
# floors only, in forks of their own (a JIT's choices differ from one JVM to the next), with no profiler attached.
# Report takes these three scores from this run.
java -jar "$jar" "${replay_opts[@]}" -rf csv -rff "$out/jmh-replay.csv" \
    'CallBenchmarks\.(floor|floorWithClock|idemReplay)$'

java -cp "$jar" dev.idem.benchmarks.Report docs/benchmarks.md "$profile" "benchmarks/run.sh $profile" \
    "$out/jmh-main.csv" "$out/jmh-agent.csv" "$out/jmh-replay.csv"
echo "wrote docs/benchmarks.md"
