package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"flinklab/runtime/security"
)

// certificatesDirPrefix names the directories of provideInternalCertificates,
// under the system's temporary directory: flink-internal-ssl-<pid>, the
// pid of the start-cluster that made it.
const certificatesDirPrefix = "flink-internal-ssl-"

// provideInternalCertificates gives the cluster what internal TLS needs
// when it is enabled (-D security.ssl.internal.enabled=true) and nobody
// said which keystore to use: a CA made for this cluster alone and a key
// pair it signed (security.CreateInternalCertificates), in a directory
// only this user can read, handed to every process as -D options. The CA
// signs nothing else, so no process outside the cluster can join it, nor
// call the Dispatcher's CancelJob on its RPC port. stop removes the
// directory; one that a killed start-cluster left is removed here, the
// next time.
//
// A keystore given with -D is the operator's own: then every process gets
// the options as given, as Flink's processes all read one config.yaml.
func (c *cluster) provideInternalCertificates() error {
	conf := c.opts.properties.configuration()
	enabled, err := security.IsInternalSSLEnabled(conf)
	if err != nil || !enabled {
		return err
	}
	if conf[security.KeyInternalKeystore] != "" || conf["security.ssl.keystore"] != "" {
		return nil
	}
	removeCertificatesOfDeadClusters()
	dir := filepath.Join(os.TempDir(), certificatesDirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	options, err := security.CreateInternalCertificates(dir)
	if err != nil {
		return errors.Join(fmt.Errorf("could not create the cluster's certificates: %w", err), os.RemoveAll(dir))
	}
	c.certificatesDir = dir
	for _, key := range slices.Sorted(maps.Keys(options)) {
		c.opts.properties = append(c.opts.properties, key+"="+options[key])
	}
	fmt.Fprintf(c.stdout, "Internal connections (RPC, BLOB, data) use mutual TLS, with a CA made for this cluster: %s\n", dir)
	return nil
}

// removeCertificatesOfDeadClusters removes the certificate directories
// of start-clusters that are no longer running: killed, they could not
// remove their own. Their keys are worth nothing by then (the cluster's
// processes stopped with it), but a private key should not lie about.
func removeCertificatesOfDeadClusters() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), certificatesDirPrefix+"*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), certificatesDirPrefix))
		if err != nil || processRuns(pid) {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

// processRuns reports whether a process with this pid exists: signal 0
// checks without sending anything, and is refused (EPERM) for a process
// of another user, which exists too.
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// removeInternalCertificates removes what provideInternalCertificates
// made, once the processes have stopped.
func (c *cluster) removeInternalCertificates() {
	if c.certificatesDir == "" {
		return
	}
	if err := os.RemoveAll(c.certificatesDir); err != nil {
		fmt.Fprintln(c.stderr, "flink: could not remove the cluster's certificates:", err)
	}
	c.certificatesDir = ""
}
