package zookeeper

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/go-zookeeper/zk"

	"flinklab/runtime/api"
)

// ErrAlreadyExists: a node of that name is in the store already (Flink's
// StateHandleStore.AlreadyExistException).
var ErrAlreadyExists = errors.New("already exists")

// ErrNotExists: the store has no node of that name, or one marked for
// deletion (Flink's StateHandleStore.NotExistException).
var ErrNotExists = errors.New("does not exist")

// StateHandleStore keeps state that must survive a JobManager: the state
// itself in a file of the HA storage directory, and in ZooKeeper a node
// that points at it, with a lock per process that uses it (Flink's
// ZooKeeperStateHandleStore over a FileSystemStateStorageHelper). For the
// JobGraphs:
//
//	/flink/default/jobgraphs/<jobid>                  PERSISTENT: {"path": "<storageDir>/default/submittedJobGraph3fa1…"}
//	/flink/default/jobgraphs/<jobid>/locks            PERSISTENT
//	/flink/default/jobgraphs/<jobid>/locks/<lockNode> EPHEMERAL: a process that holds the state
//
// The file is written first and the node after it, in one transaction
// with its locks node and this process's lock; so a node in ZooKeeper
// always points at a whole file. Each store has a lock node name of its
// own, a random UUID. A node without its locks node is marked for
// deletion: it is on its way out and is not listed.
type StateHandleStore struct {
	client     *Client
	root       string // relative to the namespace: "jobgraphs"
	storageDir string // where the files go: <high-availability.storageDir>/<cluster-id>
	prefix     string // the files' names begin with it: "submittedJobGraph"
	lockNode   string
}

// stateHandle is what a node holds: where its state is.
type stateHandle struct {
	Path string `json:"path"`
}

// NewStateHandleStore returns a store of nodes under root whose state goes
// to files named prefix<random> in storageDir.
func NewStateHandleStore(client *Client, root, storageDir, prefix string) (*StateHandleStore, error) {
	if err := os.MkdirAll(storageDir, 0o755); err != nil {
		return nil, fmt.Errorf("create the HA storage directory: %w", err)
	}
	if err := client.EnsurePath(root); err != nil {
		return nil, err
	}
	return &StateHandleStore{client: client, root: root, storageDir: storageDir, prefix: prefix,
		lockNode: api.NewLeaderSessionID().String()}, nil
}

func (s *StateHandleStore) nodePath(name string) string {
	return s.client.Path(path.Join(s.root, name))
}
func (s *StateHandleStore) locksPath(name string) string {
	return s.nodePath(name) + "/locks"
}
func (s *StateHandleStore) lockPath(name string) string { return s.locksPath(name) + "/" + s.lockNode }

// AddAndLock stores state under name and locks it for this process. A
// name that exists already is ErrAlreadyExists, and the file written for
// it is deleted again.
func (s *StateHandleStore) AddAndLock(name string, state []byte) error {
	file, err := s.writeState(state)
	if err != nil {
		return err
	}
	handle, err := json.Marshal(stateHandle{Path: file})
	if err != nil {
		return err
	}
	acl := zk.WorldACL(zk.PermAll)
	_, err = s.client.Conn().Multi(
		&zk.CreateRequest{Path: s.nodePath(name), Data: handle, Acl: acl, Flags: zk.FlagPersistent},
		&zk.CreateRequest{Path: s.locksPath(name), Acl: acl, Flags: zk.FlagPersistent},
		&zk.CreateRequest{Path: s.lockPath(name), Acl: acl, Flags: zk.FlagEphemeral},
	)
	if err != nil {
		os.Remove(file)
		if errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("ZooKeeper node %s %w.", s.nodePath(name), ErrAlreadyExists)
		}
		return fmt.Errorf("add %s: %w", s.nodePath(name), err)
	}
	return nil
}

