package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// StreamStateHandle names the bytes of one snapshot: a file the task
// wrote into the checkpoint's directory (Flink's FileStateHandle), or the
// bytes themselves, carried in the acknowledgement and kept in the
// checkpoint's _metadata (Flink's ByteStreamStateHandle), which is where
// state smaller than state.storage.fs.memory-threshold goes, and all state
// when the JobManager keeps the checkpoints (JobManagerCheckpointStorage).
type StreamStateHandle struct {
	// FilePath is the file's absolute path; empty for inline bytes.
	FilePath string `json:"filePath,omitempty"`
	// Data are the bytes, when FilePath is empty.
	Data []byte `json:"data,omitempty"`
	// StateSize is the number of bytes, in the file or inline.
	StateSize int64 `json:"stateSize"`
}

// Read returns the handle's bytes.
func (h StreamStateHandle) Read() ([]byte, error) {
	if h.FilePath == "" {
		return h.Data, nil
	}
	data, err := os.ReadFile(h.FilePath)
	if err != nil {
		return nil, fmt.Errorf("cannot read state file: %w", err)
	}
	if int64(len(data)) != h.StateSize {
		return nil, fmt.Errorf("state file %s holds %d bytes, the checkpoint says %d", h.FilePath, len(data), h.StateSize)
	}
	return data, nil
}

// DiscardState deletes the handle's file, if it has one (Flink:
// StateObject#discardState). A file already gone is no error.
func (h StreamStateHandle) DiscardState() error {
	if h.FilePath == "" {
		return nil
	}
	if err := os.Remove(h.FilePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// KeyGroupsStateHandle is the keyed state of one subtask's operator: the
// bytes of its key groups, one after the other, and where each key group
// starts (Flink's KeyGroupsStateHandle with its KeyGroupRangeOffsets). A
// key group's bytes end where the next one's start, the last one's at the
// end of the delegate.
//
// Because every key group can be found on its own, the JobMaster can hand
// a subtask of a job with a new parallelism exactly the key groups it now
// owns (Intersection), without reading any state.
type KeyGroupsStateHandle struct {
	KeyGroupRange KeyGroupRange `json:"keyGroupRange"`
	// Offsets[i] is where key group KeyGroupRange.StartKeyGroup+i starts
	// in the delegate's bytes.
	Offsets  []int64           `json:"offsets"`
	Delegate StreamStateHandle `json:"delegate"`
	// End is where the range's last key group ends in the delegate's
	// bytes: its StateSize for a whole snapshot, less for an intersection.
	End int64 `json:"end"`
}

// Intersection returns the part of the handle that holds the key groups
// of r, and false if there is none (Flink: KeyGroupsStateHandle#getIntersection).
// Both share the delegate.
func (h KeyGroupsStateHandle) Intersection(r KeyGroupRange) (KeyGroupsStateHandle, bool) {
	both := h.KeyGroupRange.Intersection(r)
	if both.NumberOfKeyGroups() == 0 {
		return KeyGroupsStateHandle{}, false
	}
	from := both.StartKeyGroup - h.KeyGroupRange.StartKeyGroup
	to := both.EndKeyGroup - h.KeyGroupRange.StartKeyGroup + 1
	end := h.End
	if to < len(h.Offsets) {
		end = h.Offsets[to]
	}
	return KeyGroupsStateHandle{KeyGroupRange: both, Offsets: h.Offsets[from:to], Delegate: h.Delegate, End: end}, true
}

// KeyGroups calls fn with each key group of the handle and its bytes, in
// order, reading the delegate once.
func (h KeyGroupsStateHandle) KeyGroups(fn func(keyGroup int, data []byte) error) error {
	data, err := h.Delegate.Read()
	if err != nil {
		return err
	}
	for i, start := range h.Offsets {
		end := h.End
		if i+1 < len(h.Offsets) {
			end = h.Offsets[i+1]
		}
		if start < 0 || start > end || end > int64(len(data)) {
			return fmt.Errorf("key group %d of %v lies outside its state (%d..%d of %d bytes)",
				h.KeyGroupRange.StartKeyGroup+i, h.KeyGroupRange, start, end, len(data))
		}
		if err := fn(h.KeyGroupRange.StartKeyGroup+i, data[start:end]); err != nil {
			return err
		}
	}
	return nil
}

// OperatorStateDistributionMode says how the elements of a list of
// operator state are handed out on restore (Flink's
// OperatorStateHandle.Mode).
type OperatorStateDistributionMode string

const (
	// SplitDistribute splits the elements of all subtasks among the new
	// subtasks, round robin (getListState).
	SplitDistribute OperatorStateDistributionMode = "SPLIT_DISTRIBUTE"
	// Union hands every new subtask every element of every old subtask
	// (getUnionListState).
	Union OperatorStateDistributionMode = "UNION"
)

// StateMetaInfo says where the elements of one named list of operator
// state start, and how they are handed out (Flink's
// OperatorStateHandle.StateMetaInfo).
type StateMetaInfo struct {
	Offsets          []int64                       `json:"offsets"`
	DistributionMode OperatorStateDistributionMode `json:"distributionMode"`
}

// OperatorStateHandle is the operator state of one subtask's operator:
// named lists of elements, each element written as its length (a uvarint)
// and its bytes (Flink's OperatorStreamStateHandle). A source keeps its
// position this way.
type OperatorStateHandle struct {
	StateNameToPartitionOffsets map[string]StateMetaInfo `json:"stateNameToPartitionOffsets"`
	Delegate                    StreamStateHandle        `json:"delegate"`
}

// Elements returns the elements of the list named name, reading the
// delegate.
func (h OperatorStateHandle) Elements(name string) ([][]byte, error) {
	info, ok := h.StateNameToPartitionOffsets[name]
	if !ok {
		return nil, nil
	}
	data, err := h.Delegate.Read()
	if err != nil {
		return nil, err
	}
	elements := make([][]byte, 0, len(info.Offsets))
	for _, offset := range info.Offsets {
		element, err := readElement(data, offset)
		if err != nil {
			return nil, fmt.Errorf("operator state %q: %w", name, err)
		}
		elements = append(elements, element)
	}
	return elements, nil
}

// AppendElement appends one length-prefixed element to data, as
// OperatorStateHandle expects them, and returns data and the element's
// offset.
func AppendElement(data, element []byte) ([]byte, int64) {
	offset := int64(len(data))
	data = binary.AppendUvarint(data, uint64(len(element)))
	return append(data, element...), offset
}

func readElement(data []byte, offset int64) ([]byte, error) {
	if offset < 0 || offset >= int64(len(data)) {
		return nil, fmt.Errorf("offset %d lies outside the state's %d bytes", offset, len(data))
	}
	n, size := binary.Uvarint(data[offset:])
	start := offset + int64(size)
	if size <= 0 || n > uint64(int64(len(data))-start) {
		return nil, fmt.Errorf("corrupt element at offset %d", offset)
	}
	return data[start : start+int64(n)], nil
}

// DiscardState deletes the files of the handle.
func (h OperatorStateHandle) DiscardState() error { return h.Delegate.DiscardState() }

// DiscardState deletes the files of the handle.
func (h KeyGroupsStateHandle) DiscardState() error { return h.Delegate.DiscardState() }
