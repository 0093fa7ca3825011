package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"flinklab/runtime/api"
	"flinklab/runtime/entrypoint"
)

// errHelp is what a parser returns for -h or --help: the caller prints
// the action's usage and exits 0.
var errHelp = flag.ErrHelp

// usageError is a command line that cannot be run: Flink's
// CliArgsException. The caller prints it, and how to get help.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// newFlagSet returns a flag set that reports errors instead of printing
// them; the actions print Flink's usage texts themselves.
func newFlagSet(action string) *flag.FlagSet {
	fs := flag.NewFlagSet(action, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args into fs, turning flag's errors into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return &usageError{err.Error()}
	}
	return nil
}

// Flink's option names: each has a short and a long form.
func stringFlag(fs *flag.FlagSet, p *string, short, long, value string) {
	fs.StringVar(p, short, value, "")
	fs.StringVar(p, long, value, "")
}

func intFlag(fs *flag.FlagSet, p *int, short, long string, value int) {
	fs.IntVar(p, short, value, "")
	fs.IntVar(p, long, value, "")
}

func boolFlag(fs *flag.FlagSet, p *bool, short, long string) {
	fs.BoolVar(p, short, false, "")
	fs.BoolVar(p, long, false, "")
}

// defaultRESTAddress is where the client looks for a cluster without -m:
// Flink's rest.address and rest.port, localhost:8081.
const defaultRESTAddress = entrypoint.DefaultRESTAddress

// ---------------------------------------------------------------------------
// The client's actions: run, info, list, cancel, savepoint, stop, jar
// ---------------------------------------------------------------------------

// runOptions are the options of "run" (and, without the cluster's
// address, of "info").
type runOptions struct {
	jobManager  string // -m: the REST endpoint, host:port
	parallelism int    // -p; 0: the program's own
	detached    bool   // -d
	class       string // -c: the entry class (the jar's Program-Class)
	jarFile     string
	args        []string // the program's arguments
	// fromSavepoint (-s) is the savepoint the job starts from;
	// allowNonRestoredState (-n) skips state of operators it lacks.
	fromSavepoint         string
	allowNonRestoredState bool
}

func parseRun(args []string) (runOptions, error) {
	fs := newFlagSet("run")
	opts := runOptions{}
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", defaultRESTAddress)
	intFlag(fs, &opts.parallelism, "p", "parallelism", 0)
	boolFlag(fs, &opts.detached, "d", "detached")
	stringFlag(fs, &opts.class, "c", "class", "")
	stringFlag(fs, &opts.fromSavepoint, "s", "fromSavepoint", "")
	boolFlag(fs, &opts.allowNonRestoredState, "n", "allowNonRestoredState")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if err := checkHostPort("-m", opts.jobManager); err != nil {
		return opts, err
	}
	if opts.parallelism < 0 {
		return opts, usagef("The parallelism must be a positive number: %d", opts.parallelism)
	}
	if fs.NArg() == 0 {
		return opts, usagef("Java program should be specified a JAR file.")
	}
	opts.jarFile, opts.args = fs.Arg(0), fs.Args()[1:]
	return opts, nil
}

func parseInfo(args []string) (runOptions, error) {
	fs := newFlagSet("info")
	opts := runOptions{}
	intFlag(fs, &opts.parallelism, "p", "parallelism", 0)
	stringFlag(fs, &opts.class, "c", "class", "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if opts.parallelism < 0 {
		return opts, usagef("The parallelism must be a positive number: %d", opts.parallelism)
	}
	if fs.NArg() == 0 {
		return opts, usagef("Java program should be specified a JAR file.")
	}
	opts.jarFile, opts.args = fs.Arg(0), fs.Args()[1:]
	return opts, nil
}

// listOptions are the options of "list". Without -r, -s or -a it shows
// the running and the scheduled jobs, as Flink's does.
type listOptions struct {
	jobManager string
	running    bool
	scheduled  bool
	all        bool
}

func parseList(args []string) (listOptions, error) {
	fs := newFlagSet("list")
	opts := listOptions{}
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", defaultRESTAddress)
	boolFlag(fs, &opts.running, "r", "running")
	boolFlag(fs, &opts.scheduled, "s", "scheduled")
	boolFlag(fs, &opts.all, "a", "all")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if err := checkHostPort("-m", opts.jobManager); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("list takes no arguments, got %q", fs.Arg(0))
	}
	if !opts.running && !opts.scheduled && !opts.all {
		opts.running, opts.scheduled = true, true
	}
	return opts, nil
}

// cancelOptions are the options of "cancel".
type cancelOptions struct {
	jobManager string
	jobID      api.JobID
}

