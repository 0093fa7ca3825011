package zookeeper

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

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
// and for the completed checkpoints of a job (see CompletedCheckpointStore):
//
//	/flink/default/jobs/<jobid>/checkpoints/0000000000000000007   {"path": "<storageDir>/default/completedCheckpoint9c2e…"}
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
	log        *slog.Logger
}

// RetrievableStateHandle is what a node holds: where its state is (Flink's
// RetrievableStreamStateHandle around a FileStateHandle).
type RetrievableStateHandle struct {
	Path string `json:"path"`
}

// RetrieveState reads the state the handle points at.
func (h RetrievableStateHandle) RetrieveState() ([]byte, error) { return os.ReadFile(h.Path) }

// DiscardState deletes the state's file; a file already gone is no error.
func (h RetrievableStateHandle) DiscardState() error {
	if err := os.Remove(h.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// NamedStateHandle is a node of the store: its name and its handle.
type NamedStateHandle struct {
	Name   string
	Handle RetrievableStateHandle
}

// NewStateHandleStore returns a store of nodes under root whose state goes
// to files named prefix<random> in storageDir.
func NewStateHandleStore(client *Client, root, storageDir, prefix string, logger *slog.Logger) (*StateHandleStore, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(storageDir, 0o755); err != nil {
		return nil, fmt.Errorf("create the HA storage directory: %w", err)
	}
	if err := client.EnsurePath(root); err != nil {
		return nil, err
	}
	return &StateHandleStore{client: client, root: root, storageDir: storageDir, prefix: prefix,
		lockNode: api.NewLeaderSessionID().String(), log: logger.With("logger", "ZooKeeperStateHandleStore")}, nil
}

// String names the store as Flink's toString does, by the namespace of its
// Curator client, which has no leading slash:
// "ZooKeeperStateHandleStore{namespace='flink/default/jobgraphs'}".
func (s *StateHandleStore) String() string {
	return fmt.Sprintf("ZooKeeperStateHandleStore{namespace='%s'}", strings.TrimPrefix(s.client.Path(s.root), "/"))
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
	handle, err := json.Marshal(RetrievableStateHandle{Path: file})
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
	handle, err := json.Marshal(RetrievableStateHandle{Path: file})
	if err != nil {
		return err
	}
	if _, err := conn.Set(s.nodePath(name), handle, stat.Version); err != nil {
		os.Remove(file)
		return fmt.Errorf("replace %s: %w", s.nodePath(name), err)
	}
	var old RetrievableStateHandle
	if json.Unmarshal(data, &old) == nil && old.Path != "" {
		_ = old.DiscardState()
	}
	return nil
}

// GetAndLock locks name for this process and reads its state.
func (s *StateHandleStore) GetAndLock(name string) ([]byte, error) {
	handle, err := s.getAndLockHandle(name)
	if err != nil {
		return nil, err
	}
	state, err := handle.RetrieveState()
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", s.nodePath(name), err)
	}
	return state, nil
}

// getAndLockHandle locks name for this process and reads its handle. A
// node marked for deletion, or gone, is ErrNotExists; a node whose handle
// cannot be read is errCorruptedHandle, and this process's lock is
// released again.
func (s *StateHandleStore) getAndLockHandle(name string) (RetrievableStateHandle, error) {
	conn := s.client.Conn()
	_, err := conn.Create(s.lockPath(name), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	switch {
	case errors.Is(err, zk.ErrNoNode): // no locks node: marked for deletion, or no node at all
		return RetrievableStateHandle{}, fmt.Errorf("ZooKeeper node %s %w.", s.nodePath(name), ErrNotExists)
	case err != nil && !errors.Is(err, zk.ErrNodeExists): // exists: locked by this process already
		return RetrievableStateHandle{}, fmt.Errorf("lock %s: %w", s.nodePath(name), err)
	}
	data, _, err := conn.Get(s.nodePath(name))
	if errors.Is(err, zk.ErrNoNode) {
		return RetrievableStateHandle{}, fmt.Errorf("ZooKeeper node %s %w.", s.nodePath(name), ErrNotExists)
	}
	if err != nil {
		return RetrievableStateHandle{}, fmt.Errorf("read %s: %w", s.nodePath(name), err)
	}
	var handle RetrievableStateHandle
	if err := json.Unmarshal(data, &handle); err != nil || handle.Path == "" {
		_ = s.Release(name)
		return RetrievableStateHandle{}, fmt.Errorf("Failed to deserialize state handle from ZooKeeper data from %s.: %w",
			s.nodePath(name), errCorruptedHandle)
	}
	return handle, nil
}

// errCorruptedHandle: a node's data is no state handle.
var errCorruptedHandle = errors.New("corrupted state handle")

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
		return fmt.Errorf("Could not release the lock: %s.: %w", s.lockPath(name), err)
	}
	return nil
}

