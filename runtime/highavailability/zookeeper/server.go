package zookeeper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The ZooKeeper server is the one Debian packages (zookeeper, ZooKeeper
// 3.8 on a Java runtime): its jar, which names the jars it needs in its
// manifest, and the java command. ZOOKEEPER_JAR (a class path: a jar, or
// a directory of jars as "dir/*") and JAVA override where they are
// looked for.
const (
	debianJar = "/usr/share/java/zookeeper.jar"
	// slf4jSimple, when installed, gives the server a log on stderr;
	// without it the server runs silent.
	slf4jSimple = "/usr/share/java/slf4j-simple.jar"
	serverMain  = "org.apache.zookeeper.server.ZooKeeperServerMain"
)

// HowToInstall says how to get the server, for an error or a skipped test.
const HowToInstall = "install ZooKeeper: on Debian or Ubuntu `apt-get install zookeeper` " +
	"(ZooKeeper 3.8 on a Java runtime); on macOS `brew install zookeeper`, then set " +
	"ZOOKEEPER_JAR=\"$(brew --prefix zookeeper)/libexec/lib/*\""

// ErrNotInstalled is returned when no ZooKeeper server or no java is found.
var ErrNotInstalled = errors.New("no ZooKeeper server installed: " + HowToInstall)

// Installation is where the server's code is: the java command and the
// class path to run it with.
type Installation struct {
	Java      string
	ClassPath string
}

// FindInstallation looks for the installed server.
func FindInstallation() (Installation, error) {
	jar := os.Getenv("ZOOKEEPER_JAR")
	if jar == "" {
		jar = debianJar
	}
	if _, err := os.Stat(strings.TrimSuffix(jar, "*")); err != nil {
		return Installation{}, fmt.Errorf("%w (looked for %s)", ErrNotInstalled, jar)
	}
	java := os.Getenv("JAVA")
	if java == "" {
		var err error
		if java, err = exec.LookPath("java"); err != nil {
			return Installation{}, fmt.Errorf("%w (no java on the PATH)", ErrNotInstalled)
		}
	}
	classPath := jar
	if strings.HasSuffix(jar, "/"+filepath.Base(debianJar)) && fileExists(slf4jSimple) {
		classPath += string(os.PathListSeparator) + slf4jSimple
	}
	return Installation{Java: java, ClassPath: classPath}, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ServerConfig is one standalone ZooKeeper server: where it listens and
// keeps its data, and its tick, which bounds the session timeouts it
// grants (2 to 20 ticks, as ZooKeeper's minSessionTimeout and
// maxSessionTimeout default; here from MinSessionTimeout on).
type ServerConfig struct {
	Port    int    // clientPort; 0 picks a free one
	DataDir string // dataDir, created if need be
	// TickTime is ZooKeeper's tickTime (2 s by default there; 500 ms here,
	// so that a session timeout of 2 s is granted).
	TickTime time.Duration
	// MinSessionTimeout is the shortest session timeout the server
	// grants a client (default 1 s); a client asking for less gets this.
	MinSessionTimeout time.Duration
	// LogLevel is the server's own log level when a log is available
	// (slf4j-simple): "info", "warn", …; default "info".
	LogLevel string
}

// zooCfg is the server's zoo.cfg.
func (c ServerConfig) zooCfg() string {
	return fmt.Sprintf(`# written by flinklab: one standalone ZooKeeper server
tickTime=%d
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
minSessionTimeout=%d
maxSessionTimeout=%d
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,cons
`, c.TickTime.Milliseconds(), c.DataDir, c.Port, c.MinSessionTimeout.Milliseconds(), max(60*time.Second, 20*c.TickTime).Milliseconds())
}

// Server is a running ZooKeeper server process.
type Server struct {
	Config ServerConfig
	cmd    *exec.Cmd
	done   chan struct{}
	err    error // why the process ended, once done is closed
}

// Address is where clients connect: the quorum string of a one-server
// ensemble (high-availability.zookeeper.quorum).
func (s *Server) Address() string { return fmt.Sprintf("127.0.0.1:%d", s.Config.Port) }

// StartServer starts the installed server with a zoo.cfg written for cfg
// and waits until it answers (the four-letter word "ruok"). Its log goes
// to logOutput (nil: discarded). Stop ends it; the process also ends with
// ctx.
func StartServer(ctx context.Context, inst Installation, cfg ServerConfig, logOutput io.Writer) (*Server, error) {
	if cfg.TickTime <= 0 {
		cfg.TickTime = 500 * time.Millisecond
	}
	if cfg.MinSessionTimeout <= 0 {
		cfg.MinSessionTimeout = time.Second
	}
	if cfg.LogLevel == "" {
		cfg.LogLevel = "info"
	}
	if cfg.Port == 0 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		cfg.Port = port
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	configFile := filepath.Join(cfg.DataDir, "zoo.cfg")
	if err := os.WriteFile(configFile, []byte(cfg.zooCfg()), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, inst.Java,
		"-Dorg.slf4j.simpleLogger.defaultLogLevel="+cfg.LogLevel,
		"-Dzookeeper.admin.enableServer=false",
		"-cp", inst.ClassPath, serverMain, configFile)
	if logOutput == nil {
		logOutput = io.Discard
	}
	cmd.Stdout, cmd.Stderr = logOutput, logOutput
	cmd.SysProcAttr = serverSysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ZooKeeper: %w", err)
	}
	s := &Server{Config: cfg, cmd: cmd, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	if err := s.awaitServing(ctx, 30*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// awaitServing asks "ruok" until the server answers "imok".
func (s *Server) awaitServing(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if answer, err := FourLetterWord(s.Address(), "ruok"); err == nil && answer == "imok" {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("the ZooKeeper server ended before it served: %v", s.err)
		case <-ctx.Done():
			return fmt.Errorf("the ZooKeeper server at %s did not answer within %v", s.Address(), limit)
		case <-tick.C:
		}
	}
}

// FourLetterWord sends one of ZooKeeper's four-letter words ("ruok",
// "srvr", "stat") to the server at address and returns its answer.
func FourLetterWord(address, word string) (string, error) {
	conn, err := net.DialTimeout("tcp", address, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, word); err != nil {
		return "", err
	}
	var b strings.Builder
	_, err = io.Copy(&b, bufio.NewReader(conn))
	return strings.TrimSpace(b.String()), err
}

// Stop kills the server (SIGKILL: it keeps nothing in memory that its
// data directory does not have) and waits until it is gone.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// Pid is the server process's.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Done is closed when the server process has ended.
func (s *Server) Done() <-chan struct{} { return s.done }

// freePort asks the kernel for a free TCP port on the loopback.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