func parseCancel(args []string) (cancelOptions, error) {
	fs := newFlagSet("cancel")
	opts := cancelOptions{}
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", defaultRESTAddress)
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if err := checkHostPort("-m", opts.jobManager); err != nil {
		return opts, err
	}
	switch fs.NArg() {
	case 0:
		return opts, usagef("Missing JobID. Specify a Job ID to cancel a job.")
	case 1:
	default:
		return opts, usagef("cancel takes one Job ID, got %d arguments", fs.NArg())
	}
	jobID, err := api.ParseJobID(fs.Arg(0))
	if err != nil {
		return opts, &usageError{err.Error()}
	}
	opts.jobID = jobID
	return opts, nil
}

// savepointOptions are the options of "savepoint": the job, and the
// directory its savepoint goes to ("": the cluster's state.savepoints.dir).
type savepointOptions struct {
	jobManager      string
	jobID           api.JobID
	targetDirectory string
	superfluous     bool // more arguments than a job and a directory: Flink ignores them, and says so
}

// parseSavepoint reads "savepoint [-m HOST:PORT] <Job ID> [<target
// directory>]", as Flink's CliFrontend#savepoint does.
func parseSavepoint(args []string) (savepointOptions, error) {
	fs := newFlagSet("savepoint")
	opts := savepointOptions{}
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", defaultRESTAddress)
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if err := checkHostPort("-m", opts.jobManager); err != nil {
		return opts, err
	}
	if fs.NArg() == 0 {
		return opts, usagef("Missing JobID. Specify a Job ID to trigger a savepoint.")
	}
	jobID, err := api.ParseJobID(fs.Arg(0))
	if err != nil {
		return opts, &usageError{err.Error()}
	}
	opts.jobID, opts.targetDirectory, opts.superfluous = jobID, fs.Arg(1), fs.NArg() > 2
	return opts, nil
}

// stopOptions are the options of "stop".
type stopOptions struct {
	jobManager      string
	jobID           api.JobID
	targetDirectory string // -p; "": the cluster's state.savepoints.dir
	drain           bool   // -d
}

// parseStop reads "stop [-m HOST:PORT] [-p <savepointPath>] [-d] <Job
// ID>", as Flink's CliFrontend#stop does. Flink's -p takes its value
// optionally, so "stop -p <Job ID>" stops the job with a savepoint in the
// default directory: without another argument, -p's value is the job.
func parseStop(args []string) (stopOptions, error) {
	fs := newFlagSet("stop")
	opts := stopOptions{}
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", defaultRESTAddress)
	stringFlag(fs, &opts.targetDirectory, "p", "savepointPath", "")
	boolFlag(fs, &opts.drain, "d", "drain")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if err := checkHostPort("-m", opts.jobManager); err != nil {
		return opts, err
	}
	rawJobID := fs.Arg(0)
	if fs.NArg() == 0 {
		rawJobID, opts.targetDirectory = opts.targetDirectory, ""
	}
	if rawJobID == "" {
		return opts, usagef("Missing JobId")
	}
	if fs.NArg() > 1 {
		return opts, usagef("stop takes one Job ID, got %d arguments", fs.NArg())
	}
	jobID, err := api.ParseJobID(rawJobID)
	if err != nil {
		return opts, &usageError{err.Error()}
	}
	opts.jobID = jobID
	return opts, nil
}

// jarOptions are the options of "jar": which registered program, and
// where to write its jar.
type jarOptions struct {
	program string
	output  string
}

// parseJar reads "jar PROGRAM -o FILE"; -o may come before or after the
// program's name.
func parseJar(args []string) (jarOptions, error) {
	fs := newFlagSet("jar")
	opts := jarOptions{}
	stringFlag(fs, &opts.output, "o", "output", "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() == 0 {
		return opts, usagef("Missing program. Name a registered program, e.g. %q.", "wordcount")
	}
	opts.program = fs.Arg(0)
	if err := parse(fs, fs.Args()[1:]); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("jar takes one program, got also %q", fs.Arg(0))
	}
	if opts.output == "" {
		opts.output = opts.program + ".jar"
	}
	return opts, nil
}

// ---------------------------------------------------------------------------
// The cluster's actions: start-cluster, run-application, jobmanager,
// standalone-job, taskmanager
// ---------------------------------------------------------------------------

// daemonOptions are what every cluster process takes: where it logs, its
// configuration, and the two hidden options start-cluster passes to the
// processes it starts.
type daemonOptions struct {
	logDir     string            // env.log.dir
	properties dynamicProperties // -D key=value
	logIndex   int               // the <index> in the log file's name
	readyFD    int               // a pipe to write "ready" to, once started; 0: none
	lifelineFD int               // a pipe that ends when the process that started this one exits; 0: none
}