// ReleaseAndTryRemove gives up this process's lock and, if no other
// process holds one, removes the name: its locks node first (marking it
// for deletion), then its state's file, then its node. removed is false
// when another process still holds the name: it stays, with its file.
func (s *StateHandleStore) ReleaseAndTryRemove(name string) (removed bool, err error) {
	conn := s.client.Conn()
	var handle *RetrievableStateHandle
	if data, _, err := conn.Get(s.nodePath(name)); err == nil {
		var h RetrievableStateHandle
		if json.Unmarshal(data, &h) == nil && h.Path != "" {
			handle = &h
		}
	}
	if handle == nil {
		s.log.Warn(fmt.Sprintf("Could not retrieve the state handle from node %s.", s.nodePath(name)))
	}
	if err := s.Release(name); err != nil {
		return false, err
	}
	err = conn.Delete(s.locksPath(name), -1)
	switch {
	case errors.Is(err, zk.ErrNotEmpty):
		s.log.Debug(fmt.Sprintf("Could not delete znode %s because it is still locked.", s.locksPath(name)))
		return false, nil
	case err != nil && !errors.Is(err, zk.ErrNoNode):
		return false, fmt.Errorf("remove %s: %w", s.nodePath(name), err)
	}
	if handle != nil {
		if err := handle.DiscardState(); err != nil {
			return false, fmt.Errorf("remove the state of %s: %w", s.nodePath(name), err)
		}
	}
	if err := conn.Delete(s.nodePath(name), -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return false, fmt.Errorf("remove %s: %w", s.nodePath(name), err)
	}
	return true, nil
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

// GetAllAndLock locks every node of the store for this process and
// returns their handles, sorted by name (Flink: getAllAndLock, whose
// caller sorts). A node marked for deletion is left out. A node whose
// data is no handle is left out too, with Flink's WARN: its state cannot
// be found anyway. When a node is added or removed meanwhile, the list is
// read again.
func (s *StateHandleStore) GetAllAndLock() ([]NamedStateHandle, error) {
	conn := s.client.Conn()
	root := s.client.Path(s.root)
	for {
		children, stat, err := conn.Children(root)
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
		slices.Sort(children)
		var handles []NamedStateHandle
		for _, name := range children {
			handle, err := s.getAndLockHandle(name)
			switch {
			case errors.Is(err, ErrNotExists): // marked for deletion, or removed meanwhile
				continue
			case errors.Is(err, errCorruptedHandle):
				s.log.Warn(fmt.Sprintf("Could not get all ZooKeeper children. Node %s contained corrupted data. Ignoring this node.",
					s.nodePath(name)), "cause", err.Error())
				continue
			case err != nil:
				return nil, err
			}
			handles = append(handles, NamedStateHandle{Name: name, Handle: handle})
		}
		// Did a node come or go while they were read (the children's
		// version, cVersion, counts their changes)? Then read them again.
		ok, after, err := conn.Exists(root)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
		if ok && after.Cversion == stat.Cversion {
			return handles, nil
		}
	}
}

// ReleaseAll gives up this process's locks on every node; the nodes and
// their state stay, for the next leader.
func (s *StateHandleStore) ReleaseAll() error {
	children, _, err := s.client.Conn().Children(s.client.Path(s.root))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Could not properly release all state nodes.: %w", err)
	}
	var errs []error
	for _, name := range children {
		errs = append(errs, s.Release(name))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("Could not properly release all state nodes.: %w", err)
	}
	return nil
}

// ClearEntries deletes the store's root node and everything under it,
// whoever holds a lock: the nodes, not the files they point at (Flink:
// clearEntries, "Removing … from ZooKeeper").
func (s *StateHandleStore) ClearEntries() error {
	root := s.client.Path(s.root)
	s.log.Info(fmt.Sprintf("Removing %s from ZooKeeper", root))
	return s.client.DeleteRecursively(s.root)
}
