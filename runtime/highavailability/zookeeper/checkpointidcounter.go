package zookeeper

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/go-zookeeper/zk"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
)

// checkpointIDCounterPath is the node of a job's counter under
// jobs/<jobid> (Flink: ZooKeeperUtils#getCheckpointIdCounterPath).
const checkpointIDCounterPath = "/checkpoint_id_counter"

// CheckpointIDCounter hands out a job's checkpoint IDs from a node in
// ZooKeeper, so that every JobMaster the job ever has counts on from where
// the last one stopped, and two that run at once (a leader that does not
// know yet that it was replaced) never hand out the same ID (Flink's
// ZooKeeperCheckpointIDCounter, over Curator's SharedCount):
//
//	/flink/default/jobs/<jobid>/checkpoint_id_counter   PERSISTENT: the next ID, 4 bytes, big-endian
//
// Taking an ID is a compare-and-set: read the node and its version, write
// the value plus one with that version. ZooKeeper refuses the write if
// anyone wrote the node in between (its version moved on), and the
// counter reads it again and retries.
type CheckpointIDCounter struct {
	client  *Client
	jobPath string // jobs/<jobid>, relative to the namespace
	log     *slog.Logger

	mu        sync.Mutex
	isStarted bool
}

var _ checkpoint.CheckpointIDCounter = (*CheckpointIDCounter)(nil)

// NewCheckpointIDCounter returns the counter of jobID; Start creates its
// node, if it does not exist yet.
func NewCheckpointIDCounter(client *Client, jobID api.JobID, logger *slog.Logger) *CheckpointIDCounter {
	if logger == nil {
		logger = slog.Default()
	}
	return &CheckpointIDCounter{client: client, jobPath: jobsPath + "/" + jobID.String(),
		log: logger.With("logger", "ZooKeeperCheckpointIDCounter")}
}

func (c *CheckpointIDCounter) counterPath() string { return c.jobPath + checkpointIDCounterPath }

// Start creates the counter's node with checkpoint.InitialCheckpointID,
// unless a JobMaster of the job created it before: then it counts on.
func (c *CheckpointIDCounter) Start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isStarted {
		return nil
	}
	if err := c.client.EnsurePath(c.jobPath); err != nil {
		return err
	}
	_, err := c.client.Conn().Create(c.client.Path(c.counterPath()), encodeCount(checkpoint.InitialCheckpointID),
		zk.FlagPersistent, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("create %s: %w", c.client.Path(c.counterPath()), err)
	}
	c.isStarted = true
	return nil
}

// GetAndIncrement returns the next ID and counts it, with a
// compare-and-set that is retried while other counters of the job win.
func (c *CheckpointIDCounter) GetAndIncrement() (int64, error) {
	for {
		current, version, err := c.read()
		if err != nil {
			return 0, err
		}
		if current+1 > math.MaxInt32 { // overflow and wrap around
			return 0, fmt.Errorf("Checkpoint counter overflow. ZooKeeper checkpoint counter only supports checkpoints Ids up to %d", math.MaxInt32)
		}
		_, err = c.client.Conn().Set(c.client.Path(c.counterPath()), encodeCount(current+1), version)
		if errors.Is(err, zk.ErrBadVersion) {
			continue // another counter took an ID meanwhile: read again
		}
		if err != nil {
			return 0, fmt.Errorf("set %s: %w", c.client.Path(c.counterPath()), err)
		}
		return current, nil
	}
}

// Get returns the next ID without counting it.
func (c *CheckpointIDCounter) Get() (int64, error) {
	current, _, err := c.read()
	return current, err
}

// SetCount makes newID the next ID, whatever the node held (a restore
// from a savepoint sets it past the savepoint's ID).
func (c *CheckpointIDCounter) SetCount(newID int64) error {
	if err := c.checkConnectionState(); err != nil {
		return err
	}
	if newID > math.MaxInt32 {
		return fmt.Errorf("ZooKeeper checkpoint counter only supports checkpoints Ids up to %d, but given value is%d", math.MaxInt32, newID)
	}
	if _, err := c.client.Conn().Set(c.client.Path(c.counterPath()), encodeCount(newID), -1); err != nil {
		return fmt.Errorf("set %s: %w", c.client.Path(c.counterPath()), err)
	}
	return nil
}

// Shutdown stops the counter once its job ended in jobStatus. A globally
// terminal job's counter is removed from ZooKeeper; a SUSPENDED job's
// stays, for its next JobMaster.
func (c *CheckpointIDCounter) Shutdown(jobStatus api.JobStatus) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isStarted {
		return nil
	}
	c.isStarted = false
	c.log.Info("Shutting down.")
	if !jobStatus.IsGloballyTerminalState() {
		return nil
	}
	c.log.Info(fmt.Sprintf("Removing %s from ZooKeeper", c.client.Path(c.counterPath())))
	if err := c.client.DeleteRecursively(c.counterPath()); err != nil {
		return err
	}
	return c.client.DeleteIfEmpty(c.jobPath)
}

// read returns the counter's value and the version of its node.
func (c *CheckpointIDCounter) read() (int64, int32, error) {
	if err := c.checkConnectionState(); err != nil {
		return 0, 0, err
	}
	data, stat, err := c.client.Conn().Get(c.client.Path(c.counterPath()))
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", c.client.Path(c.counterPath()), err)
	}
	if len(data) != 4 {
		return 0, 0, fmt.Errorf("read %s: a count is 4 bytes, the node holds %d", c.client.Path(c.counterPath()), len(data))
	}
	return int64(int32(binary.BigEndian.Uint32(data))), stat.Version, nil
}

// checkConnectionState refuses to count on a connection that is not
// CONNECTED or RECONNECTED: what the node holds cannot be known then.
func (c *CheckpointIDCounter) checkConnectionState() error {
	if state := c.client.State(); state != Connected && state != Reconnected {
		return fmt.Errorf("Connection state: %s", state)
	}
	return nil
}

// encodeCount writes a count as Curator's SharedCount does: 4 bytes,
// big-endian.
func encodeCount(n int64) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int32(n)))
}