func (o *daemonOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.logDir, "log-dir", defaultLogDir(), "")
	fs.Var(&o.properties, "D", "")
	fs.IntVar(&o.logIndex, "log-index", 0, "")
	fs.IntVar(&o.readyFD, "ready-fd", 0, "")
	fs.IntVar(&o.lifelineFD, "lifeline-fd", 0, "")
}

// dynamicProperties are the -D key=value options of the cluster's
// actions: Flink's dynamic properties, options of its configuration under
// Flink's keys, e.g. -D heartbeat.timeout=1000 -D
// restart-strategy.type=fixed-delay (see runtime/entrypoint's Key…
// constants for what a process reads). start-cluster and run-application
// pass each of them on to every process they start, as every process of
// a Flink cluster reads the same config.yaml. Kept as given, in order;
// for a key given twice, the last value counts.
type dynamicProperties []string

func (p *dynamicProperties) String() string { return strings.Join(*p, " ") }

func (p *dynamicProperties) Set(property string) error {
	key, _, ok := strings.Cut(property, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return fmt.Errorf("want -D key=value, got %q", property)
	}
	*p = append(*p, property)
	return nil
}

// configuration returns the properties as key → value, nil for none.
func (p dynamicProperties) configuration() map[string]string {
	if len(p) == 0 {
		return nil
	}
	conf := make(map[string]string, len(p))
	for _, property := range p {
		key, value, _ := strings.Cut(property, "=")
		conf[strings.TrimSpace(key)] = value
	}
	return conf
}

// args returns the properties as the command line of another process.
func (p dynamicProperties) args() []string {
	var args []string
	for _, property := range p {
		args = append(args, "-D", property)
	}
	return args
}

// defaultLogDir is env.log.dir: $FLINK_LOG_DIR, as in Flink's scripts, or
// else flinklab-log in the temporary directory.
func defaultLogDir() string {
	if dir := os.Getenv("FLINK_LOG_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "flinklab-log")
}

// jobManagerOptions are the options of "jobmanager" and "standalone-job".
type jobManagerOptions struct {
	daemonOptions
	host     string // jobmanager.rpc.address (and rest.address)
	rpcPort  int    // jobmanager.rpc.port
	restPort int    // rest.port
	blobPort int    // blob.server.port
	// standalone-job only: the application.
	parallelism int
	jarFile     string
	args        []string
}

func (o jobManagerOptions) rpcAddress() string {
	return hostPort(o.host, o.rpcPort)
}

func (o jobManagerOptions) restAddress() string {
	return hostPort(o.host, o.restPort)
}

func (o jobManagerOptions) blobServerAddress() string {
	return hostPort(o.host, o.blobPort)
}

// hostPort joins a host and a port, in brackets for an IPv6 host
// ("[::1]:6123").
func hostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}

func registerJobManagerFlags(fs *flag.FlagSet, opts *jobManagerOptions) {
	opts.register(fs)
	fs.StringVar(&opts.host, "host", "localhost", "")
	fs.IntVar(&opts.rpcPort, "rpc-port", 6123, "")
	fs.IntVar(&opts.restPort, "rest-port", 8081, "")
	fs.IntVar(&opts.blobPort, "blob-port", defaultBlobPort, "")
}

// defaultBlobPort is blob.server.port in a standalone cluster (see
// entrypoint.DefaultBlobServerPort).
var defaultBlobPort, _ = strconv.Atoi(entrypoint.DefaultBlobServerPort)

func parseJobManager(args []string) (jobManagerOptions, error) {
	fs := newFlagSet("jobmanager")
	opts := jobManagerOptions{}
	registerJobManagerFlags(fs, &opts)
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("jobmanager takes no arguments, got %q", fs.Arg(0))
	}
	return opts, checkPorts(opts.rpcPort, opts.restPort, opts.blobPort)
}

func parseStandaloneJob(args []string) (jobManagerOptions, error) {
	fs := newFlagSet("standalone-job")
	opts := jobManagerOptions{}
	registerJobManagerFlags(fs, &opts)
	intFlag(fs, &opts.parallelism, "p", "parallelism", 0)
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() == 0 {
		return opts, usagef("Java program should be specified a JAR file.")
	}
	opts.jarFile, opts.args = fs.Arg(0), fs.Args()[1:]
	return opts, checkPorts(opts.rpcPort, opts.restPort, opts.blobPort)
}

// taskManagerOptions are the options of "taskmanager".
type taskManagerOptions struct {
	daemonOptions
	jobManager string // jobmanager.rpc.address:jobmanager.rpc.port
	blobServer string // the JobManager's BlobServer; "": its host and blob.server.port
	host       string // taskmanager.host
	slots      int    // taskmanager.numberOfTaskSlots
}

