package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
)

func TestParseRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want runOptions
	}{
		{"defaults", []string{"wc.jar"},
			runOptions{jobManager: "localhost:8081", jarFile: "wc.jar", args: []string{}}},
		{"Flink's short options", []string{"-m", "host:9000", "-p", "4", "-d", "wc.jar"},
			runOptions{jobManager: "host:9000", parallelism: 4, detached: true, jarFile: "wc.jar", args: []string{}}},
		{"Flink's long options", []string{"--jobmanager", "host:9000", "--parallelism", "2", "--detached", "--class", "wordcount", "wc.jar"},
			runOptions{jobManager: "host:9000", parallelism: 2, detached: true, class: "wordcount", jarFile: "wc.jar", args: []string{}}},
		{"the program's arguments are the program's, options or not", []string{"-d", "wc.jar", "--output", "print", "-p", "9"},
			runOptions{jobManager: "localhost:8081", detached: true, jarFile: "wc.jar", args: []string{"--output", "print", "-p", "9"}}},
		{"from a savepoint", []string{"-s", "/savepoints/savepoint-8d4f2a-0123456789ab", "-n", "wc.jar"},
			runOptions{jobManager: "localhost:8081", jarFile: "wc.jar", args: []string{},
				fromSavepoint: "/savepoints/savepoint-8d4f2a-0123456789ab", allowNonRestoredState: true}},
		{"from a savepoint, long options", []string{"--fromSavepoint", "/sp", "--allowNonRestoredState", "wc.jar"},
			runOptions{jobManager: "localhost:8081", jarFile: "wc.jar", args: []string{}, fromSavepoint: "/sp", allowNonRestoredState: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRun(tt.args)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(runOptions{})); diff != "" {
				t.Errorf("parseRun(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestParseSavepointAndStop(t *testing.T) {
	jobID := api.NewJobID()
	savepoint, err := parseSavepoint([]string{"-m", "host:9000", jobID.String(), "/savepoints"})
	require.NoError(t, err)
	assert.Equal(t, savepointOptions{jobManager: "host:9000", jobID: jobID, targetDirectory: "/savepoints"}, savepoint)
	savepoint, err = parseSavepoint([]string{jobID.String(), "/savepoints", "extra"})
	require.NoError(t, err)
	assert.Equal(t, savepointOptions{jobManager: "localhost:8081", jobID: jobID, targetDirectory: "/savepoints", superfluous: true}, savepoint)

	tests := []struct {
		name string
		args []string
		want stopOptions
	}{
		{"the default directory", []string{jobID.String()}, stopOptions{jobManager: "localhost:8081", jobID: jobID}},
		{"a directory, and drain", []string{"-p", "/savepoints", "-d", jobID.String()},
			stopOptions{jobManager: "localhost:8081", jobID: jobID, targetDirectory: "/savepoints", drain: true}},
		{"long options", []string{"--savepointPath", "/savepoints", "--drain", "--jobmanager", "host:9000", jobID.String()},
			stopOptions{jobManager: "host:9000", jobID: jobID, targetDirectory: "/savepoints", drain: true}},
		{"-p without a directory: Flink's optional value", []string{"-p", jobID.String()},
			stopOptions{jobManager: "localhost:8081", jobID: jobID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStop(tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]string) error
		args  []string
		want  string
	}{
		{"run without a jar", ignore(parseRun), nil, "Java program should be specified a JAR file."},
		{"run with a bad -m", ignore(parseRun), []string{"-m", "8081", "wc.jar"}, "-m 8081: the address must be HOST:PORT"},
		{"run with -m out of range", ignore(parseRun), []string{"-m", "localhost:70000", "wc.jar"}, "-m localhost:70000: the address must be HOST:PORT"},
		{"run with a negative parallelism", ignore(parseRun), []string{"-p", "-1", "wc.jar"}, "The parallelism must be a positive number: -1"},
		{"run with an unknown option", ignore(parseRun), []string{"-x", "wc.jar"}, "flag provided but not defined: -x"},
		{"info without a jar", ignore(parseInfo), nil, "Java program should be specified a JAR file."},
		{"cancel without a job", ignore(parseCancel), nil, "Missing JobID. Specify a Job ID to cancel a job."},
		{"cancel with a bad job", ignore(parseCancel), []string{"nope"}, `Cannot parse JobID from "nope"`},
		{"list with an argument", ignore(parseList), []string{"all"}, `list takes no arguments, got "all"`},
		{"savepoint without a job", ignore(parseSavepoint), nil, "Missing JobID. Specify a Job ID to trigger a savepoint."},
		{"savepoint with a bad job", ignore(parseSavepoint), []string{"nope"}, `Cannot parse JobID from "nope"`},
		{"stop without a job", ignore(parseStop), []string{"-d"}, "Missing JobId"},
		{"stop with a bad job", ignore(parseStop), []string{"nope"}, `Cannot parse JobID from "nope"`},
		{"stop with two jobs", ignore(parseStop), []string{api.NewJobID().String(), api.NewJobID().String()}, "stop takes one Job ID, got 2 arguments"},
		{"jar without a program", ignore(parseJar), []string{"-o", "x.jar"}, "Missing program."},
		{"taskmanager without a jobmanager", ignore(parseTaskManager), nil, "Missing --jobmanager HOST:PORT"},
		{"taskmanager without slots", ignore(parseTaskManager), []string{"--jobmanager", "localhost:6123", "--slots", "0"}, "--slots must be at least 1, got 0"},
		{"taskmanager with a bad blob server", ignore(parseTaskManager), []string{"--jobmanager", "localhost:6123", "--blob-server", "6124"}, "--blob-server 6124: the address must be HOST:PORT"},
		{"start-cluster with a bad port", ignore(parseStartCluster), []string{"--rest-port", "70000"}, "70000 is not a port"},
		{"start-cluster with negative taskmanagers", ignore(parseStartCluster), []string{"--taskmanagers", "-1"}, "--taskmanagers must not be negative"},
		{"run-application without a jar", ignore(parseRunApplication), nil, "Java program should be specified a JAR file."},
		{"standalone-job without a jar", ignore(parseStandaloneJob), nil, "Java program should be specified a JAR file."},
		{"jobmanager with an argument", ignore(parseJobManager), []string{"now"}, `jobmanager takes no arguments, got "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse(tt.args)
			var usage *usageError
			require.ErrorAs(t, err, &usage)
			assert.Contains(t, usage.msg, tt.want)
		})
	}
}

func ignore[O any](parse func([]string) (O, error)) func([]string) error {
	return func(args []string) error {
		_, err := parse(args)
		return err
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	for _, parse := range []func([]string) error{ignore(parseRun), ignore(parseList), ignore(parseStartCluster)} {
		assert.ErrorIs(t, parse([]string{"--help"}), errHelp)
		assert.ErrorIs(t, parse([]string{"-h"}), errHelp)
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		args []string
		want listOptions
	}{
		{nil, listOptions{jobManager: "localhost:8081", running: true, scheduled: true}}, // Flink's default
		{[]string{"-a"}, listOptions{jobManager: "localhost:8081", all: true}},
		{[]string{"-r", "-m", "h:1"}, listOptions{jobManager: "h:1", running: true}},
		{[]string{"--scheduled"}, listOptions{jobManager: "localhost:8081", scheduled: true}},
	}
	for _, tt := range tests {
		got, err := parseList(tt.args)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "parseList(%q)", tt.args)
	}
}

func TestParseCancelAndJar(t *testing.T) {
	jobID := api.NewJobID()
	got, err := parseCancel([]string{"-m", "h:1", jobID.String()})
	require.NoError(t, err)
	assert.Equal(t, cancelOptions{jobManager: "h:1", jobID: jobID}, got)

	for _, args := range [][]string{{"wordcount", "-o", "wc.jar"}, {"-o", "wc.jar", "wordcount"}} {
		jar, err := parseJar(args)
		require.NoError(t, err)
		assert.Equal(t, jarOptions{program: "wordcount", output: "wc.jar"}, jar, "parseJar(%q)", args)
	}
	jar, err := parseJar([]string{"ticker"})
	require.NoError(t, err)
	assert.Equal(t, jarOptions{program: "ticker", output: "ticker.jar"}, jar, "the default file is named after the program")
}

func TestParseClusterActions(t *testing.T) {
	t.Setenv("FLINK_LOG_DIR", "/var/log/flink")

	cluster, err := parseStartCluster([]string{"--taskmanagers", "2", "--slots", "3", "--rest-port", "0"})
	require.NoError(t, err)
	assert.Equal(t, clusterOptions{logDir: "/var/log/flink", jobManagers: 1, taskManagers: 2, slots: 3, host: "localhost", rpcPort: 6123, restPort: 0, blobPort: 6124}, cluster)

	app, err := parseRunApplication([]string{"-p", "2", "wc.jar", "--output", "print"})
	require.NoError(t, err)
	assert.Equal(t, "wc.jar", app.jarFile)
	assert.Equal(t, []string{"--output", "print"}, app.args)
	assert.Equal(t, 2, app.parallelism)
	assert.Equal(t, 1, app.taskManagers)

	jm, err := parseJobManager([]string{"--rpc-port", "6124", "--ready-fd", "3", "--log-index", "1"})
	require.NoError(t, err)
	assert.Equal(t, "localhost:6124", jm.rpcAddress())
	assert.Equal(t, "localhost:8081", jm.restAddress())
	assert.Equal(t, "localhost:6124", jm.blobServerAddress(), "blob.server.port")
	assert.Equal(t, daemonOptions{logDir: "/var/log/flink", logIndex: 1, readyFD: 3}, jm.daemonOptions)
	jm, err = parseJobManager([]string{"--host", "::1"})
	require.NoError(t, err)
	assert.Equal(t, "[::1]:6123", jm.rpcAddress(), "an IPv6 host in brackets")

	tm, err := parseTaskManager([]string{"--jobmanager", "jm:6123", "--slots", "4"})
	require.NoError(t, err)
	assert.Equal(t, taskManagerOptions{daemonOptions: daemonOptions{logDir: "/var/log/flink"}, jobManager: "jm:6123", host: "localhost", slots: 4}, tm)
	tm, err = parseTaskManager([]string{"-m", "jm:6123", "--blob-server", "jm:7000"})
	require.NoError(t, err)
	assert.Equal(t, "jm:7000", tm.blobServer)
	tm, err = parseTaskManager([]string{"-D", "high-availability.type=ZooKeeper"})
	require.NoError(t, err, "with ZooKeeper HA, the leaders are found through ZooKeeper, the BlobServer through the ResourceManager")
	assert.Empty(t, tm.jobManager)
	assert.Empty(t, tm.blobServer)
}

// -D key=value: options of Flink's configuration, which start-cluster
// passes on to every process it starts.
func TestDynamicProperties(t *testing.T) {
	cluster, err := parseStartCluster([]string{"-D", "heartbeat.timeout=1000", "--taskmanagers", "2", "-D", "restart-strategy.fixed-delay.delay=1 s", "-D", "heartbeat.timeout=2000"})
	require.NoError(t, err)
	assert.Equal(t, dynamicProperties{"heartbeat.timeout=1000", "restart-strategy.fixed-delay.delay=1 s", "heartbeat.timeout=2000"}, cluster.properties)
	assert.Equal(t, []string{"-D", "heartbeat.timeout=1000", "-D", "restart-strategy.fixed-delay.delay=1 s", "-D", "heartbeat.timeout=2000"},
		cluster.properties.args(), "as start-cluster passes them on")
	assert.Equal(t, map[string]string{"heartbeat.timeout": "2000", "restart-strategy.fixed-delay.delay": "1 s"},
		cluster.properties.configuration(), "the last value of a key counts")

	tm, err := parseTaskManager(append([]string{"-m", "jm:6123"}, cluster.properties.args()...))
	require.NoError(t, err)
	assert.Equal(t, cluster.properties, tm.properties)
	jm, err := parseJobManager([]string{"-D", "heartbeat.interval=200"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"heartbeat.interval": "200"}, jm.properties.configuration())
	assert.Nil(t, dynamicProperties(nil).configuration(), "none given: the processes' defaults")

	_, err = parseStartCluster([]string{"-D", "heartbeat.timeout"})
	var usage *usageError
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, usage.msg, `want -D key=value, got "heartbeat.timeout"`)
}
