package main

import (
	"fmt"
	"io"
	"strings"
)

// The usage texts follow Flink's `flink --help`: one block per action,
// its syntax, then its options, short and long form side by side.

const usageHeader = `./flink <ACTION> [OPTIONS] [ARGUMENTS]

The following actions are available:
`

var actionUsages = []struct {
	action string
	text   string
}{
	{"run", `
Action "run" compiles and runs a program.

  Syntax: run [OPTIONS] <jar-file> <arguments>
  "run" action options:
     -c,--class <classname>           Class with the program entry point: the
                                      jar's Program-Class, the only one it
                                      holds.
     -d,--detached                    If present, runs the job in detached
                                      mode: returns once the job is
                                      submitted.
     -m,--jobmanager <host:port>      Address of the JobManager's REST
                                      endpoint to which to connect (default
                                      localhost:8081).
     -n,--allowNonRestoredState       Allow to skip savepoint state that
                                      cannot be restored. You need to allow
                                      this if you removed an operator from
                                      your program that was part of the
                                      program when the savepoint was
                                      triggered.
     -p,--parallelism <parallelism>   The parallelism with which to run the
                                      program. Optional flag to override the
                                      program's default.
     -s,--fromSavepoint <savepointPath>
                                      Path to a savepoint to restore the job
                                      from (for example
                                      /tmp/savepoints/savepoint-1537). The
                                      cluster must checkpoint
                                      (execution.checkpointing.interval).
  The program is planned here (StreamGraph -> JobGraph) and submitted with
  POST /jobs, the JobGraph and the jar in one request. Attached (without
  -d), run waits for the job, prints its submission trace and how it
  ended. A print sink prints on the TaskManagers: with start-cluster, into
  their .out files in the log directory.
`},
	{"run-application", `
Action "run-application" runs an application in Application Mode.

  Syntax: run-application [OPTIONS] <jar-file> <arguments>
  "run-application" action options:
     -p,--parallelism <parallelism>   The parallelism with which to run the
                                      program.
     --taskmanagers <n>               TaskManager processes to start (default 1).
     --slots <m>                      taskmanager.numberOfTaskSlots (default 1).
     --host <host>                    jobmanager.rpc.address (default localhost).
     --rpc-port <port>                jobmanager.rpc.port (default 6123).
     --rest-port <port>               rest.port (default 8081; 0: a free port).
     --blob-port <port>               blob.server.port (default 6124; 0: a free
                                      port).
     --log-dir <dir>                  env.log.dir (default $FLINK_LOG_DIR, or
                                      flinklab-log in the temporary directory).
     -D <property=value>              An option of Flink's configuration, given
                                      to every process, e.g. -D
                                      heartbeat.timeout=1000 or -D
                                      restart-strategy.type=fixed-delay.
  Starts an application cluster on this machine, in the foreground: a
  JobManager that runs the program's job (standalone-job) and the
  TaskManagers. It ends when the job ends, with the JobManager's exit code.
`},
	{"info", `
Action "info" shows the optimized execution plan of the program (JSON).

  Syntax: info [OPTIONS] <jar-file> <arguments>
  "info" action options:
     -c,--class <classname>           Class with the program entry point.
     -p,--parallelism <parallelism>   The parallelism with which to run the
                                      program.
`},
	{"list", `
Action "list" lists running and scheduled programs.

  Syntax: list [OPTIONS]
  "list" action options:
     -a,--all                         Show all programs and their JobIDs
     -m,--jobmanager <host:port>      Address of the JobManager's REST
                                      endpoint (default localhost:8081).
     -r,--running                     Show only running programs and their
                                      JobIDs
     -s,--scheduled                   Show only scheduled programs and their
                                      JobIDs
`},
	{"cancel", `
Action "cancel" cancels a running program.

  Syntax: cancel [OPTIONS] <Job ID>
  "cancel" action options:
     -m,--jobmanager <host:port>      Address of the JobManager's REST
                                      endpoint (default localhost:8081).
`},
	{"stop", `
Action "stop" stops a running program with a savepoint (streaming jobs only).

  Syntax: stop [OPTIONS] <Job ID>
  "stop" action options:
     -d,--drain                           Send MAX_WATERMARK before taking the
                                          savepoint and stopping the pipelne.
                                          (flinklab has no event time: it takes
                                          the same savepoint.)
     -m,--jobmanager <host:port>          Address of the JobManager's REST
                                          endpoint (default localhost:8081).
     -p,--savepointPath <savepointPath>   Path to the savepoint (for example
                                          /tmp/savepoints). If no directory is
                                          specified, the configured default will
                                          be used ("state.savepoints.dir").
  The periodic checkpoints stop, the savepoint is taken, the job's tasks
  end and the job is FINISHED. If the savepoint fails, the job runs on.
`},
	{"savepoint", `
Action "savepoint" triggers savepoints for a running job.

  Syntax: savepoint [OPTIONS] <Job ID> [<target directory>]
  "savepoint" action options:
     -m,--jobmanager <host:port>      Address of the JobManager's REST
                                      endpoint (default localhost:8081).
  Without a target directory the savepoint goes to state.savepoints.dir.
  The job must be checkpointed (execution.checkpointing.interval).
`},
	{"jar", `
Action "jar" writes the job jar of a registered program.

  Syntax: jar [OPTIONS] <program>
  "jar" action options:
     -o,--output <file>               Where to write the jar (default
                                      <program>.jar).
  The programs: wordcount (with its text), ticker, sharing, and any other
  program registered in this binary.
`},
	{"start-cluster", `
Action "start-cluster" starts a standalone session cluster on this machine.

  Syntax: start-cluster [OPTIONS]
  "start-cluster" action options:
     --jobmanagers <n>                JobManager processes to start (default 1):
                                      a leader and standbys, which needs -D
                                      high-availability.type=zookeeper. They
                                      take consecutive ports from the RPC,
                                      REST and BLOB ports given.
     --taskmanagers <n>               TaskManager processes to start (default 1).
     --slots <m>                      taskmanager.numberOfTaskSlots (default 1).
     --host <host>                    jobmanager.rpc.address (default localhost).
     --rpc-port <port>                jobmanager.rpc.port (default 6123; 0: a
                                      free port).
     --rest-port <port>               rest.port (default 8081; 0: a free port).
     --blob-port <port>               blob.server.port (default 6124; 0: a free
                                      port).
     --log-dir <dir>                  env.log.dir (default $FLINK_LOG_DIR, or
                                      flinklab-log in the temporary directory).
     -D <property=value>              An option of Flink's configuration, given
                                      to every process, e.g. -D
                                      heartbeat.timeout=1000 or -D
                                      restart-strategy.type=fixed-delay.
  Starts the JobManager (jobmanager) and the TaskManagers (taskmanager) as
  processes of this binary, and stays in the foreground: Ctrl-C (SIGINT)
  or SIGTERM stops them all, TaskManagers first. A TaskManager that dies
  is reported, and the cluster runs on without it; so is a JobManager of
  several, whose standby takes over: each JobManager that becomes the
  leader is printed ("JobManager pid PID (REST port PORT) is now the
  leader"). The TaskManagers'
  memory comes from -D taskmanager.memory.* (default
  taskmanager.memory.process.size=1728m, as in Flink's distribution); if
  it does not add up, nothing starts.
`},
	{"jobmanager", `
Action "jobmanager" runs a JobManager: a StandaloneSessionClusterEntrypoint.

  Syntax: jobmanager [OPTIONS]
  "jobmanager" action options:
     --host <host>                    jobmanager.rpc.address (default localhost).
     --rpc-port <port>                jobmanager.rpc.port (default 6123).
     --rest-port <port>               rest.port (default 8081).
     --blob-port <port>               blob.server.port (default 6124).
     --log-dir <dir>                  env.log.dir.
     -D <property=value>              An option of Flink's configuration: the
                                      JobManager reads heartbeat.*,
                                      restart-strategy.* and
                                      slotmanager.requirement-check.delay.
`},
	{"standalone-job", `
Action "standalone-job" runs a JobManager in Application Mode: a
StandaloneApplicationClusterEntryPoint that runs one program's job and
exits when it ends.

  Syntax: standalone-job [OPTIONS] <jar-file> <arguments>
  "standalone-job" action options:
     -p,--parallelism <parallelism>   The parallelism of the job.
     --host, --rpc-port, --rest-port, --blob-port, --log-dir, -D as for
     "jobmanager".
`},
	{"taskmanager", `
Action "taskmanager" runs a TaskManager.

  Syntax: taskmanager [OPTIONS]
  "taskmanager" action options:
     -m,--jobmanager <host:port>      The JobManager's RPC address
                                      (jobmanager.rpc.address and
                                      jobmanager.rpc.port). Required,
                                      unless -D high-availability.type=
                                      zookeeper: then the leaders are found
                                      through ZooKeeper.
     --blob-server <host:port>        The JobManager's BLOB server, kept
                                      whatever the ResourceManager says
                                      (default: the one the ResourceManager
                                      leader names; until then, the
                                      JobManager's host and blob.server.port
                                      6124).
     --slots <m>                      taskmanager.numberOfTaskSlots (default 1).
     --host <host>                    taskmanager.host (default localhost).
     --log-dir <dir>                  env.log.dir.
     -D <property=value>              An option of Flink's configuration: the
                                      TaskManager reads heartbeat.*,
                                      taskmanager.memory.* (default
                                      taskmanager.memory.process.size=1728m)
                                      and taskmanager.cpu.cores.
  A TaskManager whose memory does not add up does not start, with Flink's
  message ("TaskManager memory configuration failed: ...").
`},
	{"ha-trace", `
Action "ha-trace" reads the last failover of a high-availability cluster
from its processes' logs.

  Syntax: ha-trace [OPTIONS]
  "ha-trace" action options:
     --log-dir <dir>                  The cluster's log directory (default
                                      $FLINK_LOG_DIR, or flinklab-log in the
                                      temporary directory).
  Prints the steps h1–h5 of the leader session granted last, each with the
  process and the log line that shows it (h1 the leader elected, h2 its
  leader information, h3 read by each TaskManager, h4 the jobs recovered,
  h5 each TaskManager registered); then the cause: what ended the
  leadership before it (leader-killed, leader-paused, connection-suspended,
  session-expired, zookeeper-down, leader-stopped) or what the only leader
  survived (suspension-tolerated), with Flink's outcome, where to look and
  the lines that show it; last, the first step that is missing, with the
  component to open and where to look.
`},
	{"start-zookeeper-quorum", `
Action "start-zookeeper-quorum" runs a ZooKeeper server for high
availability, in the foreground, until Ctrl-C.

  Syntax: start-zookeeper-quorum [OPTIONS]
  "start-zookeeper-quorum" action options:
     --port <port>                    clientPort (default 2181).
     --data-dir <dir>                 dataDir (default flinklab-zookeeper in
                                      the temporary directory).
  It runs the installed ZooKeeper server (Debian's zookeeper package:
  apt-get install zookeeper; elsewhere ZOOKEEPER_JAR names its jar), a
  quorum of one, with a zoo.cfg written into the data directory.
`},
}

// printUsage prints the usage of one action, or of all when action is "".
func printUsage(w io.Writer, action string) {
	if action == "" {
		fmt.Fprint(w, usageHeader)
	}
	for _, a := range actionUsages {
		if action == "" || a.action == action {
			fmt.Fprint(w, a.text)
		}
	}
}

// printInvalidAction is Flink's answer to an action it does not know.
func printInvalidAction(w io.Writer, action string) {
	names := make([]string, len(actionUsages))
	for i, a := range actionUsages {
		names[i] = fmt.Sprintf("%q", a.action)
	}
	fmt.Fprintf(w, "%q is not a valid action.\n\n", action)
	fmt.Fprintf(w, "Valid actions are %s, or %s.\n\n",
		strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	fmt.Fprintln(w, "Specify the help option (-h or --help) to get help on the command.")
}