func parseTaskManager(args []string) (taskManagerOptions, error) {
	fs := newFlagSet("taskmanager")
	opts := taskManagerOptions{}
	opts.register(fs)
	stringFlag(fs, &opts.jobManager, "m", "jobmanager", "")
	fs.StringVar(&opts.blobServer, "blob-server", "", "")
	fs.StringVar(&opts.host, "host", "localhost", "")
	fs.IntVar(&opts.slots, "slots", 1, "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("taskmanager takes no arguments, got %q", fs.Arg(0))
	}
	// With ZooKeeper HA the TaskManager finds the leaders through
	// ZooKeeper, and the BlobServer through the ResourceManager leader.
	highlyAvailable := strings.EqualFold(strings.TrimSpace(opts.properties.configuration()["high-availability.type"]), "zookeeper")
	switch {
	case opts.jobManager == "" && !highlyAvailable:
		return opts, usagef("Missing --jobmanager HOST:PORT: the JobManager's RPC address (jobmanager.rpc.address:jobmanager.rpc.port), e.g. localhost:6123.")
	case opts.jobManager != "":
		if err := checkHostPort("--jobmanager", opts.jobManager); err != nil {
			return opts, err
		}
	}
	if opts.blobServer != "" {
		if err := checkHostPort("--blob-server", opts.blobServer); err != nil {
			return opts, err
		}
	}
	if opts.slots < 1 {
		return opts, usagef("--slots must be at least 1, got %d", opts.slots)
	}
	return opts, nil
}

// clusterOptions are the options of "start-cluster" and
// "run-application": the processes to start.
type clusterOptions struct {
	logDir       string
	properties   dynamicProperties // -D key=value, for every process
	jobManagers  int               // start-cluster only; more than one needs ZooKeeper HA
	taskManagers int
	slots        int
	host         string
	rpcPort      int
	restPort     int
	blobPort     int
	// run-application only.
	parallelism int
	jarFile     string
	args        []string
}

func registerClusterFlags(fs *flag.FlagSet, opts *clusterOptions) {
	fs.StringVar(&opts.logDir, "log-dir", defaultLogDir(), "")
	fs.Var(&opts.properties, "D", "")
	fs.IntVar(&opts.taskManagers, "taskmanagers", 1, "")
	fs.IntVar(&opts.slots, "slots", 1, "")
	fs.StringVar(&opts.host, "host", "localhost", "")
	fs.IntVar(&opts.rpcPort, "rpc-port", 6123, "")
	fs.IntVar(&opts.restPort, "rest-port", 8081, "")
	fs.IntVar(&opts.blobPort, "blob-port", defaultBlobPort, "")
}

func (o clusterOptions) check() error {
	if o.jobManagers < 1 {
		return usagef("--jobmanagers must be at least 1, got %d", o.jobManagers)
	}
	if o.jobManagers > 1 && !o.highlyAvailable() {
		return usagef("--jobmanagers %d needs -D high-availability.type=zookeeper: without high availability a cluster has one JobManager, and a second could not take over.", o.jobManagers)
	}
	if o.taskManagers < 0 {
		return usagef("--taskmanagers must not be negative, got %d", o.taskManagers)
	}
	if o.slots < 1 {
		return usagef("--slots must be at least 1, got %d", o.slots)
	}
	return checkPorts(o.rpcPort, o.restPort, o.blobPort)
}

// highlyAvailable reports whether the cluster's processes are given
// ZooKeeper HA.
func (o clusterOptions) highlyAvailable() bool {
	return strings.EqualFold(strings.TrimSpace(o.properties.configuration()["high-availability.type"]), "zookeeper")
}

func parseStartCluster(args []string) (clusterOptions, error) {
	fs := newFlagSet("start-cluster")
	opts := clusterOptions{}
	registerClusterFlags(fs, &opts)
	fs.IntVar(&opts.jobManagers, "jobmanagers", 1, "")
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usagef("start-cluster takes no arguments, got %q", fs.Arg(0))
	}
	return opts, opts.check()
}

func parseRunApplication(args []string) (clusterOptions, error) {
	fs := newFlagSet("run-application")
	opts := clusterOptions{jobManagers: 1}
	registerClusterFlags(fs, &opts)
	intFlag(fs, &opts.parallelism, "p", "parallelism", 0)
	if err := parse(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() == 0 {
		return opts, usagef("Java program should be specified a JAR file.")
	}
	opts.jarFile, opts.args = fs.Arg(0), fs.Args()[1:]
	return opts, opts.check()
}

func checkPorts(ports ...int) error {
	for _, p := range ports {
		if p < 0 || p > 65535 {
			return usagef("%d is not a port", p)
		}
	}
	return nil
}

// checkHostPort rejects an address option that is not host:port.
func checkHostPort(option, address string) error {
	if !entrypoint.ValidHostPort(address) {
		return usagef("%s %s: the address must be HOST:PORT", option, address)
	}
	return nil
}