// Replace stores new state under a name this process holds, then deletes
// the old state's file.
func (s *StateHandleStore) Replace(name string, state []byte) error {
	conn := s.client.Conn()
	data, stat, err := conn.Get(s.nodePath(name))
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("ZooKeeper node %s %w.", s.nodePath(name), ErrNotExists)
	}
	if err != nil {
		return err
	}
	file, err := s.writeState(state)
	if err != nil {
		return err
	}
	handle, err := json.Marshal(stateHandle{Path: file})
	if err != nil {
		return err
	}
	if _, err := conn.Set(s.nodePath(name), handle, stat.Version); err != nil {
		os.Remove(file)
		return fmt.Errorf("replace %s: %w", s.nodePath(name), err)
	}
	var old stateHandle
	if json.Unmarshal(data, &old) == nil && old.Path != "" {
		os.Remove(old.Path)
	}
	return nil
}

// GetAndLock locks name for this process and reads its state.
func (s *StateHandleStore) GetAndLock(name string) ([]byte, error) {
	if !s.exists(name) {
		return nil, fmt.Errorf("ZooKeeper node %s %w.", s.nodePath(name), ErrNotExists)
	}
	_, err := s.client.Conn().Create(s.lockPath(name), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return nil, fmt.Errorf("lock %s: %w", s.nodePath(name), err)
	}
	data, _, err := s.client.Conn().Get(s.nodePath(name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.nodePath(name), err)
	}
	var handle stateHandle
	if err := json.Unmarshal(data, &handle); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.nodePath(name), err)
	}
	state, err := os.ReadFile(handle.Path)
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", s.nodePath(name), err)
	}
	return state, nil
}

// exists reports whether name has a node that is not marked for deletion.
func (s *StateHandleStore) exists(name string) bool {
	ok, _, err := s.client.Conn().Exists(s.locksPath(name))
	return err == nil && ok
}

// Names lists the names in the store, leaving out those marked for deletion.
func (s *StateHandleStore) Names() ([]string, error) {
	children, _, err := s.client.Conn().Children(s.client.Path(s.root))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.client.Path(s.root), err)
	}
	var names []string
	for _, c := range children {
		if s.exists(c) {
			names = append(names, c)
		}
	}
	return names, nil
}

// Release gives up this process's lock on name; the node and its state
// stay, for the next leader.
func (s *StateHandleStore) Release(name string) error {
	err := s.client.Conn().Delete(s.lockPath(name), -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("release %s: %w", s.nodePath(name), err)
	}
	return nil
}

// ReleaseAndTryRemove gives up this process's lock and, if no other
// process holds one, removes the name: its locks node first (marking it
// for deletion), then its state's file, then its node.
func (s *StateHandleStore) ReleaseAndTryRemove(name string) error {
	if err := s.Release(name); err != nil {
		return err
	}
	conn := s.client.Conn()
	err := conn.Delete(s.locksPath(name), -1)
	switch {
	case errors.Is(err, zk.ErrNotEmpty):
		return nil // another process holds it
	case err != nil && !errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("remove %s: %w", s.nodePath(name), err)
	}
	data, _, err := conn.Get(s.nodePath(name))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", s.nodePath(name), err)
	}
	var handle stateHandle
	if json.Unmarshal(data, &handle) == nil && handle.Path != "" {
		if err := os.Remove(handle.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the state of %s: %w", s.nodePath(name), err)
		}
	}
	if err := conn.Delete(s.nodePath(name), -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("remove %s: %w", s.nodePath(name), err)
	}
	return nil
}

// writeState writes state to a new file prefix<random> in the storage
// directory, whole or not at all.
func (s *StateHandleStore) writeState(state []byte) (string, error) {
	var random [16]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", err
	}
	file := filepath.Join(s.storageDir, s.prefix+hex.EncodeToString(random[:]))
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, state, 0o644); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write the state to the HA storage directory: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write the state to the HA storage directory: %w", err)
	}
	return file, nil
}
